"""Daily jobs at a local time of each municipality, whatever the installation's own zone.

One beat serves every municipality of the installation, and they need not share a UTC offset
(America/Noronha is UTC−2, America/Rio_Branco UTC−5). So a daily job is not fired at one wall
time: beat fires it every hour at the job's minute, and each municipality runs it when its own
local clock has passed the job's time and no successful run of the job has started there since
that moment today. That also catches up a day beat missed (it was down at the hour) and
retries a failed run at the next hour, never runs before the local time, and never twice.

Plain data and pure functions (no Django import): the ``<app>/schedule.py`` files are read
when the settings load.
"""

from __future__ import annotations

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

from celery.schedules import crontab


def parse_local_time(value: str) -> time:
    """``"HH:MM"`` → ``time``; anything else is a programming error in a schedule file."""
    hour, minute = value.split(":")
    return time(int(hour), int(minute))


def daily_local(task: str, hour: int, minute: int) -> dict:
    """A beat entry running ``task`` every day at ``hour:minute`` local time of each municipality.

    Beat fires at the minute of every hour (in whole-hour zones, such as all of Brazil's, the run
    starts exactly at the local time; in a half-hour zone, within the hour after it). The task
    receives the local time and hands it to ``portal.jobs.run_job``."""
    local_time = f"{hour:02d}:{minute:02d}"
    parse_local_time(local_time)  # a wrong hour or minute fails when the settings load
    return {"task": task, "schedule": crontab(minute=minute), "kwargs": {"local_time": local_time}}


def due_at(now: datetime, zone: str, local_time: str) -> datetime | None:
    """The instant (aware) the job fell due today in ``zone``, or None if not yet due today.

    ``now`` is aware. A local time that does not exist on a day a zone moves its clock forward
    is read with the offset before the change (zoneinfo's fold=0), so the job still runs that day.
    """
    tz = ZoneInfo(zone)
    local_now = now.astimezone(tz)
    due = datetime.combine(local_now.date(), parse_local_time(local_time), tzinfo=tz)
    return due if now >= due else None


def is_due(now: datetime, zone: str, local_time: str, last_success_started: datetime | None) -> bool:
    """Whether a daily job runs now in a municipality of ``zone``: its local time has passed
    today and no successful (or still running) run of it started since then."""
    due = due_at(now, zone, local_time)
    if due is None:
        return False
    return last_success_started is None or last_success_started.astimezone(UTC) < due.astimezone(UTC)
