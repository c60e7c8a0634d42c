"""Bus lines, their itineraries and schedules (original version and changes)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from licensing.transit import rules as rules
from licensing.transit.models import (
    BusLine,
    Concession,
    ConcessionStatus,
    FareZone,
    Itinerary,
    ItinerarySegment,
    ItineraryStatus,
)
from licensing.transit.services._common import _locked, _user, param, transit_pack
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition

Segment = rules.Segment



# --- lines and itineraries -----------------------------------------------------------------
def _check_segments(segments: Sequence[Segment]) -> None:
    if not segments:
        raise ValidationError({"segments": ["Informe ao menos um trecho do itinerário."]})
    for i, seg in enumerate(segments, start=1):
        if not seg.origin.strip() or not seg.destination.strip():
            raise ValidationError({"segments": [f"Trecho {i}: informe a parada de origem e a de destino."]})
        if Decimal(seg.length_km) <= 0:
            raise ValidationError({"segments": [f"Trecho {i}: a extensão deve ser maior que zero."]})
        if seg.zone not in FareZone.values:
            raise ValidationError({"segments": [f"Trecho {i}: zona deve ser urbano ou rural."]})


def _check_schedule(schedule: dict) -> dict:
    import re

    out: dict[str, list[str]] = {}
    for day_type, times in (schedule or {}).items():
        if day_type not in SCHEDULE_DAYS:
            raise ValidationError({"schedule": [f"Tipo de dia desconhecido: {day_type}."]})
        clean = []
        for t in times:
            if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", str(t).strip()):
                raise ValidationError({"schedule": [f"Horário inválido: {t} (use HH:MM)."]})
            clean.append(str(t).strip())
        out[day_type] = sorted(set(clean))
    return out


SCHEDULE_DAYS = {"weekday": "Dias úteis", "saturday": "Sábados", "sunday": "Domingos e feriados"}


def _write_segments(itinerary: Itinerary, segments: Sequence[Segment]) -> None:
    ItinerarySegment.objects.bulk_create([
        ItinerarySegment(itinerary=itinerary, order=i, origin=s.origin.strip(), destination=s.destination.strip(),
                         length_km=Decimal(s.length_km).quantize(rules.KM), zone=s.zone)
        for i, s in enumerate(segments, start=1)
    ])


@transaction.atomic
def busline_create(*, actor, concession: Concession, code: str, name: str, segments: Sequence[Segment],
                   schedule: dict | None = None) -> BusLine:
    """A line of the concession with its original itinerary (version 1) and schedule (art. 4, c)."""
    transit_pack()
    locked = _locked(Concession, concession)
    if locked.status in (ConcessionStatus.BIDDING_FAILED, ConcessionStatus.LAPSED, ConcessionStatus.EXTINCT):
        raise InvalidTransition(f"A concessão nº {locked.number} está {locked.get_status_display()}.")
    _check_segments(segments)
    schedule = _check_schedule(schedule or {})
    code = code.strip().upper()
    if not code or not name.strip():
        raise ValidationError({"code": ["Informe o código e o nome da linha."]})
    if BusLine.objects.filter(code=code).exists():
        raise ValidationError({"code": [f"Já existe a linha {code}."]})
    line = BusLine.objects.create(concession=locked, code=code, name=name.strip())
    itinerary = Itinerary.objects.create(
        line=line, version=1, status=ItineraryStatus.APPROVED, total_km=rules.itinerary_length(segments),
        schedule=schedule, reason="Itinerário original do contrato", approved_at=timezone.now(),
        approved_by=_user(actor), created_by=_user(actor), effective_from=locked.bidding_closed_on,
    )
    _write_segments(itinerary, segments)
    audit_log(actor=actor, obj=line, action=AuditAction.BUSLINE_CREATED, reason="Linha cadastrada com itinerário original",
              data={"concession": locked.number, "total_km": str(itinerary.total_km), "segments": len(segments)})
    return line


def original_itinerary(line: BusLine) -> Itinerary:
    return line.itineraries.get(version=1)


def _segments_of(itinerary: Itinerary) -> list[Segment]:
    return [Segment(s.origin, s.destination, s.length_km, s.zone) for s in itinerary.segments.all()]


@transaction.atomic
def itinerary_change_propose(*, actor, line: BusLine, segments: Sequence[Segment], schedule: dict | None = None,
                             reason: str = "") -> Itinerary:
    """Art. 7: a change of up to 25 % of the ORIGINAL route goes by amendment; more is refused."""
    pack = transit_pack()
    max_ratio, basis = param(pack, "itinerary.max_change_ratio")
    line = _locked(BusLine, line)
    if line.concession.status not in (ConcessionStatus.AWAITING_START, ConcessionStatus.IN_SERVICE,
                                      ConcessionStatus.INTERVENED):
        raise InvalidTransition(f"A concessão da linha {line.code} não está em vigor.")
    _check_segments(segments)
    schedule = _check_schedule(schedule if schedule is not None else current_itinerary(line).schedule)
    original = original_itinerary(line)
    original_km = original.total_km
    change = rules.changed_km(_segments_of(original), segments)
    violation = rules.itinerary_change_violation(original_km, change, max_ratio, basis)
    if violation:
        raise violation
    if not reason.strip():
        raise ValidationError({"reason": ["Informe a justificativa da alteração."]})
    version = (line.itineraries.order_by("-version").values_list("version", flat=True).first() or 0) + 1
    itinerary = Itinerary.objects.create(
        line=line, version=version, status=ItineraryStatus.PROPOSED, total_km=rules.itinerary_length(segments),
        changed_km=change, change_ratio=(rules.itinerary_change_ratio(original_km, change)).quantize(Decimal("0.0001")),
        schedule=schedule, reason=reason.strip(), created_by=_user(actor),
    )
    _write_segments(itinerary, segments)
    audit_log(actor=actor, obj=itinerary, action=AuditAction.ITINERARY_CHANGE_PROPOSED, to_state=itinerary.status,
              reason=reason, data={"line": line.code, "changed_km": str(change), "original_km": str(original_km),
                                   "ratio": str(itinerary.change_ratio), "legal_basis": basis})
    return itinerary


@transaction.atomic
def itinerary_change_approve(*, actor, itinerary: Itinerary, amendment_reference: str, announced_on: date,
                             effective_from: date) -> Itinerary:
    """Art. 7, §2: in force only after approval and announcement at least N days before."""
    pack = transit_pack()
    notice_days, basis = param(pack, "itinerary.notice_days")
    locked = _locked(Itinerary, itinerary)
    if locked.status != ItineraryStatus.PROPOSED:
        raise InvalidTransition(f"A alteração está {locked.get_status_display()}: não pode ser aprovada.")
    if not amendment_reference.strip():
        raise ValidationError({"amendment_reference": ["Informe o termo aditivo que formaliza a alteração."]})
    if effective_from < pack.today():
        raise ValidationError({"effective_from": ["A alteração só vigora depois de aprovada: informe uma data a partir de hoje."]})
    violation = rules.notice_violation(announced_on, effective_from, notice_days, basis,
                                       what="A alteração de itinerário ou horário", code="itinerary_notice_too_short")
    if violation:
        raise violation
    locked.status = ItineraryStatus.APPROVED
    locked.amendment_reference = amendment_reference.strip()
    locked.announced_on = announced_on
    locked.effective_from = effective_from
    locked.approved_at = timezone.now()
    locked.approved_by = _user(actor)
    locked.save(update_fields=["status", "amendment_reference", "announced_on", "effective_from", "approved_at",
                               "approved_by"])
    audit_log(actor=actor, obj=locked, action=AuditAction.ITINERARY_CHANGE_APPROVED, from_state=ItineraryStatus.PROPOSED,
              to_state=ItineraryStatus.APPROVED, reason=f"Aditivo {locked.amendment_reference}",
              data={"announced_on": announced_on.isoformat(), "effective_from": effective_from.isoformat(),
                    "legal_basis": basis})
    itinerary.refresh_from_db()
    return locked


@transaction.atomic
def itinerary_change_discard(*, actor, itinerary: Itinerary, reason: str) -> Itinerary:
    locked = _locked(Itinerary, itinerary)
    if locked.status != ItineraryStatus.PROPOSED:
        raise InvalidTransition(f"A alteração está {locked.get_status_display()}: não pode ser descartada.")
    if not reason.strip():
        raise ValidationError({"reason": ["Informe o motivo do descarte."]})
    locked.status = ItineraryStatus.DISCARDED
    locked.save(update_fields=["status"])
    audit_log(actor=actor, obj=locked, action=AuditAction.ITINERARY_CHANGE_DISCARDED, from_state=ItineraryStatus.PROPOSED,
              to_state=ItineraryStatus.DISCARDED, reason=reason)
    return locked


def current_itinerary(line: BusLine, at: date | None = None) -> Itinerary:
    """The approved version in force at ``at`` (the latest whose effective date has come)."""
    at = at or regulation.current().today()
    found = (line.itineraries.filter(status=ItineraryStatus.APPROVED, effective_from__lte=at)
             .order_by("-effective_from", "-version").first())
    return found or original_itinerary(line)
