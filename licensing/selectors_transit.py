"""Reads of collective transport shared by the HTML views and the API (constant queries)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import Count, Prefetch, Q, QuerySet

from licensing import rules_transit as rules
from licensing.models_transit import (
    BusFare,
    BusLine,
    Complaint,
    Concession,
    Concessionaire,
    ConcessionStatus,
    FareZone,
    Itinerary,
    ItineraryStatus,
)
from portal import regulation
from portal.numbering import normalize_verification_code

PUBLIC_STATUSES = (ConcessionStatus.AWAITING_START, ConcessionStatus.IN_SERVICE, ConcessionStatus.INTERVENED)


def transit_enabled() -> bool:
    """Whether the active pack has collective transport (otherwise the module is hidden)."""
    pack = regulation.current(required=False)
    return bool(pack and pack.collective_transport)


def concessionaires() -> QuerySet[Concessionaire]:
    return Concessionaire.objects.annotate(
        concessions_count=Count("concessions", distinct=True),
    ).order_by("legal_name", "id")


def concessions(status: str | None = None, q: str = "") -> QuerySet[Concession]:
    qs = (Concession.objects.select_related("concessionaire")
          .prefetch_related("classified__concessionaire", "defaults", "interventions")
          .annotate(lines_count=Count("lines", distinct=True))
          .order_by("-created_at", "-id"))
    if status:
        qs = qs.filter(status=status)
    if q:
        qs = qs.filter(Q(number__icontains=q) | Q(object__icontains=q) | Q(bidding_reference__icontains=q)
                       | Q(concessionaire__legal_name__icontains=q) | Q(concessionaire__trade_name__icontains=q))
    return qs


def concession_status_counts() -> dict[str, int]:
    rows = Concession.objects.values("status").annotate(n=Count("id")).order_by()
    return {r["status"]: r["n"] for r in rows}


def concession_for_staff(pk: int) -> Concession:
    return (Concession.objects.select_related("concessionaire")
            .prefetch_related("classified__concessionaire", "lines", "buses", "interventions", "defaults")
            .get(pk=pk))


def _fares_prefetch() -> Prefetch:
    return Prefetch("fares", queryset=BusFare.objects.order_by("zone", "-effective_from", "-id"), to_attr="fare_rows")


def public_lines() -> QuerySet[BusLine]:
    return (BusLine.objects.filter(concession__status__in=PUBLIC_STATUSES)
            .select_related("concession__concessionaire")
            .prefetch_related(_fares_prefetch())
            .order_by("code"))


def staff_lines(concession: Concession | None = None) -> QuerySet[BusLine]:
    qs = BusLine.objects.select_related("concession__concessionaire").prefetch_related(_fares_prefetch())
    if concession is not None:
        qs = qs.filter(concession=concession)
    return qs.order_by("code")


def fares_in_force(line: BusLine, at: date | None = None) -> dict[str, BusFare]:
    """zone → the fare in force at ``at`` (latest effective_from ≤ at). Uses prefetched rows."""
    at = at or regulation.current().today()
    rows = getattr(line, "fare_rows", None)
    if rows is None:
        rows = list(line.fares.order_by("zone", "-effective_from", "-id"))
    out: dict[str, BusFare] = {}
    for fare in rows:
        if fare.effective_from <= at and fare.zone not in out:
            out[fare.zone] = fare
    return out


def upcoming_fares(line: BusLine, at: date | None = None) -> list[BusFare]:
    """Announced fares not yet in force (public notice, art. 17)."""
    at = at or regulation.current().today()
    rows = getattr(line, "fare_rows", None)
    if rows is None:
        rows = list(line.fares.order_by("zone", "-effective_from", "-id"))
    return sorted((f for f in rows if f.effective_from > at), key=lambda f: (f.effective_from, f.zone))


def itinerary_in_force(line: BusLine, at: date | None = None) -> Itinerary:
    at = at or regulation.current().today()
    qs = line.itineraries.prefetch_related("segments")
    found = (qs.filter(status=ItineraryStatus.APPROVED, effective_from__lte=at)
             .order_by("-effective_from", "-version").first())
    return found or qs.get(version=1)


def upcoming_itineraries(line: BusLine, at: date | None = None) -> list[Itinerary]:
    at = at or regulation.current().today()
    return list(line.itineraries.filter(status=ItineraryStatus.APPROVED, effective_from__gt=at)
                .prefetch_related("segments").order_by("effective_from"))


def stops(itinerary: Itinerary) -> list[str]:
    segs = list(itinerary.segments.all())
    if not segs:
        return []
    return [s.origin for s in segs] + [segs[-1].destination]


def complaints(status: str | None = None) -> QuerySet[Complaint]:
    qs = Complaint.objects.select_related("line", "answered_by").order_by("-created_at", "-id")
    if status:
        qs = qs.filter(status=status)
    return qs


@dataclass(frozen=True)
class FareQuote:
    line: BusLine
    zone: str
    student: bool
    at: date
    fare: BusFare
    amount: Decimal
    discount: Decimal
    legal_basis: str

    def as_dict(self) -> dict:
        return {
            "line": {"id": self.line.pk, "code": self.line.code, "name": self.line.name},
            "zone": self.zone,
            "student": self.student,
            "at": self.at.isoformat(),
            "full_fare": f"{self.fare.amount:.2f}",
            "amount": f"{self.amount:.2f}",
            "currency": "BRL",
            "student_discount": f"{self.discount:.2f}" if self.student else None,
            "fare": {"decree": self.fare.decree, "announced_on": self.fare.announced_on.isoformat(),
                     "effective_from": self.fare.effective_from.isoformat()},
            "legal_basis": self.legal_basis,
        }


class FareNotFound(Exception):
    """No fare of the asked zone is in force on the line at that date."""


def fare_quote(line: BusLine, *, zone: str = FareZone.URBAN, student: bool = False, at: date | None = None) -> FareQuote:
    """The fare a passenger pays on ``line`` at ``at``: students pay the pack's share (art. 4, §ún.)."""
    pack = regulation.current()
    at = at or pack.today()
    fare = fares_in_force(line, at).get(zone)
    if fare is None:
        raise FareNotFound(f"Não há tarifa {FareZone(zone).label} em vigor nesta linha em {at:%d/%m/%Y}.")
    basis = [fare.legal_basis]
    amount = fare.amount
    discount = Decimal("0")
    if student:
        p = pack.collective_param("fare.student_discount")
        discount = Decimal(str(p.value))
        amount = rules.student_fare(fare.amount, discount)
        basis.append(p.legal_basis)
    return FareQuote(line, zone, student, at, fare, amount, discount, "; ".join(b for b in basis if b))


