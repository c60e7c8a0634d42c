"""Grant jobs: expiry, renewal reminders, vehicle age, quota. Each job is run twice."""

from __future__ import annotations

import io
from datetime import UTC, date, datetime, timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from fleet.rules import vehicle_age_years
from licensing import tasks
from licensing.grants import jobs, rules, selectors
from licensing.grants.rules import add_years
from licensing.grants.services import authorization_set_status
from licensing.models import Alvara, AlvaraStatus, Authorization, AuthorizationStatus
from portal.models import AuditEntry, JobRun, Notification
from tests.factories import UserFactory, VehicleFactory, issue_authorization


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run the after-commit callbacks (e-mail dispatch) of the block, as a real commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def at_utc(monkeypatch, *args):
    """Freeze django.utils.timezone.now at a UTC instant."""
    instant = datetime(*args, tzinfo=UTC)
    monkeypatch.setattr(timezone, "now", lambda: instant)
    return instant


def footprint():
    return (
        list(Authorization.objects.order_by("pk").values_list("pk", "status")),
        list(Alvara.objects.order_by("pk").values_list("pk", "status")),
        AuditEntry.objects.count(),
        Notification.objects.count(),
        len(mail.outbox),
    )


# --- pure rules ------------------------------------------------------------------------------
def test_is_expired_only_after_the_last_valid_day():
    assert not rules.is_expired(date(2026, 5, 9), date(2026, 5, 9))
    assert rules.is_expired(date(2026, 5, 9), date(2026, 5, 10))


@pytest.mark.parametrize("left,expected", [(61, None), (60, 60), (45, 60), (30, 30), (8, 30), (7, 7), (0, 7), (-1, None)])
def test_reminder_threshold(left, expected):
    assert rules.reminder_threshold(left, [60, 30, 7]) == expected


def test_vehicle_age_by_basis():
    on = date(2026, 5, 10)
    assert vehicle_age_years("manufacture_year", 2019, None, on) == 7
    assert vehicle_age_years("first_registration", 2017, date(2018, 5, 10), on) == 8
    assert vehicle_age_years("first_registration", 2017, date(2018, 5, 11), on) == 7
    assert vehicle_age_years("first_registration", 2017, None, on) == 9  # no CRLV date: year
    assert rules.reached_max_age(8, 8) and not rules.reached_max_age(7, 8)


# --- expiry ----------------------------------------------------------------------------------
@pytest.mark.django_db
def test_alvara_valid_until_today_is_not_expired_today_and_is_tomorrow(itagiba, monkeypatch, committed):
    # Itagibá (America/Bahia, UTC-3): grant and alvará of 1 year, valid through 09/05/2026.
    auth, (alvara,) = issue_authorization(valid_from=date(2025, 5, 10))
    assert auth.valid_until == alvara.valid_until == date(2026, 5, 9)

    for instant in [(2026, 5, 9, 12, 0), (2026, 5, 10, 0, 30), (2026, 5, 10, 2, 59, 59)]:
        at_utc(monkeypatch, *instant)  # still 09/05 in Itagibá, although 10/05 in UTC
        assert tasks.expire_grants() == 0
        auth.refresh_from_db()
        assert auth.status == AuthorizationStatus.ACTIVE

    at_utc(monkeypatch, 2026, 5, 10, 3, 0)  # 00:00 of 10/05 in Itagibá
    with committed():
        assert tasks.expire_grants() == 2
    auth.refresh_from_db()
    alvara.refresh_from_db()
    assert auth.status == AuthorizationStatus.EXPIRED and alvara.status == AlvaraStatus.EXPIRED
    history = AuditEntry.objects.filter(action__in=["authorization_status", "alvara_status"], to_state="expired")
    assert {(e.object_type, e.from_state, e.actor_label) for e in history} == {
        ("licensing.authorization", "active", "sistema"), ("licensing.alvara", "active", "sistema"),
    }
    notice = Notification.objects.get(recipient=auth.holder)
    assert "expirou" in notice.subject and "09/05/2026" in notice.body
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [auth.holder.email]

    before = footprint()
    with committed():
        assert tasks.expire_grants() == 0  # second run: nothing changes, nothing is sent
    assert footprint() == before
    assert list(JobRun.objects.filter(name="licensing.expire_grants").order_by("id").values_list("changed", flat=True))[-2:] == [2, 0]


