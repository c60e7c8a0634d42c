"""Periodic jobs of a grant's requests: overdue leave returns and yearly obligations.
Task names are pinned."""

from __future__ import annotations

from celery import shared_task

from portal.jobs import run_job


@shared_task(name="licensing.leaves_flag_overdue")
def leaves_flag_overdue_task() -> int:
    """Idempotent: a leave is flagged once (conditional update on its status)."""
    from licensing.requests.services import leaves_flag_overdue

    return run_job("leaves_flag_overdue", lambda: leaves_flag_overdue())


@shared_task(name="licensing.yearly_obligations_check")
def yearly_obligations_check_task(local_time: str | None = None) -> int:
    """Idempotent: each reminder and overdue flag of a yearly obligation (auxiliary driver
    re-registration, permission's proof of requirements) is created once (unique key)."""
    from licensing.requests.services import yearly_obligations_check

    return run_job("yearly_obligations_check", lambda: yearly_obligations_check(), local_time=local_time)
