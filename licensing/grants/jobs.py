"""Periodic jobs over grants: expiry, renewal reminders, vehicle age and quota checks.

Each job reads the current state, changes only what still needs changing (conditional
UPDATE under row locks) and records each notice once (``Notification.dedup_key``), so that
running it twice — or from two beats at once — changes nothing more and sends nothing more.
Dates are judged in the municipality's time zone (``pack.today()``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import F, OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone

from licensing.grants.models import (
    CURRENT_STATUSES,
    Alvara,
    AlvaraStatus,
    Authorization,
    AuthorizationStatus,
)
from licensing.grants.rules import (
    over_max_age,
    reminder_threshold,
)
from licensing.grants.selectors import (
    aged_vehicles_queryset,
    current_job_run,
    describe_aged,
    quota_states,
)
from portal import regulation, tenancy
from portal.models import AuditEntry, JobRun, Notification
from portal.notifications import DISPATCH_ONE_BY_ONE, Notice, dispatch_pending, notify_many
from portal.numbers import thousands
from portal.roles import Role, staff_users

CHUNK = 2000
DEFAULT_REMINDER_DAYS = (60, 30, 7)
SET_CHUNK_FACTOR = 5  # the set-based expiry handles 10.000 rows per transaction
ALVARA_OPEN = (AlvaraStatus.ACTIVE, AlvaraStatus.SUSPENDED, AlvaraStatus.RETAINED)
EXPIRY_REASON = "Prazo de validade encerrado"

# --- extension point: renewals that keep a grant valid until decided -------------------------
# ``func(authorization_ids) -> set of ids`` whose renewal was filed in time and is undecided.
# The applications module registers it; the expiry job consults it only when the pack says
# ``renewal.keeps_valid_until_decided`` (its legal basis is in the pack).
_RENEWAL_HOLDS: list[Callable[[list[int]], set[int]]] = []


def register_renewal_hold(func: Callable[[list[int]], set[int]]) -> Callable:
    if func not in _RENEWAL_HOLDS:
        _RENEWAL_HOLDS.append(func)
    return func


def _held_by_renewal(pack, ids: list[int]) -> set[int]:
    if not ids or not (pack.value("renewal.keeps_valid_until_decided", default=False)
                       or pack.value("publication.extends_validity", default=False)):
        return set()
    held: set[int] = set()
    for func in _RENEWAL_HOLDS:
        held |= set(func(ids))
    return held


def reminder_days(pack) -> list[int]:
    """Settings/env ``RENEWAL_REMINDER_DAYS`` (e.g. "60,30,7"), else the pack's
    ``renewal.reminder_days``, else 60, 30 and 7 days."""
    raw = getattr(settings, "RENEWAL_REMINDER_DAYS", None) or os.environ.get("RENEWAL_REMINDER_DAYS", "")
    if isinstance(raw, str):
        raw = [part for part in raw.replace(";", ",").split(",") if part.strip()]
    if raw:
        return sorted({int(d) for d in raw}, reverse=True)
    value = pack.value("renewal.reminder_days", default=None)
    return sorted({int(d) for d in (value or DEFAULT_REMINDER_DAYS)}, reverse=True)


# --- helpers ---------------------------------------------------------------------------------
def _fmt(day: date) -> str:
    return day.strftime("%d/%m/%Y")


def _dashboard() -> str:
    return reverse("dashboard")


def _record_detail(job_name: str | None, lines: list[str]) -> None:
    if not job_name or not lines:
        return
    run = current_job_run(job_name)
    if run is not None:
        JobRun.objects.filter(pk=run.pk).update(detail="\n".join(lines)[:2000])


# --- expiry ----------------------------------------------------------------------------------
@dataclass
class ExpiryResult:
    authorizations: int = 0
    alvaras: int = 0

    @property
    def changed(self) -> int:
        return self.authorizations + self.alvaras


def expire_grants(today: date | None = None, *, chunk: int = CHUNK, set_based: bool | None = None) -> ExpiryResult:
    """Expire authorizations and alvarás whose validity ended before ``today`` (local date).

    Each chunk of rows is locked first; the alvarás of an expired authorization expire with it
    (as ``authorization_set_status`` cascades) and each holder is noticed once. On SQLite and
    PostgreSQL (``set_based``) a chunk is one conditional UPDATE per table with its audit rows
    and notices written by ``INSERT … SELECT``; otherwise row by row through the services.
    A grant whose renewal was filed in time keeps its validity (and its alvarás) where the pack
    says so.
    """
    pack = regulation.current()
    today = today or pack.today()
    if set_based is None:
        set_based = connection.vendor in _DIALECTS
    result = ExpiryResult()
    # Most days most municipalities have nothing to expire: one plain probe each, not a
    # transaction with row locks (a run per municipality in service, every day).
    grants_due = Authorization.objects.filter(status__in=CURRENT_STATUSES, valid_until__lt=today).exists()
    after = 0
    while grants_due:
        with transaction.atomic():
            if set_based:  # lock the chunk; statements below select the same rows by range
                limit = chunk * SET_CHUNK_FACTOR
                ids = list(
                    Authorization.objects.select_for_update()
                    .filter(status__in=CURRENT_STATUSES, valid_until__lt=today, pk__gt=after)
                    .order_by("pk")
                    .values_list("pk", flat=True)[:limit]
                )
                if not ids:
                    break
                first, after = ids[0], ids[-1]
                held = _held_by_renewal(pack, ids)
                if len(held) < len(ids):
                    grants, alvaras = _expire_set_based(today, first, after, held)
                    result.authorizations += grants
                    result.alvaras += alvaras
                if len(ids) < limit:
                    break  # a short chunk was the last: no further empty transaction to find out
                continue
            rows = list(
                # the grants only: the holder's row is read (its e-mail), not locked (_expire_alvara_rows)
                Authorization.objects.select_for_update(of=("self",))
                .filter(status__in=CURRENT_STATUSES, valid_until__lt=today, pk__gt=after)
                .order_by("pk")
                .annotate(email=_email_of_key("holder_id"))
                .values_list("pk", "act_name", "status", "number", "holder_id", "valid_until", "email")[:chunk]
            )
            if not rows:
                break
            after = rows[-1][0]
            held = _held_by_renewal(pack, [r[0] for r in rows])
            rows = [r for r in rows if r[0] not in held]
            if rows:
                cascaded = Alvara.objects.filter(
                    authorization_id__in=[r[0] for r in rows], status__in=ALVARA_OPEN
                ).count()
                result.authorizations += _expire_authorization_rows(rows)
                result.alvaras += cascaded
    after = 0
    alvaras_due = Alvara.objects.filter(status__in=ALVARA_OPEN, valid_until__lt=today).exists()
    while alvaras_due:  # alvarás with a validity of their own (the grant is still current)
        with transaction.atomic():
            pairs = list(
                Alvara.objects.select_for_update()
                .filter(status__in=ALVARA_OPEN, valid_until__lt=today, pk__gt=after)
                .order_by("pk")
                .values_list("pk", "authorization_id")[:chunk]
            )
            if not pairs:
                break
            after = pairs[-1][0]
            # an alvará stays valid with its grant while a renewal filed in time is undecided
            held = _held_by_renewal(pack, sorted({auth_id for _, auth_id in pairs}))
            ids = [pk for pk, auth_id in pairs if auth_id not in held]
            if ids:
                result.alvaras += _expire_alvara_rows(Alvara.objects.filter(pk__in=ids))
    return result


# SQL pieces that differ between the two supported databases.
_DIALECTS = {
    "sqlite": {
        "json": "json_object('valid_until', {col}, 'job', 'expire_grants')",
        "br_date": "strftime('%%d/%%m/%%Y', {col})",
        "empty_json": "%s",
    },
    "postgresql": {
        "json": "jsonb_build_object('valid_until', CAST({col} AS TEXT), 'job', 'expire_grants')",
        "br_date": "to_char({col}, 'DD/MM/YYYY')",
        "empty_json": "CAST(%s AS jsonb)",
    },
}
ALVARA_NOTICE_SUBJECT = "{doc} nº {number} expirou"
ALVARA_NOTICE_BODY = (
    "A validade do {doc} nº {number} terminou em {date} e ele passou a constar como expirado. "
    "Peça a renovação no portal antes de voltar a circular."
)
AUTH_NOTICE_SUBJECT = "{act} nº {number} expirou"
AUTH_NOTICE_BODY = (
    "A validade da {act} nº {number} terminou em {date} e ela passou a constar como expirada, com os "
    "alvarás vinculados. Para continuar prestando o serviço, peça a renovação ou uma nova outorga no portal."
)


def _sql_template(template: str, columns: dict[str, str]) -> tuple[str, list[str]]:
    """Turn "text {act} more" into a SQL concatenation of parameters and columns."""
    import re

    parts: list[str] = []
    params: list[str] = []
    for piece in re.split(r"(\{\w+\})", template):
        if not piece:
            continue
        if piece.startswith("{") and piece.endswith("}"):
            parts.append(columns[piece[1:-1]])
        else:
            parts.append("%s")
            params.append(piece)
    return " || ".join(parts), params


def _expire_set_based(today: date, first: int, last: int, held: set[int]) -> tuple[int, int]:
    """One chunk of the expiry in five statements; the authorization rows are already locked."""
    from django.contrib.auth import get_user_model

    dialect = _DIALECTS[connection.vendor]
    auth_t = Authorization._meta.db_table
    alv_t = Alvara._meta.db_table
    audit_t = AuditEntry._meta.db_table
    note_t = Notification._meta.db_table
    user_t = get_user_model()._meta.db_table
    now = timezone.now()
    at = connection.ops.adapt_datetimefield_value(now)  # stored as the ORM stores it
    current = [str(s) for s in CURRENT_STATUSES]
    open_alv = [str(s) for s in ALVARA_OPEN]
    # raw SQL bypasses the tenant managers: every statement names the municipality in scope
    municipality_id = tenancy.current_id()
    where = "a.municipality_id = %s AND a.status IN (%s, %s) AND a.valid_until < %s AND a.id >= %s AND a.id <= %s"
    where_params: list = [municipality_id, *current, connection.ops.adapt_datefield_value(today), first, last]
    if held:
        where += f" AND a.id NOT IN ({', '.join(['%s'] * len(held))})"
        where_params += sorted(held)
    alv_where = (f"v.municipality_id = %s AND v.status IN (%s, %s, %s) AND v.authorization_id IN (SELECT a.id FROM {auth_t} a WHERE {where})")  # noqa: S608 (model table names; values are parameters)
    alv_params = [municipality_id, *open_alv, *where_params]
    with connection.cursor() as cursor:
        # 1. the alvarás of these grants: lock, audit, expire
        cursor.execute(f"SELECT v.id FROM {alv_t} v WHERE {alv_where}" + (" FOR UPDATE" if connection.vendor == "postgresql" else ""), alv_params)  # noqa: S608 (model table names; values are parameters)
        alvaras = len(cursor.fetchall())
        noticed_drivers = 0
        if alvaras:
            cursor.execute(
                f"INSERT INTO {audit_t} (municipality_id, at, actor_id, actor_label, object_type, object_id, object_repr, action, "  # noqa: S608 (model table names; values are parameters)
                "from_state, to_state, reason, data) "
                f"SELECT v.municipality_id, %s, NULL, %s, %s, CAST(v.id AS TEXT), SUBSTR(v.doc_name || %s || v.number, 1, 300), %s, "
                f"v.status, %s, %s, {dialect['empty_json']} FROM {alv_t} v WHERE {alv_where} ORDER BY v.id",
                [at, "sistema", "licensing.alvara", " nº ", "alvara_status", str(AlvaraStatus.EXPIRED), EXPIRY_REASON, "{}", *alv_params],
            )
            # the holder is told about the grant; another driver (auxiliary) about their alvará
            alv_columns = {"doc": "v.doc_name", "number": "v.number", "date": dialect["br_date"].format(col="v.valid_until")}
            alv_subject, alv_subject_params = _sql_template(ALVARA_NOTICE_SUBJECT, alv_columns)
            alv_body, alv_body_params = _sql_template(ALVARA_NOTICE_BODY, alv_columns)
            cursor.execute(
                f"INSERT INTO {note_t} (municipality_id, recipient_id, subject, body, link, dedup_key, created_at, read_at, email_status, "  # noqa: S608 (model table names; values are parameters)
                "email_attempts, email_sent_at, email_error, next_attempt_at, pix_payload) "
                f"SELECT v.municipality_id, v.person_id, SUBSTR({alv_subject}, 1, 200), {alv_body}, %s, "
                "%s || CAST(v.id AS TEXT) || %s || CAST(v.valid_until AS TEXT), %s, NULL, "
                f"CASE WHEN ({_email_of('v.person_id', user_t)}) <> '' THEN %s ELSE %s END, 0, NULL, %s, %s, '' "
                f"FROM {alv_t} v WHERE {alv_where} "
                f"AND v.person_id <> (SELECT h.holder_id FROM {auth_t} h WHERE h.id = v.authorization_id) "
                "ORDER BY v.id ON CONFLICT DO NOTHING",
                [*alv_subject_params, *alv_body_params, _dashboard(), "grant-expired:alvara:", ":", at,
                 str(Notification.Status.PENDING), str(Notification.Status.SKIPPED), "", at, *alv_params],
            )
            noticed_drivers = cursor.rowcount
            cursor.execute(
                f"UPDATE {alv_t} SET status = %s, status_reason = %s WHERE id IN (SELECT v.id FROM {alv_t} v WHERE {alv_where})",  # noqa: S608 (model table names; values are parameters)
                [str(AlvaraStatus.EXPIRED), EXPIRY_REASON, *alv_params],
            )
        # 2. the grants: audit, notice (once per grant and validity), expire
        cursor.execute(
            f"INSERT INTO {audit_t} (municipality_id, at, actor_id, actor_label, object_type, object_id, object_repr, action, "  # noqa: S608 (model table names; values are parameters)
            "from_state, to_state, reason, data) "
            f"SELECT a.municipality_id, %s, NULL, %s, %s, CAST(a.id AS TEXT), SUBSTR(a.act_name || %s || a.number, 1, 300), %s, "
            f"a.status, %s, %s, {dialect['json'].format(col='a.valid_until')} FROM {auth_t} a WHERE {where} ORDER BY a.id",
            [at, "sistema", "licensing.authorization", " nº ", "authorization_status", str(AuthorizationStatus.EXPIRED),
             EXPIRY_REASON, *where_params],
        )
        columns = {"act": "a.act_name", "number": "a.number", "date": dialect["br_date"].format(col="a.valid_until")}
        subject_sql, subject_params = _sql_template(AUTH_NOTICE_SUBJECT, columns)
        body_sql, body_params = _sql_template(AUTH_NOTICE_BODY, columns)
        cursor.execute(
            f"INSERT INTO {note_t} (municipality_id, recipient_id, subject, body, link, dedup_key, created_at, read_at, email_status, "  # noqa: S608 (model table names; values are parameters)
            "email_attempts, email_sent_at, email_error, next_attempt_at, pix_payload) "
            f"SELECT a.municipality_id, a.holder_id, SUBSTR({subject_sql}, 1, 200), {body_sql}, %s, "
            "%s || CAST(a.id AS TEXT) || %s || CAST(a.valid_until AS TEXT), %s, NULL, "
            f"CASE WHEN ({_email_of('a.holder_id', user_t)}) <> '' THEN %s ELSE %s END, 0, NULL, %s, %s, '' "
            f"FROM {auth_t} a WHERE {where} ORDER BY a.id ON CONFLICT DO NOTHING",
            [*subject_params, *body_params, _dashboard(), "grant-expired:authorization:", ":", at,
             str(Notification.Status.PENDING), str(Notification.Status.SKIPPED), "", at, *where_params],
        )
        noticed = cursor.rowcount
        cursor.execute(
            f"UPDATE {auth_t} SET status = %s, status_reason = %s, status_changed_at = %s, suspended_until = NULL "  # noqa: S608 (model table names; values are parameters)
            f"WHERE {where.replace('a.', '')}",
            [str(AuthorizationStatus.EXPIRED), EXPIRY_REASON, at, *where_params],
        )
        grants = cursor.rowcount
    if noticed_drivers:
        transaction.on_commit(lambda: dispatch_pending(None) if noticed_drivers > DISPATCH_ONE_BY_ONE else
                              dispatch_pending(_driver_notice_keys(first, last, now)))
    if noticed:
        if noticed > DISPATCH_ONE_BY_ONE:
            transaction.on_commit(lambda: dispatch_pending(None))
        else:
            expired = Authorization.objects.filter(
                pk__gte=first, pk__lte=last, status=AuthorizationStatus.EXPIRED, status_changed_at=now
            ).values_list("pk", "valid_until")
            keys = [f"grant-expired:authorization:{pk}:{until.isoformat()}" for pk, until in expired]
            transaction.on_commit(lambda: dispatch_pending(keys))
    return grants, alvaras


def _email_of(person: str, user_t: str) -> str:
    """The e-mail of the user ``person`` (a column) as a subquery: one probe of the users'
    primary key per noticed row. As a join, the planner hashed every user of the installation
    for each chunk — for a municipality with a thousand grants expiring, a read of all the
    users of every municipality (7 to 12 ms of a run's 70 at 100.000 users)."""
    return f"SELECT u.email FROM {user_t} u WHERE u.id = {person}"  # noqa: S608 (a model table and column)


def _email_of_key(column: str) -> Subquery:
    """``_email_of`` for the ORM: the e-mail of the user whose key is in ``column``, one probe
    of the users' key per row. As a join (``holder__email``) the reminders read the index of
    every user of the installation for a few dozen grants (a merge join; test_jobs)."""
    return Subquery(get_user_model().objects.filter(pk=OuterRef(column)).values("email")[:1])


def _driver_notice_keys(first: int, last: int, now) -> list[str]:
    expired = Alvara.objects.filter(
        authorization_id__gte=first, authorization_id__lte=last, authorization__status_changed_at=now,
        status=AlvaraStatus.EXPIRED,
    ).exclude(person_id=F("authorization__holder_id")).values_list("pk", "valid_until")
    return [f"grant-expired:alvara:{pk}:{until.isoformat()}" for pk, until in expired]


def _alvara_notice(pk: int, doc: str, number: str, person_id: int, valid_until: date, email: str) -> Notice:
    return Notice(
        recipient_id=person_id,
        subject=ALVARA_NOTICE_SUBJECT.format(doc=doc, number=number),
        body=ALVARA_NOTICE_BODY.format(doc=doc, number=number, date=_fmt(valid_until)),
        dedup_key=f"grant-expired:alvara:{pk}:{valid_until.isoformat()}",
        has_email=bool(email),
        link=_dashboard(),
    )


def _authorization_notice(pk: int, act: str, number: str, holder_id: int, valid_until: date, email: str) -> Notice:
    return Notice(
        recipient_id=holder_id,
        subject=AUTH_NOTICE_SUBJECT.format(act=act, number=number),
        body=AUTH_NOTICE_BODY.format(act=act, number=number, date=_fmt(valid_until)),
        dedup_key=f"grant-expired:authorization:{pk}:{valid_until.isoformat()}",
        has_email=bool(email),
        link=_dashboard(),
    )


def _expire_authorization_rows(rows: list[tuple]) -> int:
    """Row by row through ``authorization_set_status`` (which cascades to the alvarás)."""
    from licensing.grants.services import authorization_set_status

    drivers = list(
        Alvara.objects.filter(authorization_id__in=[r[0] for r in rows], status__in=ALVARA_OPEN)
        .exclude(person_id=F("authorization__holder_id"))
        .order_by("pk")
        .annotate(email=_email_of_key("person_id"))
        .values_list("pk", "doc_name", "number", "person_id", "valid_until", "email")
    )
    for pk, _act, _status, _number, _holder, valid_until, _email in rows:
        authorization_set_status(
            actor=None, authorization=Authorization(pk=pk), to=AuthorizationStatus.EXPIRED, reason=EXPIRY_REASON,
            data={"valid_until": valid_until.isoformat(), "job": "expire_grants"},
        )
    notify_many([_authorization_notice(r[0], r[1], r[3], r[4], r[5], r[6]) for r in rows]
                + [_alvara_notice(*d) for d in drivers])
    return len(rows)


def _expire_alvara_rows(queryset) -> int:
    """Alvarás whose own validity ended while the grant is current: through ``alvara_set_status``."""
    from licensing.grants.services import alvara_set_status

    rows = list(
        # The alvarás only. A plain FOR UPDATE locks every row the query joins — here each
        # driver's user row, read for the e-mail — and a login (last_login) or a profile saved
        # meanwhile would wait for the chunk, or deadlock with it.
        queryset.select_for_update(of=("self",))
        .filter(status__in=ALVARA_OPEN)
        .order_by("pk")
        .annotate(email=_email_of_key("person_id"))
        .values_list("pk", "doc_name", "number", "person_id", "valid_until", "email")
    )
    for row in rows:
        alvara_set_status(actor=None, alvara=Alvara(pk=row[0]), to=AlvaraStatus.EXPIRED, reason=EXPIRY_REASON)
    notify_many([_alvara_notice(*row) for row in rows])
    return len(rows)


# --- renewal reminders -----------------------------------------------------------------------
def send_renewal_reminders(today: date | None = None) -> int:
    """Remind holders 60, 30 and 7 days (configurable) before their grant or alvará expires.

    Each reminder is recorded once per (document, validity, threshold). Returns how many
    reminders were recorded.
    """
    pack = regulation.current()
    today = today or pack.today()
    days = reminder_days(pack)
    if not days:
        return 0
    horizon = today.toordinal() + max(days)
    until = date.fromordinal(horizon)
    window = pack.param("renewal.window_days_before_expiry")
    link = _dashboard()
    notices: list[Notice] = []
    grants = (
        Authorization.objects.filter(status__in=CURRENT_STATUSES, valid_until__gte=today, valid_until__lte=until)
        .order_by("pk")
        .annotate(email=_email_of_key("holder_id"))
        .values_list("pk", "act_name", "number", "holder_id", "valid_until", "email")
    )
    # Read whole, not through a server-side cursor: a cursor is planned for its first rows, and
    # PostgreSQL walked the key of every municipality's grants (ordered, no sort) to find this
    # municipality's few due ones; whole, it takes them by the due-date index and sorts them.
    # The window's rows are a few days' expiries, and their notices are kept in memory anyway.
    for pk, act_name, number, holder_id, valid_until, email in grants:
        left = (valid_until - today).days
        threshold = reminder_threshold(left, days)
        if threshold is None:
            continue
        hint = ""
        if window is not None:
            hint = (f" O pedido de renovação pode ser feito a partir de {window.value} dias antes do "
                    f"vencimento ({window.legal_basis}).")
        notices.append(Notice(
            recipient_id=holder_id,
            subject=f"{act_name} nº {number} vence em {_fmt(valid_until)}",
            body=(f"Faltam {left} dia(s) para o fim da validade da {act_name} nº {number} "
                  f"({_fmt(valid_until)}). Peça a renovação pelo portal.{hint}"),
            dedup_key=f"renewal-reminder:authorization:{pk}:{valid_until.isoformat()}:{threshold}",
            has_email=bool(email),
            link=link,
        ))
    alvaras = (
        Alvara.objects.filter(status__in=ALVARA_OPEN, valid_until__gte=today, valid_until__lte=until,
                              authorization__status__in=CURRENT_STATUSES)
        .exclude(valid_until=F("authorization__valid_until"))
        .order_by("pk")
        .annotate(email=_email_of_key("person_id"))
        .values_list("pk", "doc_name", "number", "person_id", "valid_until", "email")
    )
    for pk, doc_name, number, person_id, valid_until, email in alvaras:
        left = (valid_until - today).days
        threshold = reminder_threshold(left, days)
        if threshold is None:
            continue
        notices.append(Notice(
            recipient_id=person_id,
            subject=f"{doc_name} nº {number} vence em {_fmt(valid_until)}",
            body=(f"Faltam {left} dia(s) para o fim da validade do {doc_name} nº {number} "
                  f"({_fmt(valid_until)}). Peça a renovação pelo portal."),
            dedup_key=f"renewal-reminder:alvara:{pk}:{valid_until.isoformat()}:{threshold}",
            has_email=bool(email),
            link=link,
        ))
    created = 0
    for start in range(0, len(notices), CHUNK):
        with transaction.atomic():
            created += notify_many(notices[start : start + CHUNK])
    return created


def check_vehicle_ages(today: date | None = None) -> int:
    """Notice to substitute each vehicle of a current grant past the maximum age, once per
    vehicle per year. Returns how many notices were recorded.

    The same age test as every door (fleet.rules.over_max_age): a vehicle the entry rule
    accepts today is never ordered replaced today."""
    pack = regulation.current()
    today = today or pack.today()
    link = _dashboard()
    created = 0
    # the holder's e-mail by its key, not the holder joined (a merge join along every user)
    queryset = aged_vehicles_queryset(today, over_only=True).annotate(holder_email=_email_of_key("holder_id"))
    items = describe_aged(queryset.iterator(chunk_size=2000), today)
    for start in range(0, len(items), CHUNK):
        notices = []
        for item in items[start : start + CHUNK]:
            auth, vehicle = item.authorization, item.vehicle
            if not over_max_age(item.age, item.max_age):
                continue
            counted = "do primeiro licenciamento (CRLV)" if item.basis == "first_registration" else "do ano de fabricação"
            notices.append(Notice(
                recipient_id=auth.holder_id,
                subject=f"Veículo {vehicle.display_plate}: substituição por idade máxima",
                body=(f"O veículo {vehicle.display_plate} ({vehicle.make} {vehicle.model}) da {auth.act_name} "
                      f"nº {auth.number} tem {item.age} ano(s), contados a partir {counted}, e passou da "
                      f"idade máxima de {item.max_age} anos ({item.legal_basis})"
                      + (f" em {item.substitute_by + timedelta(days=1):%d/%m/%Y}" if item.substitute_by else "")
                      + ". Peça a substituição do "
                      "veículo no portal: a falta de substituição tempestiva sujeita a autorização às "
                      "penalidades da lei."),
                dedup_key=f"vehicle-age:{vehicle.pk}:{today.year}",
                has_email=bool(auth.holder_email),
                link=link,
            ))
        with transaction.atomic():
            created += notify_many(notices)
    return created


def check_quotas(job_name: str | None = None) -> int:
    """Flag modalities whose current grants exceed the slots: a line in the job run's detail
    and a notice to each clerk, once per (modality, population, slots) state. Returns how
    many notices were recorded."""
    pack = regulation.current()
    ranking = pack.param("ranking.criteria")
    lines = []
    notices = []
    clerks = list(staff_users(Role.CLERK, pack.municipality_id).values_list("pk", "email"))  # this municipality's
    for state in quota_states():
        if not state.exceeded:
            continue
        line = (f"{state.label}: {state.current} outorga{'s' if state.current != 1 else ''} "
                f"vigente{'s' if state.current != 1 else ''} para {state.slots} vaga{'s' if state.slots != 1 else ''} "
                f"(população {thousands(state.population)}; {state.legal_basis}).")
        lines.append(line)
        prescription = ""
        if ranking is not None and "renewal_first" in (ranking.value or []):
            prescription = (f" Nas renovações e novas outorgas, aplique a classificação prevista "
                            f"({ranking.legal_basis}) até o número de vagas.")
        for pk, email in clerks:
            notices.append(Notice(
                recipient_id=pk,
                subject=f"Vagas excedidas: {state.label}",
                body=(f"{line} Nenhuma nova outorga pode ser concedida nessa modalidade enquanto o número "
                      f"de outorgas vigentes não voltar ao limite.{prescription}"),
                dedup_key=f"quota-exceeded:{pack.municipality_id}:{state.modality}:{state.population}:"
                          f"{state.slots}:{pk}",
                has_email=bool(email),
            ))
    _record_detail(job_name, lines)
    with transaction.atomic():
        return notify_many(notices)


# --- wiring ----------------------------------------------------------------------------------
def quota_check_after_pack_load(result=None) -> int:
    """`load_regulation` callback: the population or a quota may have changed."""
    from portal.jobs import run_job

    name = "licensing.quota_check"
    return run_job(name, lambda: check_quotas(job_name=name))


def register_hooks() -> None:
    from portal.hooks import register_pack_loaded

    register_pack_loaded(quota_check_after_pack_load)
