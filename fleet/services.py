"""Writes of vehicle rows: a person's own declaration of a plate, never another person's."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from fleet.models import Vehicle


def save_own_vehicle(*, owner, plate: str, fields: dict[str, Any]) -> tuple[Vehicle, bool]:
    """Create or update ``owner``'s row for ``plate`` (one row per plate and owner) with ``fields``
    and return it with whether it was created. Another person's row with the same plate is never
    read or written here: a second declaration of a plate is a second row, for the clerk to
    settle against the CRLV. Must run inside a transaction (the row is locked until it ends).

    Two requests of the same person creating the same new plate at once: the loser of the unique
    (plate, owner) index gets the winner's row instead of an IntegrityError (a 500)."""
    vehicle = Vehicle.objects.select_for_update().filter(plate=plate, owner=owner).first()
    created = vehicle is None
    if created:
        vehicle = Vehicle(plate=plate, owner=owner)
    for name, value in fields.items():
        setattr(vehicle, name, value)
    vehicle.full_clean(validate_unique=False, validate_constraints=False)
    # every constraint but the (plate, owner) uniqueness, which the save below settles
    vehicle.validate_constraints(exclude={"plate", "owner"})
    if not created:
        vehicle.save()
        return vehicle, False
    try:
        with transaction.atomic():  # a savepoint: the outer transaction survives the lost race
            vehicle.save()
    except IntegrityError:
        vehicle = Vehicle.objects.select_for_update().get(plate=plate, owner=owner)
        for name, value in fields.items():
            setattr(vehicle, name, value)
        vehicle.save()
        return vehicle, False
    return vehicle, True
