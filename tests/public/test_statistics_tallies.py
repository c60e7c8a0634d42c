"""The statistics' summaries (licensing.tallies) equal the live aggregate of the grants and
applications after any mix of operations — through the services, the expiry job's bulk UPDATE,
bulk inserts and raw SQL — on SQLite and on PostgreSQL (``DATABASE_URL=… pytest``); they move
with a municipality's time zone, and one municipality's counters never show on another's page."""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.utils import timezone

from licensing.grants import jobs
from licensing.grants.services import authorization_set_status
from licensing.models import (
    CURRENT_STATUSES,
    Application,
    ApplicationStatus,
    ApprovalTally,
    Authorization,
    GrantTally,
)
from licensing.portal_providers import (
    average_days_protocol_to_grant,
    average_days_since_issue,
    grants_by_modality_and_month,
    grants_by_status,
)
from portal import regulation, tenancy
from portal.models import Municipality
from tests.factories import UserFactory, VehicleFactory, issue_authorization

EPOCH = date(1970, 1, 1)


# --- the live aggregate, computed in Python from the rows themselves ------------------------
def _zone(municipality_id: int) -> ZoneInfo:
    return ZoneInfo(Municipality.objects.get(pk=municipality_id).time_zone)


def live_grants(municipality_id: int) -> dict:
    tz = _zone(municipality_id)
    out: dict = defaultdict(lambda: [0, 0])
    for modality, status, issued_at in Authorization.all_tenants.filter(municipality_id=municipality_id).values_list(
            "modality", "status", "issued_at"):
        day = issued_at.astimezone(tz).date()
        t = out[(modality, status, day.replace(day=1))]
        t[0] += 1
        t[1] += (day - EPOCH).days
    return {k: tuple(v) for k, v in out.items()}


def tallied_grants(municipality_id: int) -> dict:
    rows = GrantTally.all_tenants.filter(municipality_id=municipality_id).values_list(
        "modality", "status", "month", "n", "day_sum")
    return {(m, s, mo): (n, d) for m, s, mo, n, d in rows if n or d}


def live_approvals(municipality_id: int) -> dict:
    tz = _zone(municipality_id)
    out: dict = defaultdict(lambda: [0, 0])
    for modality, submitted, decided in Application.all_tenants.filter(
            municipality_id=municipality_id, status=ApplicationStatus.APPROVED, submitted_at__isnull=False,
            decided_at__isnull=False).values_list("modality", "submitted_at", "decided_at"):
        t = out[modality]
        t[0] += 1
        t[1] += (decided.astimezone(tz).date() - submitted.astimezone(tz).date()).days
    return {k: tuple(v) for k, v in out.items()}


def tallied_approvals(municipality_id: int) -> dict:
    rows = ApprovalTally.all_tenants.filter(municipality_id=municipality_id).values_list("modality", "n", "days_sum")
    return {m: (n, d) for m, n, d in rows if n or d}


def assert_in_step(municipality_id: int) -> None:
    assert tallied_grants(municipality_id) == live_grants(municipality_id)
    assert tallied_approvals(municipality_id) == live_approvals(municipality_id)


# --- the providers as they were before the summaries (aggregates over the grants) ----------
def old_figures(pack) -> dict:
    from django.db.models import Count
    from django.db.models.functions import TruncDate, TruncMonth

    from portal.public.selectors import last_months, modalities

    month_list = last_months(pack, 12)
    series = {m: [0] * 12 for m in modalities(pack)}
    index = {m: i for i, m in enumerate(month_list)}
    for row in (Authorization.objects.filter(issued_at__date__gte=month_list[0])
                .annotate(month=TruncMonth("issued_at", tzinfo=pack.tz)).values("modality", "month")
                .annotate(n=Count("id")).order_by()):
        key = date(row["month"].year, row["month"].month, 1)
        if key in index and row["modality"] in series:
            series[row["modality"]][index[key]] += row["n"]
    by_status: dict = {m: {} for m in modalities(pack)}
    for row in Authorization.objects.values("modality", "status").annotate(n=Count("id")).order_by():
        by_status.setdefault(row["modality"], {})[row["status"]] = row["n"]
    today = pack.today()
    ages: dict = {m: [0, 0] for m in modalities(pack)}
    for modality, day, n in (Authorization.objects.filter(status__in=CURRENT_STATUSES)
                             .annotate(day=TruncDate("issued_at", tzinfo=pack.tz)).values("modality", "day")
                             .annotate(n=Count("id")).order_by().values_list("modality", "day", "n")):
        t = ages.setdefault(modality, [0, 0])
        t[0] += (today - day).days * n
        t[1] += n
    to_grant: dict = {m: [0, 0] for m in modalities(pack)}
    for modality, s, d, n in (Application.objects.filter(status=ApplicationStatus.APPROVED, submitted_at__isnull=False,
                                                        decided_at__isnull=False)
                              .annotate(s=TruncDate("submitted_at", tzinfo=pack.tz),
                                        d=TruncDate("decided_at", tzinfo=pack.tz))
                              .values("modality", "s", "d").annotate(n=Count("id")).order_by()
                              .values_list("modality", "s", "d", "n")):
        t = to_grant.setdefault(modality, [0, 0])
        t[0] += (d - s).days * n
        t[1] += n
    return {
        "months": (month_list, series),
        "status": by_status,
        "ages": {m: (round(s / n, 1) if n else None) for m, (s, n) in ages.items()},
        "to_grant": {m: (round(s / n, 1) if n else None) for m, (s, n) in to_grant.items()},
    }


