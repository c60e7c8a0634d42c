"""Default proceedings (inadimplência)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction

from licensing.transit import rules as rules
from licensing.transit.citations import cite
from licensing.transit.models import (
    DEFAULT_TRANSITIONS,
    Concession,
    ConcessionStatus,
    DefaultProceeding,
    DefaultStatus,
)
from licensing.transit.services._common import _law_basis, _locked, _user, pack_list, transit_pack
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition


# --- default proceedings (art. 20) -----------------------------------------------------------
@transaction.atomic
def default_notify(*, actor, concession: Concession, grounds: Iterable[str], details: str, notified_on: date,
                   cure_days: int) -> DefaultProceeding:
    """Art. 20, §3: the failures are communicated in detail, with a period to cure them."""
    pack = transit_pack()
    basis = _law_basis(pack, "default_notice")
    locked = _locked(Concession, concession)
    if locked.status not in (ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED, ConcessionStatus.AWAITING_START):
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}.")
    grounds = list(grounds)
    known = {g["code"] for g in pack_list(pack, "default_grounds")}
    if not grounds or set(grounds) - known:
        raise ValidationError({"grounds": [cite("Indique ao menos um dos fundamentos do {default_grounds}.", pack)]})
    if not details.strip():
        raise ValidationError({"details": ["Descreva detalhadamente os descumprimentos contratuais."]})
    if notified_on > pack.today():
        raise ValidationError({"notified_on": ["A data da comunicação não pode ser futura."]})
    violation = rules.cure_days_violation(cure_days, basis)
    if violation:
        raise violation
    proceeding = DefaultProceeding.objects.create(
        concession=locked, grounds=grounds, details=details.strip(), notified_on=notified_on,
        cure_days=int(cure_days), created_by=_user(actor),
    )
    audit_log(actor=actor, obj=proceeding, action=AuditAction.DEFAULT_NOTIFIED, to_state=proceeding.status,
              reason="Descumprimentos comunicados à delegatária",
              data={"concession": locked.number, "grounds": grounds,
                    "cure_deadline": rules.cure_deadline(notified_on, cure_days).isoformat(), "legal_basis": basis})
    return proceeding


def _default_to(*, actor, proceeding: DefaultProceeding, to: str, reason: str, data: dict) -> None:
    if to not in DEFAULT_TRANSITIONS.get(proceeding.status, set()):
        raise InvalidTransition(f"O processo está {proceeding.get_status_display()}.")
    before = proceeding.status
    proceeding.status = to
    proceeding.save()
    audit_log(actor=actor, obj=proceeding, action=AuditAction.DEFAULT_STATUS, from_state=before, to_state=to, reason=reason,
              data=data)


@transaction.atomic
def default_mark_cured(*, actor, proceeding: DefaultProceeding, reason: str) -> DefaultProceeding:
    locked = _locked(DefaultProceeding, proceeding)
    if not reason.strip():
        raise ValidationError({"reason": ["Informe como as falhas foram corrigidas."]})
    _default_to(actor=actor, proceeding=locked, to=DefaultStatus.CURED, reason=reason.strip(), data={})
    proceeding.refresh_from_db()
    return locked


@transaction.atomic
def default_open(*, actor, proceeding: DefaultProceeding, opened_on: date, reference: str) -> DefaultProceeding:
    """Art. 20, §2–§3: opened only after the notice and the period to cure, with full defence."""
    pack = transit_pack()
    basis = _law_basis(pack, "default_notice")
    locked = _locked(DefaultProceeding, proceeding)
    if locked.status != DefaultStatus.NOTIFIED:
        raise InvalidTransition(f"O processo está {locked.get_status_display()}: não pode ser instaurado.")
    if not reference.strip():
        raise ValidationError({"reference": ["Informe o número do processo administrativo."]})
    if opened_on > pack.today():
        raise ValidationError({"opened_on": ["A data de instauração não pode ser futura."]})
    violation = rules.default_open_violation(locked.notified_on, locked.cure_days, opened_on, basis)
    if violation:
        raise violation
    locked.opened_on = opened_on
    locked.process_reference = reference.strip()
    _default_to(actor=actor, proceeding=locked, to=DefaultStatus.OPEN, reason=f"Processo {reference} instaurado",
                data={"opened_on": opened_on.isoformat(), "legal_basis": basis})
    proceeding.refresh_from_db()
    return locked


@transaction.atomic
def default_conclude(*, actor, proceeding: DefaultProceeding, proven: bool, decision: str,
                     concluded_on: date) -> DefaultProceeding:
    """Art. 20, §2 and §4: inadimplência proven (rescission may be declared by decree) or dismissed."""
    pack = transit_pack()
    locked = _locked(DefaultProceeding, proceeding)
    if locked.status != DefaultStatus.OPEN:
        raise InvalidTransition(f"O processo está {locked.get_status_display()}: não pode ser decidido.")
    if not decision.strip():
        raise ValidationError({"decision": ["Informe a decisão fundamentada."]})
    if concluded_on > pack.today() or concluded_on < locked.opened_on:
        raise ValidationError({"concluded_on": ["A data da decisão deve estar entre a instauração e hoje."]})
    locked.decision = decision.strip()
    locked.concluded_on = concluded_on
    to = DefaultStatus.PROVEN if proven else DefaultStatus.DISMISSED
    _default_to(actor=actor, proceeding=locked, to=to, reason=decision.strip(),
                data={"concluded_on": concluded_on.isoformat(), "legal_basis": _law_basis(pack, "default_conclusion")})
    proceeding.refresh_from_db()
    return locked
