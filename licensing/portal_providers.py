"""What licensing gives portal's pages (public transparency, verification, quotas, statistics,
the ops page), registered in portal.registry by ``register()`` from LicensingConfig.ready().

Moved from portal/public/selectors.py and portal/jobs_views.py: portal imports no domain app.
"""

from __future__ import annotations

import functools
from datetime import date

from django.db.models import Case, Q, QuerySet, Sum, Value, When

from licensing.grants.rules import quota_slots
from licensing.grants.selectors import count_current_grants
from licensing.models import CURRENT_STATUSES, Alvara, Amendment, Authorization
from portal import registry
from portal.public.selectors import (
    Verification,
    effective_status,
    last_months,
    modalities,
    public_name,
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

    One query over two primary-key indexes (the newest grant and the newest audit entry),
    remembered two seconds in the process; a change saved in this process forgets it.
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
    with connection.cursor() as cursor:
        sql = f'SELECT (SELECT MAX("id") FROM "{grants}"), (SELECT MAX("id") FROM "{audit}")'  # noqa: S608 - model tables
        cursor.execute(sql)
        last_grant, last_audit = cursor.fetchone()
    found = f"{last_grant}:{last_audit}"
    _GRANTS_MEMO[scope] = (now, found)
    return found


def grant_holder_public_name(auth: Authorization) -> str:
    """The holder as the public sees it: a company's razão social (its CNPJ is public record),
    else the person's public name (a CPF never is)."""
    return auth.company_name or public_name(auth.holder)


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
    from portal.public.selectors import public_name_of

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


def open_data_page(first_id: int, modality: str = "") -> list[dict]:
    """A page of the transparency list by keyset: the current grants (of ``modality``) with
    id <= ``first_id``, newest first, OPEN_DATA_PAGE of them — one statement compiled once per
    process (prepared on PostgreSQL), where the ids and then their rows took two queries built
    by the ORM on every page."""
    return [_open_data_dict(_open_data_tuple(row)) for row in _open_data_page_lookup(modality).rows(first_id)]


@functools.lru_cache(maxsize=32)  # one per modality of the packs ("" for all)
def _open_data_page_lookup(modality: str):
    from django.db.models import BigIntegerField
    from django.db.models.expressions import RawSQL

    from portal.compiled_query import CompiledLookup

    def build(first_id):
        # the id as a raw parameter: CompiledLookup marks its slot with a text the id field would refuse
        upto = RawSQL("%s", [first_id], output_field=BigIntegerField())
        return _open_data_values(_current_filter("", modality).filter(pk__lte=upto).order_by("-id")[:registry.OPEN_DATA_PAGE])

    return CompiledLookup(build)


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

    from portal.compiled_query import CompiledLookup

    return CompiledLookup(lambda ids: _open_data_values(
        Authorization.objects.filter(pk__in=RawSQL("SELECT unnest(%s::bigint[])", [ids])).order_by()))


def open_data_stream(q: str = "", modality: str = ""):
    for values in _open_data_values(_current_filter(q, modality).order_by("-id")).iterator(chunk_size=2000):
        yield _open_data_dict(values)


# --- verification ---------------------------------------------------------------------------
def _authorizations():
    return Authorization.objects.select_related("holder", "vehicle")


def _alvaras():
    return Alvara.objects.select_related(
        "authorization", "authorization__holder", "authorization__vehicle", "person", "vehicle", "superseded_by"
    )


def _vehicle_of(vehicle) -> dict | None:
    if vehicle is None:
        return None
    return {"make": vehicle.make, "model": vehicle.model, "color": vehicle.color}


def _drivers_of(auth: Authorization) -> list[str]:
    """The holder and the active auxiliary drivers of the grant: who may drive the vehicle
    (names only — LGPD art. 6, III)."""
    from licensing.requests.models import AuxiliaryDriver, AuxiliaryStatus

    names = [public_name(auth.holder)]
    auxiliaries = AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).select_related(
        "person").order_by("id")
    names += [public_name(a.person) for a in auxiliaries]
    return list(dict.fromkeys(n for n in names if n))


def _sha256_of(doc, kind: str) -> str | None:
    stored = _stored(doc, kind)
    return stored.sha256 if stored is not None else None


def _signer_of(doc, kind: str) -> str:
    stored = _stored(doc, kind)
    return stored.signer if stored is not None and stored.signed else ""


