"""The enforcement API of API.md, through the full chain for each pack."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from enforcement import services
from enforcement.models import Infraction
from licensing.grants.selectors import active_bar
from licensing.models import AlvaraStatus, GrantBar
from portal import regulation
from portal.models import AuditEntry
from tests.conftest import CPF_CAROL, make_user
from tests.enforcement.helpers import at, due

pytestmark = pytest.mark.django_db


def test_catalogue_lists_code_description_penalties_and_basis(api, arapora):
    body = api(None).get("/api/v1/infractions/catalogue/").json()
    items = {i["code"]: i for i in body["results"]}
    item = items["23-II"]
    assert item["legal_basis"].endswith("art. 23, II") and item["description"]
    assert [p.get("code") for p in item["penalties"]] == ["B-1", "C-2", "D"]
    assert item["penalties"][0]["fine_units"] == 2 and item["penalties"][0]["fine_amount"] == "20.00"
    assert body["fiscal_unit"]["name"] == "UMT"


def test_catalogue_itagiba_has_unauthorised_vehicle_and_cassation(api, itagiba):
    items = {i["code"]: i for i in api(None).get("/api/v1/infractions/catalogue/").json()["results"]}
    assert {p["kind"] for p in items["4-P1"]["penalties"]} == {"fine", "seizure"}
    assert "cassation" in {p["kind"] for p in items["19-VII"]["penalties"]}


def test_agent_issues_an_auto_with_a_yearly_number(api, agent, alegre, grant, issue):
    body = issue(grant.vehicle.plate, "19-I")
    assert body["status"] == "issued" and body["number"].endswith(f"/{alegre.today().year}")
    inf = Infraction.objects.get(pk=body["id"])
    assert inf.holder == grant.holder and inf.authorization == grant and inf.agent_registration == "AG-1"
    assert inf.catalogue[0]["code"] == "19-I"


def test_only_agents_issue(api, clerk, applicant, alegre):
    body = {"plate": "ABC1D23", "infraction_code": "19-I", "occurred_at": "2026-01-01T10:00:00-03:00",
            "location": "x", "description": "y"}
    assert api(clerk).post("/api/v1/infractions/", body, format="json").status_code == 403
    assert api(applicant).post("/api/v1/infractions/", body, format="json").status_code == 403
    assert api(None).post("/api/v1/infractions/", body, format="json").status_code == 401


def test_bad_input_names_the_field(api, agent, alegre):
    body = {"plate": "12", "infraction_code": "99-Z", "occurred_at": "2099-01-01T10:00:00-03:00",
            "location": "x", "description": "y"}
    r = api(agent).post("/api/v1/infractions/", body, format="json")
    assert r.status_code == 400
    assert {"plate", "infraction_code", "occurred_at"} <= set(r.json()["errors"])


def test_unauthorised_vehicle_can_be_fined(api, itagiba, issue, chain):
    """PL 015/2025 art. 4, §1: 10 UFP — charged only once the decree fixing the UFP is recorded."""
    body = issue("XYZ9A87", "4-P1", itagiba.today() - timedelta(days=40))
    inf = Infraction.objects.get(pk=body["id"])
    assert inf.vehicle is None and inf.authorization is None and inf.holder is None
    chain.notify(body["id"], itagiba.today() - timedelta(days=39))
    result = chain.judge(body["id"])
    assert result["penalty"]["amount"] is None and result["penalty"]["fine_units"] == 10
    assert "UFP" in result["penalty"]["missing_regulation"] and result["missing_regulation"]
    chain.regulate()
    body = issue("XYZ9A87", "4-P1", itagiba.today() - timedelta(days=40))
    chain.notify(body["id"], itagiba.today() - timedelta(days=39))
    result = chain.judge(body["id"])
    assert result["penalty"]["amount"] == "50.00" and result["penalty"]["fine_units"] == 10
    assert result["penalty"]["missing_regulation"] is None
    assert set(result["penalty"]["kinds"]) == {"fine", "seizure"}


def test_double_submit_with_the_same_key_creates_one_auto(api, agent, alegre, grant):
    body = {"plate": grant.vehicle.plate, "infraction_code": "19-I", "occurred_at": at(alegre.today()),
            "location": "Rua A", "description": "x", "idempotency_key": "k-123"}
    first = api(agent).post("/api/v1/infractions/", body, format="json").json()
    second = api(agent).post("/api/v1/infractions/", body, format="json").json()
    assert first["id"] == second["id"] and Infraction.objects.count() == 1


def test_full_chain_alegre(api, alegre, applicant, grant, issue, chain):
    chain.regulate()
    today = alegre.today()
    body = issue(grant.vehicle.plate, "19-I", today - timedelta(days=2))
    notified = chain.notify(body["id"], today - timedelta(days=1))
    assert notified["defense_deadline"] == due(today - timedelta(days=1), 15, "defense.days").isoformat()
    r = api(applicant).post(f"/api/v1/infractions/{body['id']}/defense/", {"text": "Não houve cobrança."}, format="json")
    assert r.status_code == 201
    result = chain.judge(body["id"])
    assert result["status"] == "upheld"
    assert result["penalty"]["amount"] == "150.00" and result["penalty"]["multiplier"] == 1
    # art. 18, §§5º and 7º: 30 days from the ciência of the new notice, of the decision (today)
    assert result["appeal_deadline"] == due(today, 30).isoformat()
    r = api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "Reconsiderem."}, format="json")
    assert r.status_code == 201
    final = chain.judge_appeal(body["id"], granted=False)
    assert final["status"] == "final"
    inf = Infraction.objects.get(pk=body["id"])
    assert inf.fine.amount == Decimal("150.00") and inf.fine.due_date == today + timedelta(days=30)
    detail = api(applicant).get(f"/api/v1/infractions/{body['id']}/").json()
    actions = [h["action"] for h in detail["history"]]
    assert actions[:7] == ["infraction_issued", "infraction_notified", "infraction_defense_filed",
                           "infraction_upheld", "decision_notified", "infraction_appealed", "appeal_judged"]
    assert detail["fine"]["amount"] == "150.00"


def test_full_chain_itagiba_defense_returns_alvara_and_cassation_bars_holder(api, itagiba, applicant, grant, issue, chain):
    chain.regulate()
    today = itagiba.today()
    aux = make_user(CPF_CAROL, "requerente", cpf=CPF_CAROL, name="Carol Auxiliar")
    from licensing.grants.services import alvara_issue

    alvara_issue(actor=None, authorization=grant, person=aux, is_auxiliary=True)
    body = issue(grant.vehicle.plate, "19-VII", today - timedelta(days=3), alvara_retained=True, driver_cpf=CPF_CAROL)
    inf = Infraction.objects.get(pk=body["id"])
    assert inf.retained_alvara.status == AlvaraStatus.RETAINED and inf.driver_is_auxiliary
    chain.notify(body["id"], today - timedelta(days=2))
    assert api(applicant).post(f"/api/v1/infractions/{body['id']}/defense/", {"text": "Defesa."},
                               format="json").status_code == 201
    inf.retained_alvara.refresh_from_db()
    assert inf.retained_alvara.status == AlvaraStatus.ACTIVE  # art. 22, parágrafo único
    result = chain.judge(body["id"])
    assert "cassation" in result["penalty"]["kinds"] and result["penalty"]["amount"] == "50.00"
    # no appeal within 30 days of the notice of the decision → final
    after = due(today, 30) + timedelta(days=1)
    assert services.close_appeal_windows(after - timedelta(days=1)) == 0
    assert services.close_appeal_windows(after) == 1
    assert services.close_appeal_windows(after) == 0
    grant.refresh_from_db()
    assert grant.status == "cassada"
    bar = active_bar(applicant.cpf, today)
    assert bar is not None and bar.until.year == today.year + 5
    assert active_bar(CPF_CAROL, today) is not None
    assert GrantBar.objects.count() == 2


def test_itagiba_dismissal_goes_to_ex_officio_review(api, itagiba, grant, issue, chain):
    today = itagiba.today()
    body = issue(grant.vehicle.plate, "19-VII", today - timedelta(days=3))
    chain.notify(body["id"], today - timedelta(days=2))
    result = chain.judge(body["id"], upheld=False)
    assert result["status"] == "dismissed" and result["penalty"] is None and result["ex_officio_review"]
    review = chain.judge_appeal(body["id"], granted=False)
    assert review["status"] == "dismissed"
    grant.refresh_from_db()
    assert grant.status == "active"


def test_arapora_hears_the_holder_and_has_a_second_instance_for_d(api, arapora, applicant, judge, grant, issue,
                                                                  chain):
    """Lei 724/2008 art. 25 and Constituição art. 5º, LV: a defense period (example value) before the
    judgement; 10 days from the notice of each decision; D and E go on to the Prefeito; the penalty on
    the grant only when final."""
    chain.regulate()
    today = arapora.today()
    body = issue(grant.vehicle.plate, "23-II", today - timedelta(days=3))
    notified = chain.notify(body["id"], today - timedelta(days=2))
    assert notified["defense_deadline"] == due(today - timedelta(days=2), 15, "defense.days").isoformat()
    r = api(judge).post(f"/api/v1/infractions/{body['id']}/judge/", {"upheld": True, "grounds": "x"}, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "defense_period_running"
    assert "art. 5º, LV" in r.json()["rule"]["legal_basis"]
    r = api(applicant).post(f"/api/v1/infractions/{body['id']}/defense/", {"text": "x"}, format="json")
    assert r.status_code == 201
    result = chain.judge(body["id"])
    assert result["penalty"]["kinds"] == ["fine", "suspension", "impediment"]
    assert result["penalty"]["amount"] == "20.00" and result["penalty"]["suspension_days"] == 10
    assert result["appeal_deadline"] == due(today, 10).isoformat()
    grant.refresh_from_db()
    assert grant.status == "active"  # not final yet
    assert api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "1ª"}, format="json").status_code == 201
    first = chain.judge_appeal(body["id"], granted=False)
    assert first["status"] == "upheld" and first["appeal_deadline"] == due(today, 10, "appeal.second_instance_days").isoformat()
    r = api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "2ª"}, format="json")
    assert r.status_code == 201 and r.json()["instance"] == 2 and r.json()["authority"] == "Prefeito Municipal"
    # neither the first julgador nor the one who decided the first appeal decides the second
    chain.judge_appeal(body["id"], granted=False, expect=409)
    chain.judge_appeal(body["id"], granted=False, expect=409, user=judge)
    final = chain.judge_appeal(body["id"], granted=False, user=make_user("prefeito", "julgador"))
    assert final["status"] == "final"
    grant.refresh_from_db()
    assert grant.status == "suspended" and grant.suspended_until is None  # impediment: no end date


def test_arapora_suspension_ends_and_grant_is_active_again(api, arapora, grant, issue, chain):
    today = arapora.today()
    body = issue(grant.vehicle.plate, "23-XIV", today - timedelta(days=3))  # B-3 + C-1 (5 days)
    chain.notify(body["id"], today - timedelta(days=2))
    chain.judge(body["id"])
    # the suspension takes effect only when the decision is final (appeal.suspensive = true)
    grant.refresh_from_db()
    assert grant.status == "active"
    final_on = due(today, 10) + timedelta(days=1)
    assert services.close_appeal_windows(final_on) == 1
    grant.refresh_from_db()
    assert grant.status == "suspended" and grant.suspended_until == final_on + timedelta(days=4)
    assert services.lift_ended_suspensions(final_on + timedelta(days=4)) == 0
    assert services.lift_ended_suspensions(final_on + timedelta(days=5)) == 1
    assert services.lift_ended_suspensions(final_on + timedelta(days=5)) == 0
    grant.refresh_from_db()
    assert grant.status == "active"


def test_fine_without_value_is_recorded_without_amount_naming_the_missing_regulation(api, judge, alegre, grant, issue, chain, settings):
    from portal.models import Municipality

    muni = Municipality.objects.get(is_active=True)
    pack_data = muni.pack
    for item in pack_data["infractions"]:
        if item["code"] == "19-I":
            item["penalties"].pop("fine_amount")
    muni.pack = pack_data
    muni.save(update_fields=["pack"])
    regulation.invalidate()
    body = issue(grant.vehicle.plate, "19-I", alegre.today() - timedelta(days=2))
    chain.notify(body["id"], alegre.today() - timedelta(days=1))
    chain.waive(body["id"])
    r = api(judge).post(f"/api/v1/infractions/{body['id']}/judge/", {"upheld": True, "grounds": "x"}, format="json")
    assert r.status_code == 200, r.content
    penalty = r.json()["penalty"]
    assert penalty["kinds"] == ["fine"] and penalty["amount"] is None
    assert "art. 19, I" in penalty["missing_regulation"] and "regulamento" in penalty["missing_regulation"]


@pytest.mark.parametrize("days_ago,expected", [(15, 201), (16, 409)])
def test_defense_on_the_last_day_accepted_next_day_refused(api, alegre, applicant, grant, issue, chain, clock, days_ago,
                                                          expected):
    today = alegre.today()  # the clock: a business day, so that the 15th day is not moved on
    body = issue(grant.vehicle.plate, "19-I", today - timedelta(days=days_ago))
    chain.notify(body["id"], today - timedelta(days=days_ago))
    r = api(applicant).post(f"/api/v1/infractions/{body['id']}/defense/", {"text": "Defesa"}, format="json")
    assert r.status_code == expected
    if expected == 409:
        assert r.json()["rule"]["legal_basis"].endswith("art. 18, §4")


@pytest.mark.parametrize("days_after_decision_notice,expected", [(30, 201), (31, 409)])
def test_alegre_appeal_counted_from_the_notice_of_the_decision(api, alegre, applicant, grant, issue, chain,
                                                               days_after_decision_notice, expected):
    """Lei 3.703/2022 art. 18, §§5º and 7º: esgotada a defesa, a new notice opens the 30 days of the
    appeal — day 30 after its ciência is in time, day 31 late, though the first notice was 40 days
    before (counting from it, the period would have ended before the holder knew of the decision)."""
    today = alegre.today()
    decision_notice_on = today - timedelta(days=days_after_decision_notice)
    notice_on = decision_notice_on - timedelta(days=40)
    body = issue(grant.vehicle.plate, "19-I", notice_on - timedelta(days=1))
    chain.notify(body["id"], notice_on)
    result = chain.judge(body["id"], notify_decision=False)
    assert result["appeal_deadline"] is None and result["decision_notice_pending"] is True
    Infraction.objects.filter(pk=body["id"]).update(status_changed_at=timezone.now())
    import pgtrigger

    from enforcement.models import Judgement

    # the scene is set in the past: a decision is never edited (PostgreSQL refuses it by trigger)
    with pgtrigger.ignore("enforcement.Judgement:judgement_immutable"):
        Judgement.objects.filter(infraction_id=body["id"]).update(decided_on=decision_notice_on)
    noticed = chain.decision_notice(body["id"], decision_notice_on)
    expected_deadline = due(decision_notice_on, 30)
    assert noticed["appeal_deadline"] == expected_deadline.isoformat()
    assert expected_deadline >= decision_notice_on + timedelta(days=30)  # a non-business day may move it on
    inf = Infraction.objects.get(pk=body["id"])
    on = expected_deadline + timedelta(days=days_after_decision_notice - 30)  # the last day, or the day after
    if expected == 201:
        services.appeal_file(actor=applicant, infraction=inf, text="No último dia", on=on)
    else:
        from portal.exceptions import RuleViolation

        with pytest.raises(RuleViolation) as exc:
            services.appeal_file(actor=applicant, infraction=inf, text="Tarde", on=on)
        assert exc.value.code == "appeal_deadline_passed" and exc.value.legal_basis.endswith("art. 18, §7")


@pytest.mark.parametrize("days_after,expected", [(10, 201), (11, 409)])
def test_arapora_appeal_counted_from_the_decision(api, arapora, applicant, grant, issue, chain, days_after, expected):
    """Lei 724/2008 art. 25, §1: "da data de notificação caberá recurso, no prazo de 10 dias" — from the
    notice of the decision (the ciência of the autuação long before does not count)."""
    today = arapora.today()
    body = issue(grant.vehicle.plate, "23-II", today - timedelta(days=41))
    chain.notify(body["id"], today - timedelta(days=40))
    last = due(today, 10)
    assert chain.judge(body["id"])["appeal_deadline"] == last.isoformat()
    inf = Infraction.objects.get(pk=body["id"])
    if expected == 201:
        services.appeal_file(actor=applicant, infraction=inf, text="No último dia", on=last + timedelta(days=days_after - 10))
    else:
        from portal.exceptions import RuleViolation

        with pytest.raises(RuleViolation) as exc:
            services.appeal_file(actor=applicant, infraction=inf, text="Tarde", on=last + timedelta(days=days_after - 10))
        assert exc.value.conflict and "art. 25" in exc.value.legal_basis


def test_holder_sees_own_autos_others_get_404(api, alegre, applicant, outsider, clerk, grant, issue):
    body = issue(grant.vehicle.plate, "19-I")
    assert api(applicant).get(f"/api/v1/infractions/{body['id']}/").status_code == 200
    assert api(outsider).get(f"/api/v1/infractions/{body['id']}/").status_code == 404
    assert api(outsider).get("/api/v1/infractions/").json()["count"] == 0
    assert api(clerk).get("/api/v1/infractions/").json()["count"] == 1
    assert api(outsider).post(f"/api/v1/infractions/{body['id']}/defense/", {"text": "x"}, format="json").status_code == 404


def test_cancellation_by_julgador_with_reason(api, alegre, judge, agent, grant, issue):
    body = issue(grant.vehicle.plate, "19-I")
    assert api(agent).post(f"/api/v1/infractions/{body['id']}/cancel/", {"reason": "x"}, format="json").status_code == 403
    assert api(judge).post(f"/api/v1/infractions/{body['id']}/cancel/", {}, format="json").status_code == 400
    r = api(judge).post(f"/api/v1/infractions/{body['id']}/cancel/", {"reason": "Placa lida errada."}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    assert AuditEntry.objects.filter(action="infraction_cancelled", reason="Placa lida errada.").exists()
    assert Infraction.objects.filter(pk=body["id"]).exists()


def test_no_api_path_edits_or_deletes_an_auto(api, alegre, agent, judge, clerk, admin_user, grant, issue):
    body = issue(grant.vehicle.plate, "19-I")
    url = f"/api/v1/infractions/{body['id']}/"
    for user in (agent, judge, clerk, admin_user):
        for method in ("put", "patch", "delete"):
            assert getattr(api(user), method)(url, {"location": "outro"}, format="json").status_code == 405
    inf = Infraction.objects.get(pk=body["id"])
    assert inf.location == "Praça Central"


def test_vehicle_status_for_agent_and_clerk_only(api, itagiba, agent, clerk, applicant, judge, grant, issue):
    issue(grant.vehicle.plate, "19-VII")
    r = api(agent).get(f"/api/v1/vehicles/{grant.vehicle.plate}/status/")
    assert r.status_code == 200
    data = r.json()
    assert data["verdict"] == "autorizado" and data["authorization"]["number"] == grant.number
    assert data["alvaras"][0]["status"] == "active" and len(data["open_autos"]) == 1
    assert api(clerk).get(f"/api/v1/vehicles/{grant.vehicle.plate}/status/").status_code == 200
    assert api(applicant).get(f"/api/v1/vehicles/{grant.vehicle.plate}/status/").status_code == 403
    assert api(judge).get(f"/api/v1/vehicles/{grant.vehicle.plate}/status/").status_code == 403
    unknown = api(agent).get("/api/v1/vehicles/ZZZ9Z99/status/").json()
    assert unknown["verdict"] == "irregular" and unknown["authorization"] is None


def test_fine_can_be_marked_paid_by_clerk(api, alegre, clerk, applicant, grant, issue, chain):
    chain.regulate()
    today = alegre.today()
    body = issue(grant.vehicle.plate, "19-I", today - timedelta(days=2))
    chain.notify(body["id"], today - timedelta(days=1))
    chain.judge(body["id"])
    services.close_appeal_windows(due(today, 30) + timedelta(days=1))
    url = f"/api/v1/infractions/{body['id']}/fine/pay/"
    assert api(applicant).post(url, {"paid_on": today.isoformat()}, format="json").status_code == 403
    r = api(clerk).post(url, {"paid_on": today.isoformat()}, format="json")
    assert r.status_code == 200 and r.json()["paid"] is True
    assert api(clerk).post(url, {"paid_on": today.isoformat()}, format="json").status_code == 409


def test_defense_window_task_is_idempotent(alegre, grant, issue, chain):
    today = alegre.today()
    body = issue(grant.vehicle.plate, "19-I", today - timedelta(days=20))
    chain.notify(body["id"], today - timedelta(days=20))
    assert services.close_defense_windows(today) == 1
    assert services.close_defense_windows(today) == 0
    assert Infraction.objects.get(pk=body["id"]).status == "awaiting_judgement"


def test_judging_an_auto_not_yet_notified_is_refused(alegre, grant, issue, chain):
    body = issue(grant.vehicle.plate, "19-I")
    chain.judge(body["id"], expect=409)


@pytest.mark.parametrize("rows", [1, 30])
def test_list_uses_constant_queries(api, alegre, clerk, grant, django_assert_num_queries, rows):
    pack = regulation.current()
    for n in range(rows):
        Infraction.objects.create(number=f"{n + 1:03d}/2026", plate=grant.vehicle.plate, holder=grant.holder,
                                  authorization=grant, agent=clerk, infraction_code="19-I",
                                  occurred_at=timezone.now(), occurred_on=pack.today(), location="x", description="y")
    client = api(clerk)
    client.get("/api/v1/infractions/")  # warm the pack cache and roles
    with django_assert_num_queries(2):  # count + page
        assert client.get("/api/v1/infractions/").json()["count"] == rows



def test_vehicle_status_checks_the_driver(api, arapora, agent, applicant, grant):
    url = f"/api/v1/vehicles/{grant.vehicle.plate}/status/"
    ok = api(agent).get(url, {"driver_cpf": applicant.cpf}).json()
    assert ok["driver"]["authorized"] and ok["driver"]["role"] == "autorizatário" and ok["verdict"] == "autorizado"
    bad = api(agent).get(url, {"driver_cpf": CPF_CAROL}).json()
    assert bad["driver"]["authorized"] is False and bad["verdict"] == "irregular"
    assert "982" not in bad["driver"]["cpf"][:3] and bad["driver"]["cpf"].startswith("***")


def test_holder_answers_for_the_auxiliary_driver_and_it_counts_for_recidivism(api, arapora, applicant, grant, issue, chain):
    aux = make_user(CPF_CAROL, "requerente", cpf=CPF_CAROL, name="Carol Auxiliar")
    from licensing.grants.services import alvara_issue

    alvara_issue(actor=None, authorization=grant, person=aux, is_auxiliary=True)
    day = arapora.today() - timedelta(days=40)
    first = issue(grant.vehicle.plate, "23-I", day, driver_cpf=CPF_CAROL)
    inf = Infraction.objects.get(pk=first["id"])
    assert inf.holder == applicant and inf.driver_is_auxiliary and inf.driver_name == "Carol Auxiliar"
    chain.notify(first["id"], day)
    chain.judge(first["id"])
    second = issue(grant.vehicle.plate, "23-I", day + timedelta(days=10))
    chain.notify(second["id"], day + timedelta(days=10))
    result = chain.judge(second["id"])
    assert result["penalty"]["multiplier"] == 2 and result["penalty"]["recidivism_refs"] == [first["number"]]
    assert result["penalty"]["recidivism_autos"][0]["days_before"] == 10
    assert api(aux).get(f"/api/v1/infractions/{first['id']}/").status_code == 404


def test_holder_is_told_of_the_notice_in_the_portal_and_by_email(alegre, applicant, grant, issue, chain,
                                                                django_capture_on_commit_callbacks):
    from django.core import mail

    from portal.models import Notification

    body = issue(grant.vehicle.plate, "19-I")
    with django_capture_on_commit_callbacks(execute=True):
        chain.notify(body["id"])
    note = Notification.objects.get(recipient=applicant)
    assert body["number"] in note.subject and "defesa" in note.body
    assert any(body["number"] in m.subject for m in mail.outbox)


def test_refused_notice_counts_as_notice(alegre, grant, issue, chain):
    body = issue(grant.vehicle.plate, "19-I")
    result = chain.notify(body["id"], refused=True)
    assert result["status"] == "notified" and result["defense_deadline"]
    assert Infraction.objects.get(pk=body["id"]).notice.refused


def test_seed_demo_is_idempotent(alegre):
    from io import StringIO

    from django.core.management import call_command

    call_command("seed_demo", stdout=StringIO())
    call_command("seed_demo", stdout=StringIO())
    assert Infraction.objects.filter(idempotency_key__startswith="demo-").count() >= 1
    assert Infraction.objects.count() == Infraction.objects.filter(idempotency_key__startswith="demo-").count()


def test_photos_and_attachments_are_checked_by_content(api, agent, applicant, alegre, grant, chain):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.enforcement.matrix import _PNG

    body = {"plate": grant.vehicle.plate, "infraction_code": "19-I", "occurred_at": at(alegre.today()),
            "location": "Rua A", "description": "x", "photos": SimpleUploadedFile("f.png", _PNG, "image/png")}
    r = api(agent).post("/api/v1/infractions/", body, format="multipart")
    assert r.status_code == 201
    inf = Infraction.objects.get(pk=r.json()["id"])
    assert inf.photos.count() == 1 and inf.photos.get().mime == "image/png"
    fake = SimpleUploadedFile("defesa.pdf", b"<script>alert(1)</script>", "application/pdf")
    chain.notify(inf.pk)
    r = api(applicant).post(f"/api/v1/infractions/{inf.pk}/defense/", {"text": "Defesa", "attachments": fake},
                            format="multipart")
    assert r.status_code == 400 and "attachments" in r.json()["errors"]
    good = SimpleUploadedFile("prova.png", _PNG, "image/png")
    r = api(applicant).post(f"/api/v1/infractions/{inf.pk}/defense/", {"text": "Defesa", "attachments": good},
                            format="multipart")
    assert r.status_code == 201 and inf.attachments.filter(kind="defense").count() == 1
