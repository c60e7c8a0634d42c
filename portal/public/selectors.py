"""Reads behind the public pages and open data (holder names only; never a CPF or a document)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Count, Q, QuerySet
from django.db.models.functions import TruncMonth

from licensing.grants.rules import quota_slots
from licensing.grants.selectors import count_current_grants
from licensing.models import CURRENT_STATUSES, Alvara, Authorization
from portal.numbering import normalize_verification_code
from portal.regulation import Pack
from portal.validators import normalize_plate

STATUS_LABELS = {
    "active": "ativa",
    "suspended": "suspensa",
    "cassada": "cassada",
    "expired": "expirada",
    "renounced": "renunciada",
    "cancelled": "cancelada",
    "retained": "retida",
    "superseded": "substituída",
}


def modalities(pack: Pack) -> list[str]:
    """The pack's modalities, táxi first."""
    order = ("taxi", "mototaxi")
    return sorted(pack.modalities, key=lambda m: (order.index(m) if m in order else len(order), m))


def public_name(user) -> str:
    """The person's name, never their CPF (a requerente's username is the CPF)."""
    if user is None:
        return ""
    return user.name or user.get_full_name() or "(nome não informado)"


def _current_filter(q: str = "", modality: str = "") -> QuerySet[Authorization]:
    qs = Authorization.objects.filter(status__in=CURRENT_STATUSES)
    if modality:
        qs = qs.filter(modality=modality)
    q = (q or "").strip()
    if q:
        cond = Q(number__icontains=q) | Q(holder__name__icontains=q)
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

    from portal.models import AuditEntry
    from portal.public.http import _GRANTS_MEMO, GRANTS_MEMO_SECONDS

    now = time.monotonic()
    if _GRANTS_MEMO[1] is not None and now - _GRANTS_MEMO[0] < GRANTS_MEMO_SECONDS:
        return _GRANTS_MEMO[1]
    grants, audit = Authorization._meta.db_table, AuditEntry._meta.db_table
    with connection.cursor() as cursor:
        sql = f'SELECT (SELECT MAX("id") FROM "{grants}"), (SELECT MAX("id") FROM "{audit}")'  # noqa: S608 - model tables
        cursor.execute(sql)
        last_grant, last_audit = cursor.fetchone()
    found = f"{last_grant}:{last_audit}"
    _GRANTS_MEMO[0], _GRANTS_MEMO[1] = now, found
    return found


def open_data_row(auth: Authorization) -> dict:
    return {
        "number": auth.number,
        "act": auth.act_name,
        "modality": auth.modality,
        "holder": public_name(auth.holder),
        "holder_name": public_name(auth.holder),
        "plate": auth.vehicle.display_plate if auth.vehicle_id else "",
        "valid_from": auth.valid_from.isoformat(),
        "valid_until": auth.valid_until.isoformat(),
        "status": auth.status,
        "stand": getattr(auth, "stand_name", None) or "",
    }


# --- verification -------------------------------------------------------------------------
@dataclass
class Verification:
    kind: str  # "authorization" | "alvara" | "infraction"
    document: str
    number: str
    status: str
    valid: bool
    valid_until: date | None
    modality: str
    modality_label: str
    plate: str
    holder: str
    driver: str
    code: str
    suspended_until: date | None = None
    act_basis: str = ""

    @property
    def status_label(self) -> str:
        if self.kind == "infraction":
            from enforcement.models import InfractionStatus

            return str(InfractionStatus(self.status).label)
        return STATUS_LABELS.get(self.status, self.status)

    def as_api(self) -> dict:
        out = {
            "valid": self.valid,
            "status": self.status,
            "status_label": self.status_label,
            "document": self.document,
            "kind": self.kind,
            "number": self.number,
            "plate": self.plate,
            "modality": self.modality,
            "valid_until": self.valid_until.isoformat() if self.valid_until else None,
            "holder": self.holder,
        }
        if self.kind == "alvara":
            out["driver"] = self.driver
        if self.suspended_until:
            out["suspended_until"] = self.suspended_until.isoformat()
        return out