def _stored(doc, kind: str):
    """The stored PDF of ``doc``, read once per verification (hash and signer come from it)."""
    from portal.issued import stored_document_meta

    memo = doc.__dict__.setdefault("_stored_documents", {})
    if kind not in memo:
        memo[kind] = stored_document_meta(doc, kind)
    return memo[kind]


def _successor(alvara: Alvara) -> dict | None:
    """The alvará in force that superseded this one (following the chain to its end)."""
    try:
        nxt = alvara.superseded_by  # joined in the lookup: no query for the common case
    except Alvara.DoesNotExist:
        return None
    current, seen = nxt, {nxt.pk}
    while True:
        nxt = Alvara.objects.filter(supersedes=current).first()
        if nxt is None or nxt.pk in seen:
            break
        seen.add(nxt.pk)
        current = nxt
    return {"document": current.doc_name, "number": current.number, "code": current.verification_code}


def _amendments():
    return Amendment.objects.select_related("authorization", "authorization__holder", "authorization__vehicle")


def _ref(doc) -> dict:
    name = getattr(doc, "act_name", "") or getattr(doc, "doc_name", "")
    return {"document": name, "number": doc.number, "code": doc.verification_code}


def _certified_vehicle(auth: Authorization, amendments: list[Amendment]):
    """The vehicle the act named when issued: the one the first substitution replaced, else its own."""
    for amendment in amendments:
        for change in amendment.changes:
            if change.get("field") == "vehicle" and change.get("before_vehicle"):
                return change["before_vehicle"]
    v = auth.vehicle if auth.vehicle_id else None
    return {"plate": v.display_plate, "make": v.make, "model": v.model, "color": v.color} if v else None


def _what(amendment: Amendment) -> str:
    parts = [f"{c['label']}: {c.get('before') or '—'} → {c.get('after') or '—'}" for c in amendment.changes]
    return f"{amendment.get_kind_display()} ({'; '.join(parts)})" if parts else amendment.get_kind_display()


@functools.cache
def _verification_lookup():
    """licensing.grants.selectors.verification_rows, compiled once in this process (the
    municipality is a parameter): building and compiling that queryset cost several times
    running it, on the path every distinct QR code takes."""
    from licensing.grants.selectors import verification_rows
    from licensing.requests.selectors import has_active_auxiliaries
    from portal.compiled_query import CompiledLookup

    return CompiledLookup(lambda code: verification_rows(code, has_auxiliaries=has_active_auxiliaries()))


class GrantVerification:
    """Authorizations, their acts of amendment and alvarás, found by code, by number or
    (authorizations) by plate."""

    def by_code(self, code: str):
        # codes are unique: a plain LIMIT 1, without .first()'s ORDER BY id (a sort and a
        # longer query to compile on every verification)
        for qs in (_authorizations(), _alvaras(), _amendments()):
            found = next(iter(qs.filter(verification_code=code)[:1]), None)
            if found is not None:
                return found
        return None

    def verification_by_code(self, code: str, pack: Pack) -> Verification | None:
        """by_code() + verification() in one query for a grant act (the common QR code) with no
        act of amendment; an act with amendments, an alvará or an amendment take the full path."""
        rows = _verification_lookup().rows(code)
        row = rows[0] if rows else None
        if row is not None and not row["has_amendments"]:
            return _authorization_verification_of_row(row, pack)
        # not a grant act (the row query said so): only the other kinds are looked up
        for qs in ((_authorizations(),) if row is not None else (_alvaras(), _amendments())):
            doc = next(iter(qs.filter(verification_code=code)[:1]), None)
            if doc is not None:
                return self.verification(doc, pack)
        return None

    def by_number(self, number: str) -> list:
        return (list(_authorizations().filter(number=number)) + list(_alvaras().filter(number=number))
                + list(_amendments().filter(number=number)))

    def by_plate(self, plate: str) -> list:
        # Several people may have declared the plate (one vehicle row each): the grant in force
        # on it comes first, whoever issued last; without one, the latest grant.
        in_force = Case(When(status__in=CURRENT_STATUSES, then=Value(0)), default=Value(1))
        return list(_authorizations().filter(vehicle__plate=plate).order_by(in_force, "-issued_at", "-id")[:1])

    def verification(self, doc, pack: Pack) -> Verification | None:
        today = pack.today()
        if isinstance(doc, Amendment):
            return _amendment_verification(doc, pack)
        if isinstance(doc, Authorization):
            status = effective_status(doc.status, doc.valid_until, today)
            amendments = list(doc.amendments.order_by("issued_at", "id"))
            certified = _certified_vehicle(doc, amendments)
            return Verification(
                kind="authorization",
                document=doc.act_name,
                number=doc.number,
                status=status,
                valid=status == "active",
                valid_until=doc.valid_until,
                modality=doc.modality,
                modality_label=pack.modality_label(doc.modality),
                # what the act certified when issued; later changes are its acts of amendment
                plate=certified["plate"] if certified else "",
                holder=grant_holder_public_name(doc),
                driver="",
                code=doc.verification_code,
                suspended_until=doc.suspended_until if status == "suspended" else None,
                act_basis=doc.legal_basis,
                vehicle={k: certified[k] for k in ("make", "model", "color")} if certified else None,
                drivers=_drivers_of(doc),
                sha256=_sha256_of(doc, "authorization"),
                signer=_signer_of(doc, "authorization"),
                amended_by=[{**_ref(a), "what": _what(a)} for a in amendments],
            )
        if not isinstance(doc, Alvara):
            return None
        auth = doc.authorization
        status = effective_status(doc.status, doc.valid_until, today)
        vehicle = doc.vehicle or auth.vehicle
        # An alvará is valid only while it and its grant are in force.
        auth_status = effective_status(auth.status, auth.valid_until, today)
        return Verification(
            kind="alvara",
            document=doc.doc_name,
            number=doc.number,
            status=status,
            valid=status == "active" and auth_status == "active",
            valid_until=doc.valid_until,
            modality=auth.modality,
            modality_label=pack.modality_label(auth.modality),
            plate=vehicle.display_plate if vehicle else "",
            holder=grant_holder_public_name(auth),
            driver=public_name(doc.person),
            code=doc.verification_code,
            act_basis=doc.legal_basis,
            # what this alvará certified (its own vehicle, if it names one), and who drives now
            vehicle=_vehicle_of(vehicle),
            drivers=_drivers_of(auth),
            superseded_by=_successor(doc),
            sha256=_sha256_of(doc, "alvara"),
            signer=_signer_of(doc, "alvara"),
        )


