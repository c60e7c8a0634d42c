"""Pure date and quota arithmetic of grants (no database)."""

from __future__ import annotations

import calendar
from datetime import date

from fleet.rules import (  # noqa: F401  (re-exported: the vehicle rules live with the vehicles)
    full_years_between,
    normalize_color,
    vehicle_age,
    vehicle_color,
    vehicle_doors,
    vehicle_engine,
    vehicle_seats,
)


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


def quota_slots(population: int, inhabitants_per_slot: int) -> int:
    """floor(population ÷ inhabitants per slot)."""
    if inhabitants_per_slot <= 0:
        raise ValueError("inhabitants_per_slot must be positive")
    return population // inhabitants_per_slot
