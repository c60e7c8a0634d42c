"""Fares of the lines, set by decree."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction

from licensing.transit import rules as rules
from licensing.transit.citations import cite
from licensing.transit.models import (
    BusFare,
    BusLine,
    ConcessionStatus,
    FareZone,
)
from licensing.transit.selectors import forget_fares_state
from licensing.transit.services._common import _law_basis, _locked, _user, param, transit_pack
from licensing.transit.services.lines import current_itinerary
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition


# --- fares ---------------------------------------------------------------------------------
@transaction.atomic
def fare_set(*, actor, line: BusLine, zone: str, amount: Decimal, decree: str, announced_on: date,
             effective_from: date) -> BusFare:
    """Art. 15–17: a fare by decree; a change takes effect at least N days after announcement."""
    pack = transit_pack()
    notice_days, basis = param(pack, "fare.min_notice_days")
    may_differ, zone_basis = param(pack, "fare.urban_rural_may_differ")
    line = _locked(BusLine, line)
    if line.concession.status in (ConcessionStatus.BIDDING_FAILED, ConcessionStatus.LAPSED, ConcessionStatus.EXTINCT):
        raise InvalidTransition(f"A concessão da linha {line.code} não está em vigor.")
    if zone not in FareZone.values:
        raise ValidationError({"zone": ["Escolha o trecho: urbano ou rural."]})
    zones = set(current_itinerary(line).segments.values_list("zone", flat=True))
    for v in (rules.fare_amount_violation(amount, basis),
              rules.fare_zone_violation(zone, zones, bool(may_differ), zone_basis)):
        if v:
            raise v
    if not decree.strip():
        raise ValidationError({"decree": [cite("Informe o decreto que fixa a tarifa ({fare_decree}).", pack)]})
    if effective_from < announced_on:
        raise ValidationError({"effective_from": ["A vigência não pode ser anterior ao anúncio."]})
    is_change = line.fares.filter(zone=zone).exists()
    if is_change:
        violation = rules.notice_violation(announced_on, effective_from, notice_days, basis,
                                           what="A nova tarifa", code="fare_notice_too_short")
        if violation:
            raise violation
    fare = BusFare.objects.create(
        line=line, zone=zone, amount=Decimal(amount).quantize(rules.CENT), decree=decree.strip(),
        announced_on=announced_on, effective_from=effective_from,
        legal_basis=basis if is_change else _law_basis(pack, "initial_fare"), created_by=_user(actor),
    )
    forget_fares_state()
    transaction.on_commit(forget_fares_state)
    audit_log(actor=actor, obj=fare, action=AuditAction.FARE_SET, reason=f"Tarifa fixada pelo {fare.decree}",
              data={"line": line.code, "zone": zone, "amount": str(fare.amount),
                    "announced_on": announced_on.isoformat(), "effective_from": effective_from.isoformat(),
                    "legal_basis": fare.legal_basis})
    return fare