def new_figures(pack) -> dict:
    return {"months": grants_by_modality_and_month(pack, 12), "status": grants_by_status(pack),
            "ages": average_days_since_issue(pack), "to_grant": average_days_protocol_to_grant(pack)}


# --- a random mix of operations ----------------------------------------------------------
def _at(pack, day: date, hour: int) -> datetime:
    return timezone.make_aware(datetime.combine(day, time(hour)), pack.tz)


def _operations(pack, actor, rng: random.Random, steps: int) -> None:
    today = pack.today()
    for _ in range(steps):
        grants = list(Authorization.objects.order_by("pk"))
        current = [g for g in grants if g.status in CURRENT_STATUSES]
        op = rng.choice(["issue", "issue", "backdate", "suspend", "end", "expire", "renew", "transfer",
                         "bulk", "raw", "apply", "decide"])
        if op == "issue" or not current and op not in ("bulk", "apply"):
            issue_authorization(modality="taxi", actor=actor)
        elif op == "backdate":  # an UPDATE of issued_at moves the grant to another month and day
            g = rng.choice(grants)
            # 23:30 local: the local day differs from the UTC day, which the summary must not use
            Authorization.objects.filter(pk=g.pk).update(issued_at=_at(pack, today - timedelta(days=rng.randrange(400)), 23)
                                                         + timedelta(minutes=30))
        elif op == "suspend":
            g = rng.choice(current)
            to = "active" if g.status == "suspended" else "suspended"
            authorization_set_status(actor=actor, authorization=g, to=to, reason="Teste",
                                     suspended_until=today + timedelta(days=5) if to == "suspended" else None)
        elif op == "end":
            authorization_set_status(actor=actor, authorization=rng.choice(current),
                                     to=rng.choice(["cancelled", "renounced", "cassada"]), reason="Teste")
        elif op == "expire":  # the nightly job's bulk UPDATE over every grant past its validity
            picked = rng.sample(current, k=min(len(current), rng.randint(1, 3)))
            Authorization.objects.filter(pk__in=[g.pk for g in picked]).update(
                valid_from=today - timedelta(days=30), valid_until=today - timedelta(days=1))
            jobs.expire_grants()
        elif op == "renew":  # a renewal decided after expiry puts the grant back in force
            expired = [g for g in grants if g.status == "expired" and g.vehicle_id
                       and not Authorization.objects.filter(vehicle_id=g.vehicle_id, status__in=CURRENT_STATUSES).exists()]
            if expired:
                g = rng.choice(expired)
                Authorization.objects.filter(pk=g.pk).update(valid_until=today + timedelta(days=365))
                authorization_set_status(actor=actor, authorization=g, to="active", reason="Renovação")
        elif op == "transfer":  # the grant ends and its successor is issued (requests/kinds/transfer.py)
            g = rng.choice(current)
            authorization_set_status(actor=actor, authorization=g, to="cancelled", reason="Transferida")
            issue_authorization(modality=g.modality, actor=actor, vehicle=g.vehicle, holder=UserFactory())
        elif op == "bulk":  # bulk_create bypasses save() and every signal
            start = Authorization.all_tenants.count() + 1000
            Authorization.objects.bulk_create([
                Authorization(number=f"B{start + i}", act_name="Autorização", modality=rng.choice(["taxi", "mototaxi"]),
                              holder=UserFactory(), status=rng.choice(["active", "expired", "cancelled"]),
                              issued_at=_at(pack, today - timedelta(days=rng.randrange(500)), rng.randrange(24)),
                              valid_from=today - timedelta(days=500), valid_until=today + timedelta(days=30),
                              verification_code=f"BULK{start + i:08d}", legal_basis="teste")
                for i in range(rng.randint(1, 4))])
        elif op == "raw":  # raw SQL, under no service at all
            g = rng.choice(grants)
            with connection.cursor() as cursor:
                cursor.execute("UPDATE licensing_authorization SET modality = %s WHERE id = %s",
                               ["mototaxi" if g.modality == "taxi" else "taxi", g.pk])
        elif op == "apply":
            submitted = timezone.now() - timedelta(days=rng.randrange(60), hours=rng.randrange(24))
            Application.objects.create(applicant=UserFactory(), modality=rng.choice(["taxi", "mototaxi"]),
                                       status=ApplicationStatus.SUBMITTED, submitted_at=submitted)
        elif op == "decide":
            open_ = list(Application.objects.filter(status=ApplicationStatus.SUBMITTED))
            if open_:
                a = rng.choice(open_)
                a.status = rng.choice([ApplicationStatus.APPROVED, ApplicationStatus.APPROVED, ApplicationStatus.REFUSED])
                a.decided_at = a.submitted_at + timedelta(days=rng.randrange(40), hours=rng.randrange(24))
                a.save()
            approved = list(Application.objects.filter(status=ApplicationStatus.APPROVED))
            if approved and rng.random() < 0.3:  # a decision date corrected
                Application.objects.filter(pk=rng.choice(approved).pk).update(decided_at=timezone.now())


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.django_db(transaction=True)
def test_summaries_equal_the_live_aggregate_after_any_mix_of_operations(seed, load_pack, admin_user):
    pack = load_pack("alegre")
    mid = pack.municipality_id
    rng = random.Random(seed)
    for _ in range(4):
        _operations(pack, admin_user, rng, 12)
        assert_in_step(mid)
    assert new_figures(pack) == old_figures(pack)
    assert sum(n for n, _ in tallied_grants(mid).values()) == Authorization.objects.count() > 0


