"""Every parameter key a regulation pack may carry, declared once: type, meaning, and
whether code reads it (``read=False``: informative, kept because it is law, applied by no
rule). ``load_regulation`` refuses a key that is not declared here, or of another type,
naming the key — a misspelt key must not silently switch a rule off.

Declaring a key is one line: ``_k("defense.days", INT, "days to file a defense")``.
A ``[params]`` key may carry a modality prefix (``taxi.vehicle.max_age_years``); declare it
without the prefix. ``portal/packs/SCHEMA.md`` explains the pack format.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

INT, BOOL, STR, NUMBER, DECIMAL, STR_LIST, TABLE = "int", "bool", "str", "number", "decimal", "list[str]", "table"
TABLE_LIST = "list[table]"


@dataclass(frozen=True)
class PackKey:
    key: str
    type: str  # one of INT, BOOL, STR, NUMBER (int or decimal string), DECIMAL (string), STR_LIST, TABLE
    meaning: str
    read: bool = True  # False: informative (law the code does not apply)
    choices: tuple[str, ...] = ()  # allowed values (for STR, or for each item of STR_LIST)


def _k(key: str, type_: str, meaning: str, *, read: bool = True, choices: tuple[str, ...] = ()) -> PackKey:
    return PackKey(key, type_, meaning, read, choices)


def _table(*keys: PackKey) -> dict[str, PackKey]:
    out: dict[str, PackKey] = {}
    for k in keys:
        assert k.key not in out, k.key
        out[k.key] = k
    return out


DOCUMENT_VALIDITY = ("each_request", "dated", "none")  # [[documents]] validity: how long an accepted copy holds
ADMISSION_CRITERIA = ("residence",)  # what a [[documents]] item may prove besides a ranking criterion
RANKING_CRITERIA = ("renewal_first", "cnh_years_desc", "vehicle_newer", "cnh_points_asc", "schooling_desc",
                    "dependents_desc", "bid_desc", "registration_oldest")

# [params]
PARAMS: dict[str, PackKey] = _table(
    _k("selection.method", STR, "how new grants are selected", choices=("commission", "yearly_request", "bidding")),
    _k("grant.validity_years", INT, "validity of the grant act"),
    _k("grant.max_renewals", INT, "how many renewals (absent = unlimited)"),
    _k("grant.max_per_holder", INT, "grants one person may hold"),
    _k("grant.holder_types", STR_LIST, "who may apply for and hold the grant: natural person (pf), company (pj); "
       "absent = pf only", choices=("pf", "pj")),
    _k("grant.exclusive_public_permission", BOOL, "may not hold another public permission"),
    _k("grant.yearly_compliance_proof", BOOL, "the holder proves every year that the requirements still hold"),
    _k("alvara.validity_years", INT, "validity of the alvará"),
    _k("quota.inhabitants_per_slot", INT, "slots = floor(population ÷ this)"),
    _k("quota.fixed_slots", INT, "slots set by an act instead"),
    _k("quota.binds_renewals", BOOL, "the limit holds for renewals too: they go first in the ranking but take "
       "places like any request (absent: a renewal keeps its own place)"),
    _k("auxiliary.max", INT, "auxiliary drivers per grant"),
    _k("auxiliary.removal_report_days", INT, "days to report an auxiliary removed"),
    _k("auxiliary.yearly_reregistration", BOOL, "auxiliaries re-register every year"),
    _k("driver.min_age", INT, "minimum age in years"),
    _k("driver.cnh_categories", STR_LIST, "accepted CNH categories", choices=("A", "B", "C", "D", "E")),
    _k("driver.cnh_min_years", INT, "years since first CNH"),
    _k("driver.ear_required", BOOL, "CNH must carry EAR"),
    _k("driver.residence_months", INT, "months of residence in the municipality (informative: the clerk "
       "checks the proof of residence; no rule counts the months)", read=False),
    _k("vehicle.age_basis", STR, "how age is counted", choices=("manufacture_year", "first_registration")),
    _k("vehicle.max_age_years", INT, "oldest vehicle allowed (equal allowed, one more not)"),
    _k("vehicle.adaptation_years", INT, "transition period for vehicles already in service (informative)",
       read=False),
    _k("vehicle.min_doors", INT, "minimum doors"),
    _k("vehicle.min_seats", INT, "minimum seats including the driver"),
    _k("vehicle.max_seats", INT, "maximum seats including the driver"),
    _k("vehicle.min_engine_cc", INT, "minimum engine displacement"),
    _k("vehicle.colors", STR_LIST, "allowed colours (lower-case, Portuguese)"),
    _k("vehicle.registration_category", STR, "CRLV category required (informative: the vehicle's "
       "category defaults to it)", read=False),
    _k("renewal.keeps_valid_until_decided", BOOL, "a renewal filed in time keeps the grant valid"),
    _k("renewal.extends_term", BOOL, "the new term runs from the end of the previous one"),
    _k("renewal.in_request_window", BOOL, "renewals only in the yearly request period or an open call"),
    _k("renewal.window_days_before_expiry", INT, "renewals may be filed this many days before expiry"),
    _k("calls.regular_window", TABLE, "the yearly window for requests {month, end}"),
    _k("ranking.criteria", STR_LIST, "ordered tie-break criteria", choices=RANKING_CRITERIA),
    _k("infraction.retains_alvara", BOOL, "the agent retains the alvará when issuing an auto"),
    _k("defense.days", INT, "days to file a defense after the notice"),
    _k("defense.suspends_penalty", BOOL, "a defense suspends the penalty"),
    _k("defense.returns_alvara", BOOL, "retained alvará is returned while the defense is judged"),
    _k("appeal.days", INT, "days to appeal after the decision notice"),
    _k("appeal.counted_from", STR, "the appeal period counts from the notice of the autuação or of the decision",
       choices=("decision_notice", "notice")),
    _k("appeal.distinct_judge", BOOL, "whoever decided an instance does not decide the appeal"),
    _k("appeal.designated_authority", BOOL, "only persons holding the Autoridade recursal profile in this "
       "municipality decide appeals (absent: any julgador other than the earlier instance's)"),
    _k("appeal.second_instance_designated_authority", BOOL, "the same, for the further appeal (second instance)"),
    _k("appeal.ex_officio_hearing_days", INT, "days to hear the holder before a worsening ex officio review"),
    _k("notice.refusal_cancels_grant", BOOL, "refusing the notice cancels the authorization"),
    _k("deadlines.next_business_day", BOOL, "a period ending on a day without office hours moves to the next business day"),
    _k("deadlines.municipal_holidays", TABLE_LIST, "municipal holidays [{date: MM-DD or YYYY-MM-DD, name}]"),
    _k("recidivism.counted_from", STR, "the recidivism window is anchored at the first fine", choices=("first_fine",)),
    _k("recidivism.counts", STR, "earlier autos count with or without fine", choices=("any_penalty", "fine")),
    _k("appeal.suspensive", BOOL, "an appeal holds the upheld decision's effects on the grant"),
    _k("appeal.authority", STR, "who judges the appeal"),
    _k("appeal.second_instance_days", INT, "days for a further appeal"),
    _k("appeal.second_instance_codes", STR_LIST, "penalty codes that allow a further appeal"),
    _k("appeal.ex_officio_review", BOOL, "upheld defense goes to ex officio review"),
    _k("deadlines.weekend_extends", BOOL, "a deadline on a weekend moves to the next business day"),
    _k("recidivism.window_days", INT, "window before the new infraction (inclusive)"),
    _k("recidivism.mode", STR, "×2 once, or doubling each time", choices=("double_once", "progressive")),
    _k("cassation.bar_months", INT, "months a cassado holder (and auxiliaries) may not apply"),
    _k("revocation.bars_future_grants", BOOL, "revoked holders barred from future selections"),
    _k("fees.tff_units", NUMBER, "Taxa de Fiscalização e Funcionamento, in fiscal units"),
    _k("fees.due_days", INT, "days to pay a fee or fine after issue"),
    _k("fees.tff_receipt_document", STR, "document code that proves the TFF was paid"),
    _k("fees.late_interest_monthly_percent", NUMBER, "interest on an overdue fee or fine, percent per month or fraction"),
    _k("fees.late_penalty_daily_percent", NUMBER, "late-payment penalty (multa de mora), percent per day of delay"),
    _k("fees.late_penalty_max_percent", NUMBER, "cap of the late-payment penalty, percent of the amount"),
    _k("publication.required_for", STR_LIST, "what goes to the Diário Oficial",
       choices=("grants", "renewals", "cassations", "appeal_decisions")),
    _k("publication.extends_validity", BOOL, "a grant under renewal stays valid until the list is published"),
    _k("amendment.act_name", STR, "the act that amends a grant act (apostila, portaria de alteração)"),
    _k("transfer.allowed", BOOL, "a grant may be transferred"),
    _k("transfer.min_years_as_holder", INT, "years as holder before a transfer"),
    _k("transfer.heir_deadline_days", INT, "days for heirs to ask for the transfer"),
    _k("preposto.allowed_on_invalidity", BOOL, "a preposto may drive for a holder unable to"),
    _k("leave.theft_days", INT, "leave of absence after theft"),
    _k("leave.accident_days", INT, "leave of absence after an accident"),
    _k("leave.substitution_days", INT, "leave of absence to substitute the vehicle"),
    _k("substitution.allowed", BOOL, "the vehicle may be substituted"),
    _k("substitution.grounds", TABLE, "the grounds the law lists for a substitution {newer|max_age|total_loss: "
       "article}; absent = the law lists none (any substitute within the vehicle rules)"),
    _k("renunciation.refunds_fees", BOOL, "fees are refunded on renunciation"),
    _k("retention.refused_documents_days", INT, "LGPD retention of documents of refused applications"),
    _k("stands.reallocation", BOOL, "stand reallocation rules apply"),
    _k("stands.swap_requires_consent", BOOL, "a stand swap needs both holders' consent"),
    _k("tariff.adjustment_month", INT, "month of the yearly tariff adjustment (1–12)"),
)

# [modalities.<m>]: the keys a modality's table may carry (besides the [params] keyed by it).
MODALITY_KEYS: dict[str, PackKey] = _table(
    _k("label", STR, "the modality's name in the law (Táxi, Mototáxi)"),
    _k("legal_basis", STR, "the article that provides for the modality"),
    _k("requires_decree", TABLE, "{value = true, legal_basis}: the modality exists only once the decree the law "
       "asks for is recorded (number, date) and in force; until then no call, application, tariff or mention"),
)

# [collective_transport.params]
COLLECTIVE_PARAMS: dict[str, PackKey] = _table(
    _k("selection.method", STR, "how concessions are selected", choices=("bidding",)),
    _k("grant.holder_types", STR_LIST, "who may hold a concession (informative)", read=False, choices=("pf", "pj")),
    _k("bidding.tie_break", STR, "tie-break of the bidding (informative)", read=False, choices=("lottery",)),
    _k("contract.sign_days", INT, "days for the winner to sign the contract"),
    _k("concession.term_years", INT, "term of the concession"),
    _k("concession.max_renewals", INT, "renewals of the concession"),
    _k("itinerary.max_change_ratio", DECIMAL, "largest change of an itinerary without a new bidding"),
    _k("itinerary.notice_days", INT, "days of notice before an itinerary change"),
    _k("fare.student_discount", DECIMAL, "students' discount on the fare"),
    _k("fare.urban_rural_may_differ", BOOL, "urban and rural stretches may have different fares"),
    _k("fare.min_notice_days", INT, "days between publishing a fare and its start"),
    _k("service.start_days", INT, "days to start the service after signing"),
    _k("intervention.open_days", INT, "days to open the proceeding after an intervention"),
    _k("intervention.conclude_days", INT, "days to conclude that proceeding"),
    _k("transition.max_days", INT, "longest transition between operators (informative)", read=False),
)


def type_error(spec: PackKey, value: Any) -> str | None:
    """Why ``value`` does not fit ``spec`` (in Portuguese), or None."""
    t = spec.type
    if t == INT:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif t == BOOL:
        ok = isinstance(value, bool)
    elif t == STR:
        ok = isinstance(value, str)
    elif t in (NUMBER, DECIMAL):
        ok = (t == NUMBER and isinstance(value, int | float) and not isinstance(value, bool)) or (
            isinstance(value, str) and _is_decimal(value)
        )
    elif t == STR_LIST:
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    elif t == TABLE:
        ok = isinstance(value, dict)
    elif t == TABLE_LIST:
        ok = isinstance(value, list) and all(isinstance(v, dict) for v in value)
    else:  # pragma: no cover - a declaration error
        raise ValueError(f"tipo desconhecido {t!r} em {spec.key}")
    if not ok:
        return f"esperado {t}, encontrado {type(value).__name__} {value!r}"
    if spec.choices:
        items = value if isinstance(value, list) else [value]
        bad = [v for v in items if v not in spec.choices]
        if bad:
            return f"valor {bad[0]!r} fora de {', '.join(spec.choices)}"
    return None


def _is_decimal(value: str) -> bool:
    try:
        Decimal(value)
    except InvalidOperation:
        return False
    return True


def declared(table: dict[str, PackKey], key: str, modalities) -> PackKey | None:
    """The declaration of a (possibly modality-prefixed) key."""
    if key in table:
        return table[key]
    head, _, rest = key.partition(".")
    if head in modalities and rest in table:
        return table[rest]
    return None


# [collective_transport.articles]: where the bus law says each rule the code cites (the value
# is the article, e.g. "art. 25"; code writes "<law short>, <article>"). Key → the rule.
COLLECTIVE_ARTICLES: dict[str, str] = {
    "concessionaire": "who may operate (a company)",
    "category": "vehicle categories",
    "concession_object": "object of the concession, justification act published",
    "contract_category": "the contract fixes the vehicle category",
    "classification": "classification of the bidding",
    "itinerary_change": "itinerary changes by amendment, within a limit",
    "contract": "the articles the contract PDF cites",
    "clauses": "essential clauses of the contract",
    "intervention_grounds": "grounds of an intervention",
    "complaints": "users' complaints",
    "initial_fare": "fare set with the concession",
    "zones": "urban and rural stretches",
    "fares": "fares set by decree, with notice",
    "fare_decree": "the decree that sets a fare",
    "extinction": "causes of extinction",
    "extinction_takeover": "the Município takes the service over",
    "expropriation": "encampação, with prior indemnity",
    "defaults": "default proceedings (inadimplência)",
    "default_grounds": "grounds of a default proceeding",
    "default_proceeding": "the proceeding, after the period to cure, with full defence",
    "default_notice": "notice of the failures with a period to cure",
    "default_conclusion": "conclusion of the proceeding",
    "default_rescission": "rescission by decree",
    "judicial_rescission": "rescission by the concessionaire, by a final judicial decision",
    "service_start": "deadline to start the service",
    "call_remaining": "calling the remaining classified after a lapse",
    "intervention": "intervention by decree",
    "intervention_decree": "what the decree of intervention names",
    "intervention_procedure": "the procedure after an intervention",
    "intervention_unfounded": "an intervention without its legal grounds is null",
    "renewal": "renewal of the concession",
}
