"""What licensing gives portal's pages (public transparency, quotas, statistics, the ops page;
the verification by code is licensing.public_verification's), registered in portal.registry by ``register()`` from LicensingConfig.ready().

Moved from portal/public/selectors.py and portal/jobs_views.py: portal imports no domain app.
"""

from __future__ import annotations

import functools
from datetime import date

from django.db.models import Q, QuerySet, Sum

from licensing.grants.rules import quota_slots
from licensing.grants.selectors import count_current_grants
from licensing.models import CURRENT_STATUSES, Authorization
from licensing.public_verification import GrantVerification, grant_holder_public_name
from portal import registry
from portal.compiled_query import CompiledLookup, execute_prepared
from portal.public.selectors import (
    last_months,
    modalities,
    public_name_of,
)
from portal.regulation import Pack
from portal.validators import normalize_plate


# --- transparency ---------------------------------------------------------------------------
def _current_filter(q: str = "", modality: str = "") -> QuerySet[Authorization]:
    qs = Authorization.objects.filter(status__in=CURRENT_STATUSES)
    if modality:
        qs = qs.filter(modality=modality)
    q = (q or "").strip()
    if q:
        # the public name of a company holder is its razão social (what the list shows)
        cond = Q(number__icontains=q) | Q(holder__name__icontains=q) | Q(company_name__icontains=q)
        plate = normalize_plate(q)
        if plate:
            cond |= Q(vehicle__plate__icontains=plate)
        qs = qs.filter(cond)
    return qs


def _with_details(qs: QuerySet[Authorization]) -> QuerySet[Authorization]:
    from django.db.models import OuterRef, Subquery

    from licensing.models import StandAssignment

    stand = StandAssignment.objects.filter(authorization=OuterRef("pk"), status="active").values("stand__name")[:1]
    return qs.select_related("holder", "vehicle").annotate(stand_name=Subquery(stand)).only(
        "id",
        "number",
        "act_name",
        "modality",
        "status",
        "valid_from",
        "valid_until",
        "issued_at",
        "holder__name",
        "holder__first_name",
        "holder__last_name",
        "company_name",
        "vehicle__plate",
    )


def current_grants(q: str = "", modality: str = "") -> QuerySet[Authorization]:
    """Current grants (active or suspended), newest first, with holder and vehicle."""
    return _with_details(_current_filter(q, modality)).order_by("-id")


def current_grant_ids(q: str = "", modality: str = "") -> QuerySet:
    """Only the ids, for paginating without joining every row skipped by the offset."""
    return _current_filter(q, modality).order_by("-id").values_list("id", flat=True)


def grants_by_ids(ids: list[int]) -> list[Authorization]:
    """The rows of one page (one query), in the order of ``ids``."""
    found = {a.pk: a for a in _with_details(Authorization.objects.filter(pk__in=ids))}
    return [found[i] for i in ids if i in found]


