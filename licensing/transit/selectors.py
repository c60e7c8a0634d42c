"""Reads of collective transport shared by the HTML views and the API (constant queries)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db.models import Count, Max, Prefetch, Q, QuerySet

from licensing.transit import rules as rules
from licensing.transit.citations import law_basis as _law_basis
from licensing.transit.models import (
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


def _fare_rows(line: BusLine) -> list[BusFare]:
    rows = getattr(line, "fare_rows", None)
    if rows is None:
        rows = list(line.fares.order_by("zone", "-effective_from", "-id"))
    return rows


def _notice_days() -> int:
    found = regulation.current().collective_param("fare.min_notice_days")
    return int(found.value) if found is not None else 0


def _first_fare_ids(rows: list[BusFare]) -> set[int]:
    """The first fare of each zone (set with the line, art. 15): no prior notice applies to it."""
    first: dict[str, BusFare] = {}
    for fare in rows:
        seen = first.get(fare.zone)
        if seen is None or (fare.effective_from, fare.pk or 0) < (seen.effective_from, seen.pk or 0):
            first[fare.zone] = fare
    return {f.pk for f in first.values()}


def fares_in_force(line: BusLine, at: date | None = None) -> dict[str, BusFare]:
    """zone → the fare in force at ``at``: the latest one that applies on that day (art. 17:
    a change announced less than N days before is not in force yet). Uses prefetched rows."""
    at = at or regulation.current().today()
    rows = _fare_rows(line)
    notice_days = _notice_days()
    firsts = _first_fare_ids(rows)
    out: dict[str, BusFare] = {}
    for fare in rows:
        if fare.zone in out:
            continue
        if rules.fare_in_force_on(at, fare.announced_on, fare.effective_from, notice_days,
                                  is_change=fare.pk not in firsts):
            out[fare.zone] = fare
    return out


def upcoming_fares(line: BusLine, at: date | None = None) -> list[BusFare]:
    """Announced fares not yet in force (public notice, art. 17)."""
    at = at or regulation.current().today()
    rows = _fare_rows(line)
    notice_days = _notice_days()
    firsts = _first_fare_ids(rows)
    found = (f for f in rows
             if not rules.fare_in_force_on(at, f.announced_on, f.effective_from, notice_days,
                                           is_change=f.pk not in firsts))
    return sorted(found, key=lambda f: (f.effective_from, f.zone))


_FARES_STATE_KEY = "transit:fares-state"
_FARES_STATE_SECONDS = 60  # forgotten at once by the services that change fares or public lines


def _fares_state() -> tuple[str, int]:
    """(fingerprint, number of fares of public lines): one query, then kept in the cache (shared
    by the processes) until a fare is set or a concession changes status."""
    from django.core.cache import cache

    found = cache.get(_FARES_STATE_KEY)
    if found is not None:
        return found
    agg = BusLine.objects.filter(concession__status__in=PUBLIC_STATUSES).aggregate(
        n_lines=Count("id", distinct=True), last_line=Max("id"), n_fares=Count("fares", distinct=True),
        last_fare=Max("fares__id"))
    found = (f"{agg['n_lines']}:{agg['last_line']}:{agg['n_fares']}:{agg['last_fare']}", agg["n_fares"] or 0)
    cache.set(_FARES_STATE_KEY, found, _FARES_STATE_SECONDS)
    return found


def forget_fares_state() -> None:
    from django.core.cache import cache

    cache.delete(_FARES_STATE_KEY)


def fares_fingerprint() -> str:
    """Changes whenever a fare is set or a line is opened/closed to the public (page caches)."""
    return _fares_state()[0]


def quotable_lines() -> list[BusLine]:
    """Public lines that have at least one fare (the bus lines of the fare calculator)."""
    if not _fares_state()[1]:
        return []
    return list(public_lines().filter(fares__isnull=False).distinct())


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


    def components(self) -> list[tuple[str, Decimal]]:
        """The parts of the price (they add up to ``amount``)."""
        parts = [(f"Passagem da linha {self.line.code}, trecho {FareZone(self.zone).label} ({self.fare.decree})",
                  self.fare.amount)]
        if self.student:
            pct = (self.discount * 100).normalize()
            parts.append((f"Desconto de estudante ({pct:f} %)".replace(".", ","), self.amount - self.fare.amount))
        return parts

    def as_quote_api(self) -> dict:
        """The shape of GET /api/v1/fares/quote/ (the same keys as the tariff-table quotes)."""
        return {
            "total": f"{self.amount:.2f}",
            "currency": "BRL",
            "components": [{"label": label, "amount": f"{amount:.2f}"} for label, amount in self.components()],
            "tariff": {
                "decree": self.fare.decree,
                "effective_from": self.fare.effective_from.isoformat(),
                "published_on": self.fare.announced_on.isoformat(),
                "structure": "line",
                "is_example": False,
            },
            "legal_basis": self.legal_basis,
            "modality": "bus",
            "at": self.at.isoformat(),
            "line": {"id": self.line.pk, "code": self.line.code, "name": self.line.name},
            "zone": self.zone,
            "student": self.student,
            "full_fare": f"{self.fare.amount:.2f}",
            "flag": None,
            "is_maximum": False,
            "notes": [],
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


def line_fare_quote(line_id, *, zone: str | None = None, student: bool = False, at: date | None = None) -> FareQuote:
    """The quote of the public fare calculator for one line; bad input → RuleViolation naming the field."""
    from portal.exceptions import RuleViolation

    pack = regulation.current()
    basis = _law_basis(pack, "zones")
    if not pack.collective_transport:
        raise RuleViolation("fare.no_lines", "Este município não tem linhas de ônibus concedidas.", "", field="line")
    try:
        pk = int(str(line_id).strip())
    except (TypeError, ValueError):
        pk = None
    line = public_lines().filter(pk=pk).first() if pk else None
    if line is None:
        raise RuleViolation("fare.line_unknown", "Linha de ônibus não encontrada: escolha uma das linhas em operação.",
                            basis, field="line")
    zone = zone or FareZone.URBAN
    if zone not in FareZone.values:
        raise RuleViolation("fare.zone_invalid", "Trecho inválido: use urbano (urban) ou rural (rural).", basis,
                            field="zone")
    try:
        return fare_quote(line, zone=zone, student=student, at=at)
    except FareNotFound as exc:
        raise RuleViolation("fare.no_line_fare", str(exc), basis, field="zone") from None


def line_tariff_api(line: BusLine, at: date) -> dict | None:
    """The fares of a line in force at ``at`` in the shape of GET /api/v1/fares/tariffs/."""
    pack = regulation.current()
    fares = fares_in_force(line, at)
    if not fares:
        return None
    latest = max(fares.values(), key=lambda f: (f.effective_from, f.pk))
    components: dict[str, str] = {zone: f"{fare.amount:.2f}" for zone, fare in sorted(fares.items())}
    student = pack.collective_param("fare.student_discount")
    if student is not None:
        components["student_discount"] = f"{Decimal(str(student.value)):.2f}"
    return {
        "modality": "bus",
        "decree": latest.decree,
        "published_on": latest.announced_on.isoformat(),
        "effective_from": latest.effective_from.isoformat(),
        "structure": "line",
        "components": components,
        "legal_basis": "; ".join(dict.fromkeys(
            [f.legal_basis for f in fares.values()] + ([student.legal_basis] if student else []))),
        "is_example": False,
        "adjustment_month": None,
        "line": {"id": line.pk, "code": line.code, "name": line.name},
        "fares": [{"zone": f.zone, "amount": f"{f.amount:.2f}", "decree": f.decree,
                   "announced_on": f.announced_on.isoformat(), "effective_from": f.effective_from.isoformat(),
                   "legal_basis": f.legal_basis} for _, f in sorted(fares.items())],
    }


def _p(pack, key: str):
    found = pack.collective_param(key)
    return (found.value, found.legal_basis) if found else (None, "")


def concession_deadlines(pack, concession: Concession) -> dict[str, dict]:
    """The deadlines running for a concession, each with its date and article."""
    from licensing.transit.models import BidderStatus

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
                                   "legal_basis": _law_basis(pack, "default_notice")}
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

    from licensing.transit.models import InterventionStatus

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
                                   "legal_basis": _law_basis(pack, "intervention_decree")}
    return out




def complaint_lookup(protocol: str, access_code: str) -> Complaint | None:
    """A complaint by its protocol AND access code (both are needed: protocols are sequential)."""
    found = Complaint.objects.select_related("line").filter(protocol=(protocol or "").strip()).first()
    if found is None or not access_code:
        return None
    if not hmac.compare_digest(found.access_code, normalize_verification_code(access_code)):
        return None
    return found
