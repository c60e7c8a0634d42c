"""Celery task of applications: LGPD retention of the files of closed applications.
Safe to run twice. The task name is pinned."""

from __future__ import annotations

from celery import shared_task

from licensing.applications import review
from portal.jobs import run_job


@shared_task(acks_late=True, name="licensing.tasks.purge_expired_documents")
def purge_expired_documents() -> int:
    return run_job("licensing.purge_expired_documents", review.purge_expired_documents)