def grants_fingerprint() -> str:
    """Changes when a grant is issued or changes status (every change writes an audit entry).

    One query for the newest grant and the newest audit entry of the municipality in scope (two
    indexes that start with it; of the whole installation when none is), remembered two seconds
    in the process; a change saved in this process forgets it.
    """
    import time

    from django.db import connection

    from portal import tenancy
    from portal.models import AuditEntry
    from portal.public.http import _GRANTS_MEMO, GRANTS_MEMO_SECONDS

    now, scope = time.monotonic(), tenancy.current_id_or_none()
    memo = _GRANTS_MEMO.get(scope)
    if memo is not None and now - memo[0] < GRANTS_MEMO_SECONDS:
        return memo[1]
    grants, audit = Authorization._meta.db_table, AuditEntry._meta.db_table
    if scope is None:
        sql, params = f'SELECT (SELECT MAX("id") FROM "{grants}"), (SELECT MAX("id") FROM "{audit}")', []  # noqa: S608
    else:
        # The municipality's own newest rows, named in the query and read from an index that
        # starts with it (grant_newest_per_municipality, audit_newest_per_municipality). Left to
        # the row-level policy alone, the audit's policy (an OR with the installation's rows) is
        # no index condition, and the application's role walked the primary key back past every
        # row written after the municipality's last. Why "BETWEEN x AND x … ORDER BY
        # municipality_id, id" and not "= x … MAX(id)": the statement is prepared (below), and
        # its generic plan, made once for every municipality, may judge by the average one that
        # walking the primary key back meets a row of it soon — true of a big municipality,
        # not of a small one whose rows are older. With a range, only that index gives the
        # order asked, whatever the municipality.
        one = ('(SELECT "id" FROM "{}" WHERE "municipality_id" BETWEEN %s AND %s '
               'ORDER BY "municipality_id" DESC, "id" DESC LIMIT 1)')
        sql, params = f"SELECT {one.format(grants)}, {one.format(audit)}", [scope] * 4  # noqa: S608 - model tables
    with connection.cursor() as cursor:
        # A small municipality is asked seldom, so nearly each of its requests re-reads the
        # stamp: planned once per session, it costs the two index probes and not their planning
        # (~0,15 ms under the policies, about half of the statement).
        execute_prepared(connection, cursor, "grants_stamp_all" if scope is None else "grants_stamp", sql, params)
        last_grant, last_audit = cursor.fetchone()
    found = f"{last_grant}:{last_audit}"
    _GRANTS_MEMO[scope] = (now, found)
    return found


def open_data_row(auth: Authorization) -> dict:
    return {
        "number": auth.number,
        "act": auth.act_name,
        "modality": auth.modality,
        "holder": grant_holder_public_name(auth),
        "holder_name": grant_holder_public_name(auth),
        "plate": auth.vehicle.display_plate if auth.vehicle_id else "",
        "valid_from": auth.valid_from.isoformat(),
        "valid_until": auth.valid_until.isoformat(),
        "status": auth.status,
        "stand": getattr(auth, "stand_name", None) or "",
    }


_OPEN_DATA_COLUMNS = ("id", "number", "act_name", "modality", "holder__name", "holder__first_name",
                      "holder__last_name", "vehicle__plate", "valid_from", "valid_until", "status", "stand_name",
                      "company_name")


def _open_data_values(qs: QuerySet[Authorization]):
    """The columns of open_data_row() as tuples: no model instance per grant."""
    from django.db.models import OuterRef, Subquery

    from licensing.models import StandAssignment

    stand = StandAssignment.objects.filter(authorization=OuterRef("pk"), status="active").values("stand__name")[:1]
    return qs.annotate(stand_name=Subquery(stand)).values_list(*_OPEN_DATA_COLUMNS)


def _open_data_dict(values: tuple) -> dict:
    """open_data_row() of one tuple of _OPEN_DATA_COLUMNS (the same keys and values)."""
    from fleet.models import display_plate

    _, number, act, modality, name, first, last, plate, valid_from, valid_until, status, stand, company = values
    holder = company or public_name_of(name, first, last)  # a company holder is named by its razão social
    return {
        "number": number, "act": act, "modality": modality, "holder": holder, "holder_name": holder,
        "plate": display_plate(plate) if plate else "", "valid_from": valid_from.isoformat(),
        "valid_until": valid_until.isoformat(), "status": status, "stand": stand or "",
    }


def _open_data_tuple(row: dict) -> tuple:
    """A compiled lookup's row (a dict by column) as _open_data_values' tuple."""
    return tuple(row[c] for c in _OPEN_DATA_COLUMNS)


def open_data_rows(ids: list[int]) -> list[dict]:
    """The open-data rows of one page of the transparency list, in the order of ``ids``."""
    if not ids:
        return []
    if _is_postgresql():
        found = {row["id"]: _open_data_tuple(row) for row in _open_data_lookup().rows(list(ids))}
    else:
        found = {v[0]: v for v in _open_data_values(Authorization.objects.filter(pk__in=ids).order_by())}
    return [_open_data_dict(found[i]) for i in ids if i in found]


