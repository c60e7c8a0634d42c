"""Holes of issue #16 that the first hardening round left open, each reproduced as an attacker
would: first the takeover of a vehicle by declaring someone else's plate."""

from __future__ import annotations

import pytest
from django.urls import reverse
from validate_docbr import RENAVAM

from fleet.models import Vehicle
from licensing.models import Application, AuthorizationStatus
from tests.conftest import CPF_CAROL, make_user
from tests.factories import VehicleFactory, issue_authorization
from tests.licensing.applications.helpers import (
    create_and_submit,
    next_plate,
    open_call,
    payload,
    review_all_and_inspect,
)
from tests.licensing.requests.helpers import decide, file, inspect, vehicle_data
from tests.ops.transactional import restore_roles  # noqa: F401  (fixture)

# --- vehicle takeover by plate -----------------------------------------------------------------


def _victim_and_attacker(api, applicant, outsider, *, submit_attacker=False):
    """Alice files an application for plate P; Bob then opens one with the same plate and his own
    RENAVAM, make and model (a plate without a grant in force: the entry rules let it through)."""
    open_call("taxi")
    plate = next_plate()
    renavam = RENAVAM().generate()
    victim = create_and_submit(api, applicant, vehicle={"plate": plate, "renavam": renavam, "make": "Chevrolet",
                                                        "model": "Spin"})
    victim["declared_renavam"] = renavam
    attacker_data = payload(vehicle={"plate": plate, "renavam": RENAVAM().generate(), "make": "Fiat",
                                     "model": "Uno"})
    if submit_attacker:
        attacker = create_and_submit(api, outsider, vehicle=attacker_data["vehicle"])
        attacker["vehicle_renavam"] = attacker_data["vehicle"]["renavam"]
    else:
        r = api(outsider).post("/api/v1/applications/", attacker_data, format="json")
        assert r.status_code == 201, r.json()
        attacker = {**r.json(), "vehicle_renavam": attacker_data["vehicle"]["renavam"]}
    return plate, victim, attacker


@pytest.mark.django_db
def test_a_second_applicant_with_the_same_plate_gets_a_row_of_their_own(alegre, api, applicant, outsider):
    plate, victim, attacker = _victim_and_attacker(api, applicant, outsider)
    mine = Application.objects.select_related("vehicle").get(pk=victim["id"])
    theirs = Application.objects.select_related("vehicle").get(pk=attacker["id"])
    assert mine.vehicle.plate == theirs.vehicle.plate == plate
    assert mine.vehicle_id != theirs.vehicle_id
    assert (mine.vehicle.owner, mine.vehicle.make, mine.vehicle.model) == (applicant, "Chevrolet", "Spin")
    assert mine.vehicle.renavam == victim["declared_renavam"] != theirs.vehicle.renavam
    assert (theirs.vehicle.owner, theirs.vehicle.make) == (outsider, "Fiat")
    # what the victim and the clerk read back is still what the victim declared
    body = api(applicant).get(f"/api/v1/applications/{victim['id']}/").json()
    assert (body["vehicle"]["make"], body["vehicle"]["renavam"]) == ("Chevrolet", victim["declared_renavam"])
    assert Vehicle.objects.filter(plate=plate).count() == 2


@pytest.mark.django_db
def test_editing_a_draft_updates_only_the_applicants_own_row(alegre, api, applicant, outsider):
    from licensing.applications.services import application_update

    plate, victim, attacker = _victim_and_attacker(api, applicant, outsider)
    draft = Application.objects.get(pk=attacker["id"])
    from datetime import date

    vehicle = {**payload()["vehicle"], "plate": plate, "make": "Renault", "model": "Logan"}
    vehicle["first_registration_date"] = date.fromisoformat(vehicle["first_registration_date"])
    application_update(actor=outsider, application=draft, step="vehicle", vehicle=vehicle)
    assert Vehicle.objects.get(plate=plate, owner=applicant).make == "Chevrolet"
    assert Vehicle.objects.get(plate=plate, owner=outsider).make == "Renault"
    assert Vehicle.objects.filter(plate=plate).count() == 2


