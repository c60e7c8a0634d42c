"""Regulations (decretos) that fix values the law leaves to them."""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction

from enforcement import rules
from enforcement.models import (
    RecordedRegulation,
)
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction


def regulation_keys(pack) -> list[tuple[str, str, str]]:
    """(key, label, legal basis) of the values a regulation may fix: the fiscal unit and the fine
    of each infraction whose value the law leaves to a regulation or the pack only exemplifies."""
    out = []
    unit = pack.fiscal_unit
    if unit:
        out.append(("fiscal_unit", f"Valor da {unit.get('name', 'unidade fiscal')} ({unit.get('long_name', '')})",
                    unit.get("legal_basis", "")))
    for item in pack.infractions():
        entry = rules.catalogue_entry(item, pack.penalty_codes)
        for p in entry["penalties"]:
            if p["kind"] == "fine" and (p.get("example") or not p.get("value_set")):
                out.append((f"fine:{item['code']}", f"Multa da infração {item['code']}", p["legal_basis"]))
                break
    return out


@transaction.atomic
def regulation_record(*, actor, key: str, act_number: str, act_date: date, value, effective_from: date | None = None
                      ) -> RecordedRegulation:
    """The administrator records the regulation (decreto) that fixes a value the law leaves to it:
    number, date, value (reais), in force from ``effective_from`` (default: its date). From then on
    the value produces legal effect for infractions committed while it is in force."""
    pack = regulation.current()
    errors: dict[str, list[str]] = {}
    keys = {k for k, _label, _basis in regulation_keys(pack)}
    if key not in keys:
        errors["key"] = ["Escolha um valor que a lei remete a regulamento."]
    if not (act_number or "").strip():
        errors["act_number"] = ["Informe o número do regulamento (decreto)."]
    try:
        amount = Decimal(str(value))
    except (InvalidOperation, TypeError):
        amount = None
    if amount is None or not amount.is_finite() or amount <= 0 or amount >= Decimal("1e10"):
        errors["value"] = ["Informe um valor em reais maior que zero."]
    today = pack.today()
    if act_date is None or act_date > today:
        errors["act_date"] = ["A data do regulamento não pode estar no futuro."]
    effective_from = effective_from or act_date
    if effective_from is not None and act_date is not None and effective_from < act_date:
        errors["effective_from"] = ["A vigência não pode começar antes da data do regulamento."]
    if errors:
        raise ValidationError(errors)
    row = RecordedRegulation.objects.create(
        municipality_id=pack.municipality_id, key=key, act_number=act_number.strip()[:60], act_date=act_date,
        effective_from=effective_from, value=rules.money(amount), recorded_by=actor)
    if key == "fiscal_unit":
        from portal.models import FiscalUnitValue

        unit = pack.fiscal_unit
        FiscalUnitValue.objects.update_or_create(
            municipality_id=pack.municipality_id, name=unit.get("name", ""), effective_from=effective_from,
            defaults={"long_name": unit.get("long_name", ""), "value": row.value, "is_example": False,
                      "legal_basis": f"{row.act_number}, de {act_date:%d/%m/%Y} ({unit.get('legal_basis', '')})"[:300]})
        regulation.invalidate()
        transaction.on_commit(regulation.invalidate)
    audit_log(actor=actor, obj=row, action=AuditAction.REGULATION_RECORDED, to_state="recorded",
              reason=f"Regulamento registrado: {row.act_number}",
              data={"key": key, "act_number": row.act_number, "act_date": act_date.isoformat(),
                    "effective_from": effective_from.isoformat(), "value": str(row.value)})
    return row
