"""Transferência: on the pack's grounds (years as holder, death, retirement, invalidity);
granted, the grant is cancelled and a successor issued to the new holder, with the stand."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse

from licensing.grants.models import (
    CURRENT_STATUSES,
    AmendmentKind,
    Authorization,
    AuthorizationStatus,
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
    transfer_violation,
)
from licensing.stands.models import AssignmentStatus, StandAssignment
from licensing.stands.services import _assignment_close
from portal.audit import audit_log
from portal.exceptions import RuleViolation
from portal.notifications import notify
from portal.numbering import document_number, verification_code
from portal.validators import normalize_plate


def offered(pack, modality: str) -> bool:
    return bool(pack.value("transfer.allowed", modality, False))


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    allowed = pack.param("transfer.allowed", auth.modality)
    if allowed is None or not allowed.value:
        raise transfer_violation(allowed=allowed, ground="", held_since=auth.valid_from, filed_on=on)
    ground = read_choice(data, "ground", "o fundamento da transferência", TRANSFER_GROUNDS)
    event_on = read_date(data, "event_on", "a data do fato", required=False)
    relationship = str(data.get("relationship") or "").strip()
    proof = read_text(data, "proof", "o documento que comprova", required=False)
    violation = transfer_violation(
        allowed=allowed, ground=ground, held_since=auth.valid_from, filed_on=on, event_on=event_on,
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
        from fleet.models import Vehicle

        # the new holder's own declaration of the plate: another person's row is never taken over
        if not Vehicle.objects.filter(plate=plate, owner=new_holder).exists():
            raise ValidationError({"vehicle_plate": [
                "Veículo não cadastrado em nome do novo titular: cadastre-o em nome dele antes do pedido."]})
        if Authorization.objects.filter(vehicle__plate=plate, status__in=CURRENT_STATUSES).exclude(pk=auth.pk).exists():
            raise RuleViolation("transfer_vehicle_in_use", "Este veículo já está vinculado a outra autorização vigente.",
                                vehicle_bond_basis(pack, auth.modality), field="vehicle_plate", conflict=True)
    suffix = {"holder_years": ", I", "incapacity": ", III"}.get(ground, ", II")
    clean = {"ground": ground, "new_holder_cpf": cpf, "new_holder_name": new_holder.display_name,
             "relationship": relationship if relationship in HEIR_RELATIONSHIPS else "",
             "event_on": event_on.isoformat() if event_on else None, "proof": proof, "vehicle_plate": plate}
    return clean, f"{allowed.legal_basis}{suffix}"


def apply(*, actor, req, auth, pack, reason) -> dict:
    from fleet.models import Vehicle

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
        audit_log(actor=actor, obj=aux, action="auxiliary_removed", from_state=AuxiliaryStatus.ACTIVE,
                  to_state=AuxiliaryStatus.REMOVED, reason="Transferência da autorização")
    act = pack.act("authorization")
    ensure_plate_free(vehicle=vehicle, holder=new_holder, modality=auth.modality)  # the old grant no longer counts
    successor = Authorization.objects.create(
        number=document_number("authorization", today.year), act_name=act.get("name", auth.act_name),
        modality=auth.modality, holder=new_holder, vehicle=vehicle, valid_from=today,
        valid_until=max(auth.valid_until, today), verification_code=verification_code(),
        legal_basis=f"{act.get('legal_basis', '')}; {req.legal_basis}"[:300],
        issued_by=actor if getattr(actor, "is_authenticated", False) else None,
        renewals=auth.renewals,
    )
    audit_log(actor=actor, obj=successor, action="authorization_issued", to_state=successor.status,
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
        audit_log(actor=actor, obj=moved, action="stand_assigned", to_state=moved.status,
                  reason="Transferência da autorização")
    notify(recipient=new_holder, subject=f"Autorização nº {successor.number} transferida para você",
           body=f"A autorização nº {auth.number} foi transferida para você sob o nº {successor.number}.",
           link=reverse("lifecycle-mine"), dedup_key=f"transfer-new:{req.pk}")
    return result


KIND = register(Kind(
    code=RequestKind.TRANSFER, form=forms.TransferForm, clean=clean, apply=apply, offered=offered,
    labels={"new_holder_cpf": "CPF do novo titular", "new_holder_name": "novo titular", "relationship": "parentesco",
            "event_on": "data do fato", "proof": "comprovação", "vehicle_plate": "placa do veículo",
            "authorization": "nova autorização", "predecessor": "autorização anterior",
            "amendment": "ato de alteração"},
))
