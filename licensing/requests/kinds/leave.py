"""Afastamento: theft, serious accident or the vehicle's substitution, for the pack's maximum
days; one leave at a time, its return recorded (``services.leave_record_return``)."""

from __future__ import annotations

from datetime import date

from licensing.grants.models import Authorization
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    read_choice,
    read_date,
    read_int,
    register,
)
from licensing.requests.models import (
    LeaveOfAbsence,
    LeaveStatus,
    RequestKind,
)
from licensing.requests.rules import (
    LEAVE_KEYS,
    leave_last_day,
    leave_violation,
)
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation


def offered(pack, modality: str) -> bool:
    return any(pack.param(k, modality) for k in LEAVE_KEYS.values())


def refusal(pack, auth: Authorization, state: dict, today: date) -> Exception | None:
    if LeaveOfAbsence.objects.filter(authorization=auth, status__in=[LeaveStatus.ACTIVE, LeaveStatus.OVERDUE]).exists():
        basis = next((p.legal_basis for k in LEAVE_KEYS.values() if (p := pack.param(k, auth.modality))), "")
        return RuleViolation("leave_open", "Já há um afastamento em curso: registre o retorno antes de pedir outro.",
                             basis, field="kind", conflict=True)
    return None


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    reason = read_choice(data, "reason", "o motivo do afastamento",
                     {"theft": "furto", "accident": "acidente grave", "substitution": "substituição do veículo"})
    days = read_int(data, "days", "o número de dias", minimum=1, maximum=3650)
    starts_on = read_date(data, "starts_on", "a data de início")
    param = pack.param(LEAVE_KEYS[reason], auth.modality)
    violation = leave_violation(reason=reason, days=days, max_param=param)
    if violation:
        raise violation
    if LeaveOfAbsence.objects.filter(authorization=auth, status__in=[LeaveStatus.ACTIVE, LeaveStatus.OVERDUE]).exists():
        raise RuleViolation("leave_open", "Já há um afastamento em curso: registre o retorno antes de pedir outro.",
                            param.legal_basis, field="starts_on", conflict=True)
    return ({"reason": reason, "days": days, "starts_on": starts_on.isoformat(),
             "ends_on": leave_last_day(starts_on, days).isoformat()}, param.legal_basis)


def apply(*, actor, req, auth, pack, reason) -> dict:
    leave = LeaveOfAbsence.objects.create(
        authorization=auth, request=req, reason=req.data["reason"],
        starts_on=date.fromisoformat(req.data["starts_on"]), ends_on=date.fromisoformat(req.data["ends_on"]),
        legal_basis=req.legal_basis,
    )
    audit_log(actor=actor, obj=leave, action=AuditAction.LEAVE_GRANTED, to_state=leave.status, reason=reason,
              data={"starts_on": req.data["starts_on"], "ends_on": req.data["ends_on"]})
    return {"leave": leave.pk, "ends_on": req.data["ends_on"]}


KIND = register(Kind(
    code=RequestKind.LEAVE, form=forms.LeaveForm, clean=clean, apply=apply, offered=offered, refusal=refusal,
    labels={"days": "dias", "starts_on": "início", "ends_on": "último dia", "leave": "afastamento (registro)"},
))
