"""Periods of the pack counted in days, and the periodic advancement when one ends (idempotent)."""

from __future__ import annotations

from datetime import date

from django.db import transaction

from enforcement import rules
from enforcement.models import (
    Infraction,
)
from enforcement.services._common import S, _transition
from enforcement.services.effects import EFFECTIVE_STATUSES, finalize
from licensing.grants import services as licensing_services
from licensing.models import AuthorizationStatus
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction


def period(pack, start: date, days: int, *, key: str, modality: str | None, start_label: str) -> tuple[date, str]:
    """(last day, how it was counted) of a period of the pack (``key`` gives its days' article).

    Calendar days from the day after ``start``; where ``deadlines.next_business_day`` (Lei 9.784/1999
    art. 66, §1º, applied where the municipal law is silent), a last day without office hours —
    weekend, national or state holiday (``holidays``, state of the pack), municipal holiday of the
    pack (``deadlines.municipal_holidays``) — moves to the next business day."""
    extend = bool(pack.value("deadlines.next_business_day") or pack.value("deadlines.weekend_extends"))
    municipal = [h for h in (pack.value("deadlines.municipal_holidays") or []) if isinstance(h, dict)]
    return rules.counted_deadline(
        start, int(days), next_business_day=extend, uf=pack.uf, municipal=municipal, start_label=start_label,
        days_basis=pack.basis(key, modality),
        extension_basis=pack.basis("deadlines.next_business_day") or rules.NEXT_BUSINESS_DAY_BASIS)


def close_defense_windows(today: date | None = None) -> int:
    """Defense period over without a defense → awaiting judgement."""
    today = today or regulation.current().today()
    changed = 0
    for pk in Infraction.objects.filter(status=S.NOTIFIED, defense_deadline__lt=today).values_list("pk", flat=True):
        with transaction.atomic():
            inf = Infraction.objects.select_for_update().filter(pk=pk, status=S.NOTIFIED,
                                                                defense_deadline__lt=today).first()
            if inf is None:
                continue
            _transition(inf, S.AWAITING_JUDGEMENT, actor=None, reason="Prazo de defesa encerrado sem defesa",
                        data={"defense_deadline": inf.defense_deadline.isoformat()})
            changed += 1
    return changed


def close_appeal_windows(today: date | None = None) -> int:
    """Appeal period over without an appeal → final, effects applied."""
    today = today or regulation.current().today()
    changed = 0
    qs = Infraction.objects.filter(status=S.UPHELD, appeal_deadline__lt=today).order_by("appeal_deadline", "id")
    for pk in qs.values_list("pk", flat=True):
        with transaction.atomic():
            inf = Infraction.objects.select_for_update().filter(pk=pk, status=S.UPHELD,
                                                                appeal_deadline__lt=today).first()
            if inf is None:
                continue
            finalize(actor=None, infraction=inf, today=today, reason="Prazo de recurso encerrado sem recurso")
            changed += 1
    return changed


def lift_ended_suspensions(today: date | None = None) -> int:
    """Suspension served → the grant is active again (only the suspension this auto set)."""
    today = today or regulation.current().today()
    changed = 0
    qs = Infraction.objects.filter(status__in=EFFECTIVE_STATUSES, effects_on__isnull=False, suspension_until__lt=today,
                                   suspension_lifted=False)
    for pk in qs.values_list("pk", flat=True):
        with transaction.atomic():
            inf = Infraction.objects.select_for_update().filter(pk=pk, suspension_lifted=False).first()
            if inf is None:
                continue
            auth = inf.authorization
            if (auth is not None and auth.status == AuthorizationStatus.SUSPENDED
                    and auth.suspended_until == inf.suspension_until):
                licensing_services.authorization_set_status(
                    actor=None, authorization=auth, to=AuthorizationStatus.ACTIVE,
                    reason=f"Fim da suspensão do auto nº {inf.number}", data={"infraction": inf.number})
            inf.suspension_lifted = True
            inf.save(update_fields=["suspension_lifted"])
            audit_log(actor=None, obj=inf, action=AuditAction.SUSPENSION_LIFTED, from_state=inf.status, to_state=inf.status,
                      reason="Suspensão cumprida", data={"suspended_until": inf.suspension_until.isoformat()})
            changed += 1
    return changed
