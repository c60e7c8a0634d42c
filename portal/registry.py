"""What the domain apps give portal's own pages (public pages, the ops page).

portal is the base and imports no domain app (``pyproject.toml`` [tool.importlinter]). A
page of portal that shows a domain's data asks this registry, and each domain app registers
its providers in its ``AppConfig.ready()``:

- ``provide(SLOT, func)`` — one callable per named slot (below, with its signature);
- ``register_verification(lookup)`` — public verification of documents (authorizations,
  alvarás, autos...): every app with a verifiable document registers one lookup;
- ``register_job(name, label, task=...)`` — a background job shown on "Tarefas automáticas".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

# --- named providers ------------------------------------------------------------------------
GRANTS_FINGERPRINT = "grants.fingerprint"  # () -> str: changes when any grant changes
GRANTS_CURRENT = "grants.current"  # (q, modality) -> iterable of current grants (open data)
GRANTS_CURRENT_IDS = "grants.current_ids"  # (q, modality) -> QuerySet of ids, newest first
GRANTS_BY_IDS = "grants.by_ids"  # (ids) -> list of grants in the order of ids
GRANTS_OPEN_DATA_ROW = "grants.open_data_row"  # (grant) -> dict (public fields only)
GRANTS_OPEN_DATA_ROWS = "grants.open_data_rows"  # (ids) -> list[dict] in the order of ids
# (first_id, modality, after_id) -> list[dict]: up to OPEN_DATA_PAGE rows of the current grants with
# after_id < id <= first_id (after_id: the next page's first id, the oldest's less one for the last page), newest first
GRANTS_OPEN_DATA_PAGE = "grants.open_data_page"
OPEN_DATA_PAGE = 50
GRANTS_OPEN_DATA_STREAM = "grants.open_data_stream"  # (q, modality) -> iterator of dicts, newest first
QUOTAS = "quotas"  # (pack) -> list[dict]: the quota figures per modality
STATS_GRANTS_BY_MONTH = "stats.grants_by_modality_and_month"  # (pack, months) -> (months, series)
STATS_GRANTS_BY_STATUS = "stats.grants_by_status"  # (pack) -> {modality: {status: n}}
STATS_DAYS_SINCE_ISSUE = "stats.average_days_since_issue"  # (pack) -> {modality: float | None}
STATS_DAYS_TO_GRANT = "stats.average_days_protocol_to_grant"  # (pack) -> {modality: float | None}
STATS_AUTOS_BY_MONTH = "stats.autos_by_article_and_month"  # (pack, months) -> (months, series)
FIRST_STEPS = "dashboard.first_steps"  # (user) -> bool: an applicant who has not started yet
DESK_QUEUES = "dashboard.desk_queues"  # () -> list[dict]: {label, count, oldest, url} per queue of the desk
NEXT_STEPS = "dashboard.next_steps"  # (user) -> list[dict]: {kind, title, text, url, action[, url2, action2]}
OPS_AGED_VEHICLES = "ops.aged_vehicles"  # () -> QuerySet of grants whose vehicle is too old
OPS_DESCRIBE_AGED = "ops.describe_aged"  # (grants) -> list of items for the clerk's page
# () -> the bus fares of collective transport, for the tariffs pages: an object with
# transit_enabled(), fares_fingerprint(), quotable_lines(), public_lines(),
# fares_in_force(line, on), line_tariff_api(line, on), line_fare_quote(line, *, zone, student,
# at) and zone_label(zone)
BUS_FARES = "bus.fares"
# (on) -> list of licensing.fees.overdue.Debt: fines unpaid past their due date that have no DAM
# of the fees room (autos without a holder account, fines issued before the fines' DAMs moved
# there), for the dívida ativa list
OVERDUE_FINES = "fees.overdue_fines"
# (pack, sections) -> list[dict]: the acts of another room that the law requires in the Diário
# Oficial (enforcement: the decisions of appeals), each {"ref" (stable, unique), "section", "on"
# (date), "document", "number", "holder", "modality", "decision"} — gathered by the one
# publication desk (licensing.applications.publication) with the acts of the grants
PUBLISHABLE_ACTS = "publication.acts"

_PROVIDERS: dict[str, Callable[..., Any]] = {}


def provide(slot: str, func: Callable[..., Any]) -> Callable[..., Any]:
    _PROVIDERS[slot] = func
    return func


def provider(slot: str) -> Callable[..., Any]:
    try:
        return _PROVIDERS[slot]
    except KeyError:
        raise LookupError(f"nenhum app registrou o provedor {slot!r} (AppConfig.ready)") from None


def call(slot: str, *args, **kwargs):
    return provider(slot)(*args, **kwargs)


def has(slot: str) -> bool:
    return slot in _PROVIDERS


# --- public verification --------------------------------------------------------------------
class VerificationLookup(Protocol):
    def by_code(self, code: str) -> Any | None: ...  # a normalized verification code

    def by_number(self, number: str) -> list: ...

    def by_plate(self, plate: str) -> list: ...  # a normalized plate (7 characters)

    def verification(self, doc, pack) -> Any | None: ...  # a Verification, or None if not its doc

    # Optional: ``verification_by_code(code, pack)`` — by_code() + verification() at once, for a
    # lookup that can answer from one query (portal.public.selectors.verify_by_code uses it).


_LOOKUPS: list[VerificationLookup] = []


def register_verification(lookup: VerificationLookup) -> VerificationLookup:
    if lookup not in _LOOKUPS:
        _LOOKUPS.append(lookup)
    return lookup


def verification_lookups() -> list[VerificationLookup]:
    return list(_LOOKUPS)


# --- background jobs ------------------------------------------------------------------------
@dataclass(frozen=True)
class Job:
    name: str  # the name portal.jobs.run_job records
    label: str  # shown to clerks
    task: str = ""  # the Celery task that runs it (to show when beat runs it)
    order: int = 100


_JOBS: dict[str, Job] = {}


def register_job(name: str, label: str, *, task: str = "", order: int = 100) -> Job:
    job = _JOBS[name] = Job(name, label, task, order)
    return job


def jobs() -> list[Job]:
    return sorted(_JOBS.values(), key=lambda j: (j.order, j.name))


# --- consortium figures ---------------------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    """One aggregate figure of the consortium page, computed for many municipalities at once.

    ``compute(municipalities)`` receives ``[(municipality_id, year), …]`` (the year is "this
    year" in each municipality's own time zone) and returns ``{municipality_id: value}``, the
    value an int, a Decimal (money) or ``{label: int}`` (a breakdown, e.g. per modality). It
    reads across municipalities on purpose (``Model.all_tenants``), counts only, never a
    person's data."""

    key: str
    label: str
    compute: Callable[[list[tuple[int, int]]], dict]
    order: int = 100
    money: bool = False


_FIGURES: dict[str, Figure] = {}


def register_figure(key: str, label: str, compute: Callable[[list[tuple[int, int]]], dict], *,
                    order: int = 100, money: bool = False) -> Figure:
    figure = _FIGURES[key] = Figure(key, label, compute, order, money)
    return figure


def figures() -> list[Figure]:
    return sorted(_FIGURES.values(), key=lambda f: (f.order, f.key))