def test_a_rolled_back_change_leaves_the_summary_as_it_was(alegre, admin_user):
    from django.db import transaction

    auth, _ = issue_authorization(actor=admin_user)
    before = tallied_grants(alegre.municipality_id)
    with pytest.raises(RuntimeError), transaction.atomic():
        authorization_set_status(actor=admin_user, authorization=auth, to="cancelled", reason="Teste")
        assert tallied_grants(alegre.municipality_id) != before  # in the same transaction as the grant
        raise RuntimeError
    assert tallied_grants(alegre.municipality_id) == before == live_grants(alegre.municipality_id)


def test_a_new_time_zone_moves_the_local_days_and_months(alegre, admin_user):
    auth, _ = issue_authorization(actor=admin_user)
    first_of_month = alegre.today().replace(day=1)
    # 22:00 on the first of the month in Brazil is already the next day (and month, for the
    # last day) in Tokyo: the summary follows the municipality's zone, not UTC
    Authorization.objects.filter(pk=auth.pk).update(issued_at=_at(alegre, first_of_month - timedelta(days=1), 22))
    (key,) = tallied_grants(alegre.municipality_id)
    assert key[2] == (first_of_month - timedelta(days=1)).replace(day=1)
    Municipality.objects.filter(pk=alegre.municipality_id).update(time_zone="Asia/Tokyo")
    assert tallied_grants(alegre.municipality_id) == live_grants(alegre.municipality_id)
    (key,) = tallied_grants(alegre.municipality_id)
    assert key[2] == first_of_month


def test_the_page_reads_a_constant_number_of_queries(alegre, client, admin_user):
    from django.test.utils import CaptureQueriesContext

    def stats_queries() -> tuple[int, str]:
        with CaptureQueriesContext(connection) as seen:
            body = client.get("/transparencia/estatisticas/").content.decode()
        return sum("tally" in q["sql"] for q in seen.captured_queries), body

    issue_authorization(actor=admin_user)
    few, _ = stats_queries()
    for _ in range(4):
        issue_authorization(actor=admin_user)
    again, body = stats_queries()
    assert few == again == 5  # months, statuses, ages (GrantTally), days to grant (ApprovalTally), autos (InfractionTally)
    assert "<td>5</td>" in body  # this month's taxi grants, from the summary


