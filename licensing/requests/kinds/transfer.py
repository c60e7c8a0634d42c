"""Transferência: on the pack's grounds (years as holder, death, retirement, invalidity);
granted, the grant is cancelled and a successor issued to the new holder, with the stand."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse

from fleet import rules as fleet_rules
from fleet.models import Vehicle
from licensing.grants.models import (
    CURRENT_STATUSES,
    AmendmentKind,
    Authorization,
    AuthorizationStatus,
    HolderType,
)
from licensing.grants.selectors import active_bar
from licensing.grants.services import (
    alvara_issue,
    amendment_issue,
    authorization_set_status,
    ensure_plate_free,
    vehicle_bond_basis,
)
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    alvara_scope,
    documents_presented,
    raise_all,
    read_bool,
    read_choice,
    read_cpf,
    read_date,
    read_text,
    register,
    user_by_cpf,
)
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    RequestKind,
)
from licensing.requests.rules import (
    HEIR_RELATIONSHIPS,
    TRANSFER_GROUNDS,
    driver_requirement_violations,
    transfer_violation,
)
from licensing.stands.models import AssignmentStatus, StandAssignment
from licensing.stands.services import _assignment_close
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation
from portal.notifications import notify
from portal.numbering import document_number, verification_code
from portal.validators import driver_dates_errors, normalize_plate


def offered(pack, modality: str) -> bool:
    return bool(pack.value("transfer.allowed", modality, False))


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    allowed = pack.param("transfer.allowed", auth.modality)
    if allowed is None or not allowed.value:
        raise transfer_violation(allowed=allowed, ground="", held_since=auth.valid_from, filed_on=on)
    ground = read_choice(data, "ground", "o fundamento da transferência", TRANSFER_GROUNDS)
    if auth.holder_type == HolderType.PJ and ground != "holder_years":
        # Reading of Lei 724/2008 (the pack that admits companies), art. 8: II (death, retirement, invalidity -> spouse or heir) and III
        # (incapacity for the profession of driver) are facts of a natural person; a company's
        # permission transfers only under I (held 2 years, to a motorista profissional autônomo).
        raise RuleViolation("transfer_company_ground",
                            "A permissão de pessoa jurídica só se transfere pelo tempo de titularidade, a outro "
                            "motorista profissional autônomo; falecimento, aposentadoria, invalidez e incapacidade "
                            "são fatos da pessoa física.", f"{allowed.legal_basis}, I a III", field="ground")
    event_on = read_date(data, "event_on", "a data do fato", required=False)
    relationship = str(data.get("relationship") or "").strip()
    proof = read_text(data, "proof", "o documento que comprova", required=False)
    violation = transfer_violation(
        allowed=allowed, ground=ground, held_since=held_since(auth), filed_on=on, event_on=event_on,
        relationship=relationship, proof=proof, min_years=pack.param("transfer.min_years_as_holder", auth.modality),
        heir_days=pack.param("transfer.heir_deadline_days", auth.modality),
    )
    if violation:
        raise violation
    cpf = read_cpf(data, "new_holder_cpf")
    new_holder = user_by_cpf(cpf, "new_holder_cpf")
    if new_holder.pk == auth.holder_id:
        raise ValidationError({"new_holder_cpf": ["Informe o CPF do novo titular, não o do atual."]})
    bar = active_bar(cpf, on)
    if bar is not None:
        raise RuleViolation("transfer_barred", f"O novo titular está impedido ({bar.reason}).", bar.legal_basis,
                            field="new_holder_cpf", conflict=True)
    max_per = pack.param("grant.max_per_holder", auth.modality)
    if max_per is not None and Authorization.objects.filter(
        holder=new_holder, status__in=CURRENT_STATUSES
    ).count() >= int(max_per.value):
        raise RuleViolation("transfer_holder_has_grant", "O novo titular já tem autorização vigente.",
                            max_per.legal_basis, field="new_holder_cpf", conflict=True)
    plate = normalize_plate(str(data.get("vehicle_plate") or ""))
    if plate and (not auth.vehicle or plate != auth.vehicle.plate):
        # the new holder's own declaration of the plate: another person's row is never taken over
        if not Vehicle.objects.filter(plate=plate, owner=new_holder).exists():
            raise ValidationError({"vehicle_plate": [
                "Veículo não cadastrado em nome do novo titular: cadastre-o em nome dele antes do pedido."]})
        if Authorization.objects.filter(vehicle__plate=plate, status__in=CURRENT_STATUSES).exclude(pk=auth.pk).exists():
            raise RuleViolation("transfer_vehicle_in_use", "Este veículo já está vinculado a outra autorização vigente.",
                                vehicle_bond_basis(pack, auth.modality), field="vehicle_plate", conflict=True)
    # "desde que o novo permissionário se obrigue a cumprir todas as condições": the new holder
    # meets the entry rules of a holder (CNH, dates, documents) and so does the vehicle
    new_vehicle = Vehicle.objects.filter(plate=plate).first() if plate else auth.vehicle
    driver = _new_holder_requirements(pack, auth, data, new_holder, new_vehicle, on)
    documents = documents_presented(pack, auth, data, "holder", kind="new")
    suffix = {"holder_years": ", I", "incapacity": ", III"}.get(ground, ", II")
    clean = {"ground": ground, "new_holder_cpf": cpf, "new_holder_name": new_holder.display_name,
             "relationship": relationship if relationship in HEIR_RELATIONSHIPS else "",
             "event_on": event_on.isoformat() if event_on else None, "proof": proof, "vehicle_plate": plate,
             **driver, "documents": documents}
    return clean, f"{allowed.legal_basis}{suffix}"


def held_since(auth: Authorization):
    """Since when the holder holds this grant, across its renewals (art. 8, I: "detentor da
    permissão por no mínimo 2 anos" — a renewal continues the same holder's grant)."""
    from licensing.applications.models import Application, ApplicationKind

    current, seen = auth, {auth.pk}
    while True:
        renewal = (Application.objects.filter(authorization=current, kind=ApplicationKind.RENEWAL)
                   .select_related("previous_authorization").first())
        previous = renewal.previous_authorization if renewal else None
        if previous is None or previous.holder_id != auth.holder_id or previous.pk in seen:
            return current.valid_from
        seen.add(previous.pk)
        current = previous


def _new_holder_requirements(pack, auth, data, new_holder, vehicle, on) -> dict:
    """The new holder's CNH (category, years, EAR), plausible dates and the vehicle's rules."""
    cnh = {"new_holder_cnh_category": read_text(data, "new_holder_cnh_category", "a categoria da CNH do novo titular",
                                                max_length=3).upper(),
           "new_holder_cnh_first_issued": read_date(data, "new_holder_cnh_first_issued",
                                                    "a data da primeira habilitação do novo titular"),
           "new_holder_cnh_ear": read_bool(data, "new_holder_cnh_ear")}
    errors = driver_dates_errors(birth_date=new_holder.birth_date, cnh_first_issued=cnh["new_holder_cnh_first_issued"],
                                 today=on, birth_field="new_holder_cpf", cnh_field="new_holder_cnh_first_issued",
                                 person="novo titular")
    if errors:
        raise ValidationError(errors)
    violations = driver_requirement_violations(
        birth_date=new_holder.birth_date, cnh_category=cnh["new_holder_cnh_category"],
        cnh_first_issued=cnh["new_holder_cnh_first_issued"], cnh_ear=cnh["new_holder_cnh_ear"], on=on,
        min_age=pack.param("driver.min_age", auth.modality),
        categories=pack.param("driver.cnh_categories", auth.modality),
        cnh_min_years=pack.param("driver.cnh_min_years", auth.modality),
        ear_required=pack.param("driver.ear_required", auth.modality))
    for v in violations:
        v.field = {"birth_date": "new_holder_cpf"}.get(v.field, f"new_holder_{v.field}")
    if vehicle is not None:
        violations += fleet_rules.vehicle_violations(vehicle.rule_facts(), on,
                                                     fleet_rules.vehicle_params(pack, auth.modality),
                                                     field_prefix="vehicle_")
    raise_all(violations)
    cnh["new_holder_cnh_first_issued"] = cnh["new_holder_cnh_first_issued"].isoformat()
    return cnh


def make_form(form_class, data, *, auth: Authorization, user):
    from portal import regulation

    return form_class(data, documents=regulation.current().documents(auth.modality, "new", applies_to="holder"))


def apply(*, actor, req, auth, pack, reason) -> dict:
    new_holder = get_user_model().objects.get(cpf=req.data["new_holder_cpf"])
    vehicle = auth.vehicle
    if req.data.get("vehicle_plate") and (not vehicle or req.data["vehicle_plate"] != vehicle.plate):
        vehicle = Vehicle.objects.get(plate=req.data["vehicle_plate"], owner=new_holder)
    today = pack.today()
    open_assignment = StandAssignment.objects.filter(
        authorization=auth, status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING]).first()
    authorization_set_status(actor=actor, authorization=auth, to=AuthorizationStatus.CANCELLED,
                             reason=f"Transferida a {new_holder.display_name} (pedido {req.protocol})",
                             data={"request": req.protocol, "legal_basis": req.legal_basis})
    for aux in AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE):
        aux.status = AuxiliaryStatus.REMOVED
        aux.removed_on = today
        aux.removed_request = req
        aux.save(update_fields=["status", "removed_on", "removed_request"])
        audit_log(actor=actor, obj=aux, action=AuditAction.AUXILIARY_REMOVED, from_state=AuxiliaryStatus.ACTIVE,
                  to_state=AuxiliaryStatus.REMOVED, reason="Transferência da autorização")
    act = pack.act("authorization")
    ensure_plate_free(vehicle=vehicle, holder=new_holder, modality=auth.modality)  # the old grant no longer counts
    successor = Authorization.objects.create(
        number=document_number("authorization", today.year), act_name=act.get("name", auth.act_name),
        # the new holder is a natural person (art. 8, I: "outro motorista profissional autônomo"):
        # holder_type keeps its default "pf", whatever the predecessor's holder was
        modality=auth.modality, holder=new_holder, vehicle=vehicle, valid_from=today,
        valid_until=max(auth.valid_until, today), verification_code=verification_code(),
        legal_basis=f"{act.get('legal_basis', '')}; {req.legal_basis}"[:300],
        issued_by=actor if getattr(actor, "is_authenticated", False) else None,
        renewals=auth.renewals,
    )
    audit_log(actor=actor, obj=successor, action=AuditAction.AUTHORIZATION_ISSUED, to_state=successor.status,
              reason=f"Transferência da autorização nº {auth.number} (pedido {req.protocol})",
              data={"number": successor.number, "predecessor": auth.number, "valid_until": successor.valid_until.isoformat()})
    result: dict[str, Any] = {"authorization": {"id": successor.pk, "number": successor.number},
                              "predecessor": auth.number}
    alvara = None
    if alvara_scope(pack) != "none":
        alvara = alvara_issue(actor=actor, authorization=successor, person=new_holder)
        result["alvara"] = {"id": alvara.pk, "number": alvara.number}
    amendment = amendment_issue(
        actor=actor, authorization=auth, kind=AmendmentKind.TRANSFER, reason=reason or "Transferência da autorização",
        changes=[{"label": "Titular", "before": auth.holder.display_name, "after": new_holder.display_name},
                 {"label": "Ato em vigor", "before": f"{auth.act_name} nº {auth.number}",
                  "after": f"{successor.act_name} nº {successor.number}"}],
        source=f"pedido {req.protocol}", legal_basis=req.legal_basis, alvara=alvara)
    result["amendment"] = {"id": amendment.pk, "number": amendment.number}
    if open_assignment is not None:
        _assignment_close(actor=actor, assignment=open_assignment, reason="Transferência da autorização")
        moved = StandAssignment.objects.create(
            stand=open_assignment.stand, authorization=successor, status=open_assignment.status,
            registered_on=today, vehicle_year=vehicle.manufacture_year if vehicle else None)
        audit_log(actor=actor, obj=moved, action=AuditAction.STAND_ASSIGNED, to_state=moved.status,
                  reason="Transferência da autorização")
    notify(recipient=new_holder, subject=f"Autorização nº {successor.number} transferida para você",
           body=f"A autorização nº {auth.number} foi transferida para você sob o nº {successor.number}.",
           link=reverse("lifecycle-mine"), dedup_key=f"transfer-new:{req.pk}")
    return result


KIND = register(Kind(
    code=RequestKind.TRANSFER, form=forms.TransferForm, clean=clean, apply=apply, offered=offered, amends=True,
    make_form=make_form,
    labels={"new_holder_cpf": "CPF do novo titular", "new_holder_name": "novo titular", "relationship": "parentesco",
            "event_on": "data do fato", "proof": "comprovação", "vehicle_plate": "placa do veículo",
            "new_holder_cnh_category": "categoria da CNH do novo titular",
            "new_holder_cnh_first_issued": "primeira habilitação do novo titular",
            "new_holder_cnh_ear": "CNH do novo titular com EAR", "documents": "documentos apresentados",
            "authorization": "nova autorização", "predecessor": "autorização anterior",
            "amendment": "ato de alteração"},
))