@pytest.mark.django_db
def test_suspended_grant_expires_and_final_ones_do_not(itagiba, monkeypatch):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    suspended, _ = issue_authorization(valid_from=date(2025, 5, 1))
    authorization_set_status(actor=None, authorization=suspended, to=AuthorizationStatus.SUSPENDED,
                             reason="Penalidade", suspended_until=date(2026, 7, 1))
    cassada, _ = issue_authorization(valid_from=date(2025, 5, 1))
    authorization_set_status(actor=None, authorization=cassada, to=AuthorizationStatus.CASSADA, reason="Cassação")
    current, _ = issue_authorization(valid_from=date(2026, 1, 1))
    result = jobs.expire_grants()
    assert (result.authorizations, result.alvaras) == (1, 1)
    statuses = dict(Authorization.objects.values_list("pk", "status"))
    assert statuses == {suspended.pk: "expired", cassada.pk: "cassada", current.pk: "active"}
    assert Authorization.objects.get(pk=suspended.pk).suspended_until is None


@pytest.mark.django_db
def test_alvara_with_its_own_validity_expires_alone(itagiba, monkeypatch):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    auth, (alvara,) = issue_authorization(valid_from=date(2026, 1, 1))
    Alvara.objects.filter(pk=alvara.pk).update(valid_until=date(2026, 5, 31))
    assert jobs.expire_grants().changed == 1
    alvara.refresh_from_db()
    auth.refresh_from_db()
    assert alvara.status == "expired" and auth.status == "active"
    assert Notification.objects.filter(recipient=alvara.person, dedup_key__startswith="grant-expired:alvara:").count() == 1
    assert jobs.expire_grants().changed == 0
    assert Notification.objects.count() == 1


@pytest.mark.django_db
def test_renewal_filed_in_time_keeps_the_grant_where_the_pack_says(load_pack, monkeypatch):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    load_pack("itagiba")  # renewal.keeps_valid_until_decided (art. 18 §6)
    waiting, (waiting_alvara,) = issue_authorization(valid_from=date(2025, 5, 1))
    other, _ = issue_authorization(valid_from=date(2025, 5, 1))
    monkeypatch.setattr(jobs, "_RENEWAL_HOLDS", [lambda ids: {waiting.pk} & set(ids)])
    assert jobs.expire_grants().authorizations == 1
    assert Authorization.objects.get(pk=waiting.pk).status == "active"
    assert Alvara.objects.get(pk=waiting_alvara.pk).status == "active"  # circulates while it waits
    assert Authorization.objects.get(pk=other.pk).status == "expired"


@pytest.mark.django_db
def test_without_the_pack_rule_a_pending_renewal_does_not_hold(load_pack, monkeypatch):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    load_pack("arapora")
    auth, _ = issue_authorization(valid_from=date(2022, 5, 1))  # 4 years: until 30/04/2026
    monkeypatch.setattr(jobs, "_RENEWAL_HOLDS", [lambda ids: set(ids)])
    assert jobs.expire_grants().authorizations == 1
    assert Authorization.objects.get(pk=auth.pk).status == "expired"


@pytest.mark.django_db
@pytest.mark.parametrize("set_based", [True, False], ids=["set-based", "row-by-row"])
def test_expiry_in_chunks_covers_every_row(itagiba, monkeypatch, set_based):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    for _ in range(12):
        issue_authorization(valid_from=date(2025, 5, 1))
    monkeypatch.setattr(jobs, "SET_CHUNK_FACTOR", 1)
    held = Authorization.objects.order_by("pk").values_list("pk", flat=True)[4]
    monkeypatch.setattr(jobs, "_RENEWAL_HOLDS", [lambda ids: {held} & set(ids)])
    result = jobs.expire_grants(chunk=5, set_based=set_based)
    assert (result.authorizations, result.alvaras) == (11, 11)
    assert Notification.objects.count() == 11
    assert Authorization.objects.get(pk=held).status == "active"
    assert jobs.expire_grants(chunk=5, set_based=set_based).changed == 0


