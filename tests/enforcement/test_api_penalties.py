"""The enforcement API of API.md: penalties (recidivism, decree values, simultaneous infractions,
suspensions that stack) and the decision's effects on the grant."""

from datetime import timedelta

import pytest

from enforcement import services
from enforcement.models import Infraction
from licensing.grants.selectors import active_bar
from licensing.models import AlvaraStatus, GrantBar
from portal import regulation
from portal.models import AuditEntry
from tests.enforcement.helpers import at, due
from tests.factories import VehicleFactory, issue_authorization

pytestmark = pytest.mark.django_db


def _upheld(issue, chain, plate, code, day):
    body = issue(plate, code, day)
    chain.notify(body["id"], day)
    return chain.judge(body["id"])


@pytest.mark.parametrize("gap,multiplier,amount", [(30, 2, "300.00"), (31, 1, "150.00")])
def test_alegre_recidivism_day_30_counts_day_31_does_not(alegre, grant, issue, chain, gap, multiplier, amount):
    chain.regulate()
    first_day = alegre.today() - timedelta(days=60)
    _upheld(issue, chain, grant.vehicle.plate, "19-I", first_day)
    second = _upheld(issue, chain, grant.vehicle.plate, "19-I", first_day + timedelta(days=gap))
    assert second["penalty"]["multiplier"] == multiplier and second["penalty"]["amount"] == amount
    assert second["penalty"]["recidivism"] is (multiplier == 2)


@pytest.mark.parametrize("gap,multiplier", [(90, 2), (91, 1)])
def test_arapora_recidivism_window_90_days(arapora, grant, issue, chain, gap, multiplier):
    first_day = arapora.today() - timedelta(days=120)
    _upheld(issue, chain, grant.vehicle.plate, "23-I", first_day)
    second = _upheld(issue, chain, grant.vehicle.plate, "23-I", first_day + timedelta(days=gap))
    assert second["penalty"]["multiplier"] == multiplier


def test_arapora_third_offence_is_four_times(arapora, grant, issue, chain):
    chain.regulate()
    start = arapora.today() - timedelta(days=100)
    amounts = [_upheld(issue, chain, grant.vehicle.plate, "23-I", start + timedelta(days=d))["penalty"]["amount"]
               for d in (0, 30, 60)]
    assert amounts == ["20.00", "40.00", "80.00"]


def test_dismissed_earlier_auto_does_not_count(alegre, grant, issue, chain):
    day = alegre.today() - timedelta(days=20)
    body = issue(grant.vehicle.plate, "19-I", day)
    chain.notify(body["id"], day)
    chain.judge(body["id"], upheld=False)
    second = _upheld(issue, chain, grant.vehicle.plate, "19-I", day + timedelta(days=5))
    assert second["penalty"]["multiplier"] == 1


def test_another_holders_auto_does_not_count(alegre, grant, outsider, issue, chain):
    other, _ = issue_authorization(holder=outsider, vehicle=VehicleFactory(owner=outsider),
                                   valid_from=alegre.today() - timedelta(days=100))
    day = alegre.today() - timedelta(days=20)
    _upheld(issue, chain, other.vehicle.plate, "19-I", day)
    second = _upheld(issue, chain, grant.vehicle.plate, "19-I", day + timedelta(days=5))
    assert second["penalty"]["multiplier"] == 1


