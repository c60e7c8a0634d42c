"""Daily jobs at each municipality's local time (portal.beat), one beat for all of them.

Issue 17: "Tasks and beat run per municipality in its own time zone". Boundaries: a minute
before and at the local time, in zones with different UTC offsets (São Paulo UTC−3, Rio
Branco UTC−5, Noronha UTC−2); a run never repeats the same day, a failed one is retried.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from celery.schedules import crontab
from django.conf import settings
from django.utils import timezone

from portal import beat, tenancy
from portal.jobs import run_job


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


# --- pure rule -------------------------------------------------------------------------------
@pytest.mark.parametrize("zone,now,due", [
    ("America/Sao_Paulo", utc(2026, 12, 3, 3, 4, 59), False),   # 00:04:59 local
    ("America/Sao_Paulo", utc(2026, 12, 3, 3, 5), True),        # 00:05 local
    ("America/Rio_Branco", utc(2026, 12, 3, 5, 4, 59), False),  # 00:04:59 local (UTC−5)
    ("America/Rio_Branco", utc(2026, 12, 3, 5, 5), True),
    ("America/Noronha", utc(2026, 12, 3, 2, 4, 59), False),     # UTC−2
    ("America/Noronha", utc(2026, 12, 3, 2, 5), True),
])
def test_a_daily_job_falls_due_at_the_local_time_of_the_zone(zone, now, due):
    ran_yesterday = now - timedelta(days=1) + timedelta(hours=2)  # yesterday, after the time
    assert beat.is_due(now, zone, "00:05", ran_yesterday) is due


def test_a_job_run_today_after_its_time_is_not_due_again_and_a_missed_day_is_caught_up():
    now = utc(2026, 12, 3, 15, 0)  # 12:00 in São Paulo
    assert not beat.is_due(now, "America/Sao_Paulo", "07:00", utc(2026, 12, 3, 10, 0))  # ran at 07:00
    assert beat.is_due(now, "America/Sao_Paulo", "07:00", utc(2026, 12, 3, 9, 59))  # ran at 06:59 only
    assert beat.is_due(now, "America/Sao_Paulo", "07:00", utc(2026, 11, 30, 10, 0))  # beat was down
    assert beat.is_due(now, "America/Sao_Paulo", "07:00", None)


def test_a_time_skipped_by_a_clock_change_still_falls_due_that_day():
    # America/Santiago moved from UTC−4 to UTC−3 at 00:00 on 2026-09-06: 00:05 did not exist
    assert beat.due_at(utc(2026, 9, 6, 12, 0), "America/Santiago", "00:05") is not None


def test_daily_beat_entries_fire_hourly_and_carry_the_local_time():
    entry = settings.CELERY_BEAT_SCHEDULE["licensing-expire-grants"]
    assert entry["kwargs"] == {"local_time": "00:05"}
    assert entry["schedule"] == crontab(minute=5)  # every hour at :05, whatever CELERY_TIMEZONE is
    daily = [e for e in settings.CELERY_BEAT_SCHEDULE.values() if isinstance(e["schedule"], crontab)]
    assert len(daily) == 6 and all("local_time" in e.get("kwargs", {}) for e in daily)
    with pytest.raises(ValueError):
        beat.daily_local("x", 24, 0)


# --- one beat, municipalities in two zones ------------------------------------------------
@pytest.mark.django_db
def test_each_municipality_runs_the_daily_job_at_its_own_local_time(two_municipalities, monkeypatch):
    from portal.models import JobRun, Municipality

    # one of the two lies in Acre (UTC−5), the other in São Paulo's zone (UTC−3)
    Municipality.objects.filter(pk=two_municipalities.b.id).update(time_zone="America/Rio_Branco")
    clock = {"now": utc(2026, 12, 3, 6, 0)}
    monkeypatch.setattr(timezone, "now", lambda: clock["now"])
    seen: list[tuple[str, str]] = []

    def job() -> int:
        seen.append((tenancy.current_slug(), timezone.localtime(clock["now"]).strftime("%H:%M")))
        return 0

    def beat_fires(*args) -> list[tuple[str, str]]:
        clock["now"] = utc(*args)
        seen.clear()
        with tenancy.activate(None):
            run_job("test.daily", job, local_time="00:05")
        return sorted(seen)

    assert beat_fires(2026, 12, 3, 6, 0) == [("alegre", "03:00"), ("itagiba", "01:00")]  # first day: both
    assert beat_fires(2026, 12, 4, 3, 4, 59) == []
    assert beat_fires(2026, 12, 4, 3, 5) == [("alegre", "00:05")]  # 22:05 of the day before in Acre
    assert beat_fires(2026, 12, 4, 4, 5) == []  # already run today
    assert beat_fires(2026, 12, 4, 5, 4, 59) == []
    assert beat_fires(2026, 12, 4, 5, 5) == [("itagiba", "00:05")]
    with tenancy.activate(two_municipalities.a):
        assert JobRun.objects.filter(name="test.daily").count() == 2
    with tenancy.activate(two_municipalities.b):
        assert JobRun.objects.filter(name="test.daily").count() == 2


@pytest.mark.django_db
def test_a_failed_daily_run_is_tried_again_at_the_next_hour(two_municipalities, monkeypatch):
    clock = {"now": utc(2026, 12, 3, 3, 5)}
    monkeypatch.setattr(timezone, "now", lambda: clock["now"])
    calls: list[str] = []

    def flaky() -> int:
        calls.append(tenancy.current_slug())
        if len(calls) == 1:
            raise RuntimeError("servidor de e-mail fora do ar")
        return 1

    with tenancy.activate(None), pytest.raises(RuntimeError):
        run_job("test.flaky", flaky, local_time="00:05")  # the first fails; the other still runs
    assert len(calls) == 2
    clock["now"] = utc(2026, 12, 3, 4, 5)
    with tenancy.activate(None):
        run_job("test.flaky", flaky, local_time="00:05")
    assert len(calls) == 3  # only the failed one again


@pytest.mark.django_db
def test_a_task_sent_for_one_municipality_runs_at_once(two_municipalities, monkeypatch):
    monkeypatch.setattr(timezone, "now", lambda: utc(2026, 12, 3, 12, 0))
    with tenancy.activate(two_municipalities.b):
        run_job("test.now", lambda: 0, local_time="00:05")
        run_job("test.now", lambda: 0, local_time="00:05")
        from portal.models import JobRun
        assert JobRun.objects.filter(name="test.now").count() == 2  # in scope: no due check
