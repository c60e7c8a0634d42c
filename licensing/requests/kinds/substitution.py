"""Substituição de veículo: the ground, the substitute's age and papers; a vistoria of the
substitute is recorded before the grant, which moves the grant (and its stand) to the new vehicle."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.exceptions import ValidationError

from fleet.services import save_own_vehicle
from licensing.grants.models import (
    CURRENT_STATUSES,
    AmendmentKind,
    Authorization,
)
from licensing.grants.services import (
    amendment_issue,
    ensure_plate_free,
    vehicle_bond_basis,
    vehicle_change,
)
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    raise_all,
    register,
    vehicle_alvara_reissue,
)
from licensing.requests.models import RequestKind
from licensing.requests.rules import (
    substitution_grounds,
    substitution_violation,
)
from licensing.stands.models import AssignmentStatus, StandAssignment
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation
from portal.validators import (
    normalize_plate,
    only_digits,
    validate_plate,
    validate_renavam,
)


def offered(pack, modality: str) -> bool:
    return pack.value("substitution.allowed", modality, True) is not False


def _vehicle_data(data: dict) -> dict:
    raw = data.get("vehicle")
    if not isinstance(raw, dict):
        raw = {k[len("vehicle_"):]: v for k, v in data.items() if str(k).startswith("vehicle_")}
    plate = normalize_plate(str(raw.get("plate") or ""))
    errors: dict[str, list[str]] = {}
    try:
        validate_plate(plate)
    except ValidationError as exc:
        errors["vehicle_plate"] = exc.messages
    renavam = only_digits(str(raw.get("renavam") or ""))
    try:
        validate_renavam(renavam)
    except ValidationError as exc:
        errors["vehicle_renavam"] = exc.messages
    out: dict[str, Any] = {"plate": plate, "renavam": renavam}
    for key, label in (("make", "a marca"), ("model", "o modelo"), ("color", "a cor")):
        out[key] = str(raw.get(key) or "").strip()[:80]
        if not out[key]:
            errors[f"vehicle_{key}"] = [f"Informe {label} do veículo substituto."]
    try:
        out["manufacture_year"] = int(str(raw.get("manufacture_year")).strip())
        if not 1950 <= out["manufacture_year"] <= 2100:
            raise ValueError
    except (TypeError, ValueError):
        errors["vehicle_manufacture_year"] = ["Informe o ano de fabricação (ex.: 2024)."]
    first = raw.get("first_registration_date")
    try:
        out["first_registration_date"] = date.fromisoformat(str(first)).isoformat() if first else None
    except ValueError:
        errors["vehicle_first_registration_date"] = ["Data do primeiro licenciamento inválida (AAAA-MM-DD)."]
    for key in ("doors", "seats", "engine_cc"):
        value = raw.get(key)
        try:
            out[key] = int(value) if value not in (None, "") else None
        except (TypeError, ValueError):
            errors[f"vehicle_{key}"] = ["Informe um número inteiro."]
    if errors:
        raise ValidationError(errors)
    return out


def make_form(form_class, data, *, auth, user):
    from portal import regulation

    return form_class(data, grounds=substitution_grounds(regulation.current().param("substitution.grounds",
                                                                                    auth.modality)))


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    from fleet import rules as fleet_rules

    allowed = pack.param("substitution.allowed", auth.modality)
    if allowed is not None and not allowed.value:
        raise RuleViolation("substitution_forbidden", "A lei do município não admite a substituição do veículo.",
                            allowed.legal_basis)
    grounds = pack.param("substitution.grounds", auth.modality)
    ground = str(data.get("ground") or "").strip()
    vehicle = _vehicle_data(data)
    if auth.vehicle and vehicle["plate"] == auth.vehicle.plate:
        raise ValidationError({"vehicle_plate": ["Informe a placa do veículo substituto, não a do atual."]})
    if vehicle["manufacture_year"] > on.year:
        raise ValidationError({"vehicle_manufacture_year": [
            f"O ano de fabricação ({vehicle['manufacture_year']}) não pode ser posterior ao ano atual."]})
    first = date.fromisoformat(vehicle["first_registration_date"]) if vehicle["first_registration_date"] else None
    if first is not None and first > on:
        raise ValidationError({"vehicle_first_registration_date": [
            f"A data do primeiro licenciamento ({first:%d/%m/%Y}) não pode ser futura."]})
    # by plate, over every person's row: the plate is in service whoever declared it
    if Authorization.objects.filter(vehicle__plate=vehicle["plate"], status__in=CURRENT_STATUSES).exclude(
            pk=auth.pk).exists():
        raise RuleViolation("substitution_vehicle_in_use", "Este veículo já está vinculado a outra autorização vigente.",
                            vehicle_bond_basis(pack, auth.modality), field="vehicle_plate", conflict=True)
    old = auth.vehicle
    violation = substitution_violation(
        allowed=allowed, grounds=grounds, ground=ground,
        old_year=old.manufacture_year if old else 0,
        old_first_registration=old.first_registration_date if old else None,
        new_year=vehicle["manufacture_year"],
        certificate_issuer=str(data.get("certificate_issuer") or ""),
        certificate_number=str(data.get("certificate_number") or ""),
        age_basis=pack.param("vehicle.age_basis", auth.modality),
        max_age=pack.param("vehicle.max_age_years", auth.modality), on=on,
    )
    if violation:
        raise violation
    # The substitute meets the same vehicle rules as at entry (doors, seats, engine, colour, age
    # by the pack's basis): one function for every door.
    raise_all(fleet_rules.vehicle_violations(vehicle, on, fleet_rules.vehicle_params(pack, auth.modality),
                                             field_prefix="vehicle_"))
    clean = {"ground": ground, "vehicle": vehicle,
             "old_plate": old.plate if old else "",
             "certificate_issuer": str(data.get("certificate_issuer") or ""),
             "certificate_number": str(data.get("certificate_number") or "").strip()[:60]}
    basis = substitution_grounds(grounds).get(ground) or (allowed.legal_basis if allowed else "")
    return clean, basis


def apply(*, actor, req, auth, pack, reason) -> dict:
    v = req.data["vehicle"]
    # The holder's own row for the new plate, with the data the request declared and the
    # vistoria checked; another person's row with that plate is never taken over.
    vehicle, created = save_own_vehicle(owner=auth.holder, plate=v["plate"], fields={
        "renavam": v["renavam"], "make": v["make"], "model": v["model"], "color": v["color"],
        "manufacture_year": v["manufacture_year"],
        "first_registration_date": date.fromisoformat(v["first_registration_date"]) if v.get(
            "first_registration_date") else None,
        "doors": v.get("doors"), "seats": v.get("seats"), "engine_cc": v.get("engine_cc"),
        "kind": "motorcycle" if auth.modality == "mototaxi" else "car",
    })
    if created:
        audit_log(actor=actor, obj=vehicle, action=AuditAction.VEHICLE_REGISTERED, reason=f"Substituição (pedido {req.protocol})")
    ensure_plate_free(vehicle=vehicle, holder=auth.holder, modality=auth.modality)
    old = auth.vehicle
    auth.vehicle = vehicle
    auth.save(update_fields=["vehicle"])
    audit_log(actor=actor, obj=auth, action=AuditAction.AUTHORIZATION_VEHICLE_SUBSTITUTED, reason=reason or req.legal_basis,
              data={"from": old.plate if old else "", "to": vehicle.plate, "request": req.protocol,
                    "ground": req.data.get("ground"), "legal_basis": req.legal_basis})
    StandAssignment.objects.filter(authorization=auth, status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING]).update(
        vehicle_year=vehicle.manufacture_year)
    result: dict[str, Any] = {"old_plate": old.plate if old else "", "new_plate": vehicle.plate}
    new = vehicle_alvara_reissue(actor=actor, auth=auth, pack=pack, reason="Substituição de veículo")
    if new:
        result["alvara"] = {"id": new.pk, "number": new.number, "supersedes": new.supersedes.number}
    amendment = amendment_issue(actor=actor, authorization=auth, kind=AmendmentKind.SUBSTITUTION,
                                changes=[vehicle_change(old, vehicle)], reason=reason or "Substituição de veículo",
                                source=f"pedido {req.protocol}", legal_basis=req.legal_basis, alvara=new)
    result["amendment"] = {"id": amendment.pk, "number": amendment.number}
    return result


KIND = register(Kind(
    code=RequestKind.SUBSTITUTION, form=forms.SubstitutionForm, clean=clean, apply=apply, offered=offered,
    make_form=make_form,
    inspected=True, keep_filed_data=True,
    labels={"ground": "fundamento", "vehicle": "veículo substituto", "old_plate": "placa anterior",
            "new_plate": "nova placa", "certificate_issuer": "emissor da certidão",
            "certificate_number": "número da certidão", "plate": "placa", "renavam": "RENAVAM", "make": "marca",
            "model": "modelo", "color": "cor", "manufacture_year": "ano de fabricação",
            "first_registration_date": "primeiro licenciamento", "doors": "portas", "seats": "lugares",
            "engine_cc": "cilindrada", "amendment": "ato de alteração"},
    action_labels={"substitution_inspection": "vistoria registrada"},
))
