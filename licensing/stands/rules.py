"""Pure rules of stands: priority, reallocation after a capacity change, swaps."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from portal.exceptions import RuleViolation


# --- stands --------------------------------------------------------------------------
@dataclass(frozen=True)
class StandSlot:
    """A holder at (or waiting for) a stand, with the data the reallocation ranks by."""

    id: int
    registered_on: date
    vehicle_year: int | None = None


@dataclass(frozen=True)
class Reallocation:
    keep: list[StandSlot]
    move_out: list[StandSlot]
    move_in: list[StandSlot]


def stand_priority(slot: StandSlot) -> tuple:
    """Longest registration first; tie: newer vehicle (``stands.reallocation``, §6 of its article)."""
    return (slot.registered_on, -(slot.vehicle_year or 0), slot.id)


def stand_reallocation(*, occupants: list[StandSlot], waiting: list[StandSlot], capacity: int) -> Reallocation:
    """New capacity of a stand: on a reduction the most recent registrations move out
    (``stands.reallocation``); on an increase the places go to the oldest registrations waiting
    (§5); a tie is broken by the newer vehicle (§6)."""
    if capacity < 0:
        raise RuleViolation("stand_capacity", "A capacidade do ponto não pode ser negativa.", field="capacity")
    ranked = sorted(occupants, key=stand_priority)
    keep, move_out = ranked[:capacity], ranked[capacity:]
    free = capacity - len(keep)
    move_in = sorted(waiting, key=stand_priority)[:free] if free > 0 else []
    return Reallocation(keep=keep, move_out=move_out, move_in=move_in)


def stand_swap_violation(*, requires_consent, consent_a: bool, consent_b: bool) -> RuleViolation | None:
    """A swap of stands needs the consent of both holders and the administration's
    decision; one done without it has no effect (``stands.swap_requires_consent``)."""
    if requires_consent is not None and requires_consent.value and not (consent_a and consent_b):
        return RuleViolation("stand_swap_without_consent",
                             "A permuta de pontos exige a anuência dos dois permissionários.",
                             requires_consent.legal_basis, field="consent")
    return None
