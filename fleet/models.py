"""Vehicles used in the service."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from portal.models import TenantModel
from portal.validators import validate_plate, validate_renavam


class VehicleKind(models.TextChoices):
    CAR = "car", "automóvel"
    MOTORCYCLE = "motorcycle", "motocicleta"
    BUS = "bus", "ônibus"


def display_plate(plate: str) -> str:
    """ABC1D23 as is; an old-format plate as ABC-1234."""
    if len(plate) == 7 and plate[4].isdigit():
        return f"{plate[:3]}-{plate[3:]}"
    return plate


class VehicleBase(TenantModel):
    """What every registered vehicle has, a car or motorcycle of a grant (``Vehicle``) or a bus
    of a concession (``licensing.transit.models.Bus``): a plate shown in its format and the
    moment it was registered. Abstract: no table; each model keeps its own fields' options."""

    plate: str
    created_at = models.DateTimeField("cadastrado em", default=timezone.now)

    class Meta:
        abstract = True

    @property
    def display_plate(self) -> str:
        return display_plate(self.plate)


class Vehicle(VehicleBase):
    """A vehicle as one person declared it: one row per (plate, owner).

    The row belongs to the application or grant that declared it. A second person who declares
    the same plate gets a row of their own; nobody's declaration overwrites another's (the
    clerk settles a conflict against the CRLV, and a grant is issued on a plate only while
    no other person holds a grant in force on it). Readers that ask "whose vehicle is this
    plate" take the vehicle of the grant in force, not any row with the plate."""

    plate = models.CharField("placa", max_length=7, db_index=True, validators=[validate_plate])
    renavam = models.CharField("RENAVAM", max_length=11, validators=[validate_renavam])
    kind = models.CharField("tipo", max_length=12, choices=VehicleKind.choices, default=VehicleKind.CAR)
    make = models.CharField("marca", max_length=60)
    model = models.CharField("modelo", max_length=80)
    color = models.CharField("cor", max_length=40)
    manufacture_year = models.PositiveSmallIntegerField("ano de fabricação")
    first_registration_date = models.DateField("data do primeiro licenciamento (CRLV)", null=True, blank=True)
    doors = models.PositiveSmallIntegerField("portas", null=True, blank=True)
    seats = models.PositiveSmallIntegerField("lugares", null=True, blank=True)
    engine_cc = models.PositiveIntegerField("cilindrada (cc)", null=True, blank=True)
    registration_category = models.CharField("categoria no CRLV", max_length=30, blank=True, default="aluguel")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
        related_name="vehicles", verbose_name="proprietário",
    )
    updated_at = models.DateTimeField("atualizado em", auto_now=True)

    class Meta:
        verbose_name = "veículo"
        verbose_name_plural = "veículos"
        ordering = ["plate"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(manufacture_year__gte=1950) & models.Q(manufacture_year__lte=2100),
                name="vehicle_year_range",
            ),
            models.UniqueConstraint(fields=["municipality", "plate", "owner"], name="vehicle_plate_owner_unique"),
            # NULL owners are distinct in a unique index: one unowned row per plate, by its own index
            models.UniqueConstraint(fields=["municipality", "plate"], condition=models.Q(owner__isnull=True),
                                    name="vehicle_plate_unowned_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.display_plate} — {self.make} {self.model}"

    def rule_facts(self) -> dict:
        """What the vehicle rules read (fleet.rules.vehicle_violations)."""
        return {"manufacture_year": self.manufacture_year, "first_registration_date": self.first_registration_date,
                "doors": self.doors, "seats": self.seats, "engine_cc": self.engine_cc, "color": self.color}
