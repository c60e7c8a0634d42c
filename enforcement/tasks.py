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
