"""Pure functions applying the entry rules of the pack to applications (no database). Each
returns the RuleViolations it finds, each citing the article carried by the pack parameter."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from datetime import date as _date

from fleet.rules import full_years_between
from licensing.grants.rules import add_years, quota_slots
from portal.exceptions import RuleViolation
from portal.numbers import brl

# --- entry rules ---------------------------------------------------------------------------------
# Each function receives plain values and the pack's Param (value + legal basis) and returns a
# list of RuleViolation (empty = the rule is met). A missing Param means the law has no such rule.


CNH_CATEGORIES = ("A", "B", "C", "D", "E")


def _fmt(person: str) -> str:
    return f" ({person})" if person else ""


def driver_age(birth_date: _date | None, today: _date, min_age, *, field: str = "birth_date",
               person: str = "") -> list[RuleViolation]:
    """driver.min_age: the driver must have completed the minimum age."""
    if min_age is None:
        return []
    if birth_date is None:
        return [RuleViolation("driver.min_age", f"Informe a data de nascimento{_fmt(person)}: a idade mínima é "
                              f"{min_age.value} anos.", min_age.legal_basis, field=field)]
    age = full_years_between(birth_date, today)
    if age < int(min_age.value):
        return [RuleViolation("driver.min_age", f"O condutor{_fmt(person)} tem {age} anos; a idade mínima é "
                              f"{min_age.value} anos.", min_age.legal_basis, field=field)]
    return []


def cnh_category(category: str, categories, *, field: str = "driver.cnh_category", person: str = "") -> list[RuleViolation]:
    """driver.cnh_categories: one of the letters of the CNH must be an accepted category."""
    if categories is None:
        return []
    text = "".join(ch for ch in (category or "").upper() if ch.isalpha())
    # "ACC" (autorização para conduzir ciclomotor) is not a category: its letters are not A or C
    letters = set() if text == "ACC" else {ch for ch in text if ch in CNH_CATEGORIES}
    accepted = [str(c).upper() for c in categories.value]
    if not letters or not letters & set(accepted):
        return [RuleViolation("driver.cnh_categories", f"A categoria da CNH{_fmt(person)} ({category or 'não informada'}) "
                              f"não é aceita: exigida {', '.join(accepted)}.", categories.legal_basis, field=field)]
    return []


def cnh_years(first_issued: _date | None, today: _date, min_years, *, field: str = "driver.cnh_first_issued",
              person: str = "") -> list[RuleViolation]:
    """driver.cnh_min_years: full years since the first CNH (1 year 364 days is 1 year)."""
    if min_years is None:
        return []
    if first_issued is None:
        return [RuleViolation("driver.cnh_min_years", f"Informe a data da primeira habilitação{_fmt(person)}: o "
                              f"condutor precisa ter CNH há pelo menos {min_years.value} anos.", min_years.legal_basis,
                              field=field)]
    held = full_years_between(first_issued, today)
    if first_issued > today or held < int(min_years.value):
        return [RuleViolation("driver.cnh_min_years", f"A CNH{_fmt(person)} foi emitida em {first_issued:%d/%m/%Y}; "
                              f"é preciso tê-la há pelo menos {min_years.value} anos completos.", min_years.legal_basis,
                              field=field)]
    return []


def cnh_ear(has_ear: bool, ear_required, *, field: str = "driver.cnh_ear", person: str = "") -> list[RuleViolation]:
    """driver.ear_required: the CNH must carry 'exerce atividade remunerada'."""
    if ear_required is None or not ear_required.value or has_ear:
        return []
    return [RuleViolation("driver.ear_required", f"A CNH{_fmt(person)} precisa ter a observação EAR (exerce "
                          "atividade remunerada).", ear_required.legal_basis, field=field)]


def auxiliary_count(count: int, max_aux) -> list[RuleViolation]:
    if max_aux is None or count <= int(max_aux.value):
        return []
    return [RuleViolation("auxiliary.max", f"São permitidos no máximo {max_aux.value} condutor(es) auxiliar(es); "
                          f"foram informados {count}.", max_aux.legal_basis, field="auxiliary_drivers")]


def one_grant_per_person(current_grants: int, open_applications: int, max_per_holder) -> list[RuleViolation]:
    """grant.max_per_holder: current grants plus open applications may not exceed the maximum."""
    if max_per_holder is None:
        return []
    if current_grants + open_applications >= int(max_per_holder.value):
        what = "uma outorga vigente" if current_grants else "um requerimento em andamento"
        limit = int(max_per_holder.value)
        noun = "outorga" if limit == 1 else "outorgas"
        return [RuleViolation("grant.max_per_holder", f"Cada pessoa pode ter no máximo {limit} {noun}; "
                              f"você já tem {what}.", max_per_holder.legal_basis)]
    return []


def exclusive_permission(holds_grant: bool, exclusive, *, person: str, field: str) -> list[RuleViolation]:
    """grant.exclusive_public_permission: a driver may not hold another public permission or
    authorization. Where the law gives the condutor auxiliar the holder's requirements, a current
    holder cannot be named as someone else's auxiliary (the article is the parameter's)."""
    if exclusive is None or not exclusive.value or not holds_grant:
        return []
    return [RuleViolation("grant.exclusive_public_permission", f"O {person} é titular de uma outorga vigente e não "
                          "pode ser condutor auxiliar de outra.", exclusive.legal_basis, field=field)]


def cassation_bar(bar_until: _date | None, barred: bool, legal_basis: str, *, person: str = "",
                  field: str = "non_field_errors") -> list[RuleViolation]:
    """A person under a cassação bar may not apply until it ends."""
    if not barred:
        return []
    until = f"até {bar_until:%d/%m/%Y}" if bar_until else "por prazo indeterminado"
    return [RuleViolation("cassation.bar", f"{person or 'O requerente'} está impedido(a) de receber nova outorga "
                          f"{until}.", legal_basis, field=field)]


def open_call(has_open_call: bool, modality_label: str, legal_basis: str) -> list[RuleViolation]:
    if has_open_call:
        return []
    return [RuleViolation("calls.open", f"Não há edital aberto para {modality_label} nesta data; aguarde a abertura "
                          "de um edital.", legal_basis, field="modality")]


def renewal_valid_until(previous_until: _date, today: _date, years: int, extends) -> _date | None:
    """Where the law extends the term "por igual período" (``renewal.extends_term``), the renewed
    grant runs from the end of the previous term for the same number of years (a lapsed term is
    renewed from today); otherwise None: a new term counted from the grant."""
    if extends is None or not extends.value:
        return None
    start = max(previous_until + timedelta(days=1), today)
    return add_years(start, years) - timedelta(days=1)


def renewal_window(in_window: bool, param, modality_label: str, next_window: tuple[date, date] | None
                   ) -> list[RuleViolation]:
    """Where the law puts renewals in the same yearly period as new requests
    (``renewal.in_request_window``), a renewal is filed only while that period (or a call) is open."""
    if param is None or not param.value or in_window:
        return []
    when = (f" (próximo período: de {next_window[0]:%d/%m/%Y} a {next_window[1]:%d/%m/%Y})"
            if next_window else "")
    return [RuleViolation("renewal.window", f"A renovação de {modality_label} só pode ser pedida no período anual de "
                          f"requerimentos{when}.", param.legal_basis, field="kind")]


def renewal_term(*, filed_on: date, issued_on: date, valid_until: date, renewals: int, max_renewals,
                 window_days, act_label: str, number: str) -> list[RuleViolation]:
    """Whether the grant may be renewed on ``filed_on``, as the law writes its term:

    - ``grant.max_renewals`` — how many times (e.g. once for an equal period); 0 where the law
      gives no renewal (a new selection instead), refused with that article;
    - ``renewal.window_days_before_expiry`` — filed from that many days before the end of the
      term through its last day (day N before: accepted; N+1: refused; after the end: refused);
    - never on the day the act was issued (nothing to renew yet)."""
    if max_renewals is not None and renewals >= int(max_renewals.value):
        if int(max_renewals.value) == 0:
            return [RuleViolation("grant.max_renewals", f"{act_label} nº {number}: a lei não prevê renovação; ao fim do prazo, "
                                  "uma nova outorga depende de nova seleção.", max_renewals.legal_basis, field="kind",
                                  conflict=True)]
        return [RuleViolation("grant.max_renewals", f"{act_label} nº {number}: já renovada {renewals} vez(es), o "
                              "máximo que a lei permite.", max_renewals.legal_basis, field="kind", conflict=True)]
    if filed_on <= issued_on:
        return [RuleViolation("renewal.too_early", f"{act_label} nº {number}: emitida em {issued_on:%d/%m/%Y}; "
                              "a renovação não pode ser pedida no dia da emissão.",
                              window_days.legal_basis if window_days is not None else "", field="kind",
                              conflict=True)]
    if window_days is not None:
        opens = valid_until - timedelta(days=int(window_days.value))
        if filed_on < opens:
            return [RuleViolation("renewal.window", f"{act_label} nº {number}: a renovação pode ser pedida de "
                                  f"{opens:%d/%m/%Y} a {valid_until:%d/%m/%Y}.", window_days.legal_basis,
                                  field="kind", conflict=True)]
        if filed_on > valid_until:
            return [RuleViolation("renewal.window", f"{act_label} nº {number}: o prazo terminou em "
                                  f"{valid_until:%d/%m/%Y} e a renovação devia ser pedida até esse dia.",
                                  window_days.legal_basis, field="kind", conflict=True)]
    return []


def bid(amount, min_bid, method) -> list[RuleViolation]:
    """selection.method = bidding: an offer is required and must reach the call's minimum."""
    if method is None or method.value != "bidding":
        return []
    if amount is None:
        return [RuleViolation("selection.bid", "Informe o valor da oferta: a seleção é por licitação.",
                              method.legal_basis, field="bid_amount")]
    if min_bid is not None and amount < min_bid:
        return [RuleViolation("selection.bid", f"A oferta mínima deste edital é {brl(min_bid)}.",
                              method.legal_basis, field="bid_amount")]
    return []