def _p(pack, key: str):
    found = pack.collective_param(key)
    return (found.value, found.legal_basis) if found else (None, "")


def concession_deadlines(pack, concession: Concession) -> dict[str, dict]:
    """The deadlines running for a concession, each with its date and article."""
    from licensing.models_transit import BidderStatus

    out: dict[str, dict] = {}
    if concession.status == ConcessionStatus.AWAITING_CONTRACT:
        called = next((b for b in concession.classified.all() if b.status == BidderStatus.CALLED), None)
        days, basis = _p(pack, "contract.sign_days")
        if called and days is not None:
            out["contract"] = {"label": f"Assinatura do contrato por {called.concessionaire}",
                               "date": rules.contract_deadline(called.called_on, days), "legal_basis": basis}
    if concession.status == ConcessionStatus.AWAITING_START and concession.contract_signed_on:
        days, basis = _p(pack, "service.start_days")
        out["service_start"] = {"label": "Início do serviço (senão caduca)",
                                "date": rules.service_start_deadline(concession.contract_signed_on, days),
                                "legal_basis": basis}
    if concession.term_end and concession.status in (*PUBLIC_STATUSES,):
        _, basis = _p(pack, "concession.term_years")
        out["term_end"] = {"label": "Fim do prazo da concessão", "date": concession.term_end, "legal_basis": basis}
    for d in concession.defaults.all():
        if d.status == "notified":
            out[f"cure_{d.pk}"] = {"label": "Fim do prazo para corrigir as falhas notificadas",
                                   "date": rules.cure_deadline(d.notified_on, d.cure_days),
                                   "legal_basis": _law_basis(pack, "art. 20, §3º")}
    for i in concession.interventions.all():
        for key, value in intervention_deadlines(pack, i).items():
            out[f"{key}_{i.pk}"] = value
    return out


def next_deadline(pack, concession: Concession) -> dict | None:
    """The nearest running deadline of a concession (uses prefetched relations)."""
    found = sorted(concession_deadlines(pack, concession).values(), key=lambda d: d["date"])
    return found[0] if found else None


def intervention_deadlines(pack, intervention) -> dict[str, dict]:
    from datetime import timedelta

    from licensing.models_transit import InterventionStatus

    out: dict[str, dict] = {}
    if intervention.status == InterventionStatus.DECLARED:
        days, basis = _p(pack, "intervention.open_days")
        out["procedure_open"] = {"label": "Instauração do procedimento administrativo",
                                 "date": rules.intervention_open_deadline(intervention.declared_on, days),
                                 "legal_basis": basis}
    if intervention.status == InterventionStatus.PROCEDURE_OPEN and intervention.procedure_opened_on:
        days, basis = _p(pack, "intervention.conclude_days")
        out["procedure_conclude"] = {"label": "Conclusão do procedimento (senão a intervenção é inválida)",
                                     "date": rules.intervention_conclude_deadline(intervention.procedure_opened_on, days),
                                     "legal_basis": basis}
    if intervention.status in (InterventionStatus.DECLARED, InterventionStatus.PROCEDURE_OPEN):
        out["intervention_end"] = {"label": "Fim do prazo da intervenção (decreto)",
                                   "date": intervention.declared_on + timedelta(days=intervention.term_days),
                                   "legal_basis": _law_basis(pack, "art. 23, parágrafo único")}
    return out


def _law_basis(pack, article: str) -> str:
    law = pack.law((pack.collective_transport or {}).get("law", "")) or {}
    return f"{law.get('short', '')}, {article}".strip(", ")


def complaint_lookup(protocol: str, access_code: str) -> Complaint | None:
    """A complaint by its protocol AND access code (both are needed: protocols are sequential)."""
    found = Complaint.objects.select_related("line").filter(protocol=(protocol or "").strip()).first()
    if found is None or not access_code:
        return None
    if not hmac.compare_digest(found.access_code, normalize_verification_code(access_code)):
        return None
    return found
