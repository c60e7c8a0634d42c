"""Pure date arithmetic shared by the rules modules (no Django)."""

from __future__ import annotations

import calendar
from datetime import date


def add_years(day: date, years: int) -> date:
    """Same calendar day ``years`` later (29 Feb → 28 Feb)."""
    target = day.year + years
    last = calendar.monthrange(target, day.month)[1]
    return day.replace(year=target, day=min(day.day, last))