def grant_slots(population: int, per_slot, fixed) -> tuple[int | None, str]:
    """(slots, legal basis) of the quota: floor(population ÷ inhabitants per slot), or fixed slots."""
    if per_slot is not None:
        return quota_slots(population, int(per_slot.value)), per_slot.legal_basis
    if fixed is not None:
        return int(fixed.value), fixed.legal_basis
    return None, ""


def quota_available(slots: int | None, current: int, legal_basis: str) -> list[RuleViolation]:
    if slots is None or current < slots:
        return []
    return [RuleViolation("quota.full", f"Não há vaga: as {slots} vagas da modalidade estão ocupadas.", legal_basis,
                          conflict=True)]


# --- ranking -------------------------------------------------------------------------------------
# The ranking decides who is granted when the requests exceed the free places (a grant out of
# order is refused: ``ranking_order_violation``). Reading of a quota that holds "sob nenhuma
# hipótese" (e.g. art. 4, §3) against the priority of renewals (art. 17, §6–7): the renewal is
# first in the order, not outside the limit — where the pack says so (``quota.binds_renewals``)
# renewals take places like any request, ranked among themselves by the same criteria (I–V), and
# new requests get only the "saldo de vaga"; a renewal replaces its own grant, so the places open
# are the slots less the grants in force that no pending renewal replaces
# (``selectors.Ranking``). "Maior tempo de habilitação" is compared in days (``held_for``).

