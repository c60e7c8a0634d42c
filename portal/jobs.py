"""Bookkeeping of periodic job runs (shown to clerks)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from portal import beat, tenancy
from portal.models import JobRun


def run_job(name: str, func: Callable[[], int], *, local_time: str | None = None) -> int:
    """Run ``func`` (returns the number of items changed) and record the run.

    A periodic job (beat) has no municipality in scope: it runs once per municipality in
    service, each inside that municipality's scope and time zone, with a run recorded for
    each (one municipality's failure does not keep the others from running; it is raised
    after all ran). A daily job names its ``local_time`` ("HH:MM", ``portal.beat.daily_local``):
    beat sends it every hour and it runs only in the municipalities where it is due
    (``portal.beat.is_due``: that local time has passed today in the municipality's zone and no
    successful run started since). With a municipality in scope (a task sent from a request, a
    command with ``--municipality``) it runs for that one, at once."""
    if tenancy.current_id_or_none() is None:
        return _run_for_each_municipality(name, func, local_time)
    return _run_one(name, func)


def _last_success_started(name: str, now: datetime) -> datetime | None:
    """Start of the newest run of ``name`` in the municipality in scope that succeeded or is
    still running (an interrupted one — no end after the time limit — does not count)."""
    limit = timedelta(seconds=int(getattr(settings, "CELERY_TASK_TIME_LIMIT", 900))) + INTERRUPTED_GRACE
    return (JobRun.objects.filter(name=name, failures=0)
            .filter(Q(finished_at__isnull=False) | Q(started_at__gt=now - limit))
            .order_by("-started_at").values_list("started_at", flat=True).first())


def _run_for_each_municipality(name: str, func: Callable[[], int], local_time: str | None) -> int:
    from zoneinfo import ZoneInfo

    from portal.models import Municipality

    total, failed = 0, None
    now = timezone.now()
    # the columns a run needs, not each municipality's whole pack (read from the packs' cache)
    in_service = Municipality.objects.filter(is_active=True).order_by("pk").values_list("pk", "slug", "time_zone")
    for pk, slug, time_zone in in_service:
        with tenancy.activate((pk, slug)), timezone.override(ZoneInfo(time_zone)):
            if local_time is not None and not beat.is_due(now, time_zone, local_time, _last_success_started(name, now)):
                continue
            try:
                total += _run_one(name, func)
            except Exception as exc:  # noqa: BLE001 - recorded on the run; raised once all ran
                failed = failed or exc
    if failed is not None:
        raise failed
    return total


@contextmanager
def _bookkeeping() -> Iterator[None]:
    """The start and end of a run, written without waiting for the disk (PostgreSQL).

    A run per municipality per job per day: two flushes of the write-ahead log for the
    bookkeeping alone were most of a small municipality's run (issue 17, bench_tenants). With
    ``synchronous_commit`` off for these two statements only, the row is durable at the next
    flushed commit — the job's own first transaction, which stays synchronous like every
    change of a record and its audit entry — or within the WAL writer's delay (a fraction of a
    second). Inside an outer transaction the setting would reach its commit: then it is left as is."""
    from django.db import connection, transaction

    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")
        yield


def _run_one(name: str, func: Callable[[], int]) -> int:
    with _bookkeeping():
        run = JobRun.objects.create(name=name, started_at=timezone.now())  # read now: tests move the clock
    try:
        changed = func()
    except Exception as exc:
        run.failures = 1
        run.detail = f"{type(exc).__name__}: {exc}"[:2000]
        run.finished_at = timezone.now()
        with _bookkeeping():
            run.save(update_fields=["failures", "detail", "finished_at"])
        raise
    run.changed = changed or 0
    run.finished_at = timezone.now()
    with _bookkeeping():
        run.save(update_fields=["changed", "finished_at"])
    return run.changed


# A margin over the hard time limit for the worker to record the end of a run it was stopping.
INTERRUPTED_GRACE = timedelta(minutes=2)


def interrupted(run: JobRun, now: datetime | None = None) -> bool:
    """A run that never recorded its end though the time limit passed: its worker was killed
    (a task outliving CELERY_TASK_TIME_LIMIT is stopped by the worker, and run_job records the
    end of every run that returns or raises). The task itself is delivered again by the broker
    (late acks); this run stays as it was left, marked on the jobs page."""
    if run.finished_at is not None:
        return False
    limit = timedelta(seconds=int(getattr(settings, "CELERY_TASK_TIME_LIMIT", 900)))
    return run.started_at + limit + INTERRUPTED_GRACE < (now or timezone.now())