def _effective_status(status: str, valid_until: date, today: date) -> str:
    """A current document past its validity is shown as expired even before the nightly job runs."""
    if status in ("active", "suspended", "retained") and valid_until < today:
        return "expired"
    return status


def verification_of(doc, pack: Pack) -> Verification:
    today = pack.today()
    if isinstance(doc, _infraction_model()):
        # An auto de infração is authentic unless cancelled; the public sees no person's name.
        return Verification(
            kind="infraction",
            document="Auto de Infração",
            number=doc.number,
            status=doc.status,
            valid=doc.status != "cancelled",
            valid_until=None,
            modality=doc.modality or "",
            modality_label=pack.modality_label(doc.modality) if doc.modality else "",
            plate=doc.display_plate,
            holder="",
            driver="",
            code=doc.verification_code,
            act_basis=(doc.catalogue[0].get("legal_basis", "") if doc.catalogue else ""),
        )
    if isinstance(doc, Authorization):
        status = _effective_status(doc.status, doc.valid_until, today)
        return Verification(
            kind="authorization",
            document=doc.act_name,
            number=doc.number,
            status=status,
            valid=status == "active",
            valid_until=doc.valid_until,
            modality=doc.modality,
            modality_label=pack.modality_label(doc.modality),
            plate=doc.vehicle.display_plate if doc.vehicle_id else "",
            holder=public_name(doc.holder),
            driver="",
            code=doc.verification_code,
            suspended_until=doc.suspended_until if status == "suspended" else None,
            act_basis=doc.legal_basis,
        )
    auth = doc.authorization
    status = _effective_status(doc.status, doc.valid_until, today)
    vehicle = doc.vehicle or auth.vehicle
    # An alvará is valid only while it and its grant are in force.
    auth_status = _effective_status(auth.status, auth.valid_until, today)
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
        holder=public_name(auth.holder),
        driver=public_name(doc.person),
        code=doc.verification_code,
        act_basis=doc.legal_basis,
    )


def _authorizations():
    return Authorization.objects.select_related("holder", "vehicle")


def _alvaras():
    return Alvara.objects.select_related(
        "authorization", "authorization__holder", "authorization__vehicle", "person", "vehicle"
    )


def _infraction_model():
    from enforcement.models import Infraction

    return Infraction


def document_by_code(code: str):
    code = normalize_verification_code(code or "")
    if not code or len(code) > 20:
        return None
    return (
        _authorizations().filter(verification_code=code).first()
        or _alvaras().filter(verification_code=code).first()
        or _infraction_model().objects.filter(verification_code=code).first()
    )


def search_documents(q: str) -> list:
    """Documents matching a verification code, an authorization/alvará number or a plate."""
    q = (q or "").strip()
    if not q or len(q) > 20:
        return []
    found = document_by_code(q)
    if found is not None:
        return [found]
    docs: list = list(_authorizations().filter(number=q)) + list(_alvaras().filter(number=q))
    if docs:
        return docs
    plate = normalize_plate(q)
    if len(plate) == 7:
        auth = (
            _authorizations()
            .filter(vehicle__plate=plate)
            .order_by(  # current first, then the latest
                "-issued_at", "-id"
            )
        )
        auths = sorted(auth[:5], key=lambda a: (a.status not in CURRENT_STATUSES,))
        return auths[:1]
    return []


# --- quotas -------------------------------------------------------------------------------
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


# --- statistics ---------------------------------------------------------------------------
def last_months(pack: Pack, months: int = 12) -> list[date]:
    """First days of the last ``months`` months, oldest first, in the municipality's calendar."""
    today = pack.today()
    first = date(today.year, today.month, 1)
    for _ in range(months - 1):
        first = date(first.year - 1, 12, 1) if first.month == 1 else date(first.year, first.month - 1, 1)
    month_list = [first]
    while len(month_list) < months:
        m = month_list[-1]
        month_list.append(date(m.year + 1, 1, 1) if m.month == 12 else date(m.year, m.month + 1, 1))
    return month_list