RANKING_LABELS = {
    "renewal_first": "Renovação",
    "cnh_years_desc": "Anos de CNH",
    "vehicle_newer": "Ano do veículo",
    "cnh_points_asc": "Pontos na CNH",
    "schooling_desc": "Escolaridade",
    "dependents_desc": "Dependentes",
    "bid_desc": "Oferta (R$)",
    "registration_oldest": "Protocolado em",
}


@dataclass(frozen=True)
class RankingEntry:
    key: object
    renewal: bool
    cnh_years: int
    vehicle_year: int
    cnh_points: int | None
    schooling: int | None
    dependents: int | None
    bid: object
    submitted_at: object
    cnh_days: int = 0  # "maior tempo de habilitação": counted in days, so 10 y 11 m ranks ahead of 10 y 1 m
    cnh_months: int = 0  # completed months beyond ``cnh_years`` (shown)
    proofs: tuple = ()  # (criterion, PROOF_* state) of each criterion that ranks or admits (``criterion_proof``)

    def proof_of(self, criterion: str) -> str:
        return dict(self.proofs).get(criterion, PROOF_DECLARED)


# How a ranking or admission value stands (``criterion_proof``). The portal's own records (a
# renewal, the protocol time, the offer) need no proof; the others are backed by the pack's
# document items that ``prove`` them, or stand only on the applicant's word.
PROOF_RECORDED, PROOF_ACCEPTED, PROOF_PENDING, PROOF_REJECTED, PROOF_DECLARED = (
    "recorded", "accepted", "pending", "rejected", "declared")
