"""Pure rules of a grant's life (auxiliary drivers, substitution, leave, transfer, preposto,
renunciation, yearly obligations). No database: each takes plain values and the pack's
``Param`` objects (value + legal basis) and answers with a ``RuleViolation`` or a result.

A ``Param`` that is ``None`` means the law has no such rule: the rule is not applied,
except where the act itself needs the law to provide for it (leave, preposto, TFF).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from fleet.rules import reached_max_age, vehicle_age_years
from licensing.applications import rules as entry
from licensing.grants.rules import add_years
from portal.exceptions import RuleViolation


def _basis(param, suffix: str = "") -> str:
    if param is None:
        return ""
    return f"{param.legal_basis}{suffix}"


def _fmt(day: date) -> str:
    return day.strftime("%d/%m/%Y")


# --- auxiliary drivers ---------------------------------------------------------------
@dataclass(frozen=True)
class RemovalReport:
    """When an auxiliary driver's departure was reported, against the legal deadline."""

    days_after: int
    deadline_days: int | None
    late: bool
    legal_basis: str


def auxiliary_removal_report(*, left_on: date, reported_on: date, deadline) -> RemovalReport:
    """The holder must report an auxiliary's departure within the pack's days
    (``auxiliary.removal_report_days``, with its article in the pack: e.g. 2 days).

    Day 0 is the departure; reported on day 2 is in time, on day 3 is late (an infraction
    to be recorded, the removal itself is still registered).
    """
    if left_on > reported_on:
        raise RuleViolation(
            "auxiliary_left_in_future",
            f"A data do desligamento ({_fmt(left_on)}) não pode ser posterior à data da comunicação "
            f"({_fmt(reported_on)}).",
            field="left_on",
        )
    days = (reported_on - left_on).days
    if deadline is None:
        return RemovalReport(days, None, False, "")
    limit = int(deadline.value)
    return RemovalReport(days, limit, days > limit, deadline.legal_basis)


def auxiliary_limit_violation(*, current: int, max_param) -> RuleViolation | None:
    """A grant holds at most ``auxiliary.max`` auxiliary drivers (current includes pending)."""
    if max_param is None:
        return None
    limit = int(max_param.value)
    if current >= limit:
        return RuleViolation(
            "auxiliary_limit",
            f"A autorização já tem o número máximo de condutores auxiliares ({limit}).",
            max_param.legal_basis, field="cpf", conflict=True,
        )
    return None


def driver_requirement_violations(
    *, birth_date: date | None, cnh_category: str, cnh_first_issued: date | None, cnh_ear: bool, on: date,
    min_age=None, categories=None, cnh_min_years=None, ear_required=None,
) -> list[RuleViolation]:
    """Requirements an auxiliary driver shares with the holder (all but vehicle ownership,
    where the law says so): the same entry rules as the holder's (licensing.rules), judged on
    the date of the request — minimum age, CNH category, years since the first CNH, EAR."""
    return [
        *entry.driver_age(birth_date, on, min_age, field="birth_date"),
        *entry.cnh_category(cnh_category, categories, field="cnh_category"),
        *entry.cnh_years(cnh_first_issued, on, cnh_min_years, field="cnh_first_issued"),
        *entry.cnh_ear(bool(cnh_ear), ear_required, field="cnh_ear"),
    ]


# --- vehicle -------------------------------------------------------------------------
def vehicle_age(*, manufacture_year: int, first_registration: date | None, basis: str | None, on: date) -> int:
    """Age as the pack counts it (``vehicle.age_basis``): fleet.rules.vehicle_age_years."""
    return vehicle_age_years(basis, manufacture_year, first_registration, on)


SUBSTITUTION_GROUNDS = {
    "newer": "veículo substituto de fabricação mais recente",
    "max_age": "veículo atual atingiu a idade máxima",
    "total_loss": "perda total (sinistro, furto ou roubo)",
}
CERTIFICATE_ISSUERS = {"detran": "DETRAN (certidão de baixa)", "police": "Delegacia de Polícia (certidão)"}


def substitution_grounds(grounds) -> dict[str, str]:
    """The grounds the pack's law lists (``substitution.grounds``: ground → its article), in
    the order of the law; empty where the law lists none (any substitution within the vehicle
    rules). A ground the code does not know is left out, never guessed."""
    if grounds is None or not isinstance(grounds.value, dict):
        return {}
    return {code: str(article) for code, article in grounds.value.items() if code in SUBSTITUTION_GROUNDS}