def test_suspension_until_regularised_needs_the_fine_paid_then_ends(api, alegre, clerk, applicant, grant, issue, chain):
    chain.regulate()
    today = alegre.today()
    body = issue(grant.vehicle.plate, "20-I", today - timedelta(days=2))
    chain.notify(body["id"], today - timedelta(days=1))
    result = chain.judge(body["id"])
    assert result["penalty"]["kinds"] == ["fine", "suspension_until_regularised", "new_inspection"]
    services.close_appeal_windows(due(today, 30) + timedelta(days=1))
    grant.refresh_from_db()
    assert grant.status == "suspended" and grant.suspended_until is None
    url = f"/api/v1/infractions/{body['id']}/regularisation/"
    r = api(clerk).post(url, {"inspected_on": today.isoformat()}, format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "fine_unpaid" and "art. 20, I" in r.json()["rule"]["legal_basis"]
    api(clerk).post(f"/api/v1/infractions/{body['id']}/fine/pay/", {"paid_on": today.isoformat()}, format="json")
    r = api(clerk).post(url, {"inspected_on": today.isoformat()}, format="json")
    assert r.status_code == 200 and r.json()["authorization_status"] == "active"
    assert api(clerk).post(url, {"inspected_on": today.isoformat()}, format="json").status_code == 409


def test_arapora_code_e_revokes_and_bars_without_term(arapora, applicant, grant, issue, chain):
    today = arapora.today()
    body = issue(grant.vehicle.plate, "24-I", today - timedelta(days=2))
    chain.notify(body["id"], today - timedelta(days=1))
    result = chain.judge(body["id"])
    assert result["penalty"]["kinds"] == ["cancellation"] and result["penalty"]["amount"] is None
    services.close_appeal_windows(due(today, 10) + timedelta(days=1))
    grant.refresh_from_db()
    bar = active_bar(applicant.cpf, today + timedelta(days=3650))
    assert grant.status == "cassada" and bar is not None and bar.until is None
    assert "art. 24, parágrafo único" in bar.legal_basis


def test_alegre_article_22_opens_revocation_process_without_ending_the_grant(alegre, grant, issue, chain):
    chain.regulate()
    today = alegre.today()
    body = issue(grant.vehicle.plate, "22-I", today - timedelta(days=2))
    chain.notify(body["id"], today - timedelta(days=1))
    result = chain.judge(body["id"])
    assert result["penalty"]["kinds"] == ["fine", "seizure", "revocation_process"]
    assert result["penalty"]["amount"] == "800.00"
    services.close_appeal_windows(due(today, 30) + timedelta(days=1))
    grant.refresh_from_db()
    assert grant.status == "active" and not GrantBar.objects.exists()


def test_simultaneous_infractions_in_one_auto_add_up(arapora, grant, issue, chain):
    chain.regulate()
    today = arapora.today()
    body = issue(grant.vehicle.plate, "23-IX", today - timedelta(days=2), infraction_codes=["23-X"])
    inf = Infraction.objects.get(pk=body["id"])
    assert inf.codes == ["23-IX", "23-X"] and [c["code"] for c in inf.catalogue] == ["23-IX", "23-X"]
    chain.notify(body["id"], today - timedelta(days=1))
    penalty = chain.judge(body["id"])["penalty"]
    assert penalty["codes"] == ["B-3", "C-4", "A", "B-1"]
    assert penalty["fine_units"] == 8 and penalty["amount"] == "80.00" and penalty["suspension_days"] == 30
    assert penalty["legal_basis"][1].endswith("art. 23, X")


def test_fine_value_set_by_decree_applies_from_its_date(api, alegre, grant, issue, chain):
    from portal.models import Municipality, RegulationParameter

    today = alegre.today()
    RegulationParameter.objects.create(municipality=Municipality.objects.get(is_active=True), key="fine.19-I",
                                       value="210.50", legal_basis="Decreto nº 1/2026 (exemplo)",
                                       effective_from=today - timedelta(days=5), source="admin")
    regulation.invalidate()
    before = issue(grant.vehicle.plate, "19-I", today - timedelta(days=10))
    after = issue(grant.vehicle.plate, "19-II", today - timedelta(days=1))
    chain.notify(before["id"], today)
    # no regulation in force on the day of the infraction: the pack's example value has no effect
    penalty = chain.judge(before["id"])["penalty"]
    assert penalty["amount"] is None and "19-I" in penalty["missing_regulation"]
    RegulationParameter.objects.create(municipality=Municipality.objects.get(is_active=True), key="fine.19-II",
                                       value="99.99", legal_basis="Decreto nº 1/2026 (exemplo)",
                                       effective_from=today - timedelta(days=5), source="admin")
    regulation.invalidate()
    chain.notify(after["id"], today)
    assert chain.judge(after["id"])["penalty"]["amount"] == "199.98"  # recidivism within 30 days: ×2
    items = {i["code"]: i for i in api(None).get("/api/v1/infractions/catalogue/").json()["results"]}
    assert items["19-I"]["penalties"][0]["fine_amount"] == "210.50"


def test_list_filters_by_status_and_plate(api, alegre, clerk, grant, issue, chain):
    first = issue(grant.vehicle.plate, "19-I")
    issue("XYZ9A87", "19-II")
    chain.notify(first["id"])
    client = api(clerk)
    assert [r["id"] for r in client.get("/api/v1/infractions/", {"status": "notified"}).json()["results"]] == [first["id"]]
    assert client.get("/api/v1/infractions/", {"plate": "xyz-9a87"}).json()["count"] == 1
    assert client.get("/api/v1/infractions/", {"status": "issued,notified"}).json()["count"] == 2


def test_second_suspension_stacks_on_a_suspension_being_served(arapora, grant, issue, chain):
    """Lei 724/2008 art. 25, §4: penalties add up. A second suspension decided while the first
    is being served starts the day after the first ends."""
    today = arapora.today()
    first = issue(grant.vehicle.plate, "23-XIV", today - timedelta(days=4))  # B-3 + C-1 (5 days)
    second = issue(grant.vehicle.plate, "23-IX", today - timedelta(days=3))  # B-3 + C-4 (30 days)
    for body in (first, second):
        chain.notify(body["id"], today - timedelta(days=2))
        chain.judge(body["id"])
    final_on = due(today, 10) + timedelta(days=1)
    assert services.close_appeal_windows(final_on) == 2
    grant.refresh_from_db()
    first_until = final_on + timedelta(days=4)
    second_until = first_until + timedelta(days=30)
    assert grant.status == "suspended" and grant.suspended_until == second_until
    assert Infraction.objects.get(pk=second["id"]).suspension_until == second_until
    # the end of the first suspension does not lift the second one
    assert services.lift_ended_suspensions(first_until + timedelta(days=1)) == 1
    grant.refresh_from_db()
    assert grant.status == "suspended"
    assert services.lift_ended_suspensions(second_until) == 0  # the last day is still served
    assert services.lift_ended_suspensions(second_until + timedelta(days=1)) == 1
    grant.refresh_from_db()
    assert grant.status == "active"


@pytest.mark.parametrize("codes", [("23-XVIII", "23-XIV"), ("23-XIV", "23-XVIII")])
def test_suspension_without_end_date_wins_over_a_fixed_one(arapora, grant, issue, chain, codes):
    """A suspension without end date (Código D) is neither shortened nor lost with a fixed one (C-1)."""
    today = arapora.today()
    bodies = [issue(grant.vehicle.plate, code, today - timedelta(days=4 - i)) for i, code in enumerate(codes)]
    for body in bodies:
        chain.notify(body["id"], today - timedelta(days=2))
        chain.judge(body["id"])
    assert services.close_appeal_windows(due(today, 10) + timedelta(days=1)) == 2
    grant.refresh_from_db()
    assert grant.status == "suspended" and grant.suspended_until is None


@pytest.mark.parametrize("days_before_occurrence,expected", [(0, 200), (1, 400)])
def test_notice_cannot_precede_the_infraction(api, alegre, clerk, grant, issue, days_before_occurrence, expected):
    occurred = alegre.today() - timedelta(days=3)
    body = issue(grant.vehicle.plate, "19-I", occurred)
    on = occurred - timedelta(days=days_before_occurrence)
    r = api(clerk).post(f"/api/v1/infractions/{body['id']}/notify/", {"acknowledged_on": on.isoformat()}, format="json")
    assert r.status_code == expected, r.content
    if expected == 400:
        assert "acknowledged_on" in r.json()["errors"]
        assert Infraction.objects.get(pk=body["id"]).status == "issued"


def test_alegre_catalogue_keeps_the_meaning_of_article_19_xvi(api, alegre):
    """Lei 3.703/2022 art. 19, XVI: "realizar viagens se fazendo como motorista de aplicativo" —
    working as an app driver, not pretending to be one."""
    items = {i["code"]: i for i in api(None).get("/api/v1/infractions/catalogue/").json()["results"]}
    assert "atuando como motorista de aplicativo" in items["19-XVI"]["description"]
    assert items["19-XVI"]["legal_basis"] == "Lei 3.703/2022 (Alegre/ES), art. 19, XVI"


@pytest.mark.parametrize("sent,retained", [({}, True), ({"alvara_retained": False}, False)])
def test_itagiba_agent_retains_the_alvara_unless_told_otherwise(api, agent, itagiba, grant, sent, retained):
    """PL 015/2025 art. 20, §2: "o agente reterá o alvará de circulação no momento da autuação"."""
    body = {"plate": grant.vehicle.plate, "infraction_code": "19-VII", "occurred_at": at(itagiba.today()),
            "location": "Centro", "description": "x", **sent}
    r = api(agent).post("/api/v1/infractions/", body, format="json")
    assert r.status_code == 201, r.content
    inf = Infraction.objects.get(pk=r.json()["id"])
    assert inf.alvara_retained is retained
    assert (inf.retained_alvara is not None and inf.retained_alvara.status == AlvaraStatus.RETAINED) is retained


def test_alegre_agent_does_not_retain_unless_told(api, agent, alegre, grant):
    body = {"plate": grant.vehicle.plate, "infraction_code": "19-I", "occurred_at": at(alegre.today()),
            "location": "Centro", "description": "x"}
    r = api(agent).post("/api/v1/infractions/", body, format="json")
    assert r.status_code == 201 and Infraction.objects.get(pk=r.json()["id"]).alvara_retained is False


# --- effects at the decision: the appeal does not suspend them (appeal.suspensive = false) -------------

def test_itagiba_cassation_takes_effect_at_the_decision_and_a_granted_appeal_undoes_it(api, itagiba, applicant,
                                                                                       grant, issue, chain):
    """PL 015/2025 art. 25, §4: the appeal has no suspensive effect (unless exceptionally granted)."""
    today = itagiba.today()
    body = issue(grant.vehicle.plate, "19-VII", today - timedelta(days=3))
    chain.notify(body["id"], today - timedelta(days=2))
    chain.judge(body["id"])
    grant.refresh_from_db()
    assert grant.status == "cassada"
    assert active_bar(applicant.cpf, today) is not None
    status = api(applicant).get(f"/api/v1/infractions/{body['id']}/").json()["status"]
    assert status == "upheld"  # not final yet: the holder may still appeal
    assert api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "Não fui eu."},
                               format="json").status_code == 201
    chain.judge_appeal(body["id"], granted=True)
    grant.refresh_from_db()
    assert grant.status == "active"
    statuses = sorted(grant.alvaras.values_list("status", flat=True))
    assert statuses == ["active", "cancelled"]  # the cancelled alvará is kept; a new one is issued
    assert active_bar(applicant.cpf, today) is None
    bar = GrantBar.objects.get(person=applicant)  # kept, with the day it was lifted and why
    assert bar.lifted_on == today and "Recurso provido" in bar.lifted_reason
    assert Infraction.objects.get(pk=body["id"]).effects_on is None