def open_data_page(first_id: int, modality: str = "", after_id: int = 0) -> list[dict]:
    """A page of the transparency list by keyset: the current grants (of ``modality``) with
    ``after_id`` < id <= ``first_id`` (the next page's first id; for the last page, its oldest
    id less one), newest first, OPEN_DATA_PAGE of them — one statement compiled once per
    process (prepared on PostgreSQL), where the ids and then their rows took two queries built
    by the ORM on every page.

    The lower bound is what keeps the page to its own span of ids whatever the plan: the
    prepared statement's generic plan (one for every municipality, judged by the average one)
    may walk the primary key back from the first id and filter by municipality, and without
    it a page with fewer rows than OPEN_DATA_PAGE — the last one — walked on to the table's
    first row (every older row of every municipality, for one whose grants began after the
    others'). Within the span, a municipality whose grants sit sparse among a bigger one's
    still reads the others' rows in between under that plan (README, "Números")."""
    rows = _open_data_page_lookup(modality).rows(after_id, first_id)
    return [_open_data_dict(_open_data_tuple(row)) for row in rows]


def _page_of(modality: str, after_id, first_id):
    """The current grants (of ``modality``) with after_id < id <= first_id, newest first, a page
    of them. The ids are raw parameters: CompiledLookup marks their slots with texts the id
    field would refuse."""
    from django.db.models import BigIntegerField
    from django.db.models.expressions import RawSQL

    above = RawSQL("%s", [after_id], output_field=BigIntegerField())
    upto = RawSQL("%s", [first_id], output_field=BigIntegerField())
    return _current_filter("", modality).filter(pk__gt=above, pk__lte=upto).order_by("-id")[:registry.OPEN_DATA_PAGE]


@functools.lru_cache(maxsize=32)  # one per modality of the packs ("" for all)
def _open_data_page_lookup(modality: str):
    """open_data_page()'s statement, for one modality ("" for all)."""
    return CompiledLookup(lambda after_id, first_id: _open_data_values(_page_of(modality, after_id, first_id)),
                          values=2)


def _is_postgresql() -> bool:
    from django.db import connections, router

    return connections[router.db_for_read(Authorization)].vendor == "postgresql"


@functools.cache
def _open_data_lookup():
    """open_data_rows() on PostgreSQL as one prepared statement for every page: the ids are one
    array parameter. With ``id IN (50 literals)`` each page was a new statement, planned again
    (~2 ms) and planned as a hash join over every holder (a sequential scan that grew with the
    municipality); planned once, it is 50 index lookups whatever the size."""
    from django.db.models.expressions import RawSQL

    return CompiledLookup(lambda ids: _open_data_values(
        Authorization.objects.filter(pk__in=RawSQL("SELECT unnest(%s::bigint[])", [ids])).order_by()))


def open_data_stream(q: str = "", modality: str = ""):
    for values in _open_data_values(_current_filter(q, modality).order_by("-id")).iterator(chunk_size=2000):
        yield _open_data_dict(values)


# --- quotas ---------------------------------------------------------------------------------
def quotas(pack: Pack) -> list[dict]:
    out = []
    for modality in modalities(pack):
        per_slot = pack.param("quota.inhabitants_per_slot", modality)
        fixed = pack.param("quota.fixed_slots", modality)
        chosen = None
        if per_slot and fixed:
            specific = [p for p in (per_slot, fixed) if p.key.startswith(f"{modality}.")]
            chosen = specific[0] if specific else per_slot
        else:
            chosen = per_slot or fixed
        if chosen is None:
            slots = None
            ips = None
        elif chosen is per_slot:
            ips = int(per_slot.value)
            slots = quota_slots(pack.population, ips)
        else:
            ips = None
            slots = int(fixed.value)
        active = count_current_grants(modality)
        out.append(
            {
                "modality": modality,
                "modality_label": pack.modality_label(modality),
                "population": pack.population,
                "population_source": pack.population_source,
                "population_year": pack.population_year,
                "inhabitants_per_slot": ips,
                "fixed_slots": slots if chosen is fixed and chosen is not None else None,
                "slots": slots,
                "active": active,
                "available": max(slots - active, 0) if slots is not None else None,
                "legal_basis": chosen.legal_basis if chosen else "",
                "is_example": bool(chosen.is_example) if chosen else False,
            }
        )
    return out