# --- renewal reminders -----------------------------------------------------------------------
@pytest.mark.django_db
def test_reminders_at_60_30_and_7_days_each_once(itagiba, monkeypatch, committed):
    auth, _ = issue_authorization(valid_from=date(2025, 9, 1))  # valid through 31/08/2026
    expected = []
    for days_left, sent in [(61, 0), (60, 1), (59, 0), (45, 0), (30, 1), (29, 0), (7, 1), (1, 0), (0, 0)]:
        day = date(2026, 8, 31) - timedelta(days=days_left)
        at_utc(monkeypatch, day.year, day.month, day.day, 15, 0)
        with committed():
            assert tasks.send_renewal_reminders() == sent, days_left
            assert tasks.send_renewal_reminders() == 0  # second run the same day
        if sent:
            expected.append(days_left)
    notes = Notification.objects.filter(recipient=auth.holder).order_by("id")
    assert [n.dedup_key.rsplit(":", 1)[1] for n in notes] == ["60", "30", "7"]
    assert "vence em 31/08/2026" in notes[0].subject and "Faltam 60 dia(s)" in notes[0].body
    assert len(mail.outbox) == 3


@pytest.mark.django_db
def test_a_missed_reminder_is_not_sent_late(itagiba, monkeypatch):
    auth, _ = issue_authorization(valid_from=date(2025, 9, 1))
    at_utc(monkeypatch, 2026, 8, 21, 15, 0)  # 10 days left: only the 30-day reminder is due
    assert jobs.send_renewal_reminders() == 1
    assert Notification.objects.get().dedup_key.endswith(":30")


@pytest.mark.django_db
def test_reminder_days_are_configurable(itagiba, monkeypatch, settings):
    settings.RENEWAL_REMINDER_DAYS = "15"
    issue_authorization(valid_from=date(2025, 9, 1))
    at_utc(monkeypatch, 2026, 8, 1, 15, 0)  # 30 days left
    assert jobs.send_renewal_reminders() == 0
    at_utc(monkeypatch, 2026, 8, 16, 15, 0)  # 15 days left
    assert jobs.send_renewal_reminders() == 1
    assert jobs.reminder_days(itagiba) == [15]


@pytest.mark.django_db
def test_reminder_days_default(itagiba, settings):
    settings.RENEWAL_REMINDER_DAYS = None
    assert jobs.reminder_days(itagiba) == [60, 30, 7]


# --- vehicle age -----------------------------------------------------------------------------
@pytest.mark.django_db
def test_vehicle_past_max_age_gets_one_notice_a_year(itagiba, clerk, web, monkeypatch):
    """The job and the entry rule agree at the boundary (art. 13, II; 15, II; 19, XII): a vehicle
    of exactly 8 years since its first CRLV is accepted by the entry rule and not ordered
    replaced the same day; the day it turns 9 it is refused at entry and ordered replaced."""
    from fleet import rules as fleet_rules

    at_utc(monkeypatch, 2026, 6, 1, 15, 0)
    today = date(2026, 6, 1)
    at_max = VehicleFactory(manufacture_year=2017, first_registration_date=add_years(today, -9) + timedelta(days=1))
    over = VehicleFactory(manufacture_year=2017, first_registration_date=add_years(today, -9))  # 9 years today
    moto = VehicleFactory(manufacture_year=2016, first_registration_date=date(2016, 1, 1), kind="motorcycle")
    a_at_max, _ = issue_authorization(vehicle=at_max, valid_from=date(2026, 1, 1))
    a_over, _ = issue_authorization(vehicle=over, valid_from=date(2026, 1, 1))
    a_moto, _ = issue_authorization(vehicle=moto, modality="mototaxi", valid_from=date(2026, 1, 1))
    params = fleet_rules.vehicle_params(itagiba, "taxi")
    age_only = {k: v for k, v in params.items() if k in ("vehicle.age_basis", "vehicle.max_age_years")}
    assert fleet_rules.vehicle_violations(at_max.rule_facts(), today, age_only) == []
    assert [v.code for v in fleet_rules.vehicle_violations(over.rule_facts(), today, age_only)] == [
        "vehicle.max_age_years"]

    assert tasks.check_vehicle_ages() == 2
    assert not Notification.objects.filter(recipient=a_at_max.holder).exists()
    note = Notification.objects.get(recipient=a_over.holder)
    assert over.display_plate in note.subject and "art. 13, II" in note.body and "9 ano(s)" in note.body
    assert "01/06/2026" in note.body  # the day it passed the maximum
    assert Notification.objects.filter(recipient=a_moto.holder).count() == 1
    before = footprint()
    assert tasks.check_vehicle_ages() == 0
    assert footprint() == before

    page = web(clerk).get(reverse("ops-aged-vehicles")).content.decode()
    assert over.display_plate in page and moto.display_plate in page and at_max.display_plate in page
    assert "admitido até 01/06/2026" in page  # at the maximum: still admitted, substitution due by then
    assert "acima do limite" in page

    at_utc(monkeypatch, 2027, 1, 2, 15, 0)  # a new year: one more notice per vehicle past the maximum
    assert jobs.check_vehicle_ages() == 3  # the one at the maximum passed it on 02/06/2026