def substitution_violation(
    *, allowed, grounds=None, ground: str, old_year: int, old_first_registration: date | None, new_year: int,
    certificate_issuer: str = "", certificate_number: str = "", age_basis=None, max_age=None, on: date,
) -> RuleViolation | None:
    """Vehicle substitution (``substitution.allowed``) on the grounds the pack's law lists
    (``substitution.grounds``), each refused with its own article: a newer vehicle (fabricação
    mais recente), the current vehicle reached the maximum age (fleet.rules.reached_max_age, the
    same reading as every door) or total loss proven by the DETRAN or police certificate. The
    substitute itself meets every vehicle rule: that is fleet.rules.vehicle_violations, applied
    by the kind's ``clean`` beside this one."""
    if allowed is not None and not allowed.value:
        return RuleViolation("substitution_forbidden", "A lei do município não admite a substituição do veículo.",
                             allowed.legal_basis)
    listed = substitution_grounds(grounds)
    if not listed:
        if ground:
            return RuleViolation("substitution_ground", "A lei do município não lista motivos para a substituição: "
                                 "não informe motivo (o veículo substituto cumpre as regras do veículo).",
                                 _basis(allowed), field="ground")
        return None
    if ground not in listed:
        names = "; ".join(SUBSTITUTION_GROUNDS[g] for g in listed)
        return RuleViolation("substitution_ground", f"Informe o motivo da substituição previsto na lei: {names}.",
                             grounds.legal_basis, field="ground")
    basis = listed[ground]
    if ground == "newer" and new_year <= old_year:
        return RuleViolation(
            "substitution_not_newer",
            f"O veículo substituto (fabricação {new_year}) precisa ser mais novo que o atual (fabricação {old_year}).",
            basis, field="vehicle")
    if ground == "max_age" and max_age is not None:
        basis_kind = age_basis.value if age_basis is not None else None
        old_age = vehicle_age(manufacture_year=old_year, first_registration=old_first_registration,
                              basis=basis_kind, on=on)
        if not reached_max_age(old_age, int(max_age.value)):
            return RuleViolation(
                "substitution_not_at_max_age",
                f"O veículo atual tem {old_age} anos e ainda não atingiu a idade máxima ({max_age.value}).",
                basis, field="ground")
    if ground == "total_loss":
        if certificate_issuer not in CERTIFICATE_ISSUERS:
            return RuleViolation(
                "substitution_certificate_issuer",
                "Informe quem emitiu a certidão: DETRAN (sinistro) ou Delegacia de Polícia (furto ou roubo).",
                basis, field="certificate_issuer")
        if not (certificate_number or "").strip():
            return RuleViolation("substitution_certificate_required",
                                 "Informe o número da certidão de baixa (DETRAN) ou da certidão policial.",
                                 basis, field="certificate_number")
    return None


# --- leave of absence ----------------------------------------------------------------
LEAVE_KEYS = {"theft": "leave.theft_days", "accident": "leave.accident_days",
              "substitution": "leave.substitution_days"}


def leave_violation(*, reason: str, days: int, max_param) -> RuleViolation | None:
    """Leave of absence for a fixed maximum per reason (``leave.<reason>_days``,
    e.g. 90 days: day 90 accepted, 91 refused)."""
    if reason not in LEAVE_KEYS:
        return RuleViolation("leave_reason", "Informe o motivo do afastamento: furto, acidente grave ou "
                             "substituição do veículo.", field="reason")
    if max_param is None:
        return RuleViolation("leave_not_provided",
                             "A lei do município não prevê licença de afastamento por este motivo.", field="reason")
    if days < 1:
        return RuleViolation("leave_days", "Informe quantos dias de afastamento (pelo menos 1).", field="days")
    limit = int(max_param.value)
    if days > limit:
        return RuleViolation("leave_too_long", f"O afastamento por este motivo é de no máximo {limit} dias.",
                             max_param.legal_basis, field="days")
    return None


def leave_last_day(starts_on: date, days: int) -> date:
    """Last day of a leave of ``days`` calendar days starting on ``starts_on``."""
    return starts_on + timedelta(days=days - 1)


def leave_overdue(*, ends_on: date, returned: bool, today: date) -> bool:
    """A leave whose last day has passed without a recorded return."""
    return not returned and today > ends_on


