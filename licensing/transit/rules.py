"""Pure rules of collective transport concessions (the pack's [collective_transport]).

Every function takes plain values and the pack's parameters (value and legal basis) and
returns a ``RuleViolation`` (or a computed date/amount); none touches the database. The
articles cited come from the pack's ``legal_basis``; the docstrings name the article of the
collective-transport law each one applies.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal

from portal.exceptions import RuleViolation
from portal.money import to_cents
from portal.periods import add_years

CENT = Decimal("0.01")
KM = Decimal("0.001")


# --- art. 2: vehicle categories ---------------------------------------------------------
def bus_category_violation(category: dict, seated: int, standing: int) -> RuleViolation | None:
    """Art. 2, parágrafo único: seated and standing places fit the category's bounds.

    ``category`` is a pack entry with inclusive ``min_seated``/``max_seated``/
    ``max_standing`` (absent = no bound). Ônibus: more than 30 seated, up to 10 standing;
    micro-ônibus: fewer than 30 seated, none standing; lotação: at least 8 seated, none
    standing.
    """
    basis = category.get("legal_basis", "")
    label = category.get("label", category.get("code", ""))
    if seated is None or seated < 0 or standing is None or standing < 0:
        return RuleViolation("bus_places_invalid", "Informe os lugares sentados e em pé (números inteiros, zero ou mais).",
                             basis, field="seated")
    low, high = category.get("min_seated"), category.get("max_seated")
    if low is not None and seated < int(low):
        return RuleViolation(
            "bus_category_seated",
            f"Um veículo da categoria {label} precisa ter pelo menos {low} lugares sentados; "
            f"foram informados {seated}.",
            basis, field="seated",
        )
    if high is not None and seated > int(high):
        return RuleViolation(
            "bus_category_seated",
            f"Um veículo da categoria {label} pode ter no máximo {high} lugares sentados; "
            f"foram informados {seated}.",
            basis, field="seated",
        )
    max_standing = category.get("max_standing")
    if max_standing is not None and standing > int(max_standing):
        allowed = "não admite passageiros em pé" if int(max_standing) == 0 else f"admite no máximo {max_standing} passageiros em pé"
        return RuleViolation(
            "bus_category_standing",
            f"A categoria {label} {allowed}; foram informados {standing}.",
            basis, field="standing",
        )
    return None


def bus_matches_concession_violation(bus_category: str, concession_category: str, basis: str) -> RuleViolation | None:
    """Art. 3, §1 and art. 9, I: the contract fixes the vehicle category of the concession."""
    if bus_category != concession_category:
        return RuleViolation(
            "bus_category_mismatch",
            "A categoria do veículo deve ser a prevista no contrato de concessão.",
            basis, field="category",
        )
    return None


# --- art. 7: itinerary changes ------------------------------------------------------------
@dataclass(frozen=True)
class Segment:
    origin: str
    destination: str
    length_km: Decimal
    zone: str = "urban"

    def key(self) -> tuple[str, str, Decimal]:
        return (_norm(self.origin), _norm(self.destination), Decimal(self.length_km).quantize(KM))


def _norm(text: str) -> str:
    return " ".join((text or "").split()).casefold()


def itinerary_length(segments: Iterable[Segment]) -> Decimal:
    return sum((Decimal(s.length_km) for s in segments), Decimal("0")).quantize(KM)


def changed_km(original: Sequence[Segment], proposed: Sequence[Segment]) -> Decimal:
    """The route changed relative to the ORIGINAL itinerary (art. 7, caput).

    Segments of the proposal not in the original (added or altered) and segments of the
    original dropped from the proposal are compared; the larger total is the changed
    route (replacing 5 km by 6 km changes 6 km; dropping 10 km changes 10 km). Measuring
    against the original, not the last version, keeps successive amendments cumulative.
    """
    remaining = [s.key() for s in original]
    added = Decimal("0")
    for seg in proposed:
        k = seg.key()
        if k in remaining:
            remaining.remove(k)
        else:
            added += Decimal(seg.length_km)
    removed = sum((k[2] for k in remaining), Decimal("0"))
    return max(added, removed).quantize(KM)


def itinerary_change_ratio(original_km: Decimal, change_km: Decimal) -> Decimal:
    if original_km <= 0:
        raise ValueError("original_km must be positive")
    return Decimal(change_km) / Decimal(original_km)


def itinerary_change_violation(
    original_km: Decimal, change_km: Decimal, max_ratio: Decimal | str, basis: str
) -> RuleViolation | None:
    """Art. 7, caput and §1: up to 25 % of the original route by amendment; more needs a bidding."""
    max_ratio = Decimal(str(max_ratio))
    ratio = itinerary_change_ratio(Decimal(original_km), Decimal(change_km))
    if ratio > max_ratio:
        pct = (ratio * 100).quantize(CENT, rounding=ROUND_HALF_UP)
        limit = (max_ratio * 100).normalize()
        return RuleViolation(
            "itinerary_change_over_limit",
            f"A alteração atinge {str(pct).replace('.', ',')} % do trajeto original "
            f"({str(change_km).replace('.', ',')} km de {str(original_km).replace('.', ',')} km), acima de "
            f"{limit} %: não pode ser feita por aditivo e exige nova concorrência pública.",
            basis, field="segments",
        )
    return None


# --- art. 7, §2 and art. 17: notice before a change takes effect ----------------------
def earliest_effective(announced_on: date, notice_days: int) -> date:
    """The first day a change announced on ``announced_on`` may take effect."""
    return announced_on + timedelta(days=int(notice_days))


def notice_violation(
    announced_on: date, effective_from: date, notice_days: int, basis: str, *, what: str = "A alteração",
    code: str = "notice_too_short",
) -> RuleViolation | None:
    """Art. 17 (fares) and art. 7, §2 (itinerary, schedule): at least N days' notice.

    Announced on day 0, the change may take effect on day N, not on day N − 1.
    """
    if effective_from < earliest_effective(announced_on, notice_days):
        first = earliest_effective(announced_on, notice_days)
        return RuleViolation(
            code,
            f"{what} só pode vigorar {notice_days} dias depois de anunciada: anunciada em "
            f"{announced_on:%d/%m/%Y}, vigora a partir de {first:%d/%m/%Y} no mínimo.",
            basis, field="effective_from",
        )
    return None


def fare_in_force_on(at: date, announced_on: date, effective_from: date, notice_days: int, *,
                     is_change: bool) -> bool:
    """Art. 17: a fare applies from its effective date; a CHANGE never before N days after its
    announcement (announced on day 0: not in force on day N − 1, in force on day N). The first
    fare of a line (art. 15, set with the concession) needs no prior notice.
    """
    if at < effective_from:
        return False
    return not is_change or at >= earliest_effective(announced_on, notice_days)


# --- art. 4, parágrafo único and art. 16: fares ------------------------------------------
def student_fare(amount: Decimal, discount: Decimal | str) -> Decimal:
    """Art. 4, parágrafo único: students pay the fare less the discount, half up to the cent."""
    return to_cents(Decimal(str(amount)) * (Decimal("1") - Decimal(str(discount))))


def fare_amount_violation(amount: Decimal, basis: str) -> RuleViolation | None:
    if amount is None or Decimal(amount) <= 0:
        return RuleViolation("fare_amount_invalid", "Informe o valor da passagem, maior que zero.", basis,
                             field="amount")
    return None


def fare_zone_violation(zone: str, line_zones: Iterable[str], may_differ: bool, basis: str) -> RuleViolation | None:
    """Art. 16: a distinct fare per stretch only when the line serves urban AND rural routes."""
    zones = set(line_zones)
    if zone not in zones:
        return RuleViolation(
            "fare_zone_not_served",
            "A linha não tem trecho nesta zona; só cabe tarifa diferenciada quando a delegação "
            "atinge itinerários urbanos e rurais.",
            basis, field="zone",
        )
    if len(zones) > 1 and not may_differ:
        return RuleViolation("fare_zone_not_allowed", "O regulamento não admite tarifa diferenciada por trecho.",
                             basis, field="zone")
    return None


# --- art. 8: contract signature -----------------------------------------------------------
def contract_deadline(called_on: date, sign_days: int) -> date:
    """Art. 8: the contract is signed within N days from the close of the bidding (or the call)."""
    return called_on + timedelta(days=int(sign_days))


def contract_signature_violation(called_on: date, signed_on: date, sign_days: int, basis: str) -> RuleViolation | None:
    """Art. 8: day N after the close is the last day; day N + 1 is a renunciation."""
    if signed_on < called_on:
        return RuleViolation("contract_before_bidding", "A assinatura não pode ser anterior ao encerramento da licitação.",
                             basis, field="signed_on")
    deadline = contract_deadline(called_on, sign_days)
    if signed_on > deadline:
        return RuleViolation(
            "contract_sign_deadline",
            f"O contrato devia ser assinado em até {sign_days} dias, até {deadline:%d/%m/%Y}: o não "
            "comparecimento no prazo implica renúncia ao direito de contratar.",
            basis, field="signed_on", conflict=True,
        )
    return None


# --- art. 22: start of service ------------------------------------------------------------
def service_start_deadline(contract_signed_on: date, start_days: int) -> date:
    """Art. 22: service starts within N days from the act that granted it (the contract)."""
    return contract_signed_on + timedelta(days=int(start_days))


def service_start_violation(contract_signed_on: date, started_on: date, start_days: int, basis: str) -> RuleViolation | None:
    """Art. 22: starting on day N is on time; on day N + 1 the delegation has lapsed."""
    if started_on < contract_signed_on:
        return RuleViolation("start_before_contract", "O início do serviço não pode ser anterior ao contrato.",
                             basis, field="started_on")
    deadline = service_start_deadline(contract_signed_on, start_days)
    if started_on > deadline:
        return RuleViolation(
            "service_start_lapsed",
            f"O serviço devia começar em até {start_days} dias, até {deadline:%d/%m/%Y}: a delegação caducou.",
            basis, field="started_on", conflict=True,
        )
    return None


def start_lapsed(contract_signed_on: date, today: date, start_days: int) -> bool:
    """Art. 22: not started and the N days have passed (lapses on day N + 1)."""
    return today > service_start_deadline(contract_signed_on, start_days)


# --- art. 25: term and renewal ------------------------------------------------------------
def concession_term_end(start: date, years: int) -> date:
    """Art. 25: N years from the start; the last day is the day before the anniversary."""
    return add_years(start, int(years)) - timedelta(days=1)


def renewal_violation(renewals_done: int, max_renewals: int, basis: str) -> RuleViolation | None:
    """Art. 25: one renewal for an equal period."""
    if renewals_done >= int(max_renewals):
        return RuleViolation(
            "concession_renewal_limit",
            f"A concessão admite {max_renewals} renovação por igual período e já foi renovada.",
            basis, field="renewal", conflict=True,
        )
    return None


# --- art. 24: intervention ----------------------------------------------------------------
def intervention_open_deadline(declared_on: date, open_days: int) -> date:
    return declared_on + timedelta(days=int(open_days))


def intervention_conclude_deadline(opened_on: date, conclude_days: int) -> date:
    return opened_on + timedelta(days=int(conclude_days))


def intervention_open_violation(declared_on: date, opened_on: date, open_days: int, basis: str) -> RuleViolation | None:
    """Art. 24, caput: the procedure opens within N days of the declaration (day N ok, N + 1 late)."""
    if opened_on < declared_on:
        return RuleViolation("procedure_before_intervention",
                             "O procedimento não pode ser instaurado antes do decreto de intervenção.",
                             basis, field="opened_on")
    deadline = intervention_open_deadline(declared_on, open_days)
    if opened_on > deadline:
        return RuleViolation(
            "intervention_open_deadline",
            f"O procedimento administrativo devia ser instaurado em até {open_days} dias da declaração, "
            f"até {deadline:%d/%m/%Y}.",
            basis, field="opened_on", conflict=True,
        )
    return None


def intervention_conclude_violation(opened_on: date, concluded_on: date, conclude_days: int, basis: str) -> RuleViolation | None:
    """Art. 24, §2: concluded within N days of its opening, or the intervention is invalid."""
    if concluded_on < opened_on:
        return RuleViolation("conclusion_before_opening", "A conclusão não pode ser anterior à instauração.",
                             basis, field="concluded_on")
    deadline = intervention_conclude_deadline(opened_on, conclude_days)
    if concluded_on > deadline:
        return RuleViolation(
            "intervention_conclude_deadline",
            f"O procedimento devia ser concluído em até {conclude_days} dias, até {deadline:%d/%m/%Y}: "
            "a intervenção considera-se inválida.",
            basis, field="concluded_on", conflict=True,
        )
    return None


# --- art. 20, §3: default proceedings ------------------------------------------------------
def cure_deadline(notified_on: date, cure_days: int) -> date:
    return notified_on + timedelta(days=int(cure_days))


def default_open_violation(notified_on: date | None, cure_days: int, opened_on: date, basis: str) -> RuleViolation | None:
    """Art. 20, §3: no default proceeding before the detailed notice AND the period to cure."""
    if notified_on is None:
        return RuleViolation("default_not_notified",
                             "Comunique antes à delegatária, detalhadamente, os descumprimentos apontados.",
                             basis, field="opened_on", conflict=True)
    deadline = cure_deadline(notified_on, cure_days)
    if opened_on <= deadline:
        return RuleViolation(
            "default_cure_period_running",
            f"O prazo para corrigir as falhas corre até {deadline:%d/%m/%Y}: o processo de inadimplência "
            "só pode ser instaurado depois dele.",
            basis, field="opened_on", conflict=True,
        )
    return None


def cure_days_violation(cure_days: int, basis: str) -> RuleViolation | None:
    if cure_days is None or int(cure_days) < 1:
        return RuleViolation("cure_days_invalid", "Informe um prazo razoável, de pelo menos 1 dia, para corrigir as falhas.",
                             basis, field="cure_days")
    return None
