"""Celery tasks of the grant jobs (``licensing.grants.jobs``). Each re-reads the state and is
safe to run twice. Task names are pinned: queued messages and beat entries carry them."""

from __future__ import annotations

from celery import shared_task

from licensing.grants import jobs
from portal.jobs import run_job


@shared_task(acks_late=True, name="licensing.tasks.expire_grants")
def expire_grants(local_time: str | None = None) -> int:
    return run_job("licensing.expire_grants", lambda: jobs.expire_grants().changed, local_time=local_time)


@shared_task(acks_late=True, name="licensing.tasks.send_renewal_reminders")
def send_renewal_reminders(local_time: str | None = None) -> int:
    return run_job("licensing.renewal_reminders", jobs.send_renewal_reminders, local_time=local_time)


@shared_task(acks_late=True, name="licensing.tasks.check_vehicle_ages")
def check_vehicle_ages(local_time: str | None = None) -> int:
    return run_job("licensing.vehicle_age", jobs.check_vehicle_ages, local_time=local_time)


@shared_task(acks_late=True, name="licensing.tasks.check_quotas")
def check_quotas(local_time: str | None = None) -> int:
    name = "licensing.quota_check"
    return run_job(name, lambda: jobs.check_quotas(job_name=name), local_time=local_time)


@shared_task(acks_late=True, name="licensing.tasks.freeze_grant_document")
def freeze_grant_document(kind: str, pk: int) -> bool:
    """Render, sign and store an issued act, act of amendment or alvará right after it was issued (idempotent:
    a document already stored is left as it is)."""
    from licensing.grants.documents import alvara_pdf, amendment_pdf, authorization_pdf
    from licensing.grants.models import Alvara, Amendment, Authorization

    model, render = {"authorization": (Authorization, authorization_pdf), "alvara": (Alvara, alvara_pdf),
                     "amendment": (Amendment, amendment_pdf)}[kind]
    # what the document prints, read with the object (an alvará read alone then cost five more
    # queries, one per person, grant and vehicle; a batch freezes thousands after its commit)
    related = {"authorization": ("holder", "vehicle"),
               "alvara": ("person", "vehicle", "authorization__holder", "authorization__vehicle"),
               "amendment": ("authorization__holder", "alvara__supersedes")}[kind]
    obj = model.objects.select_related(*related).filter(pk=pk).first()
    if obj is None:
        return False
    render(obj)
    return True