# --- transfer ------------------------------------------------------------------------
TRANSFER_GROUNDS = {
    "holder_years": "titular há pelo menos o tempo mínimo",
    "death": "falecimento do titular",
    "retirement": "aposentadoria do titular",
    "invalidity": "invalidez do titular",
    "incapacity": "incapacidade comprovada por motivo de saúde",
}
HEIR_GROUNDS = {"death", "retirement", "invalidity"}
HEIR_RELATIONSHIPS = {"spouse": "cônjuge", "heir": "herdeiro legal"}


def transfer_violation(
    *, allowed, ground: str, held_since: date, filed_on: date, event_on: date | None = None,
    relationship: str = "", proof: str = "", min_years=None, heir_days=None,
) -> RuleViolation | None:
    """Transfer of the grant (``transfer.*``): after the minimum years as holder (I); on
    death, retirement or invalidity to the spouse or an heir, filed within the deadline
    counted from the event (II); on proven incapacity (III). Refused with the article where
    the law forbids it (``transfer.allowed`` false or absent)."""
    if allowed is None or not allowed.value:
        return RuleViolation("transfer_forbidden", "A autorização é pessoal e intransferível.",
                             _basis(allowed))
    if ground not in TRANSFER_GROUNDS:
        return RuleViolation("transfer_ground", "Informe o fundamento da transferência.", allowed.legal_basis,
                             field="ground")
    if ground == "holder_years":
        if min_years is not None:
            years = int(min_years.value)
            since = add_years(held_since, years)
            if filed_on < since:
                return RuleViolation(
                    "transfer_min_years",
                    f"A transferência exige {years} anos como titular; isso se completa em {_fmt(since)}.",
                    min_years.legal_basis, field="ground", conflict=True)
        return None
    if ground in HEIR_GROUNDS:
        basis = _basis(heir_days) or _basis(allowed, ", II")
        if relationship not in HEIR_RELATIONSHIPS:
            return RuleViolation("transfer_relationship",
                                 "Neste caso a transferência só pode ser feita ao cônjuge ou a um herdeiro legal.",
                                 basis, field="relationship")
        if event_on is None:
            return RuleViolation("transfer_event_date", "Informe a data do falecimento, aposentadoria ou invalidez.",
                                 basis, field="event_on")
        if event_on > filed_on:
            return RuleViolation("transfer_event_future", "A data do fato não pode ser futura.", basis,
                                 field="event_on")
        if heir_days is not None:
            limit = int(heir_days.value)
            if (filed_on - event_on).days > limit:
                return RuleViolation(
                    "transfer_heir_deadline",
                    f"O pedido deve ser protocolado em até {limit} dias do fato "
                    f"(prazo encerrado em {_fmt(event_on + timedelta(days=limit))}).",
                    basis, field="event_on", conflict=True)
        return None
    # incapacity
    if not (proof or "").strip():
        return RuleViolation("transfer_proof_required",
                             "Informe o laudo ou atestado que comprova a incapacidade para a profissão.",
                             _basis(allowed, ", III"), field="proof")
    return None


# --- preposto ------------------------------------------------------------------------
def preposto_violation(*, allowed, permanent: bool, invalidity_on: date | None, filed_on: date) -> RuleViolation | None:
    """On permanent invalidity the holder keeps the grant and appoints a preposto
    (``preposto.allowed_on_invalidity``)."""
    if allowed is None or not allowed.value:
        return RuleViolation("preposto_not_provided", "A lei do município não prevê a constituição de preposto.",
                             _basis(allowed))
    if not permanent:
        return RuleViolation("preposto_permanent_only",
                             "O preposto só pode ser constituído em caso de invalidez permanente do titular.",
                             allowed.legal_basis, field="permanent")
    if invalidity_on is None or invalidity_on > filed_on:
        return RuleViolation("preposto_invalidity_date", "Informe a data da invalidez (não pode ser futura).",
                             allowed.legal_basis, field="invalidity_on")
    return None


# --- renunciation --------------------------------------------------------------------
def renunciation_fee_notice(refunds) -> str:
    """What the holder is told about fees already paid (``renunciation.refunds_fees``)."""
    if refunds is None:
        return ""
    if refunds.value:
        return f"As taxas pagas poderão ser restituídas na forma da lei ({refunds.legal_basis})."
    return f"A renúncia não dá direito à devolução de nenhuma taxa paga ({refunds.legal_basis})."