def _authorization_verification_of_row(row: dict, pack: Pack) -> Verification:
    """The Verification that verification() builds for an Authorization without amendments,
    from verification_rows() (same fields, same values)."""
    from fleet.models import display_plate

    status = effective_status(row["status"], row["valid_until"], pack.today())
    person = public_name_of(row["holder__name"], row["holder__first_name"], row["holder__last_name"])
    holder = row["company_name"] or person  # a company holder: its razão social; the person drives
    names = [person]
    if row["has_auxiliaries"]:
        from licensing.requests.selectors import active_auxiliary_names

        names += [public_name_of(*n) for n in active_auxiliary_names(row["id"])]
    has_vehicle = row["vehicle_id"] is not None
    return Verification(
        kind="authorization", document=row["act_name"], number=row["number"], status=status,
        valid=status == "active", valid_until=row["valid_until"], modality=row["modality"],
        modality_label=pack.modality_label(row["modality"]),
        plate=display_plate(row["vehicle__plate"]) if has_vehicle else "", holder=holder, driver="",
        code=row["verification_code"], suspended_until=row["suspended_until"] if status == "suspended" else None,
        act_basis=row["legal_basis"],
        vehicle={k: row[f"vehicle__{k}"] for k in ("make", "model", "color")} if has_vehicle else None,
        drivers=list(dict.fromkeys(n for n in names if n)), sha256=row["pdf_sha256"],
        signer=row["pdf_signer"] if row["pdf_signed"] else "", amended_by=[],
    )


def _amendment_verification(doc: Amendment, pack: Pack) -> Verification:
    """An act of amendment is authentic once issued; it shows what it changed and the act it amends."""
    auth = doc.authorization
    issued_on = doc.issued_at.astimezone(pack.tz).date()
    return Verification(
        kind="amendment", document=doc.act_name, number=doc.number, status="issued", valid=True,
        label=f"emitido em {issued_on:%d/%m/%Y}", valid_until=None, modality=auth.modality,
        modality_label=pack.modality_label(auth.modality), plate=auth.vehicle.display_plate if auth.vehicle_id else "",
        holder=grant_holder_public_name(auth), driver="", code=doc.verification_code, act_basis=doc.legal_basis,
        sha256=_sha256_of(doc, "amendment"), signer=_signer_of(doc, "amendment"), amends=_ref(auth),
        changes=[{"label": c.get("label", ""), "before": c.get("before", ""), "after": c.get("after", "")}
                 for c in doc.changes], issued_on=issued_on,
    )


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

    return aged_vehicles_queryset()


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
