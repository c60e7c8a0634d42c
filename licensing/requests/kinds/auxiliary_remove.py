"""Exclusão de condutor auxiliar: the removal is reported within the pack's deadline (late
reports are recorded for enforcement); granted, the auxiliary's alvará is cancelled or the
vehicle's reissued."""

from __future__ import annotations

from datetime import date
from typing import Any

from licensing.grants.models import (
    AlvaraStatus,
    AmendmentKind,
    Authorization,
)
from licensing.grants.services import alvara_set_status, amendment_issue
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    active_auxiliaries,
    alvara_scope,
    auxiliary_for,
    no_auxiliary,
    notify_clerks,
    read_date,
    read_text,
    register,
    request_link,
    vehicle_alvara_reissue,
)
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LifecycleRequest,
    RequestKind,
)
from licensing.requests.rules import auxiliary_removal_report
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition


def offered(pack, modality: str) -> bool:
    return pack.value("auxiliary.max", modality, 0) != 0


def refusal(pack, auth: Authorization, state: dict, today: date) -> Exception | None:
    return None if state["auxiliaries"] else no_auxiliary("excluir")


def make_form(form_class, data, *, auth: Authorization, user):
    return form_class(data, auxiliaries=active_auxiliaries(auth))


def after_filing(*, actor, req: LifecycleRequest, auth: Authorization, clean: dict, basis: str) -> None:
    if not clean["late"]:
        return
    req.late = True
    req.late_note = (f"Desligamento comunicado {clean['days_after']} dias depois; o prazo é de "
                     f"{clean['deadline_days']} dias ({basis}). Infração a apurar pela fiscalização.")
    req.save(update_fields=["late", "late_note"])
    audit_log(actor=actor, obj=req, action=AuditAction.AUXILIARY_REMOVAL_LATE, reason=req.late_note,
              data={"days_after": clean["days_after"], "deadline_days": clean["deadline_days"],
                    "legal_basis": basis})
    notify_clerks(subject=f"Exclusão de auxiliar comunicada fora do prazo — autorização nº {auth.number}",
                  body=req.late_note, link=request_link(req), dedup=f"aux-late:{req.pk}")


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    aux = auxiliary_for(auth, data)
    left_on = read_date(data, "left_on", "a data do desligamento")
    report = auxiliary_removal_report(left_on=left_on, reported_on=on,
                                      deadline=pack.param("auxiliary.removal_report_days", auth.modality))
    clean = {"auxiliary": aux.pk, "name": aux.person.display_name, "left_on": left_on.isoformat(),
             "days_after": report.days_after, "deadline_days": report.deadline_days, "late": report.late,
             "reason": read_text(data, "reason", "o motivo", required=False)}
    return clean, report.legal_basis


def apply(*, actor, req, auth, pack, reason) -> dict:
    aux = AuxiliaryDriver.objects.select_for_update().filter(pk=req.data["auxiliary"], authorization=auth).first()
    if aux is None or aux.status != AuxiliaryStatus.ACTIVE:
        raise InvalidTransition("O condutor auxiliar já não está ativo nesta autorização.")
    aux.status = AuxiliaryStatus.REMOVED
    aux.left_on = date.fromisoformat(req.data["left_on"])
    aux.removed_on = pack.today()
    aux.removed_request = req
    aux.removal_late = req.late
    aux.save(update_fields=["status", "left_on", "removed_on", "removed_request", "removal_late"])
    audit_log(actor=actor, obj=aux, action=AuditAction.AUXILIARY_REMOVED, from_state=AuxiliaryStatus.ACTIVE,
              to_state=AuxiliaryStatus.REMOVED, reason=reason or "Exclusão de condutor auxiliar",
              data={"late": req.late, "request": req.protocol})
    result: dict[str, Any] = {"auxiliary": aux.pk, "late": req.late}
    new = None
    if alvara_scope(pack) == "driver":
        cancelled = []
        for alvara in auth.alvaras.filter(person=aux.person, is_auxiliary=True,
                                          status__in=[AlvaraStatus.ACTIVE, AlvaraStatus.SUSPENDED, AlvaraStatus.RETAINED]):
            alvara_set_status(actor=actor, alvara=alvara, to=AlvaraStatus.CANCELLED,
                              reason=f"Exclusão do condutor auxiliar (pedido {req.protocol})")
            cancelled.append(alvara.number)
        result["cancelled_alvaras"] = cancelled
    else:
        new = vehicle_alvara_reissue(actor=actor, auth=auth, pack=pack, reason="Exclusão de condutor auxiliar")
        if new:
            result["alvara"] = {"id": new.pk, "number": new.number}
    amendment = amendment_issue(
        actor=actor, authorization=auth, kind=AmendmentKind.AUXILIARY_REMOVE, reason=reason or "Exclusão de condutor auxiliar",
        changes=[{"label": "Condutor auxiliar excluído", "before": aux.person.display_name, "after": ""}],
        source=f"pedido {req.protocol}", legal_basis=req.legal_basis, alvara=new)
    result["amendment"] = {"id": amendment.pk, "number": amendment.number}
    return result


KIND = register(Kind(
    code=RequestKind.AUXILIARY_REMOVE, form=forms.AuxiliaryRemoveForm, clean=clean, apply=apply, offered=offered,
    refusal=refusal, make_form=make_form, after_filing=after_filing, recheck_on_decision=False,
    labels={"auxiliary": "condutor auxiliar (registro)", "left_on": "data do desligamento",
            "days_after": "dias até a comunicação", "deadline_days": "prazo legal (dias)", "late": "fora do prazo",
            "reason": "motivo", "cancelled_alvaras": "alvarás cancelados", "amendment": "ato de alteração"},
    action_labels={"auxiliary_removal_late": "comunicação fora do prazo registrada"},
))