@pytest.mark.django_db
def test_the_clerk_sees_the_plate_conflict_on_the_application_page(alegre, api, web, applicant, outsider, clerk):
    plate, victim, attacker = _victim_and_attacker(api, applicant, outsider)
    page = web(clerk).get(reverse("licensing-application", kwargs={"pk": victim["id"]})).content.decode()
    assert "Conflito de placa — confira o CRLV" in page
    assert reverse("licensing-application", kwargs={"pk": attacker["id"]}) in page
    assert outsider.display_name in page and attacker["vehicle_renavam"] in page
    # the applicant does not see the other person's application
    own = web(applicant).get(reverse("licensing-application", kwargs={"pk": victim["id"]})).content.decode()
    assert "Conflito de placa" not in own and outsider.display_name not in own


@pytest.mark.django_db
def test_no_conflict_shown_when_nobody_else_declares_the_plate(alegre, api, web, applicant, clerk):
    open_call("taxi")
    app = create_and_submit(api, applicant)
    page = web(clerk).get(reverse("licensing-application", kwargs={"pk": app["id"]})).content.decode()
    assert "Conflito de placa" not in page


@pytest.mark.django_db
def test_approval_is_refused_with_409_while_another_person_holds_a_grant_on_the_plate(
        alegre, api, applicant, outsider, clerk, agent):
    plate, victim, attacker = _victim_and_attacker(api, applicant, outsider, submit_attacker=True)
    for app in (victim, attacker):
        review_all_and_inspect(api, clerk, agent, app["id"])
    first = api(clerk).post(f"/api/v1/applications/{victim['id']}/approve/")
    assert first.status_code == 200, first.json()
    second = api(clerk).post(f"/api/v1/applications/{attacker['id']}/approve/")
    assert second.status_code == 409, second.json()
    body = second.json()
    assert body["rule"]["code"] == "vehicle.plate_in_service"
    assert body["rule"]["legal_basis"] == alegre.basis("grant.max_per_holder", "taxi")
    assert "vehicle.plate" in body["errors"] and "outra pessoa" in body["errors"]["vehicle.plate"][0]
    assert Application.objects.get(pk=attacker["id"]).status != "approved"
    assert Vehicle.objects.get(plate=plate, owner=applicant).authorizations.count() == 1


@pytest.mark.django_db
def test_the_same_holder_renewing_on_their_own_plate_is_not_a_conflict(alegre, applicant):
    from licensing.grants.services import ensure_plate_free

    vehicle = VehicleFactory(owner=applicant)
    issue_authorization(holder=applicant, vehicle=vehicle)
    ensure_plate_free(vehicle=vehicle, holder=applicant, modality="taxi")  # no exception


@pytest.mark.django_db
def test_a_grant_is_issued_again_on_the_plate_once_the_other_grant_ended(alegre, applicant, outsider):
    from licensing.grants.services import authorization_set_status

    plate = next_plate()
    old, _ = issue_authorization(holder=outsider, vehicle=VehicleFactory(plate=plate, owner=outsider))
    authorization_set_status(actor=None, authorization=old, to=AuthorizationStatus.CANCELLED, reason="Vendido")
    new, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(plate=plate, owner=applicant))
    assert new.vehicle.owner == applicant and new.vehicle_id != old.vehicle_id


@pytest.mark.django_db
def test_substitution_never_takes_over_another_persons_row_and_then_blocks_their_grant(
        itagiba, api, applicant, outsider, clerk, agent):
    """Bob has a pending application for plate P; Alice, a holder, substitutes her vehicle by P.
    Alice's grant gets her own row with her data; Bob's row is untouched; Bob cannot be granted
    on P while Alice's grant is in force."""
    plate = next_plate()
    bob_row = VehicleFactory(plate=plate, owner=outsider, make="Fiat", model="Uno")
    auth, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(owner=applicant, manufacture_year=2020))
    r = file(api, applicant, auth, "substitution", {"ground": "newer", "vehicle": vehicle_data(plate=plate)})
    assert r.status_code == 201, r.json()
    rid = r.json()["id"]
    assert inspect(api, agent, auth, rid).status_code == 200
    assert decide(api, clerk, rid).status_code == 200
    auth.refresh_from_db()
    bob_row.refresh_from_db()
    assert auth.vehicle.plate == plate and auth.vehicle.owner == applicant and auth.vehicle_id != bob_row.pk
    assert (auth.vehicle.make, auth.vehicle.model) == ("Fiat", "Cronos")  # what her request declared
    assert (bob_row.owner, bob_row.make, bob_row.model) == (outsider, "Fiat", "Uno")
    from licensing.grants.services import ensure_plate_free
    from portal.exceptions import RuleViolation

    with pytest.raises(RuleViolation) as exc:
        ensure_plate_free(vehicle=bob_row, holder=outsider, modality="taxi")
    assert exc.value.conflict and exc.value.field == "vehicle.plate"


