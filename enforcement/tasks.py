"""Periodic advancement of autos: each job is idempotent (rows re-checked under lock)."""

from __future__ import annotations

from celery import shared_task

from enforcement import services
from portal.jobs import run_job


@shared_task(acks_late=True, name="enforcement.tasks.close_defense_windows")
def close_defense_windows() -> int:
    return run_job("enforcement_close_defense_windows", services.close_defense_windows)


@shared_task(acks_late=True, name="enforcement.tasks.close_appeal_windows")
def close_appeal_windows() -> int:
    return run_job("enforcement_close_appeal_windows", services.close_appeal_windows)


@shared_task(acks_late=True, name="enforcement.tasks.lift_ended_suspensions")
def lift_ended_suspensions() -> int:
    return run_job("enforcement_lift_ended_suspensions", services.lift_ended_suspensions)


@shared_task(acks_late=True, name="enforcement.tasks.freeze_infraction_document")
def freeze_infraction_document(doc: str, pk: int) -> bool:
    """Render, sign and store an auto's document (auto, notificação, decisão) right after it was
    issued (idempotent: a document already stored is left as it is)."""
    from enforcement.file_views import issued_infraction_document
    from enforcement.models import Infraction

    inf = Infraction.objects.filter(pk=pk).first()
    return inf is not None and issued_infraction_document(inf, doc) is not None