# --- yearly obligations: auxiliary re-registration, proof of requirements ---------------
YEARLY_REMINDER_DAYS = 30


@dataclass(frozen=True)
class YearlyDue:
    """Where a yearly obligation stands on ``today``: its deadline, the days left (negative
    once overdue), whether it is overdue and whether the reminder is due."""

    due_on: date
    days_left: int
    overdue: bool
    remind: bool


def yearly_due(*, due_on: date, today: date, remind_days: int = YEARLY_REMINDER_DAYS) -> YearlyDue:
    """The deadline day itself is on time; the day after, overdue. The reminder goes out
    within ``remind_days`` before the deadline."""
    days_left = (due_on - today).days
    overdue = today > due_on
    return YearlyDue(due_on, days_left, overdue, not overdue and days_left <= remind_days)


def auxiliary_reregistration_due(registered_on: date) -> date:
    """The auxiliary driver re-registers every year (``auxiliary.yearly_reregistration``, with
    its article in the pack: "fará o cadastro e/ou recadastramento ... anualmente").

    The year is 12 months from the registration or the last re-registration: registered on
    01/03/2025, due on 01/03/2026 (day 365, on time); overdue from 02/03/2026 (day 366).
    """
    return add_years(registered_on, 1)


def reregistration_violation(*, param) -> RuleViolation | None:
    """Refuse the request where the law has no yearly re-registration of auxiliaries."""
    if param is None or not param.value:
        return RuleViolation(
            "reregistration_not_provided",
            "A lei do município não prevê o recadastramento anual de condutores auxiliares: não há o que recadastrar.",
            _basis(param), field="kind",
        )
    return None


def compliance_anniversaries(*, valid_from: date, valid_until: date) -> list[date]:
    """The anniversaries of a permission before its end: year k's proof is due on the k-th
    (``grant.yearly_compliance_proof``, with its article in the pack: a 4-year permission
    proves the requirements each year — due on 3 anniversaries, the 4th is the end)."""
    out = []
    k = 1
    while (day := add_years(valid_from, k)) < valid_until:
        out.append(day)
        k += 1
    return out


@dataclass(frozen=True)
class ComplianceFiling:
    year: int
    due_on: date
    late: bool


def compliance_filing(*, param, valid_from: date, valid_until: date, proven_years: set[int],
                      filed_on: date) -> ComplianceFiling | RuleViolation:
    """Which year a proof filed on ``filed_on`` covers (the first year not yet proven) and
    whether it is late: filed on the anniversary, on time; the day after, late (still
    received, so the clerk can regularise it). A year's proof opens with that year."""
    if param is None or not param.value:
        return RuleViolation(
            "compliance_proof_not_provided",
            "A lei do município não prevê a comprovação anual dos requisitos durante a permissão.",
            _basis(param), field="kind",
        )
    anniversaries = compliance_anniversaries(valid_from=valid_from, valid_until=valid_until)
    pending = [(k, day) for k, day in enumerate(anniversaries, start=1) if k not in proven_years]
    if not pending:
        return RuleViolation("compliance_proof_none_pending",
                             "Não há comprovação anual pendente nesta permissão.", param.legal_basis,
                             field="kind", conflict=True)
    year, due_on = pending[0]
    opens_on = valid_from if year == 1 else anniversaries[year - 2]
    if filed_on < opens_on:
        return RuleViolation(
            "compliance_proof_too_early",
            f"A comprovação do {year}º ano da permissão pode ser apresentada a partir de {_fmt(opens_on)}.",
            param.legal_basis, field="kind", conflict=True,
        )
    return ComplianceFiling(year, due_on, filed_on > due_on)


def compliance_next_due(*, valid_from: date, valid_until: date, proven_years: set[int]) -> tuple[int, date] | None:
    """The first year whose proof is not yet proven (approved or filed), with its deadline."""
    for k, day in enumerate(compliance_anniversaries(valid_from=valid_from, valid_until=valid_until), start=1):
        if k not in proven_years:
            return k, day
    return None


def missing_documents(*, required: list[dict], presented) -> list[dict]:
    """The pack's documents (for the kind and person) not presented with the request."""
    given = {str(c).strip() for c in (presented or [])}
    return [d for d in required if d["code"] not in given]