def test_one_municipality_counters_never_show_on_another(two_municipalities, admin_user):
    town = two_municipalities
    for _ in range(3):
        issue_authorization(actor=admin_user)
    Application.objects.create(applicant=UserFactory(), modality="taxi", status=ApplicationStatus.APPROVED,
                               submitted_at=timezone.now() - timedelta(days=9), decided_at=timezone.now())
    a_id, b_id = town.a.id, town.b.id
    assert sum(n for n, _ in tallied_grants(a_id).values()) == 3 and tallied_approvals(a_id) == {"taxi": (1, 9)}
    assert tallied_grants(b_id) == {} and tallied_approvals(b_id) == {}
    with tenancy.activate(town.b):
        regulation.invalidate()
        pack_b = regulation.current()
        assert not GrantTally.objects.exists() and not ApprovalTally.objects.exists()
        figures = new_figures(pack_b)
        assert all(not any(v) for v in figures["months"][1].values())
        assert all(not v for v in figures["status"].values())
        assert set(figures["ages"].values()) == {None} and set(figures["to_grant"].values()) == {None}
        vehicle = VehicleFactory()
        issue_authorization(actor=admin_user, vehicle=vehicle, holder=vehicle.owner)
    assert sum(n for n, _ in tallied_grants(b_id).values()) == 1
    assert sum(n for n, _ in tallied_grants(a_id).values()) == 3
    assert_in_step(a_id)
    assert_in_step(b_id)
    body_b = town.client_b.get("/transparencia/estatisticas/").content.decode()
    body_a = town.client_a.get("/transparencia/estatisticas/").content.decode()
    assert "<td>3</td>" in body_a and "<td>3</td>" not in body_b and "<td>1</td>" in body_b


def test_the_migration_fills_the_summary_from_the_rows_already_there(alegre, admin_user):
    """Uninstall (the migration backwards), rows changed meanwhile, install again: the backfill
    counts every row, as the migration does on a database with grants."""
    from licensing import tallies

    for _ in range(3):
        issue_authorization(actor=admin_user)
    Application.objects.create(applicant=UserFactory(), modality="taxi", status=ApplicationStatus.APPROVED,
                               submitted_at=timezone.now() - timedelta(days=4), decided_at=timezone.now())
    mid = alegre.municipality_id
    postgres = connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        for spec in (tallies.GRANTS, tallies.APPROVALS):
            for sql in spec.pg_uninstall() if postgres else spec.sqlite_uninstall():
                cursor.execute(sql)
    Authorization.objects.filter(pk=Authorization.objects.first().pk).update(status="cancelled")  # not seen
    GrantTally.all_tenants.all().delete()
    ApprovalTally.all_tenants.all().delete()
    assert tallied_grants(mid) != live_grants(mid)
    with connection.cursor() as cursor:
        for spec in (tallies.GRANTS, tallies.APPROVALS):
            for sql in spec.pg_install() if postgres else spec.sqlite_install():
                cursor.execute(sql)
    assert_in_step(mid)
    assert tallied_approvals(mid) == {"taxi": (1, 4)}
    issue_authorization(actor=admin_user)  # and the triggers are back
    assert_in_step(mid)


# --- autos by article and month (enforcement.tallies) -----------------------------------------
def live_autos(municipality_id: int) -> dict:
    from enforcement.models import Infraction

    tz = _zone(municipality_id)
    out: dict = defaultdict(int)
    for code, at in (Infraction.all_tenants.filter(municipality_id=municipality_id).exclude(status="cancelled")
                     .values_list("infraction_code", "occurred_at")):
        out[(code, at.astimezone(tz).date().replace(day=1))] += 1
    return dict(out)


def tallied_autos(municipality_id: int) -> dict:
    from enforcement.models import InfractionTally

    rows = InfractionTally.all_tenants.filter(municipality_id=municipality_id).values_list("infraction_code", "month", "n")
    return {(c, m): n for c, m, n in rows if n}