# --- statistics -----------------------------------------------------------------------------
# Read from the summaries the database keeps (licensing.tallies): a few rows per modality,
# status and month, whatever the number of grants; the figures are those of the grants themselves.
EPOCH = date(1970, 1, 1)  # the summaries keep days as days since this date (portal.tallies.EPOCH)


def grants_by_modality_and_month(pack: Pack, months: int = 12):
    from licensing.models import GrantTally

    month_list = last_months(pack, months)
    rows = (GrantTally.objects.filter(month__gte=month_list[0]).values("modality", "month")
            .annotate(total=Sum("n")).order_by().values_list("modality", "month", "total"))
    series: dict[str, list[int]] = {m: [0] * months for m in modalities(pack)}
    index = {m: i for i, m in enumerate(month_list)}
    for modality, month, total in rows:
        if month in index and modality in series:
            series[modality][index[month]] += total
    return month_list, series


def grants_by_status(pack: Pack) -> dict[str, dict[str, int]]:
    from licensing.models import GrantTally

    out: dict[str, dict[str, int]] = {m: {} for m in modalities(pack)}
    rows = (GrantTally.objects.values("modality", "status").annotate(total=Sum("n")).order_by()
            .values_list("modality", "status", "total"))
    for modality, status, total in rows:
        if total:  # a status no grant holds any more is absent, as in a count of the grants
            out.setdefault(modality, {})[status] = total
    return out


def average_days_since_issue(pack: Pack) -> dict[str, float | None]:
    """Average age in days of the current grants, per modality (from the local issue date):
    today − the mean issue day, i.e. (count × today − Σ issue days) ÷ count, exact in integers."""
    from licensing.models import GrantTally

    today = (pack.today() - EPOCH).days
    totals: dict[str, list[int]] = {m: [0, 0] for m in modalities(pack)}
    rows = (GrantTally.objects.filter(status__in=CURRENT_STATUSES).values("modality")
            .annotate(total=Sum("n"), days=Sum("day_sum")).order_by().values_list("modality", "total", "days"))
    for modality, total, days in rows:
        if total:  # summary rows at zero stand for no grant (as absent rows did in a count)
            totals[modality] = [total * today - days, total]
    return {m: (round(s / n, 1) if n else None) for m, (s, n) in totals.items()}


def average_days_protocol_to_grant(pack: Pack) -> dict[str, float | None]:
    """Average calendar days from the protocol of a new application to its grant, per modality."""
    from licensing.models import ApprovalTally

    totals: dict[str, list[int]] = {m: [0, 0] for m in modalities(pack)}
    for modality, total, days in ApprovalTally.objects.values_list("modality", "n", "days_sum"):
        if total:
            totals[modality] = [days, total]
    return {m: (round(s / n, 1) if n else None) for m, (s, n) in totals.items()}


def first_steps(user) -> bool:
    """The dashboard shows a new applicant where to start (no application yet)."""
    from licensing.models import Application

    return not Application.objects.filter(applicant=user).exists()


def _next_steps(user) -> list[dict]:
    from licensing.applications.next_steps import next_steps

    return next_steps(user)


