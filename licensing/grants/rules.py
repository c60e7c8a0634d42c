"""Pure rules of grants (no database): date and quota arithmetic, expiry, the vehicle's
maximum age and which renewal reminder is due."""

from __future__ import annotations

import calendar
from collections.abc import Iterable
from datetime import date

from fleet import rules as fleet_rules


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


# --- pure rules ------------------------------------------------------------------------------
def is_expired(valid_until: date, today: date) -> bool:
    """Valid through ``valid_until`` inclusive: expired only from the next day on."""
    return valid_until < today


# "Atingir a idade máxima" and "acima da idade máxima" are the vehicle rules' (fleet.rules), so
# that the job and every door read the maximum age the same way.
reached_max_age = fleet_rules.reached_max_age
over_max_age = fleet_rules.over_max_age


def reminder_threshold(days_left: int, reminder_days: Iterable[int]) -> int | None:
    """The reminder due with ``days_left`` to expiry: the smallest configured day count not
    below it (a missed 60-day reminder is not sent late once the 30-day one is due)."""
    if days_left < 0:
        return None
    due = [d for d in reminder_days if d >= days_left]
    return min(due) if due else None


def slots_for(pack, modality: str) -> tuple[int, str] | None:
    """(slots, legal basis) for a modality: fixed by an act, or floor(population ÷ per slot)."""
    fixed = pack.param("quota.fixed_slots", modality)
    if fixed is not None:
        return int(fixed.value), fixed.legal_basis
    per_slot = pack.param("quota.inhabitants_per_slot", modality)
    if per_slot is None:
        return None
    return quota_slots(pack.population, int(per_slot.value)), per_slot.legal_basis
