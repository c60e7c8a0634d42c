"""Celery task of fees: the DAM frozen as issued. The task name is pinned."""

from __future__ import annotations

from celery import shared_task


@shared_task(acks_late=True, name="licensing.tasks.freeze_dam")
def freeze_dam(pk: int) -> bool:
    """Render, sign and store a DAM right after it was issued (idempotent: a DAM already stored
    is left as it is), so the slip paid later is byte for byte the one issued."""
    from licensing.fees.documents import issued_dam_pdf
    from licensing.fees.models import Fee

    fee = Fee.objects.filter(pk=pk).first()
    return fee is not None and bool(issued_dam_pdf(fee))