@pytest.mark.django_db
def test_substitution_by_a_plate_in_service_for_another_holder_is_refused_whatever_row_holds_it(
        itagiba, api, applicant, outsider):
    plate = next_plate()
    VehicleFactory(plate=plate, owner=make_user("carol", None, cpf=CPF_CAROL))  # an older declaration
    issue_authorization(holder=outsider, vehicle=VehicleFactory(plate=plate, owner=outsider))
    auth, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(owner=applicant, manufacture_year=2020))
    r = file(api, applicant, auth, "substitution", {"ground": "newer", "vehicle": vehicle_data(plate=plate)})
    assert r.status_code == 409 and r.json()["rule"]["code"] == "substitution_vehicle_in_use"


@pytest.mark.django_db
def test_transfer_names_only_a_vehicle_of_the_new_holder(arapora, api, applicant, outsider, clerk):
    from licensing.grants.rules import add_years

    plate = next_plate()
    carol_row = VehicleFactory(plate=plate, owner=make_user("carol", None, cpf=CPF_CAROL))  # another's declaration
    auth, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(owner=applicant),
                                  valid_from=add_years(arapora.today(), -2))
    from tests.licensing.requests.helpers import new_holder_data

    data = {"ground": "holder_years", "new_holder_cpf": outsider.cpf, "vehicle_plate": plate, **new_holder_data()}
    r = file(api, applicant, auth, "transfer", data)
    assert r.status_code == 400, r.json()
    assert "novo titular" in r.json()["errors"]["vehicle_plate"][0]
    bob_row = VehicleFactory(plate=plate, owner=outsider)  # the new holder declares the plate himself
    r = file(api, applicant, auth, "transfer", data)
    assert r.status_code == 201, r.json()
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200, d.json()
    successor = auth.__class__.objects.get(pk=d.json()["result"]["authorization"]["id"])
    assert successor.vehicle_id == bob_row.pk
    carol_row.refresh_from_db()
    assert carol_row.owner.cpf == CPF_CAROL and not carol_row.authorizations.exists()


# --- concurrency on PostgreSQL (SQLite serialises every write) --------------------------------------


def _in_threads(n: int, work) -> tuple[list, list]:
    import contextvars
    import threading

    from django.db import connections

    results, errors = [], []
    barrier = threading.Barrier(n)

    def run(i):
        try:
            barrier.wait(timeout=10)
            results.append(work(i))
        except Exception as exc:  # noqa: BLE001 - every outcome is asserted below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(run, i)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results, errors


def _pg_or_skip():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("concorrência real entre transações só no PostgreSQL")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_person_creating_the_same_new_plate_twice_at_once_gets_one_row_never_a_500(restore_roles):  # noqa: F811
    from tests.ops.transactional import ensure_roles

    _pg_or_skip()
    ensure_roles()
    from portal import regulation

    regulation.load_pack("alegre")
    open_call("taxi")
    from portal.roles import Role

    person = make_user("alice", Role.APPLICANT, cpf="52998224725")
    data = payload()
    from licensing.applications.services import application_create

    def create(i):
        from datetime import date

        vehicle = {**data["vehicle"], "first_registration_date": date.fromisoformat(
            data["vehicle"]["first_registration_date"])}
        return application_create(actor=person, applicant=person, kind="new", modality="taxi", vehicle=vehicle)

    results, errors = _in_threads(3, create)
    assert not errors, errors
    assert Vehicle.objects.filter(plate=data["vehicle"]["plate"]).count() == 1
    assert len({a.vehicle_id for a in results}) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_grants_on_one_plate_decided_at_once_one_wins_the_other_is_a_409(restore_roles):  # noqa: F811
    from licensing.grants.services import authorization_issue
    from portal import regulation
    from portal.exceptions import RuleViolation
    from tests.factories import UserFactory
    from tests.ops.transactional import ensure_roles

    _pg_or_skip()
    ensure_roles()
    regulation.load_pack("alegre")
    plate = next_plate()
    people = [UserFactory(), UserFactory()]
    rows = [VehicleFactory(plate=plate, owner=p) for p in people]

    def issue(i):
        return authorization_issue(actor=None, holder=people[i], vehicle=rows[i], modality="taxi")

    results, errors = _in_threads(2, issue)
    assert len(results) == 1 and len(errors) == 1, (results, errors)
    assert isinstance(errors[0], RuleViolation) and errors[0].conflict
    assert errors[0].code == "vehicle.plate_in_service"