def old_autos(pack) -> dict:
    from django.db.models import Count
    from django.db.models.functions import TruncMonth

    from enforcement.models import Infraction
    from portal.public.selectors import last_months

    month_list = last_months(pack, 12)
    index = {m: i for i, m in enumerate(month_list)}
    series: dict = {}
    for row in (Infraction.objects.filter(occurred_at__date__gte=month_list[0]).exclude(status="cancelled")
                .annotate(month=TruncMonth("occurred_at", tzinfo=pack.tz)).values("infraction_code", "month")
                .annotate(n=Count("id")).order_by()):
        key = date(row["month"].year, row["month"].month, 1)
        if key in index:
            series.setdefault("art. " + row["infraction_code"].split("-")[0], [0] * 12)[index[key]] += row["n"]
    return {a: series[a] for a in sorted(series, key=lambda a: (len(a), a))}


@pytest.mark.parametrize("seed", [3])
def test_autos_summary_equals_the_live_aggregate(seed, itagiba, agent):
    from enforcement.models import Infraction
    from enforcement.portal_providers import autos_by_article_and_month

    rng = random.Random(seed)
    codes = [c["code"] for c in itagiba.infractions("taxi")][:4]
    today = itagiba.today()
    mid = itagiba.municipality_id
    for i in range(60):
        op = rng.choice(["create", "create", "create", "cancel", "judge"])
        autos = list(Infraction.objects.exclude(status="cancelled"))
        if op == "create" or not autos:
            day = today - timedelta(days=rng.randrange(420))
            at = _at(itagiba, day, rng.choice([0, 10, 23]))
            Infraction.objects.create(number=f"{i + 1:03d}/2026", plate="ABC1D23", agent=agent,
                                      infraction_code=rng.choice(codes), occurred_at=at, occurred_on=day,
                                      location="Centro", description="Constatado.")
        elif op == "cancel":  # a julgador's cancellation takes the auto out of the statistics
            Infraction.objects.filter(pk=rng.choice(autos).pk).update(status="cancelled")
        else:
            Infraction.objects.filter(pk=rng.choice(autos).pk).update(status="upheld")
        if i % 15 == 14:
            assert tallied_autos(mid) == live_autos(mid)
    assert tallied_autos(mid) and autos_by_article_and_month(itagiba, 12)[1] == old_autos(itagiba)


# --- PostgreSQL: the triggers work under the application's role (row-level security) -----------
from tests.portal.test_row_level_security import _act_as, app_role  # noqa: E402, F401 - the fixture


@pytest.mark.django_db
def test_the_triggers_keep_the_summary_under_the_application_role(app_role, two_municipalities, admin_user):  # noqa: F811
    town = two_municipalities
    _act_as(app_role)  # not the owner: the policies apply to the grants and to their summary
    with tenancy.activate(town.a):
        auth, _ = issue_authorization(actor=admin_user)
        issue_authorization(actor=admin_user)
        authorization_set_status(actor=admin_user, authorization=auth, to="suspended", reason="Teste",
                                 suspended_until=town.pack_a.today() + timedelta(days=3))
        Authorization.objects.update(valid_from=town.pack_a.today() - timedelta(days=9),
                                     valid_until=town.pack_a.today() - timedelta(days=1))
        jobs.expire_grants()
        assert list(GrantTally.all_tenants.filter(n__gt=0).values_list("status", "n")) == [("expired", 2)]
    with tenancy.activate(town.b):
        assert not GrantTally.all_tenants.exists()  # A's counters are not there for B's session
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM licensing_granttally")
            assert cursor.fetchone()[0] == 0
    # a new time zone rebuilds the summary with every row, whoever changes it
    Municipality.objects.filter(pk=town.a.id).update(time_zone="Asia/Tokyo")
    with tenancy.activate(town.a):
        assert sum(GrantTally.all_tenants.values_list("n", flat=True)) == 2


def test_a_chart_scrolls_sideways_instead_of_shrinking_its_labels():
    from portal.public.charts import bar_chart

    html = bar_chart(title="Teste", labels=["jan/26", "fev/26"], series={"Táxi": [1, 2]})
    assert html.startswith('<div class="chart-scroll" tabindex="0"><svg class="chart"') and html.endswith("</svg></div>")
    css = (__import__("pathlib").Path(__file__).resolve().parents[2] / "static/css/portal.css").read_text()
    assert ".chart-scroll { overflow-x: auto; }" in css and ".chart-scroll .chart { min-width: 40rem; }" in css
    months = bar_chart(title="Meses", labels=["jan/26"], series={"Táxi": [1]}, newest_last=True)
    assert months.startswith('<div class="chart-scroll chart-scroll-end" tabindex="0">')
    assert ".chart-scroll-end { direction: rtl; }" in css
