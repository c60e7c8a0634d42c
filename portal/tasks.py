"""Background jobs of the base: the e-mail outbox."""

from __future__ import annotations

from celery import shared_task

from portal.jobs import run_job
from portal.notifications import drain_outbox as _drain_outbox
from portal.notifications import send_email_now


@shared_task(acks_late=True)
def send_notification_email(notification_id: int) -> bool:
    return send_email_now(notification_id)


@shared_task(acks_late=True)
def drain_outbox() -> int:
    return run_job("drain_outbox", _drain_outbox)