@pytest.mark.django_db
def test_the_data_migration_gives_each_open_application_its_own_row(alegre, api, applicant, outsider):
    """Rows taken over before the fix (one row per plate, owned by the last declarant): each open
    application of another person gets its own copy, audited; grants keep theirs."""
    import importlib

    from django.apps import apps

    from portal.models import AuditEntry

    open_call("taxi")
    app = create_and_submit(api, applicant)
    taken = Application.objects.get(pk=app["id"]).vehicle
    Vehicle.objects.filter(pk=taken.pk).update(owner=outsider)  # the state the old code left
    migration = importlib.import_module("licensing.migrations.0009_applications_own_their_vehicle_rows")
    migration.forwards(apps, None)
    fixed = Application.objects.select_related("vehicle").get(pk=app["id"])
    assert fixed.vehicle.owner == applicant and fixed.vehicle_id != taken.pk
    assert fixed.vehicle.renavam == taken.renavam and fixed.vehicle.plate == taken.plate
    assert AuditEntry.objects.filter(action="vehicle_registered", object_id=str(fixed.vehicle_id)).exists()
    migration.forwards(apps, None)  # idempotent
    assert Vehicle.objects.filter(plate=taken.plate).count() == 2


# --- readers of a plate: the grant in force, not any row with the plate ----------------------------


def _declared_then_granted(alegre, applicant, outsider):
    """Bob declared plate P first (a pending application's row); Alice holds the grant on P."""
    from datetime import timedelta

    plate = next_plate()
    bob_row = VehicleFactory(plate=plate, owner=outsider, make="Fiat")
    auth, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(plate=plate, owner=applicant),
                                  valid_from=alegre.today() - timedelta(days=100))
    return plate, bob_row, auth


def _auto(api, agent, plate, when, **extra):
    body = {"plate": plate, "infraction_code": "19-I", "occurred_at": when.isoformat(), "location": "Praça Central",
            "description": "Constatado pelo agente.", "driver_cpf": CPF_CAROL, "alvara_retained": False, **extra}
    r = api(agent).post("/api/v1/infractions/", body, format="json")
    assert r.status_code == 201, r.content
    from enforcement.models import Infraction

    return Infraction.objects.get(pk=r.json()["id"])


@pytest.mark.django_db
def test_vehicle_status_by_plate_names_the_holder_in_force(alegre, api, applicant, outsider, agent):
    plate, _, auth = _declared_then_granted(alegre, applicant, outsider)
    body = api(agent).get(f"/api/v1/vehicles/{plate}/status/").json()
    assert body["authorized"] is True and body["authorization"]["id"] == auth.pk
    assert body["authorization"]["holder"] == applicant.display_name
    public = api().get("/verificar/", {"q": plate})
    assert public.status_code == 200 and auth.number in public.content.decode()


@pytest.mark.django_db
def test_an_auto_on_the_plate_goes_to_the_holder_in_force_never_to_another_declarant(
        alegre, api, applicant, outsider, agent):
    from django.utils import timezone

    from portal.models import Notification

    plate, bob_row, auth = _declared_then_granted(alegre, applicant, outsider)
    inf = _auto(api, agent, plate, timezone.now() - timezone.timedelta(minutes=5))
    assert (inf.holder, inf.authorization, inf.vehicle) == (applicant, auth, auth.vehicle)
    assert inf.vehicle_id != bob_row.pk
    assert api(outsider).get(f"/api/v1/infractions/{inf.pk}/").status_code == 404
    assert not Notification.objects.filter(recipient=outsider).exists()