def test_arapora_suspension_only_when_final_denied_appeal_applies_it_once(arapora, applicant, grant,
                                                                          issue, chain, api):
    """Lei 724/2008 art. 25 (Constituição art. 5º, LV): suspension takes effect when the decision is final."""
    today = arapora.today()
    body = issue(grant.vehicle.plate, "23-XIV", today - timedelta(days=3))  # B-3 + C-1 (5 days)
    chain.notify(body["id"], today - timedelta(days=2))
    chain.judge(body["id"])
    grant.refresh_from_db()
    assert grant.status == "active"
    assert api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "Recorro."},
                               format="json").status_code == 201
    assert chain.judge_appeal(body["id"], granted=False)["status"] == "final"
    grant.refresh_from_db()
    assert grant.status == "suspended" and grant.suspended_until == today + timedelta(days=4)
    assert services.close_appeal_windows(today + timedelta(days=40)) == 0
    assert AuditEntry.objects.filter(action="authorization_status", to_state="suspended").count() == 1


def test_a_granted_appeal_lifts_the_suspension_it_imposed(alegre, applicant, grant, issue, chain, api):
    """Lei 3.703/2022 art. 20: suspension until regularised, lifted when the appeal is granted."""
    today = alegre.today()
    body = issue(grant.vehicle.plate, "20-I", today - timedelta(days=3))
    chain.notify(body["id"], today - timedelta(days=2))
    chain.judge(body["id"])
    grant.refresh_from_db()
    assert grant.status == "suspended" and grant.suspended_until is None
    api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "Recorro."}, format="json")
    chain.judge_appeal(body["id"], granted=True)
    grant.refresh_from_db()
    assert grant.status == "active" and grant.suspended_until is None


