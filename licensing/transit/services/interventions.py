"""Intervention in a concession."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction

from licensing.transit import rules as rules
from licensing.transit.citations import cite
from licensing.transit.models import (
    INTERVENTION_TRANSITIONS,
    Concession,
    ConcessionStatus,
    Intervention,
    InterventionStatus,
)
from licensing.transit.services._common import (
    _concession_to,
    _law_basis,
    _locked,
    _user,
    pack_list,
    param,
    transit_pack,
)
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition


# --- intervention (art. 23–24) ----------------------------------------------------------------
@transaction.atomic
def intervention_declare(*, actor, concession: Concession, decree: str, declared_on: date, interventor: str,
                         term_days: int, objectives: str, grounds: Iterable[str] = ()) -> Intervention:
    """Art. 23, §ún.: by decree naming the interventor, the term, the objectives and limits."""
    pack = transit_pack()
    open_days, basis = param(pack, "intervention.open_days")
    locked = _locked(Concession, concession)
    if locked.status != ConcessionStatus.IN_SERVICE:
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}: "
                                "só se intervém num serviço em operação.")
    grounds = list(grounds)
    known = {g["code"] for g in pack_list(pack, "intervention_grounds")}
    if set(grounds) - known:
        raise ValidationError({"grounds": [cite("Motivo de intervenção não previsto no {intervention_grounds}.", pack)]})
    errors = {}
    if not decree.strip():
        errors["decree"] = ["Informe o decreto de intervenção."]
    if not interventor.strip():
        errors["interventor"] = ["Informe o interventor designado."]
    if not objectives.strip():
        errors["objectives"] = ["Informe os objetivos e limites da medida."]
    if not term_days or int(term_days) < 1:
        errors["term_days"] = ["Informe o prazo da intervenção, em dias."]
    if declared_on > pack.today():
        errors["declared_on"] = ["A data do decreto não pode ser futura."]
    if errors:
        raise ValidationError(errors)
    intervention = Intervention.objects.create(
        concession=locked, decree=decree.strip(), declared_on=declared_on, interventor=interventor.strip(),
        term_days=int(term_days), objectives=objectives.strip(), grounds=grounds, created_by=_user(actor),
    )
    audit_log(actor=actor, obj=intervention, action=AuditAction.INTERVENTION_DECLARED, to_state=intervention.status,
              reason=f"Intervenção pelo {intervention.decree}",
              data={"open_deadline": rules.intervention_open_deadline(declared_on, open_days).isoformat(),
                    "legal_basis": basis})
    _concession_to(actor=actor, concession=locked, to=ConcessionStatus.INTERVENED,
                   reason=f"Intervenção pelo {intervention.decree}", data={"intervention": intervention.pk})
    return intervention


def _intervention_to(*, actor, intervention: Intervention, to: str, reason: str, data: dict) -> None:
    if to not in INTERVENTION_TRANSITIONS.get(intervention.status, set()):
        raise InvalidTransition(f"A intervenção está {intervention.get_status_display()}.")
    before = intervention.status
    intervention.status = to
    intervention.save()
    audit_log(actor=actor, obj=intervention, action=AuditAction.INTERVENTION_STATUS, from_state=before, to_state=to,
              reason=reason, data=data)
    if to in (InterventionStatus.UPHELD, InterventionStatus.ANNULLED, InterventionStatus.INVALID):
        concession = _locked(Concession, intervention.concession)
        if concession.status == ConcessionStatus.INTERVENED:
            _concession_to(actor=actor, concession=concession, to=ConcessionStatus.IN_SERVICE,
                           reason=f"Fim da intervenção: {InterventionStatus(to).label}",
                           data={"intervention": intervention.pk})


@transaction.atomic
def intervention_open_procedure(*, actor, intervention: Intervention, opened_on: date, reference: str) -> Intervention:
    """Art. 24: the procedure opens within N days of the declaration."""
    pack = transit_pack()
    open_days, basis = param(pack, "intervention.open_days")
    conclude_days, _ = param(pack, "intervention.conclude_days")
    locked = _locked(Intervention, intervention)
    if locked.status != InterventionStatus.DECLARED:
        raise InvalidTransition(f"A intervenção está {locked.get_status_display()}: o procedimento não pode ser instaurado.")
    if not reference.strip():
        raise ValidationError({"reference": ["Informe o número do procedimento administrativo."]})
    if opened_on > pack.today():
        raise ValidationError({"opened_on": ["A data de instauração não pode ser futura."]})
    violation = rules.intervention_open_violation(locked.declared_on, opened_on, open_days, basis)
    if violation:
        raise violation
    locked.procedure_opened_on = opened_on
    locked.procedure_reference = reference.strip()
    _intervention_to(actor=actor, intervention=locked, to=InterventionStatus.PROCEDURE_OPEN,
                     reason=f"Procedimento {locked.procedure_reference} instaurado",
                     data={"opened_on": opened_on.isoformat(), "legal_basis": basis,
                           "conclude_deadline": rules.intervention_conclude_deadline(opened_on, conclude_days).isoformat()})
    intervention.refresh_from_db()
    return locked


@transaction.atomic
def intervention_conclude(*, actor, intervention: Intervention, concluded_on: date, upheld: bool,
                          conclusion: str) -> Intervention:
    """Art. 24, §1–§2: concluded within N days; when unfounded it is null and the service returns."""
    pack = transit_pack()
    conclude_days, basis = param(pack, "intervention.conclude_days")
    locked = _locked(Intervention, intervention)
    if locked.status != InterventionStatus.PROCEDURE_OPEN:
        raise InvalidTransition(f"A intervenção está {locked.get_status_display()}: não há procedimento a concluir.")
    if not conclusion.strip():
        raise ValidationError({"conclusion": ["Informe a conclusão do procedimento."]})
    if concluded_on > pack.today():
        raise ValidationError({"concluded_on": ["A data da conclusão não pode ser futura."]})
    violation = rules.intervention_conclude_violation(locked.procedure_opened_on, concluded_on, conclude_days, basis)
    if violation:
        raise violation
    locked.concluded_on = concluded_on
    locked.conclusion = conclusion.strip()
    to = InterventionStatus.UPHELD if upheld else InterventionStatus.ANNULLED
    _intervention_to(actor=actor, intervention=locked, to=to, reason=conclusion.strip(),
                     data={"concluded_on": concluded_on.isoformat(), "upheld": upheld,
                           "legal_basis": basis if upheld else _law_basis(pack, "intervention_unfounded")})
    intervention.refresh_from_db()
    return locked
