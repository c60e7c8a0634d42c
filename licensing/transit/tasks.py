"""Periodic job of collective transport (idempotent): deadlines that run by themselves.

Contract not signed in time (art. 8, §ún.), service not started in time (art. 22),
intervention procedure not opened (art. 24) or not concluded (art. 24, §2), end of term
(art. 18, I). See ``services_transit.transit_deadlines_sweep``.
"""

from __future__ import annotations

from celery import shared_task

from licensing.transit.services import transit_deadlines_sweep
from portal.jobs import run_job


@shared_task(acks_late=True, name="licensing.tasks_transit.transit_deadlines")
def transit_deadlines() -> int:
    return run_job("transit_deadlines", transit_deadlines_sweep)


@shared_task(acks_late=True, name="licensing.tasks_transit.freeze_contract")
def freeze_contract(pk: int) -> bool:
    """Render, sign and store the concession contract right after its signature was recorded
    (idempotent: a contract already stored is left as it is)."""
    from licensing.transit.documents import concession_contract_pdf
    from licensing.transit.models import Concession

    concession = Concession.objects.filter(pk=pk).first()
    if concession is None or not concession.contract_signed_on:
        return False
    concession_contract_pdf(concession)
    return True