def _desk_queues() -> list[dict]:
    """The clerk's queues: applications (desk_queues), requests filed, DAMs awaiting the bank's
    confirmation; one query each."""
    from django.db.models import Count, Min
    from django.urls import reverse
    from django.utils import timezone

    from licensing.applications.desk_queues import summary
    from licensing.fees.models import Fee, FeeStatus
    from licensing.requests.models import LifecycleRequest, RequestStatus

    out = summary()
    filed = LifecycleRequest.objects.filter(status=RequestStatus.FILED).aggregate(n=Count("id"), oldest=Min("filed_at"))
    out.append({"code": "requests", "label": "Pedidos de alteração", "count": filed["n"], "oldest": filed["oldest"],
                "url": reverse("lifecycle-queue") + f"?status={RequestStatus.FILED}"})
    issued = Fee.objects.filter(status=FeeStatus.ISSUED).aggregate(n=Count("id"), oldest=Min("issued_at"))
    out.append({"code": "fees", "label": "Taxas a conciliar (DAM sem baixa)", "count": issued["n"],
                "oldest": issued["oldest"], "url": reverse("lifecycle-fees") + f"?status={FeeStatus.ISSUED}"})
    today = timezone.localdate()
    for q in out:  # how long the oldest has waited, in whole days
        oldest = q["oldest"]
        q["days"] = (today - (timezone.localdate(oldest) if hasattr(oldest, "hour") else oldest)).days if oldest else 0
    return out


# --- ops ------------------------------------------------------------------------------------
def _aged_vehicles():
    from licensing.grants.selectors import aged_vehicles_queryset

    return aged_vehicles_queryset().select_related("holder")  # the list shows each holder's name


def _describe_aged(items):
    from licensing.grants.selectors import describe_aged

    return describe_aged(items)


def register() -> None:
    """Called from LicensingConfig.ready()."""
    from portal.menu import MenuItem
    from portal.menu import register as register_menu
    from portal.roles import Role

    registry.provide(registry.GRANTS_FINGERPRINT, grants_fingerprint)
    registry.provide(registry.GRANTS_CURRENT, current_grants)
    registry.provide(registry.GRANTS_CURRENT_IDS, current_grant_ids)
    registry.provide(registry.GRANTS_BY_IDS, grants_by_ids)
    registry.provide(registry.GRANTS_OPEN_DATA_ROW, open_data_row)
    registry.provide(registry.GRANTS_OPEN_DATA_ROWS, open_data_rows)
    registry.provide(registry.GRANTS_OPEN_DATA_PAGE, open_data_page)
    registry.provide(registry.GRANTS_OPEN_DATA_STREAM, open_data_stream)
    registry.provide(registry.QUOTAS, quotas)
    registry.provide(registry.STATS_GRANTS_BY_MONTH, grants_by_modality_and_month)
    registry.provide(registry.STATS_GRANTS_BY_STATUS, grants_by_status)
    registry.provide(registry.STATS_DAYS_SINCE_ISSUE, average_days_since_issue)
    registry.provide(registry.STATS_DAYS_TO_GRANT, average_days_protocol_to_grant)
    registry.provide(registry.FIRST_STEPS, first_steps)
    registry.provide(registry.NEXT_STEPS, _next_steps)
    registry.provide(registry.DESK_QUEUES, _desk_queues)
    registry.provide(registry.OPS_AGED_VEHICLES, _aged_vehicles)
    registry.provide(registry.OPS_DESCRIBE_AGED, _describe_aged)
    registry.register_verification(_GRANT_VERIFICATION)
    # Names recorded by portal.jobs.run_job, with the label shown to clerks.
    registry.register_job("licensing.expire_grants", "Expiração de autorizações e alvarás",
                          task="licensing.tasks.expire_grants", order=10)
    registry.register_job("licensing.renewal_reminders", "Lembretes de renovação",
                          task="licensing.tasks.send_renewal_reminders", order=11)
    registry.register_job("licensing.vehicle_age", "Idade máxima dos veículos",
                          task="licensing.tasks.check_vehicle_ages", order=12)
    registry.register_job("licensing.quota_check", "Verificação de vagas",
                          task="licensing.tasks.check_quotas", order=13)
    register_menu(MenuItem("Veículos na idade máxima", "ops-aged-vehicles", (Role.CLERK, Role.ADMIN), 81, group="Operação"))


_GRANT_VERIFICATION = GrantVerification()