def test_appeal_is_suspensive_only_where_the_pack_says_so():
    from types import SimpleNamespace

    def pack(value):
        return SimpleNamespace(param=lambda key, modality=None: None if value is None else SimpleNamespace(value=value))

    assert services.appeal_is_suspensive(pack(None), "taxi") is True  # the law is silent: wait for the final decision
    assert services.appeal_is_suspensive(pack(True), "taxi") is True
    assert services.appeal_is_suspensive(pack(False), "taxi") is False


def test_suspensive_effect_given_to_the_appeal_holds_the_cassation_until_the_appeal_is_decided(
        api, itagiba, applicant, judge, grant, issue, chain):
    """PL 015/2025 art. 25, §4: exceptionally, on request and with grounds, the appeal suspends."""
    today = itagiba.today()
    body = issue(grant.vehicle.plate, "19-VII", today - timedelta(days=3))
    chain.notify(body["id"], today - timedelta(days=2))
    chain.judge(body["id"])
    url = f"/api/v1/infractions/{body['id']}/appeal/suspensive-effect/"
    assert api(judge).post(url, {"grounds": "Dano de difícil reparação."}, format="json").status_code == 409  # no appeal
    api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "Peço efeito suspensivo."}, format="json")
    assert api(judge).post(url, {"grounds": ""}, format="json").status_code == 400
    r = api(judge).post(url, {"grounds": "Dano de difícil reparação."}, format="json")
    assert r.status_code == 200 and r.json()["authorization_status"] == "active"
    assert active_bar(applicant.cpf, today) is None
    assert api(judge).post(url, {"grounds": "De novo."}, format="json").status_code == 409  # nothing left to suspend
    chain.judge_appeal(body["id"], granted=False)  # the decision becomes final: the cassação applies again
    grant.refresh_from_db()
    assert grant.status == "cassada" and active_bar(applicant.cpf, today) is not None
