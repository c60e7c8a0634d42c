"""Helpers shared by enforcement tests."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.utils import timezone

from portal import regulation


def at(day, hour=10) -> str:
    """ISO datetime with the municipality's offset for a local date."""
    tz = regulation.current().tz
    moment = datetime.combine(day, time(hour, 0), tzinfo=tz)
    now = timezone.now().astimezone(tz)
    if moment > now:  # early in the local day "today at 10:00" is still ahead: use a moment ago
        moment = now - timedelta(minutes=1)
    return moment.isoformat()
