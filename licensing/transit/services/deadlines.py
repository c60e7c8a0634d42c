"""The periodic sweep of the legal deadlines."""

from __future__ import annotations

from datetime import date

from django.db import transaction

from licensing.transit import rules as rules
from licensing.transit.models import (
    BidderStatus,
    ClassifiedBidder,
    Concession,
    ConcessionStatus,
    Intervention,
    InterventionStatus,
)
from licensing.transit.services._common import _concession_to, _locked, pack_list, param
from licensing.transit.services.concessions import _call_next, _lapse
from licensing.transit.services.interventions import _intervention_to
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction


# --- periodic sweep --------------------------------------------------------------------------
def transit_deadlines_sweep(today: date | None = None) -> int:
    """Apply the deadlines that run by themselves; safe to run twice. Returns items changed.

    - art. 8, §ún.: the called company that did not sign in time renounces; the next is called;
    - art. 22: a concession whose service did not start in time lapses;
    - art. 24: an intervention without procedure after N days is flagged to the clerks;
      one whose procedure was not concluded in time becomes invalid (§2);
    - art. 18, I: a concession past its term is extinct.
    """
    pack = regulation.current(required=False)
    if pack is None or not pack.collective_transport:
        return 0
    today = today or pack.today()
    sign_days, _ = param(pack, "contract.sign_days")
    start_days, start_basis = param(pack, "service.start_days")
    open_days, open_basis = param(pack, "intervention.open_days")
    conclude_days, conclude_basis = param(pack, "intervention.conclude_days")
    changed = 0
    for bidder in ClassifiedBidder.objects.filter(status=BidderStatus.CALLED,
                                                  concession__status=ConcessionStatus.AWAITING_CONTRACT):
        if today > rules.contract_deadline(bidder.called_on, sign_days):
            with transaction.atomic():
                concession = _locked(Concession, bidder.concession)
                fresh = concession.classified.filter(pk=bidder.pk, status=BidderStatus.CALLED).first()
                if fresh is None or concession.status != ConcessionStatus.AWAITING_CONTRACT:
                    continue
                _call_next(actor=None, concession=concession, on=today,
                           reason="Contrato não assinado no prazo (renúncia ao direito de contratar)")
                changed += 1
    for concession in Concession.objects.filter(status=ConcessionStatus.AWAITING_START):
        if rules.start_lapsed(concession.contract_signed_on, today, start_days):
            with transaction.atomic():
                locked = _locked(Concession, concession)
                if locked.status == ConcessionStatus.AWAITING_START:
                    _lapse(actor=None, concession=locked, basis=start_basis)
                    changed += 1
    for intervention in Intervention.objects.filter(status=InterventionStatus.DECLARED, open_overdue_flagged=False):
        if today > rules.intervention_open_deadline(intervention.declared_on, open_days):
            with transaction.atomic():
                updated = Intervention.objects.filter(pk=intervention.pk, status=InterventionStatus.DECLARED,
                                                      open_overdue_flagged=False).update(open_overdue_flagged=True)
                if updated:
                    audit_log(actor=None, obj=intervention, action=AuditAction.INTERVENTION_OPEN_OVERDUE,
                              reason="Procedimento administrativo não instaurado no prazo",
                              data={"legal_basis": open_basis})
                    _notify_clerks(f"Intervenção sem procedimento: {intervention.decree}",
                                   f"O procedimento da intervenção ({intervention.decree}) devia ter sido instaurado "
                                   f"até {rules.intervention_open_deadline(intervention.declared_on, open_days):%d/%m/%Y} "
                                   f"({open_basis}).", f"transit-intervention-overdue-{intervention.pk}")
                    changed += 1
    for intervention in Intervention.objects.filter(status=InterventionStatus.PROCEDURE_OPEN):
        if today > rules.intervention_conclude_deadline(intervention.procedure_opened_on, conclude_days):
            with transaction.atomic():
                locked = _locked(Intervention, intervention)
                if locked.status != InterventionStatus.PROCEDURE_OPEN:
                    continue
                locked.conclusion = "Procedimento não concluído no prazo: intervenção inválida"
                _intervention_to(actor=None, intervention=locked, to=InterventionStatus.INVALID,
                                 reason=locked.conclusion, data={"legal_basis": conclude_basis})
                changed += 1
    term_entry = next((c for c in pack_list(pack, "extinction_causes") if c.get("requires") == "term_ended"), None)
    for concession in Concession.objects.filter(status__in=(ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED),
                                                term_end__lt=today):
        with transaction.atomic():
            locked = _locked(Concession, concession)
            if locked.status not in (ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED):
                continue
            locked.extinction_cause = term_entry["code"] if term_entry else "term"
            locked.extinction_act = "Advento do termo contratual"
            locked.extinct_on = locked.term_end
            locked.save(update_fields=["extinction_cause", "extinction_act", "extinct_on"])
            _concession_to(actor=None, concession=locked, to=ConcessionStatus.EXTINCT,
                           reason="Advento do termo contratual",
                           data={"legal_basis": term_entry["legal_basis"] if term_entry else ""})
            changed += 1
    return changed


def _notify_clerks(subject: str, body: str, dedup_key: str) -> None:
    from portal.notifications import notify
    from portal.roles import Role, staff_users

    for user in staff_users(Role.CLERK):  # the clerks of the municipality in scope
        notify(recipient=user, subject=subject, body=body, dedup_key=f"{dedup_key}-{user.pk}")