PROOF_LABELS = {
    PROOF_RECORDED: "registro do portal",
    PROOF_ACCEPTED: "comprovado por documento aceito",
    PROOF_PENDING: "documento ainda não aceito",
    PROOF_REJECTED: "documento recusado: não conta",
    PROOF_DECLARED: "declarado pelo requerente",
}
RECORDED_CRITERIA = frozenset({"renewal_first", "registration_oldest", "bid_desc"})
ADMISSION_LABELS = {"residence": "Residência no Município"}  # criteria that admit (not rank): ``proves`` of an item


def criterion_proof(criterion: str, proving_codes: list[str], statuses: dict[str, str | None]) -> str:
    """How the value of ``criterion`` stands, from the current documents of the items that prove
    it (pack ``[[documents]] proves``; ``statuses``: item code → accepted / pending / rejected, or
    None when not sent).

    Reading of PL 015/2025, art. 17, §2–3 (the clerk checks "a veracidade da
    documentação") with art. 9, II (residence proven) and art. 17, §6, I–V (the ranking criteria):
    a value backed by an item counts once the clerk accepts it; while the item is not yet
    accepted it counts provisionally (the grant still needs every item accepted); a value whose
    item the clerk **rejected** does not count — it ranks as if absent, last on that criterion
    (``_sort_value``), until a new version is accepted. A criterion no item backs (III–V: the law names no document
    for the CNH's history, the schooling or the dependents) stands on the applicant's
    declaration and is shown as such, so that a reviewer sees which values are proven."""
    if criterion in RECORDED_CRITERIA:
        return PROOF_RECORDED
    if not proving_codes:
        return PROOF_DECLARED
    found = [statuses.get(code) for code in proving_codes]
    if "accepted" in found:
        return PROOF_ACCEPTED
    if "rejected" in found:
        return PROOF_REJECTED
    return PROOF_PENDING


# the value that ranks last on each criterion: what a value proven by a rejected document counts as
_LAST = {"cnh_years_desc": 0, "vehicle_newer": 0, "cnh_points_asc": 10**6, "schooling_desc": 0, "dependents_desc": 0}


def _sort_value(entry: RankingEntry, criterion: str):
    if criterion in _LAST and entry.proof_of(criterion) == PROOF_REJECTED:
        return _LAST[criterion]
    if criterion == "renewal_first":
        return 0 if entry.renewal else 1
    if criterion == "cnh_years_desc":
        return -entry.cnh_days
    if criterion == "vehicle_newer":
        return -entry.vehicle_year
    if criterion == "cnh_points_asc":
        return entry.cnh_points if entry.cnh_points is not None else 10**6
    if criterion == "schooling_desc":
        return -(entry.schooling or 0)
    if criterion == "dependents_desc":
        return -(entry.dependents or 0)
    if criterion == "bid_desc":
        return -(entry.bid or 0)
    if criterion == "registration_oldest":
        return entry.submitted_at
    raise ValueError(f"critério de classificação desconhecido: {criterion}")


def rank(entries: list[RankingEntry], criteria: list[str]) -> list[RankingEntry]:
    """Order by the pack's criteria in turn; the protocol time breaks remaining ties."""
    return sorted(entries, key=lambda e: tuple(_sort_value(e, c) for c in criteria) + (e.submitted_at,))


def criterion_display(entry: RankingEntry, criterion: str) -> str:
    shown = _criterion_value(entry, criterion)
    if entry.proof_of(criterion) == PROOF_REJECTED:
        return f"{shown} (não conta: documento recusado)"
    return shown


def _criterion_value(entry: RankingEntry, criterion: str) -> str:
    if criterion == "renewal_first":
        return "sim" if entry.renewal else "não"
    if criterion == "cnh_years_desc":
        years = f"{entry.cnh_years} ano{'s' if entry.cnh_years != 1 else ''}"
        if entry.cnh_months:
            years += f" e {entry.cnh_months} {'mês' if entry.cnh_months == 1 else 'meses'}"
        return years
    if criterion == "vehicle_newer":
        return str(entry.vehicle_year)
    if criterion == "cnh_points_asc":
        return "—" if entry.cnh_points is None else str(entry.cnh_points)
    if criterion == "schooling_desc":
        from licensing.applications.models import Schooling

        return "—" if entry.schooling is None else Schooling(entry.schooling).label
    if criterion == "dependents_desc":
        return "—" if entry.dependents is None else str(entry.dependents)
    if criterion == "bid_desc":
        return "—" if entry.bid is None else brl(entry.bid)
    if criterion == "registration_oldest":
        return f"{entry.submitted_at:%d/%m/%Y %H:%M}" if entry.submitted_at else "—"
    return ""


