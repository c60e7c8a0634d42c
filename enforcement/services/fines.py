"""Payment of a fine (DAM) and the end of a suspension until regularised."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction

from enforcement.models import (
    Fine,
    Infraction,
)
from enforcement.services._common import _lock, _tell_holder
from enforcement.services.effects import EFFECTIVE_STATUSES
from licensing.grants import services as licensing_services
from licensing.models import AuthorizationStatus
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation


@transaction.atomic
def fine_mark_paid(*, actor, fine: Fine, paid_on: date) -> Fine:
    locked = Fine.objects.select_for_update().get(pk=fine.pk)
    if locked.paid:
        raise InvalidTransition(f"O DAM nº {locked.number} já está pago.", field="paid_on")
    if paid_on > regulation.current().today():
        raise ValidationError({"paid_on": ["A data do pagamento não pode estar no futuro."]})
    locked.paid, locked.paid_on, locked.paid_recorded_by = True, paid_on, actor
    locked.save(update_fields=["paid", "paid_on", "paid_recorded_by"])
    audit_log(actor=actor, obj=locked, action=AuditAction.FINE_PAID, from_state="open", to_state="paid",
              reason="Pagamento registrado", data={"paid_on": paid_on.isoformat(), "amount": str(locked.amount)})
    return locked


@transaction.atomic
def regularisation_record(*, actor, infraction: Infraction, inspected_on: date, note: str = "") -> Infraction:
    """End a suspension "até a regularização" (or an impediment) once the holder proved it:
    new vistoria and the fine paid (Lei 3.703/2022 art. 20, parágrafo único)."""
    pack = regulation.current()
    inf = _lock(infraction)
    kinds = set((inf.penalty or {}).get("kinds", []))
    auth = inf.authorization
    if (inf.status not in EFFECTIVE_STATUSES or inf.effects_on is None or inf.suspension_lifted
            or not ({"suspension_until_regularised", "impediment"} & kinds)
            or auth is None or auth.status != AuthorizationStatus.SUSPENDED or auth.suspended_until is not None):
        raise InvalidTransition(f"O auto nº {inf.number} não tem suspensão por regularização em curso.")
    if inspected_on > pack.today():
        raise ValidationError({"inspected_on": ["A data da vistoria não pode estar no futuro."]})
    fine = Fine.objects.filter(infraction=inf).first()
    if fine is not None and not fine.paid:
        basis = "; ".join(e["legal_basis"] for e in inf.catalogue)
        raise RuleViolation(
            "fine_unpaid",
            f"Para voltar às atividades é preciso pagar a multa (DAM nº {fine.number}) — {basis}.",
            basis, field="inspected_on", conflict=True,
        )
    licensing_services.authorization_set_status(
        actor=actor, authorization=auth, to=AuthorizationStatus.ACTIVE,
        reason=f"Regularização comprovada (vistoria em {inspected_on:%d/%m/%Y}) — auto nº {inf.number}",
        data={"infraction": inf.number, "inspected_on": inspected_on.isoformat()})
    inf.suspension_lifted = True
    inf.save(update_fields=["suspension_lifted"])
    audit_log(actor=actor, obj=inf, action=AuditAction.SUSPENSION_LIFTED, from_state=inf.status, to_state=inf.status,
              reason=note.strip() or "Regularização comprovada", data={"inspected_on": inspected_on.isoformat()})
    _tell_holder(inf, f"Atividades liberadas — auto nº {inf.number}",
                 "A regularização foi registrada e sua autorização voltou a ficar ativa.", "regularised")
    return inf
