"""Calls (editais): opened by a clerk or the command line; the pack's yearly window is a recurring call."""

from __future__ import annotations

import calendar
from datetime import date, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from licensing.applications.models import Call
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction


def _last_business_day(year: int, month: int) -> date:
    day = date(year, month, calendar.monthrange(year, month)[1])
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def regular_window(pack, modality: str, year: int) -> tuple[date, date] | None:
    """The law's yearly window for requests (calls.regular_window), if any."""
    window = pack.value("calls.regular_window", modality)
    if not window:
        return None
    month = int(window.get("month", 1))
    start = date(year, month, 1)
    end_rule = window.get("end", "last_business_day")
    if end_rule == "last_business_day":
        end = _last_business_day(year, month)
    else:
        end = date(year, month, calendar.monthrange(year, month)[1])
    return start, end


def open_call_for(modality: str, on: date | None = None) -> Call | None:
    """The call open for a modality on a date; inside the law's yearly window it is created on demand."""
    pack = regulation.current()
    on = on or pack.today()
    if not pack.modality_in_force(modality, on):  # a modality waiting for its decree has no call
        return None
    call = Call.objects.filter(modality=modality, start__lte=on, end__gte=on).order_by("-start", "-id").first()
    if call is not None:
        return call
    window = regular_window(pack, modality, on.year)
    if window and window[0] <= on <= window[1]:
        try:
            with transaction.atomic():
                call, _ = Call.objects.get_or_create(
                    modality=modality, start=window[0], end=window[1],
                    defaults={"is_regular_window": True,
                              "title": f"Janela anual de requerimentos {on.year} — {pack.modality_label(modality)}",
                              "notes": pack.basis("calls.regular_window", modality)},
                )
        except IntegrityError:
            call = Call.objects.get(modality=modality, start=window[0], end=window[1])
        return call
    return None


@transaction.atomic
def call_open(*, actor, modality: str, start: date, end: date, slots: int | None = None,
              min_bid: Decimal | None = None, title: str = "", notes: str = "") -> tuple[Call, bool]:
    """Open a call for new grants of a modality. Idempotent for the same period: (call, created)."""
    pack = regulation.current()
    errors: dict[str, list[str]] = {}
    closed = pack.modality_refusal(modality, start if start > pack.today() else None)
    if closed is not None:  # not in the law, or its decree not recorded / not yet in force when the call opens
        raise closed
    if end < start:
        errors["end"] = ["A data de fim deve ser igual ou posterior à de início."]
    if slots is not None and slots < 1:
        errors["slots"] = ["Informe ao menos 1 vaga, ou deixe em branco para usar as vagas livres da cota."]
    if min_bid is not None and min_bid < 0:
        errors["min_bid"] = ["A oferta mínima não pode ser negativa."]
    if errors:
        raise ValidationError(errors)
    call, created = Call.objects.get_or_create(
        modality=modality, start=start, end=end,
        defaults={"slots": slots, "min_bid": min_bid, "title": title, "notes": notes,
                  "created_by": actor if getattr(actor, "is_authenticated", False) else None},
    )
    if created:
        audit_log(actor=actor, obj=call, action=AuditAction.CALL_OPENED, to_state="open",
                  data={"modality": modality, "start": start.isoformat(), "end": end.isoformat(), "slots": slots,
                        "min_bid": str(min_bid) if min_bid is not None else None})
        return call, created
    # The same period again: the call is the same; slots or minimum offer given now replace the
    # earlier ones (running the same command twice changes nothing).
    changes = {}
    if slots is not None and call.slots != slots:
        changes["slots"] = (call.slots, slots)
    if min_bid is not None and call.min_bid != min_bid:
        changes["min_bid"] = (call.min_bid, min_bid)
    if changes:
        for name, (_, new) in changes.items():
            setattr(call, name, new)
        call.save(update_fields=list(changes))
        audit_log(actor=actor, obj=call, action=AuditAction.CALL_UPDATED, reason="Edital do mesmo período",
                  data={name: {"from": str(old) if old is not None else None, "to": str(new)}
                        for name, (old, new) in changes.items()})
    return call, created
