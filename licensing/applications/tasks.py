"""Celery task of applications: LGPD retention of the files of closed applications.
Safe to run twice. The task name is pinned."""

from __future__ import annotations

from celery import shared_task

from licensing.applications import review
from portal.jobs import run_job


@shared_task(acks_late=True, name="licensing.tasks.purge_expired_documents")
def purge_expired_documents(local_time: str | None = None) -> int:
    return run_job("licensing.purge_expired_documents", review.purge_expired_documents, local_time=local_time)


@shared_task(acks_late=True, name="licensing.tasks.freeze_receipt")
def freeze_receipt(pk: int) -> bool:
    """Render, sign and store the protocol receipt right after the application was protocolled
    (idempotent: a receipt already stored is left as it is)."""
    from licensing.applications.documents import issued_receipt_pdf
    from licensing.applications.models import Application

    application = Application.objects.filter(pk=pk).exclude(protocol="").first()
    return application is not None and bool(issued_receipt_pdf(application))