@pytest.mark.django_db
def test_vehicle_age_by_manufacture_year(alegre, monkeypatch):
    at_utc(monkeypatch, 2026, 6, 1, 15, 0)
    issue_authorization(vehicle=VehicleFactory(manufacture_year=2019))  # 7 years (max 7): admitted
    over, _ = issue_authorization(vehicle=VehicleFactory(manufacture_year=2018))  # 8 years
    assert jobs.check_vehicle_ages() == 1
    assert Notification.objects.get().recipient == over.holder


@pytest.mark.django_db
def test_the_vehicle_age_job_reads_the_vehicles_of_its_municipality(two_municipalities, monkeypatch):
    """The aged vehicles are found by the year of every vehicle the grants name: the grants are
    this municipality's (the tenancy scope), but the vehicles were read whole — every
    municipality's — and filtered by year, on every municipality's run; and the holders joined
    to them were read along the index of every user."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from fleet.models import Vehicle
    if connection.vendor != "postgresql":
        pytest.skip("the plan of PostgreSQL")
    at_utc(monkeypatch, 2026, 6, 1, 15, 0)
    over, _ = issue_authorization(vehicle=VehicleFactory(manufacture_year=2010))
    here, other = (town.municipality_id for town in (two_municipalities.pack_a, two_municipalities.pack_b))
    User = get_user_model()
    owners = User.objects.bulk_create([User(username=f"dono{i:05d}", password="!") for i in range(10000)])
    # 2.000 current grants here, with new vehicles; 8.000 vehicles of the other municipality
    vehicles = Vehicle.objects.bulk_create([
        Vehicle(municipality_id=here if i < 2000 else other, plate=f"QQQ{i:04d}", renavam="00000000000", make="X",
                model="Y", color="branca", manufacture_year=2024 if i < 2000 else 2000 + i % 26, owner=owner)
        for i, owner in enumerate(owners)])
    Authorization.objects.bulk_create([
        Authorization(number=f"{i:04d}/2025", act_name=over.act_name, modality=over.modality, holder_id=v.owner_id,
                      vehicle=v, valid_from=over.valid_from, valid_until=over.valid_until, status="active",
                      verification_code=f"V{i:04d}-VVV-VVV", legal_basis="teste") for i, v in enumerate(vehicles[:2000])])
    with connection.cursor() as cursor:
        for model in (Vehicle, Authorization, User):
            cursor.execute(f"ANALYZE {model._meta.db_table}")
    with CaptureQueriesContext(connection) as captured:
        assert jobs.check_vehicle_ages() == 1
    vehicle_t = Vehicle._meta.db_table
    reads = [q["sql"] for q in captured.captured_queries if f'"{vehicle_t}"."manufacture_year" <=' in q["sql"]]
    assert len(reads) == 1, [q["sql"][:120] for q in captured.captured_queries]
    scans = _planned_scans(reads[0])
    summary = [(n["Node Type"], n.get("Relation Name"), n["Plan Rows"], n.get("Index Cond"), n.get("Filter"))
               for n in scans]
    # this municipality's vehicles, by its grants' keys or by its own index: never all of them
    vehicles = [n for n in scans if n.get("Relation Name") == vehicle_t]
    assert vehicles and all("Index Cond" in n or "Recheck Cond" in n for n in vehicles), summary
    users = [n for n in scans if n.get("Relation Name") == User._meta.db_table]  # each holder by its key
    assert all(n["Plan Rows"] <= 1 and "Index Cond" in n for n in users), summary
    assert Notification.objects.get().recipient == over.holder


@pytest.mark.django_db
def test_aged_vehicle_list_queries_are_constant(alegre, clerk, web, django_assert_num_queries, monkeypatch):
    at_utc(monkeypatch, 2026, 6, 1, 15, 0)
    client = web(clerk)
    issue_authorization(vehicle=VehicleFactory(manufacture_year=2010))
    client.get(reverse("ops-aged-vehicles"))  # warm the caches (pack, session)
    with django_assert_num_queries(_count(client, "ops-aged-vehicles")) as one:
        client.get(reverse("ops-aged-vehicles"))
    for _ in range(29):
        issue_authorization(vehicle=VehicleFactory(manufacture_year=2010))
    with django_assert_num_queries(len(one.captured_queries)):
        body = client.get(reverse("ops-aged-vehicles")).content.decode()
    assert body.count("<tr>") == 31  # header + 30 rows


def _count(client, name) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        client.get(reverse(name))
    return len(ctx.captured_queries)


# --- quota -----------------------------------------------------------------------------------
@pytest.mark.django_db
def test_quota_exceeded_flags_once_per_state(load_pack, clerk, monkeypatch):
    load_pack("itagiba", population=1999)  # taxi: floor(1999 / 1000) = 1 slot
    issue_authorization()
    assert tasks.check_quotas() == 0  # 1 grant, 1 slot: fine
    issue_authorization()
    assert tasks.check_quotas() == 1
    note = Notification.objects.get(recipient=clerk)
    assert "Táxi" in note.subject and "2 outorgas vigentes para 1 vaga " in note.body
    assert "(população 1.999;" in note.body
    assert "art. 17, §6" in note.body  # what the pack prescribes: the ranking of renewals
    run = JobRun.objects.filter(name="licensing.quota_check").latest("id")
    assert "2 outorgas vigentes para 1 vaga " in run.detail and run.changed == 1
    assert tasks.check_quotas() == 0
    assert Notification.objects.count() == 1

    load_pack("itagiba", population=1500)  # a new population: checked right after the load
    assert Notification.objects.count() == 2
    assert tasks.check_quotas() == 0  # the nightly run finds it already flagged


@pytest.mark.django_db
def test_quota_fixed_slots_and_no_clerks(load_pack):
    load_pack("itagiba")  # mototáxi: 15 slots fixed by act
    states = {s.modality: s for s in selectors.quota_states()}
    assert states["mototaxi"].slots == 15 and "art. 4, §3" in states["mototaxi"].legal_basis
    assert states["taxi"].slots == load_pack("itagiba").population // 1000


@pytest.mark.django_db
def test_quota_check_runs_after_load_regulation(load_pack, clerk):
    load_pack("itagiba", population=1999)
    issue_authorization()
    issue_authorization()
    runs = JobRun.objects.filter(name="licensing.quota_check").count()
    call_command("load_regulation", "itagiba", "--population", "1500", stdout=io.StringIO())
    assert Notification.objects.filter(recipient=clerk, subject__startswith="Vagas excedidas").count() == 1
    assert JobRun.objects.filter(name="licensing.quota_check").count() == runs + 1
    call_command("load_regulation", "itagiba", "--population", "1500", stdout=io.StringIO())
    assert Notification.objects.filter(recipient=clerk).count() == 1


# --- clerk view of job runs ------------------------------------------------------------------
@pytest.mark.django_db
def test_jobs_page_shows_last_runs_changes_and_failures(itagiba, clerk, web, monkeypatch):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    issue_authorization(valid_from=date(2025, 5, 1))
    tasks.expire_grants()
    tasks.expire_grants()

    def broken():
        raise RuntimeError("SMTP fora do ar")

    from portal.jobs import run_job

    with pytest.raises(RuntimeError):
        run_job("drain_outbox", broken)
    client = web(clerk)
    body = client.get(reverse("ops-jobs")).content.decode()
    assert "Expiração de autorizações e alvarás" in body and "Envio de e-mails pendentes" in body
    assert "RuntimeError: SMTP fora do ar" in body and "1 falha" in body
    failures = client.get(reverse("ops-jobs") + "?ver=falhas").content.decode()
    assert failures.count('class="job-failed"') == 2  # in the summary and in the history
    assert "Expiração de autorizações e alvarás</td>" not in failures
    history = client.get(reverse("ops-jobs")).content.decode().split('id="historico"')[1]
    assert history.count("Expiração de autorizações e alvarás</td>") == 1  # the run with no change is left out
    everything = client.get(reverse("ops-jobs") + "?ver=todas").content.decode().split('id="historico"')[1]
    assert everything.count("Expiração de autorizações e alvarás</td>") == 2
    assert "Tarefas automáticas" in client.get(reverse("dashboard")).content.decode()


@pytest.mark.django_db
def test_jobs_page_queries_are_constant(alegre, clerk, web, django_assert_num_queries):
    from portal.jobs import run_job

    client = web(clerk)
    run_job("licensing.expire_grants", lambda: 1)  # one row in the history
    client.get(reverse("ops-jobs"))
    n = _count(client, "ops-jobs")
    for i in range(40):
        run_job("licensing.renewal_reminders" if i % 2 else "licensing.vehicle_age", lambda: 1)
    with django_assert_num_queries(n):
        body = client.get(reverse("ops-jobs")).content.decode()
    assert "Página 1 de 2" in body and "ver=" not in body.split("Paginação")[1]
    assert "?ver=todas&amp;page=2" in client.get(reverse("ops-jobs") + "?ver=todas").content.decode()


@pytest.mark.django_db
def test_applicant_does_not_see_job_pages(alegre, applicant, web):
    assert web(applicant).get(reverse("ops-jobs")).status_code == 403
    UserFactory()  # unrelated user, no effect
    assert web(None).get(reverse("ops-jobs")).status_code == 302


@pytest.mark.django_db
def test_set_based_expiry_writes_what_the_row_by_row_path_writes(itagiba, monkeypatch):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)

    def outcome(auth, alvara):
        entries = AuditEntry.objects.filter(
            object_id__in=[str(auth.pk), str(alvara.pk)], action__in=["authorization_status", "alvara_status"]
        ).order_by("object_type")
        audit = [(e.object_type, e.object_repr.replace(auth.number, "N").replace(alvara.number, "N"), e.action,
                  e.from_state, e.to_state, e.reason, e.actor_label, e.data) for e in entries]
        note = Notification.objects.get(recipient=auth.holder)
        notice = (note.subject.replace(auth.number, "N"), note.body.replace(auth.number, "N"),
                  note.dedup_key.replace(f":{auth.pk}:", ":ID:"), note.email_status, note.link, note.created_at,
                  note.next_attempt_at)
        auth.refresh_from_db()
        alvara.refresh_from_db()
        return audit, notice, (auth.status, auth.status_reason, auth.status_changed_at, auth.suspended_until,
                               alvara.status, alvara.status_reason)

    a1, (v1,) = issue_authorization(valid_from=date(2025, 5, 1))
    assert jobs.expire_grants(set_based=False).changed == 2
    a2, (v2,) = issue_authorization(valid_from=date(2025, 5, 1))
    assert jobs.expire_grants(set_based=True).changed == 2
    first, second = outcome(a1, v1), outcome(a2, v2)
    for one, two in zip(first, second, strict=True):
        assert one == two
    assert Notification.objects.filter(created_at__lte=timezone.now(), email_status="pending").count() == 2


@pytest.mark.django_db
def test_jobs_page_lists_scheduled_jobs_not_yet_run(alegre, clerk, web):
    from portal.jobs_views import describe_schedule

    body = web(clerk).get(reverse("ops-jobs")).content.decode()
    assert "Lembretes de renovação" in body and "todo dia às 07:00" in body
    assert "ainda não executada" in body and "a cada minuto" in body
    assert describe_schedule(30.0) == "a cada 30 segundos"


@pytest.mark.django_db
@pytest.mark.parametrize("set_based", [True, False], ids=["set-based", "row-by-row"])
def test_auxiliary_driver_is_told_their_alvara_expired(load_pack, monkeypatch, set_based, committed):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    load_pack("arapora")  # alvará de condutor for the holder and each auxiliary driver
    aux = UserFactory()
    auth, alvaras = issue_authorization(valid_from=date(2022, 5, 1), auxiliaries=[aux])
    assert len(alvaras) == 2
    with committed():
        result = jobs.expire_grants(set_based=set_based)
    assert (result.authorizations, result.alvaras) == (1, 2)
    assert [n.subject for n in Notification.objects.filter(recipient=auth.holder)] == [
        f"{auth.act_name} nº {auth.number} expirou"
    ]
    aux_alvara = next(a for a in alvaras if a.person_id == aux.pk)
    note = Notification.objects.get(recipient=aux)
    assert note.subject == f"{aux_alvara.doc_name} nº {aux_alvara.number} expirou"
    assert "30/04/2026" in note.body and note.dedup_key == f"grant-expired:alvara:{aux_alvara.pk}:2026-04-30"
    assert sorted(m.to[0] for m in mail.outbox) == sorted([auth.holder.email, aux.email])
    with committed():
        assert jobs.expire_grants(set_based=set_based).changed == 0
    assert Notification.objects.count() == 2 and len(mail.outbox) == 2


@pytest.mark.django_db
@pytest.mark.parametrize("set_based", [True, False], ids=["set-based", "row-by-row"])
def test_a_holder_or_driver_without_e_mail_is_noticed_on_the_portal_only(load_pack, monkeypatch, set_based,
                                                                        committed):
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    load_pack("arapora")  # alvará de condutor for the holder and each auxiliary driver
    holder, aux, with_mail = UserFactory(email=""), UserFactory(email=""), UserFactory()
    quiet, _ = issue_authorization(holder=holder, valid_from=date(2022, 5, 1), auxiliaries=[aux])
    loud, _ = issue_authorization(holder=with_mail, valid_from=date(2022, 5, 1))
    with committed():
        assert jobs.expire_grants(set_based=set_based).authorizations == 2
    statuses = dict(Notification.objects.values_list("recipient_id", "email_status"))
    assert statuses == {holder.pk: "skipped", aux.pk: "skipped", with_mail.pk: "sent"}, (quiet.pk, loud.pk)
    assert [m.to for m in mail.outbox] == [[with_mail.email]]


def _planned_scans(statement: str) -> list[dict]:
    """Every node of the plan PostgreSQL gives ``statement`` now (the same statistics as when it
    ran); of a cursor's ``DECLARE … FOR SELECT``, the SELECT's."""
    from django.db import connection

    from tests.portal.test_row_level_security import _scans

    if statement.startswith("DECLARE"):
        statement = statement[statement.index("SELECT"):]
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + statement)
        return list(_scans(cursor.fetchone()[0][0]["Plan"]))


def _grants_among_many_users(like: Authorization, grants: int, valid_until) -> None:
    """The plan tests' installation: 6.000 users, the first ``grants`` of them each holding a
    grant like ``like`` valid until ``valid_until(i)``, and the planner's statistics of both."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    User = get_user_model()
    User.objects.bulk_create([User(username=f"many{i:05d}", password="!") for i in range(6000)])
    holders = User.objects.filter(username__startswith="many").values_list("pk", flat=True)[:grants]
    Authorization.objects.bulk_create([
        Authorization(number=f"{i:04d}/2025", act_name=like.act_name, modality=like.modality, holder_id=pk,
                      valid_from=like.valid_from, valid_until=valid_until(i), status="active",
                      verification_code=f"E{i:04d}-EEE-EEE", legal_basis="teste") for i, pk in enumerate(holders)])
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {User._meta.db_table}")
        cursor.execute(f"ANALYZE {Authorization._meta.db_table}")


