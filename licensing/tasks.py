"""Celery tasks of the grant jobs. Each re-reads the state and is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from licensing import jobs
from licensing.tasks_lifecycle import *  # noqa: F401,F403  (Celery discovers tasks.py only)
from licensing.transit.tasks import transit_deadlines  # noqa: F401 - the transit room's task
from portal.jobs import run_job


@shared_task(acks_late=True, name="licensing.tasks.expire_grants")
def expire_grants() -> int:
    return run_job("licensing.expire_grants", lambda: jobs.expire_grants().changed)


@shared_task(acks_late=True, name="licensing.tasks.send_renewal_reminders")
def send_renewal_reminders() -> int:
    return run_job("licensing.renewal_reminders", jobs.send_renewal_reminders)


@shared_task(acks_late=True, name="licensing.tasks.check_vehicle_ages")
def check_vehicle_ages() -> int:
    return run_job("licensing.vehicle_age", jobs.check_vehicle_ages)


@shared_task(acks_late=True, name="licensing.tasks.check_quotas")
def check_quotas() -> int:
    name = "licensing.quota_check"
    return run_job(name, lambda: jobs.check_quotas(job_name=name))


@shared_task(acks_late=True, name="licensing.tasks.purge_expired_documents")
def purge_expired_documents() -> int:
    return run_job("licensing.purge_expired_documents", jobs.purge_expired_documents)
