"""Buses of a concession."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from licensing.transit import rules as rules
from licensing.transit.models import (
    Bus,
    BusStatus,
    Concession,
    ConcessionStatus,
)
from licensing.transit.services._common import _law_basis, _locked, category_entry, transit_pack
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition
from portal.validators import normalize_plate, validate_plate


# --- buses ---------------------------------------------------------------------------------
@transaction.atomic
def bus_register(*, actor, concession: Concession, plate: str, category: str, seated: int, standing: int = 0,
                 make: str = "", model: str = "", manufacture_year: int | None = None) -> Bus:
    """Art. 2: the bus fits its category; art. 9, I: the category of the contract."""
    pack = transit_pack()
    locked = _locked(Concession, concession)
    if locked.status in (ConcessionStatus.BIDDING_FAILED, ConcessionStatus.LAPSED, ConcessionStatus.EXTINCT,
                         ConcessionStatus.AWAITING_CONTRACT):
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}: "
                                "não recebe veículos.")
    plate = normalize_plate(plate)
    validate_plate(plate)
    entry = category_entry(pack, category)
    for v in (rules.bus_category_violation(entry, seated, standing),
              rules.bus_matches_concession_violation(category, locked.category, _law_basis(pack, "contract_category"))):
        if v:
            raise v
    if Bus.objects.filter(plate=plate).exists():
        raise ValidationError({"plate": ["Esta placa já está cadastrada no transporte coletivo."]})
    try:
        with transaction.atomic():
            bus = Bus.objects.create(plate=plate, category=category, seated=seated, standing=standing,
                                     concession=locked, make=make.strip(), model=model.strip(),
                                     manufacture_year=manufacture_year)
    except IntegrityError as exc:
        raise ValidationError({"plate": ["Esta placa já está cadastrada no transporte coletivo."]}) from exc
    audit_log(actor=actor, obj=bus, action=AuditAction.BUS_REGISTERED, to_state=bus.status, reason="Veículo cadastrado",
              data={"concession": locked.number, "category": category, "seated": seated, "standing": standing,
                    "legal_basis": entry.get("legal_basis", "")})
    return bus


@transaction.atomic
def bus_withdraw(*, actor, bus: Bus, reason: str) -> Bus:
    locked = _locked(Bus, bus)
    if locked.status != BusStatus.ACTIVE:
        raise InvalidTransition("O veículo já foi retirado.")
    if not reason.strip():
        raise ValidationError({"reason": ["Informe o motivo da retirada."]})
    locked.status = BusStatus.WITHDRAWN
    locked.save(update_fields=["status"])
    audit_log(actor=actor, obj=locked, action=AuditAction.BUS_WITHDRAWN, from_state=BusStatus.ACTIVE,
              to_state=BusStatus.WITHDRAWN, reason=reason)
    return locked
