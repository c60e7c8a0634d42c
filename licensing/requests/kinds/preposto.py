"""Preposto: on the holder's permanent invalidity, where the pack allows it; one preposto at a time."""

from __future__ import annotations

from datetime import date

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from licensing.grants.models import Authorization
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    read_bool,
    read_cpf,
    read_date,
    read_text,
    register,
    user_by_cpf,
)
from licensing.requests.models import (
    Preposto,
    RequestKind,
)
from licensing.requests.rules import preposto_violation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import RuleViolation
from portal.notifications import notify


def offered(pack, modality: str) -> bool:
    return bool(pack.value("preposto.allowed_on_invalidity", modality, False))


def refusal(pack, auth: Authorization, state: dict, today: date) -> Exception | None:
    if Preposto.objects.filter(authorization=auth, ended_on__isnull=True).exists():
        return RuleViolation("preposto_exists", "Esta autorização já tem preposto constituído.",
                             pack.param("preposto.allowed_on_invalidity", auth.modality).legal_basis, conflict=True)
    return None


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    allowed = pack.param("preposto.allowed_on_invalidity", auth.modality)
    invalidity_on = read_date(data, "invalidity_on", "a data da invalidez", required=False)
    violation = preposto_violation(allowed=allowed, permanent=read_bool(data, "permanent"), invalidity_on=invalidity_on,
                                   filed_on=on)
    if violation:
        raise violation
    cpf = read_cpf(data, "preposto_cpf")
    person = user_by_cpf(cpf, "preposto_cpf")
    if person.pk == auth.holder_id:
        raise ValidationError({"preposto_cpf": ["O preposto deve ser outra pessoa."]})
    if Preposto.objects.filter(authorization=auth, ended_on__isnull=True).exists():
        raise RuleViolation("preposto_exists", "Esta autorização já tem preposto constituído.", allowed.legal_basis,
                            conflict=True)
    medical = read_text(data, "medical_report", "o laudo médico da invalidez permanente", max_length=500)
    return ({"preposto_cpf": cpf, "preposto_name": person.display_name, "permanent": True,
             "invalidity_on": invalidity_on.isoformat(), "medical_report": medical}, allowed.legal_basis)


def apply(*, actor, req, auth, pack, reason) -> dict:
    person = get_user_model().objects.get(cpf=req.data["preposto_cpf"])
    preposto = Preposto.objects.create(
        authorization=auth, person=person, request=req, invalidity_on=date.fromisoformat(req.data["invalidity_on"]),
        starts_on=pack.today(), legal_basis=req.legal_basis,
    )
    audit_log(actor=actor, obj=preposto, action=AuditAction.PREPOSTO_APPOINTED, reason=reason,
              data={"authorization": auth.number, "request": req.protocol})
    notify(recipient=person, subject=f"Você foi constituído preposto da autorização nº {auth.number}",
           body="O titular mantém a autorização por invalidez permanente e você passa a prestar o serviço como preposto.",
           dedup_key=f"preposto:{req.pk}")
    return {"preposto": preposto.pk}


KIND = register(Kind(
    code=RequestKind.PREPOSTO, form=forms.PrepostoForm, clean=clean, apply=apply, offered=offered, refusal=refusal,
    labels={"preposto_cpf": "CPF do preposto", "preposto_name": "preposto", "permanent": "invalidez permanente",
            "invalidity_on": "data da invalidez", "medical_report": "laudo médico", "preposto": "preposto (registro)"},
))
