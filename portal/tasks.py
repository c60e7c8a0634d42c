"""Background jobs of the base: the e-mail outbox, and a ping to check a worker end to end."""

from __future__ import annotations

import os
import time

from celery import shared_task

from portal.jobs import run_job
from portal.notifications import drain_outbox as _drain_outbox
from portal.notifications import send_email_now


@shared_task(acks_late=True, name="portal.tasks.send_notification_email")
def send_notification_email(notification_id: int) -> bool:
    return send_email_now(notification_id)


@shared_task(acks_late=True, name="portal.tasks.drain_outbox")
def drain_outbox() -> int:
    return run_job("drain_outbox", _drain_outbox)


@shared_task(acks_late=True, name="portal.tasks.ping")
def ping(token: str, seconds: float = 0.0) -> str:
    """Check a worker end to end without the database: counts each start and completion of
    ``token`` in the cache (Redis when configured) and records the pid that ran it."""
    from django.core.cache import cache

    prefix = f"ping:{token}"
    cache.add(f"{prefix}:started", 0, timeout=3600)
    cache.incr(f"{prefix}:started")
    cache.set(f"{prefix}:pid", os.getpid(), timeout=3600)
    time.sleep(max(0.0, min(float(seconds), 60.0)))
    cache.add(f"{prefix}:done", 0, timeout=3600)
    cache.incr(f"{prefix}:done")
    return token


@shared_task(acks_late=True, name="portal.tasks.send_password_reset")
def send_password_reset(email: str, domain: str, use_https: bool = False) -> int:
    """The password-reset e-mail, off the request (same answer time for any address)."""
    from portal.auth_forms import send_reset_email

    return send_reset_email(email, domain, use_https)