@pytest.mark.django_db
def test_an_auto_goes_to_the_holder_at_the_time_of_the_infraction(alegre, api, applicant, outsider, agent):
    """Bob's grant on P ended yesterday; Alice's began today: yesterday's auto is Bob's, today's Alice's."""
    from datetime import timedelta

    from django.utils import timezone

    from licensing.grants.services import authorization_set_status
    from licensing.models import Authorization

    plate = next_plate()
    bob, _ = issue_authorization(holder=outsider, vehicle=VehicleFactory(plate=plate, owner=outsider),
                                 valid_from=alegre.today() - timedelta(days=300))
    authorization_set_status(actor=None, authorization=bob, to=AuthorizationStatus.CANCELLED, reason="Vendido")
    ended = timezone.now() - timedelta(days=1)
    Authorization.objects.filter(pk=bob.pk).update(status_changed_at=ended)
    alice, _ = issue_authorization(holder=applicant, vehicle=VehicleFactory(plate=plate, owner=applicant))
    before = _auto(api, agent, plate, ended - timedelta(hours=20))
    # today in the municipality (Alice's grant begins today): five minutes ago, but never before
    # local midnight (at 00:02 "five minutes ago" is yesterday, when her grant had not begun)
    now = timezone.now()
    midnight = now.astimezone(alegre.tz).replace(hour=0, minute=0, second=0, microsecond=0)
    after = _auto(api, agent, plate, max(now - timedelta(minutes=5), midnight))
    assert (before.holder, before.authorization) == (outsider, bob)
    assert (after.holder, after.authorization, after.vehicle) == (applicant, alice, alice.vehicle)


@pytest.mark.django_db
def test_an_auto_on_a_plate_only_declared_names_no_holder(alegre, api, outsider, agent):
    """A pending application's declaration is not a grant: whoever typed the plate does not get
    the autos (and the driver's CPF) of that vehicle."""
    from django.utils import timezone

    plate = next_plate()
    VehicleFactory(plate=plate, owner=outsider)
    inf = _auto(api, agent, plate, timezone.now() - timezone.timedelta(minutes=5))
    assert inf.holder is None and inf.authorization is None
    assert api(outsider).get(f"/api/v1/infractions/{inf.pk}/").status_code == 404


# --- worker loss ------------------------------------------------------------------------------------


def test_a_task_of_a_dead_worker_comes_back_within_minutes_not_an_hour(monkeypatch):
    """Late acks redeliver a task whose worker died; with the whole worker killed, Redis waits
    the visibility timeout: sized just above the tasks' hard time limit, never below it."""
    import importlib

    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/9")
    monkeypatch.delenv("CELERY_VISIBILITY_TIMEOUT", raising=False)
    monkeypatch.delenv("CELERY_TASK_TIME_LIMIT", raising=False)
    conf = importlib.reload(importlib.import_module("portal.settings.celery"))
    try:
        assert conf.CELERY_TASK_ACKS_LATE and conf.CELERY_TASK_REJECT_ON_WORKER_LOST
        assert conf.CELERY_TASK_SOFT_TIME_LIMIT < conf.CELERY_TASK_TIME_LIMIT <= 900
        timeout = conf.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
        assert conf.CELERY_TASK_TIME_LIMIT < timeout <= conf.CELERY_TASK_TIME_LIMIT + 300
        monkeypatch.setenv("CELERY_VISIBILITY_TIMEOUT", "60")  # below the limit: would run a task twice
        conf = importlib.reload(conf)
        assert conf.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] > conf.CELERY_TASK_TIME_LIMIT
    finally:
        monkeypatch.undo()
        importlib.reload(conf)


@pytest.mark.django_db
def test_the_jobs_page_marks_a_run_that_died(alegre, web, clerk, settings):
    from datetime import timedelta

    from django.utils import timezone

    from portal.models import JobRun

    settings.CELERY_TASK_TIME_LIMIT = 900
    now = timezone.now()
    JobRun.objects.create(name="licensing.expire_grants", started_at=now - timedelta(hours=1))  # worker killed
    JobRun.objects.create(name="portal.drain_outbox", started_at=now - timedelta(minutes=5))  # still running
    JobRun.objects.create(name="licensing.check_quotas", started_at=now - timedelta(hours=2),
                          finished_at=now - timedelta(hours=2), changed=1)
    body = web(clerk).get(reverse("ops-jobs")).content.decode()
    summary, history = body.split('id="historico"')
    assert summary.count("(interrompida)") == 1 and "(em execução)" in summary
    assert history.count("(interrompida)") == 1 and "o worker parou no meio" in history
    assert history.count('class="job-failed"') == 1


# --- call sites: sandboxed previews, named refusals, one client IP, the account menu ----------------


def _draft_with_upload(api, applicant, name, content):
    from django.core.files.uploadedfile import SimpleUploadedFile

    open_call("taxi")
    client = api(applicant)
    app = client.post("/api/v1/applications/", payload(), format="json").json()
    item = app["required_documents"][0]
    r = client.post(f"/api/v1/applications/{app['id']}/documents/",
                    {"type": item["code"], "file": SimpleUploadedFile(name, content)}, format="multipart")
    return app, item, r


