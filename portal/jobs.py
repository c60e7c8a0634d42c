"""Bookkeeping of periodic job runs (shown to clerks)."""

from __future__ import annotations

from collections.abc import Callable

from django.utils import timezone

from portal.models import JobRun


def run_job(name: str, func: Callable[[], int]) -> int:
    """Run ``func`` (returns the number of items changed) and record the run."""
    run = JobRun.objects.create(name=name)
    try:
        changed = func()
    except Exception as exc:
        run.failures = 1
        run.detail = f"{type(exc).__name__}: {exc}"[:2000]
        run.finished_at = timezone.now()
        run.save(update_fields=["failures", "detail", "finished_at"])
        raise
    run.changed = changed or 0
    run.finished_at = timezone.now()
    run.save(update_fields=["changed", "finished_at"])
    return run.changed