def grants_by_modality_and_month(
    pack: Pack, months: int = 12
) -> tuple[list[date], dict[str, list[int]]]:
    month_list = last_months(pack, months)
    first = month_list[0]
    rows = (
        Authorization.objects.filter(issued_at__date__gte=first)
        .annotate(month=TruncMonth("issued_at", tzinfo=pack.tz))
        .values("modality", "month")
        .annotate(n=Count("id"))
        .order_by()
    )
    series: dict[str, list[int]] = {m: [0] * months for m in modalities(pack)}
    index = {m: i for i, m in enumerate(month_list)}
    for row in rows:
        month = row["month"]
        key = date(month.year, month.month, 1)
        if key in index and row["modality"] in series:
            series[row["modality"]][index[key]] += row["n"]
    return month_list, series


def grants_by_status(pack: Pack) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {m: {} for m in modalities(pack)}
    for row in (
        Authorization.objects.values("modality", "status").annotate(n=Count("id")).order_by()
    ):
        out.setdefault(row["modality"], {})[row["status"]] = row["n"]
    return out


def average_days_since_issue(pack: Pack) -> dict[str, float | None]:
    """Average age in days of the current grants, per modality (from the issue date)."""
    today = pack.today()
    totals: dict[str, list[int]] = {m: [0, 0] for m in modalities(pack)}
    for modality, issued_at in (
        Authorization.objects.filter(status__in=CURRENT_STATUSES)
        .values_list("modality", "issued_at")
        .iterator()
    ):
        t = totals.setdefault(modality, [0, 0])
        t[0] += (today - issued_at.astimezone(pack.tz).date()).days
        t[1] += 1
    return {m: (round(s / n, 1) if n else None) for m, (s, n) in totals.items()}


def autos_by_article_and_month(pack: Pack, months: int = 12) -> tuple[list[date], dict[str, list[int]]]:
    """Autos de infração (not cancelled) by month of the infraction and article of the law."""
    from enforcement.models import Infraction, InfractionStatus

    month_list = last_months(pack, months)
    index = {m: i for i, m in enumerate(month_list)}
    rows = (
        Infraction.objects.filter(occurred_at__date__gte=month_list[0])
        .exclude(status=InfractionStatus.CANCELLED)
        .annotate(month=TruncMonth("occurred_at", tzinfo=pack.tz))
        .values("infraction_code", "month")
        .annotate(n=Count("id"))
        .order_by()
    )
    series: dict[str, list[int]] = {}
    for row in rows:
        article = "art. " + row["infraction_code"].split("-")[0]
        key = date(row["month"].year, row["month"].month, 1)
        if key in index:
            series.setdefault(article, [0] * months)[index[key]] += row["n"]
    ordered = sorted(series, key=lambda a: (len(a), a))
    return month_list, {a: series[a] for a in ordered}


def average_days_protocol_to_grant(pack: Pack) -> dict[str, float | None]:
    """Average calendar days from the protocol of a new application to its grant, per modality."""
    from licensing.models import Application, ApplicationStatus

    totals: dict[str, list[int]] = {m: [0, 0] for m in modalities(pack)}
    for modality, submitted_at, decided_at in (
        Application.objects.filter(status=ApplicationStatus.APPROVED, submitted_at__isnull=False,
                                   decided_at__isnull=False)
        .values_list("modality", "submitted_at", "decided_at")
        .iterator()
    ):
        t = totals.setdefault(modality, [0, 0])
        t[0] += (decided_at.astimezone(pack.tz).date() - submitted_at.astimezone(pack.tz).date()).days
        t[1] += 1
    return {m: (round(s / n, 1) if n else None) for m, (s, n) in totals.items()}