@pytest.mark.django_db
def test_an_application_document_with_a_script_is_refused_naming_the_checklist_item(alegre, api, applicant):
    from tests.portal.test_security_uploads import _pdf

    _, item, r = _draft_with_upload(api, applicant, "doc.pdf", _pdf(lambda w: w.add_js("app.alert(1)")))
    assert r.status_code == 400
    message = r.json()["errors"]["file"][0]
    assert f"“{item['label']}”" in message and "JavaScript" in message


@pytest.mark.django_db
def test_an_auto_photo_over_the_pixel_limit_is_refused_naming_the_photo(alegre, api, agent, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.utils import timezone

    from tests.portal.test_security_uploads import _png

    settings.UPLOAD_MAX_PIXELS = 10  # the 4 × 4 image has 16
    body = {"plate": next_plate(), "infraction_code": "19-I", "occurred_at": (
        timezone.now() - timezone.timedelta(minutes=5)).isoformat(), "location": "Praça", "description": "Visto.",
        "photos": [SimpleUploadedFile("frente.png", _png())]}
    r = api(agent).post("/api/v1/infractions/", body, format="multipart")
    assert r.status_code == 400, r.content
    assert "“foto 1 (frente.png)”" in r.json()["errors"]["photos"][0]


@pytest.mark.django_db
def test_the_preview_of_an_uploaded_image_is_sandboxed_and_a_pdf_opens_in_the_clerks_page(
        alegre, api, web, applicant, clerk):
    from tests.portal.test_security_uploads import _pdf, _png

    app, _, r = _draft_with_upload(api, applicant, "foto.png", _png())
    assert r.status_code == 201, r.json()
    url = reverse("licensing-document-file", kwargs={"pk": app["id"], "doc_id": r.json()["id"]})
    image = web(clerk).get(url)
    assert image["Content-Type"] == "image/png" and image["X-Frame-Options"] == "SAMEORIGIN"
    assert image["Content-Security-Policy"].endswith("; sandbox") and "frame-ancestors 'self'" in image[
        "Content-Security-Policy"]
    app2, _, r = _draft_with_upload(api, applicant, "doc.pdf", _pdf())
    pdf = web(clerk).get(reverse("licensing-document-file", kwargs={"pk": app2["id"], "doc_id": r.json()["id"]}))
    assert "sandbox" not in pdf["Content-Security-Policy"] and pdf["X-Frame-Options"] == "SAMEORIGIN"


@pytest.mark.django_db
def test_the_public_page_throttle_counts_each_client_behind_the_proxy(alegre, client, settings):
    """Behind one trusted proxy every visitor has the proxy's REMOTE_ADDR: the throttle of the
    public HTML pages keys on the client the proxy names, not on the proxy."""
    settings.TRUSTED_PROXY_COUNT = 1
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}), "verify": "2/min"}}
    proxy = {"REMOTE_ADDR": "10.0.0.2"}
    first = [client.get("/verificar/", {"q": "ABC1D23"}, HTTP_X_FORWARDED_FOR="198.51.100.7", **proxy).status_code
             for _ in range(3)]
    assert first[-1] == 429
    other = client.get("/verificar/", {"q": "ABC1D23"}, HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy)
    assert other.status_code != 429


def test_the_transit_complaint_throttle_keys_on_the_client_ip(rf, settings, monkeypatch):
    from django.core.cache import cache

    from licensing.transit.views import public

    settings.TRUSTED_PROXY_COUNT = 1
    monkeypatch.setattr(public, "COMPLAINTS_PER_HOUR", 1)
    cache.clear()

    def request(xff):
        return rf.post("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=xff)

    assert not public._complaints_throttled(request("198.51.100.7"))
    assert public._complaints_throttled(request("198.51.100.7"))
    assert not public._complaints_throttled(request("203.0.113.9"))


@pytest.mark.django_db
def test_the_account_menu_links_the_access_list_and_the_second_factor(alegre, web, applicant, clerk):
    for person in (applicant, clerk):
        page = web(person).get(reverse("dashboard")).content.decode()
        account = page.split('id="conta"')[1]
        assert reverse("api-tokens") in account and reverse("second-factor-setup") in account
        assert reverse("password_change") in account
        assert f'{reverse("dashboard")}#conta' in page  # from every page's header