@pytest.mark.django_db
def test_the_expiry_notices_read_each_holder_by_its_key_not_every_user(itagiba, monkeypatch):
    """The notices of a chunk of expiring grants name each holder's e-mail. As a join with the
    users, PostgreSQL read every user of the installation for each chunk (a merge join along
    their index here; a hash of all of them in bench_tenants, 7 to 12 ms of a small
    municipality's run at 100.000 users): for a municipality with a few hundred grants
    expiring, the users of every municipality, at every run."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "postgresql":
        pytest.skip("the plan of PostgreSQL")
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    auth, _ = issue_authorization(valid_from=date(2025, 5, 1))
    User = get_user_model()
    _grants_among_many_users(auth, 400, lambda i: auth.valid_until)
    with CaptureQueriesContext(connection) as captured:
        assert jobs.expire_grants(set_based=True).authorizations == 401
    notices = [q["sql"] for q in captured.captured_queries
               if q["sql"].startswith(f"INSERT INTO {Notification._meta.db_table}")]
    assert len(notices) == 2  # the drivers' of the alvarás and the holders' of the grants
    for statement in notices:
        users = [node for node in _planned_scans(statement) if node.get("Relation Name") == User._meta.db_table]
        # one user per noticed row, by its key (as a merge join it read the index of every user)
        assert users and all(node["Plan Rows"] <= 1 and "Index Cond" in node for node in users), \
            (statement[:200], [(node["Node Type"], node["Plan Rows"], node.get("Index Cond")) for node in users])
    assert Notification.objects.filter(dedup_key__startswith="grant-expired:authorization:").count() == 401


@pytest.mark.django_db
def test_the_renewal_reminders_read_the_due_grants_and_each_holder_by_its_key(itagiba, monkeypatch):
    """The reminders read the grants due within the window and each holder's e-mail. As a join
    with the users under a server-side cursor (planned for its first rows), PostgreSQL walked
    the index of every user of the installation (a merge join) — and, with more due grants, the
    key of every municipality's grants — for the reminders of one municipality."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "postgresql":
        pytest.skip("the plan of PostgreSQL")
    at_utc(monkeypatch, 2026, 6, 1, 12, 0)
    auth, _ = issue_authorization(valid_from=date(2025, 5, 1))
    User = get_user_model()
    today = date(2026, 6, 1)
    # 400 due within the reminders' 60 days, 3.600 due a year and more from now
    _grants_among_many_users(auth, 4000, lambda i: today + timedelta(days=i % 60 if i < 400 else 400 + i % 300))
    with CaptureQueriesContext(connection) as captured:
        assert jobs.send_renewal_reminders() == 400
    grant_t, user_t = Authorization._meta.db_table, User._meta.db_table
    reads = [q["sql"] for q in captured.captured_queries if f'SELECT "{grant_t}"."id" AS "pk"' in q["sql"]]
    assert len(reads) == 1, [q["sql"][:120] for q in captured.captured_queries]
    statement = reads[0]
    scans = _planned_scans(statement)
    summary = [(node["Node Type"], node.get("Relation Name"), node["Plan Rows"], node.get("Index Cond")) for node in scans]
    users = [node for node in scans if node.get("Relation Name") == user_t]
    assert users and all(node["Plan Rows"] <= 1 and "Index Cond" in node for node in users), summary
    grants = [node for node in scans if node.get("Relation Name") == grant_t]
    # the due grants by an index on their due date, not the walk of every grant's key
    assert grants and all("valid_until" in str(node.get("Index Cond", "")) + str(node.get("Recheck Cond", ""))
                          for node in grants), summary
