"""Pure functions applying the licensing rules of the pack. No database."""

from __future__ import annotations

import calendar
from datetime import date


def add_years(day: date, years: int) -> date:
    """Same calendar day ``years`` later (29 Feb → 28 Feb)."""
    target = day.year + years
    last = calendar.monthrange(target, day.month)[1]
    return day.replace(year=target, day=min(day.day, last))


def add_months(day: date, months: int) -> date:
    month0 = day.month - 1 + months
    year = day.year + month0 // 12
    month = month0 % 12 + 1
    last = calendar.monthrange(year, month)[1]
    return date(year, month, min(day.day, last))


def full_years_between(start: date, end: date) -> int:
    """Completed years from ``start`` to ``end`` (age on a birthday counts the new year)."""
    years = end.year - start.year
    if (end.month, end.day) < (start.month, start.day):
        years -= 1
    return years


def quota_slots(population: int, inhabitants_per_slot: int) -> int:
    """floor(population ÷ inhabitants per slot)."""
    if inhabitants_per_slot <= 0:
        raise ValueError("inhabitants_per_slot must be positive")
    return population // inhabitants_per_slot
