"""Recadastramento anual de condutor auxiliar: the pack's documents for auxiliaries, once a
year from the last (re)registration; filed by the holder, the desk or the auxiliary themself."""

from __future__ import annotations

from datetime import date
from typing import Any

from licensing.grants.models import (
    AlvaraStatus,
    Authorization,
)
from licensing.grants.selectors import is_desk
from licensing.grants.services import alvara_issue
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    active_auxiliaries,
    alvara_scope,
    auxiliary_for,
    auxiliary_registered_on,
    documents_presented,
    no_auxiliary,
    register,
    resolve_notices,
)
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LifecycleRequest,
    RequestKind,
    RequestStatus,
    YearlyObligation,
)
from licensing.requests.rules import (
    auxiliary_reregistration_due,
    reregistration_violation,
    yearly_due,
)
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation


def offered(pack, modality: str) -> bool:
    return bool(pack.value("auxiliary.yearly_reregistration", modality, False))


def refusal(pack, auth: Authorization, state: dict, today: date) -> Exception | None:
    if not state["auxiliaries"]:
        return no_auxiliary("recadastrar")
    if state["auxiliaries"] <= state["reregistering"]:
        return RuleViolation("reregistration_pending", "O recadastramento de cada condutor auxiliar já está em análise.",
                             pack.param("auxiliary.yearly_reregistration", auth.modality).legal_basis, field="kind",
                             conflict=True)
    return None


def make_form(form_class, data, *, auth: Authorization, user):
    auxiliaries = active_auxiliaries(auth)
    if not is_desk(user) and auth.holder_id != user.pk:
        auxiliaries = auxiliaries.filter(person=user)  # the auxiliary re-registers themself
    return form_class(data, auxiliaries=auxiliaries,
                      documents=regulation.current().documents(auth.modality, "renewal", applies_to="auxiliary"))


def _reregistration_param(pack, auth):
    param = pack.param("auxiliary.yearly_reregistration", auth.modality)
    violation = reregistration_violation(param=param)
    if violation:
        raise violation
    return param


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    param = _reregistration_param(pack, auth)
    aux = auxiliary_for(auth, data)
    pending = LifecycleRequest.objects.filter(authorization=auth, kind=RequestKind.AUXILIARY_REREGISTRATION,
                                              status=RequestStatus.FILED, data__auxiliary=aux.pk)
    if exclude_pk:
        pending = pending.exclude(pk=exclude_pk)
    if pending.exists():
        raise RuleViolation("reregistration_pending", "Já há um recadastramento deste condutor auxiliar em análise.",
                            param.legal_basis, field="auxiliary", conflict=True)
    documents = documents_presented(pack, auth, data, "auxiliary")
    registered_on = auxiliary_registered_on(aux)
    due = yearly_due(due_on=auxiliary_reregistration_due(registered_on), today=on)
    return ({"auxiliary": aux.pk, "name": aux.person.display_name, "registered_on": registered_on.isoformat(),
             "due_on": due.due_on.isoformat(), "late": due.overdue, "documents": documents}, param.legal_basis)


def apply(*, actor, req, auth, pack, reason) -> dict:
    aux = AuxiliaryDriver.objects.select_for_update().select_related("person").filter(
        pk=req.data["auxiliary"], authorization=auth).first()
    if aux is None or aux.status != AuxiliaryStatus.ACTIVE:
        raise InvalidTransition("O condutor auxiliar já não está ativo nesta autorização.")
    before = auxiliary_registered_on(aux)
    today = pack.today()
    aux.registered_on = today
    aux.save(update_fields=["registered_on"])
    audit_log(actor=actor, obj=aux, action=AuditAction.AUXILIARY_REREGISTERED, reason=reason or req.legal_basis,
              data={"previous": before.isoformat(), "registered_on": today.isoformat(), "request": req.protocol,
                    "legal_basis": req.legal_basis})
    resolve_notices(auxiliary=aux, obligation=YearlyObligation.AUXILIARY_REREGISTRATION)
    result: dict[str, Any] = {"auxiliary": aux.pk, "registered_on": today.isoformat(),
                              "next_due_on": auxiliary_reregistration_due(today).isoformat()}
    if alvara_scope(pack) == "driver":
        old = auth.alvaras.filter(person=aux.person, is_auxiliary=True, status=AlvaraStatus.ACTIVE).order_by(
            "-issued_at", "-id").first()
        alvara = alvara_issue(actor=actor, authorization=auth, person=aux.person, is_auxiliary=True, supersedes=old)
        result["alvara"] = {"id": alvara.pk, "number": alvara.number,
                            "supersedes": old.number if old else None}
    return result


KIND = register(Kind(
    code=RequestKind.AUXILIARY_REREGISTRATION, form=forms.AuxiliaryReregistrationForm, clean=clean, apply=apply,
    offered=offered, refusal=refusal, make_form=make_form, multiple_open=True, yearly=True,
    labels={"registered_on": "último (re)cadastramento", "next_due_on": "próximo prazo", "supersedes": "substitui o nº"},
))
