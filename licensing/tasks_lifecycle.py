"""Periodic job of a grant's life: flag leaves of absence whose return is overdue."""

from __future__ import annotations

from celery import shared_task

from portal.jobs import run_job


@shared_task(name="licensing.leaves_flag_overdue")
def leaves_flag_overdue_task() -> int:
    """Idempotent: a leave is flagged once (conditional update on its status)."""
    from licensing.services_lifecycle import leaves_flag_overdue

    return run_job("leaves_flag_overdue", lambda: leaves_flag_overdue())