def held_for(since: _date, today: _date) -> tuple[int, int, int]:
    """Completed years, completed months beyond them, and days since ``since``."""
    months = (today.year - since.year) * 12 + today.month - since.month - (1 if today.day < since.day else 0)
    months = max(months, 0)
    return months // 12, months % 12, max((today - since).days, 0)


def deciding_criterion(ahead: RankingEntry, entry: RankingEntry, criteria: list[str]) -> str:
    """The first criterion on which ``ahead`` ranks before ``entry`` (the protocol time if none)."""
    for criterion in criteria:
        if _sort_value(ahead, criterion) != _sort_value(entry, criterion):
            return criterion
    return "registration_oldest"


def ranking_order_violation(*, position: int, free: int, protocol: str, ahead: RankingEntry, ahead_protocol: str,
                            entry: RankingEntry, criteria: list[str], legal_basis: str) -> RuleViolation:
    """A grant out of the ranking's order while the requests exceed the free places: refused,
    naming the request ahead and the criterion that puts it ahead (e.g. art. 17, §6–7: renewals
    first, then the longest CNH, the newest vehicle…; or the highest bid)."""
    criterion = deciding_criterion(ahead, entry, criteria)
    label = RANKING_LABELS.get(criterion, criterion)
    return RuleViolation(
        "ranking.order",
        f"O requerimento {protocol} está em {position}º lugar na classificação e as vagas livres são {free}: "
        f"o requerimento {ahead_protocol} está à frente pelo critério “{label}” "
        f"({criterion_display(ahead, criterion)} × {criterion_display(entry, criterion)}). Decida primeiro os "
        "pedidos dentro das vagas.", legal_basis, field="non_field_errors", conflict=True)


def document_reusable(*, validity: str | None, accepted: bool, valid_until: _date | None, today: _date) -> bool:
    """Whether an accepted copy of a checklist item still holds for a renewal filed ``today``.

    The pack says how long a copy holds (``[[documents]] validity``): ``none`` — it does not
    expire (an identity document); ``dated`` — while the validity date the clerk noted when
    accepting it is **after** today (a CNH or certidão valid until today is asked again: it would
    expire before the renewal is decided); anything else (the default ``each_request``) — sent
    anew with every request (declarations, the medical certificate, the proof of residence of the
    last months, the TFF receipt). Only accepted copies are reused: a rejected or unreviewed one
    proves nothing."""
    if not accepted:
        return False
    if validity == "none":
        return True
    if validity == "dated":
        return valid_until is not None and valid_until > today
    return False


def inspection_checklist(*, approved: bool, checklist: dict, items: list[dict]) -> list[RuleViolation]:
    """A vistoria is approved only on its full form (e.g. art. 18: "apurar o atendimento a todos
    os requisitos", the form of Anexos V/VI filled; art. 9, V: the vehicle presented for
    vistoria): every item of the pack's form checked as met. Empty or partial: refused, naming
    the items left blank and citing their articles."""
    if not approved or not items:
        return []
    blank = [i for i in items if not checklist.get(i["code"])]
    if not blank:
        return []
    bases = list(dict.fromkeys(i.get("legal_basis", "") for i in blank if i.get("legal_basis")))
    return [RuleViolation("inspection.checklist_incomplete",
                          f"Para aprovar a vistoria, marque cada item do formulário como atendido; faltam {len(blank)}: "
                          f"{'; '.join(i['label'] for i in blank)}.", "; ".join(bases[:3]), field="checklist")]


def retention_expired(decided_or_idle_since: date, today: date, retention_days: int) -> bool:
    """LGPD: documents of a refused, withdrawn or abandoned application are kept for
    ``retention.refused_documents_days`` days after the decision (or the last change of an
    abandoned draft); on the day after that they are deleted. Day N keeps, day N+1 deletes."""
    return (today - decided_or_idle_since).days > retention_days


def renewal_held_until_publication(*, extends, decided_on: date, last_published_on: date | None) -> bool:
    """Until the list of granted requests is published in the Diário Oficial, a grant that is
    the object of a renewal request is deemed extended (PL 015/2025 art. 18, §6 — the pack's
    ``publication.extends_validity`` carries the article): a renewal decided on ``decided_on``
    keeps holding the grant until a publication dated that day or later is recorded. Published
    the day before the decision: still held; published on the day of the decision: no longer."""
    if extends is None or not extends.value:
        return False
    return last_published_on is None or last_published_on < decided_on
