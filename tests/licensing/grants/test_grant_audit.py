"""Grant flow checked against the laws, as an outside client would play it (audit of the
applicant and clerk flow): each test names the article it comes from."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

import pytest

from enforcement import services as enforcement_services
from licensing.grants.selectors import active_bar
from licensing.requests.models import AuxiliaryDriver, AuxiliaryStatus
from portal import regulation
from tests.conftest import CPF_CAROL
from tests.licensing.applications.helpers import (
    create_and_submit,
    open_call,
    payload,
    review_all_and_inspect,
)

pytestmark = pytest.mark.django_db


def _grant(api, applicant, clerk, agent, modality="taxi", **kwargs) -> dict:
    app = create_and_submit(api, applicant, modality, **kwargs)
    review_all_and_inspect(api, clerk, agent, app["id"])
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 200, r.json()
    return {"application": app, **r.json()}


def _aux(cpf: str, name: str) -> dict:
    aux = payload("taxi", auxiliaries=1)["auxiliary_drivers"][0]
    return {**aux, "cpf": cpf, "name": name}


def test_auxiliary_named_in_the_application_is_registered_on_the_grant(itagiba, api, applicant, clerk, agent):
    """PL 015/2025 art. 4, §5: each autorização carries its condutor auxiliar; the grant records them,
    so the limit of one holds afterwards too (no second auxiliary added to the same grant)."""
    open_call("taxi")
    granted = _grant(api, applicant, clerk, agent, auxiliary_drivers=[_aux(CPF_CAROL, "Carol Auxiliar")])
    rows = AuxiliaryDriver.objects.filter(authorization_id=granted["authorization"]["id"])
    assert [(a.person.cpf, a.status) for a in rows] == [(CPF_CAROL, AuxiliaryStatus.ACTIVE)]


def test_cassacao_bars_the_auxiliary_named_in_the_application(itagiba, api, applicant, outsider, clerk, agent, judge):
    """PL 015/2025 art. 19, §4: cassação bars the autorizatário and his condutor auxiliar for 60 months."""
    open_call("taxi")
    today = itagiba.today()
    granted = _grant(api, applicant, clerk, agent, auxiliary_drivers=[_aux(CPF_CAROL, "Carol Auxiliar")])
    plate = api(clerk).get(f"/api/v1/applications/{granted['application']['id']}/").json()["vehicle"]["plate"]
    occurred = datetime.combine(today - timedelta(days=3), time(10), tzinfo=regulation.current().tz).isoformat()
    inf = api(agent).post("/api/v1/infractions/", {
        "plate": plate, "infraction_code": "19-VII", "occurred_at": occurred, "location": "Centro",
        "description": "Cobrança indevida.", "driver_cpf": "", "alvara_retained": False}, format="json")
    assert inf.status_code == 201, inf.json()
    inf_id = inf.json()["id"]
    assert api(clerk).post(f"/api/v1/infractions/{inf_id}/notify/", {"acknowledged_on": today.isoformat()},
                           format="json").status_code == 200
    # no judgement while the defense period runs (art. 22): the holder waives it in writing
    assert api(applicant).post(f"/api/v1/infractions/{inf_id}/defense/waiver/", {"text": "Renuncio ao prazo."},
                               format="json").status_code == 201
    judged = api(judge).post(f"/api/v1/infractions/{inf_id}/judge/", {"upheld": True, "grounds": "Comprovado."},
                             format="json")
    assert "cassation" in judged.json()["penalty"]["kinds"]
    # the notice of the decision opens the 30 days of the appeal (art. 25)
    noticed = api(clerk).post(f"/api/v1/infractions/{inf_id}/decision-notice/", {"acknowledged_on": today.isoformat()},
                              format="json")
    assert noticed.status_code == 200, noticed.content
    last_day = date.fromisoformat(noticed.json()["appeal_deadline"])
    assert enforcement_services.close_appeal_windows(last_day + timedelta(days=1)) == 1
    assert active_bar(applicant.cpf, today) is not None
    assert active_bar(CPF_CAROL, today) is not None
    # named again as an auxiliary in someone else's application: refused with the article
    r = api(outsider).post("/api/v1/applications/", payload("taxi", auxiliary_drivers=[_aux(CPF_CAROL, "Carol")]),
                           format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "cassation.bar"
    assert "art. 19, §4" in r.json()["rule"]["legal_basis"]


def test_arapora_termo_de_permissao_is_asked_on_renewal_not_on_a_new_bid(arapora, api, applicant):
    """Lei 724/2008 art. 9, I asks the Termo de Permissão for the alvará de condutor; on a new
    application the Termo does not exist yet (it is granted with the approval, art. 3 and 5)."""
    open_call("taxi")
    r = api(applicant).post("/api/v1/applications/", payload("taxi", auxiliaries=1), format="json")
    assert r.status_code == 201, r.json()
    codes = {d["code"].split(":")[0] for d in r.json()["required_documents"]}
    assert "termo_permissao" not in codes
    assert "cnh_d" in codes and "certidoes_criminais" in codes
    assert "termo_permissao" in {d["code"] for d in arapora.documents("taxi", "renewal", "holder")}
    assert "termo_permissao" in {d["code"] for d in arapora.documents("taxi", "renewal", "auxiliary")}


@pytest.mark.parametrize("field,value,error_field", [
    ("first_registration_date", 1, "vehicle.first_registration_date"),
    ("manufacture_year", 1, "vehicle.manufacture_year"),
    ("cnh_first_issued", 1, "driver.cnh_first_issued"),
])
def test_dates_in_the_future_are_refused(itagiba, api, applicant, field, value, error_field):
    """A first CRLV, a manufacture year or a first CNH in the future would make the vehicle's age
    (PL 015/2025 art. 13, II) or the time the CNH is held (art. 9, III) negative: 400, not a pass."""
    open_call("taxi")
    today = itagiba.today()
    future = {"first_registration_date": (today + timedelta(days=value)).isoformat(),
              "manufacture_year": today.year + value, "cnh_first_issued": (today + timedelta(days=value)).isoformat()}
    where = "driver" if field == "cnh_first_issued" else "vehicle"
    r = api(applicant).post("/api/v1/applications/", payload("taxi", **{where: {field: future[field]}}), format="json")
    assert r.status_code == 400 and error_field in r.json()["errors"], r.json()
    # today itself is fine
    ok = {"first_registration_date": today.isoformat(), "manufacture_year": today.year,
          "cnh_first_issued": None}[field]
    if ok is not None:
        r = api(applicant).post("/api/v1/applications/", payload("taxi", **{where: {field: ok}}), format="json")
        assert r.status_code == 201, r.json()


def test_a_current_holder_cannot_be_named_auxiliary_where_the_law_forbids_another_permission(
        itagiba, api, applicant, outsider, clerk, agent):
    """PL 015/2025 art. 9, VIII with §1: the auxiliary meets the holder's requirements (all but the
    vehicle), among them not holding another authorization."""
    open_call("taxi")
    _grant(api, applicant, clerk, agent)
    named = _aux(applicant.cpf, applicant.name)
    r = api(outsider).post("/api/v1/applications/", payload("taxi", auxiliary_drivers=[named]), format="json")
    assert r.status_code == 400, r.json()
    assert r.json()["rule"]["code"] == "grant.exclusive_public_permission"
    assert "art. 9, VIII" in r.json()["rule"]["legal_basis"]
    assert "auxiliary_drivers.1.cpf" in r.json()["errors"]
    # someone holding nothing may be named
    r = api(outsider).post("/api/v1/applications/", payload("taxi", auxiliary_drivers=[_aux(CPF_CAROL, "Carol")]),
                           format="json")
    assert r.status_code == 201, r.json()


def test_holder_of_a_grant_may_be_an_auxiliary_where_the_law_does_not_forbid_it(alegre, api, applicant, outsider,
                                                                               clerk, agent):
    """Lei 3.703/2022 has no exclusivity rule for auxiliaries (art. 3, II and III; art. 7, §1)."""
    open_call("taxi")
    _grant(api, applicant, clerk, agent)
    r = api(outsider).post("/api/v1/applications/",
                           payload("taxi", auxiliary_drivers=[_aux(applicant.cpf, applicant.name)]), format="json")
    assert r.status_code == 201, r.json()


@pytest.mark.parametrize("modality,category,expected", [
    ("taxi", "ACC", 400), ("mototaxi", "ACC", 400), ("taxi", "AB", 201), ("mototaxi", "AB", 201),
    ("taxi", "A", 400), ("mototaxi", "B", 400),
])
def test_cnh_category_acc_is_not_a_category(itagiba, api, applicant, modality, category, expected):
    """PL 015/2025 art. 9, III (B, C, D or E) and art. 10, III (A): the ACC of a moped rider is none of them."""
    open_call(modality)
    r = api(applicant).post("/api/v1/applications/", payload(modality, driver={"cnh_category": category}),
                            format="json")
    assert r.status_code == expected, r.json()
    if expected == 400:
        assert r.json()["rule"]["code"] == "driver.cnh_categories"


@pytest.mark.django_db
@pytest.mark.parametrize("day,next_period", [
    ("2027-01-29", None), ("2027-01-30", "de 01/01/2028 a 31/01/2028"), ("2026-12-31", "de 01/01/2027 a 29/01/2027"),
])
def test_itagiba_renewal_only_in_the_yearly_request_period(itagiba, api, applicant, monkeypatch, day, next_period):
    """PL 015/2025 art. 17: outorga *ou renovação* until the last business day of January
    (29/01/2027 is a Friday). Outside it, and with no call open, a renewal is refused."""
    from datetime import date as _date

    from django.utils import timezone

    from tests.factories import VehicleFactory, issue_authorization

    at = timezone.make_aware(datetime.combine(_date.fromisoformat(day), time(10)), itagiba.tz)
    monkeypatch.setattr(timezone, "now", lambda: at)
    vehicle = VehicleFactory(owner=applicant)
    issue_authorization(holder=applicant, vehicle=vehicle, valid_from=_date.fromisoformat(day) - timedelta(days=300))
    r = api(applicant).post("/api/v1/applications/", payload("taxi", kind="renewal", vehicle={"plate": vehicle.plate}),
                            format="json")
    if next_period:
        assert r.status_code == 400 and r.json()["rule"]["code"] == "renewal.window", r.json()
        assert r.json()["rule"]["legal_basis"].endswith("art. 17")
        assert next_period in r.json()["errors"]["kind"][0]
    else:
        assert r.status_code == 201, r.json()


@pytest.mark.django_db
def test_itagiba_renewal_while_a_call_is_open(itagiba, api, applicant):
    from tests.factories import VehicleFactory, backdate_issue, issue_authorization

    vehicle = VehicleFactory(owner=applicant)
    auth, _ = issue_authorization(holder=applicant, vehicle=vehicle)
    backdate_issue(auth, itagiba.today() - timedelta(days=300))
    open_call("taxi")
    r = api(applicant).post("/api/v1/applications/", payload("taxi", kind="renewal", vehicle={"plate": vehicle.plate}),
                            format="json")
    assert r.status_code == 201, r.json()


@pytest.mark.django_db
@pytest.mark.parametrize("days_left,ok", [(180, True), (181, False), (0, True), (-1, False)])
def test_alegre_renewal_only_in_the_window_before_the_end_of_the_term(alegre, api, applicant, days_left, ok):
    """Art. 27: prorrogação por igual período — asked from the pack's window before the end of
    the term (``renewal.window_days_before_expiry``) through its last day."""
    from licensing.grants.models import Authorization
    from tests.factories import VehicleFactory, backdate_issue, issue_authorization

    today = alegre.today()
    vehicle = VehicleFactory(owner=applicant)
    auth, _ = issue_authorization(holder=applicant, vehicle=vehicle)
    end = today + timedelta(days=days_left)
    Authorization.objects.filter(pk=auth.pk).update(valid_from=end.replace(year=end.year - 10), valid_until=end)
    backdate_issue(auth, end.replace(year=end.year - 10))
    r = api(applicant).post("/api/v1/applications/", payload("taxi", kind="renewal", vehicle={"plate": vehicle.plate}),
                            format="json")
    if ok:
        assert r.status_code == 201, r.json()
    else:
        assert r.status_code == 409 and r.json()["rule"] == {
            "code": "renewal.window", "legal_basis": alegre.basis("renewal.window_days_before_expiry", "taxi")}


@pytest.mark.django_db
def test_no_renewal_on_the_day_the_act_was_issued(alegre, api, applicant):
    from tests.factories import VehicleFactory, issue_authorization

    vehicle = VehicleFactory(owner=applicant)
    issue_authorization(holder=applicant, vehicle=vehicle)  # a 10-year act issued today
    r = api(applicant).post("/api/v1/applications/", payload("taxi", kind="renewal", vehicle={"plate": vehicle.plate}),
                            format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "renewal.too_early"


@pytest.mark.django_db
@pytest.mark.parametrize("renewals", [0, 1])
def test_arapora_permission_is_not_renewed(arapora, api, applicant, renewals):
    """Art. 3: a 4-year permission; a new one comes from a new bidding, never from a renewal."""
    from licensing.grants.models import Authorization
    from tests.factories import VehicleFactory, issue_authorization

    today = arapora.today()
    vehicle = VehicleFactory(owner=applicant, manufacture_year=today.year - 1)
    auth, _ = issue_authorization(holder=applicant, vehicle=vehicle, valid_from=today.replace(year=today.year - 4))
    Authorization.objects.filter(pk=auth.pk).update(renewals=renewals)
    open_call("taxi")
    r = api(applicant).post("/api/v1/applications/", payload("taxi", kind="renewal", vehicle={"plate": vehicle.plate}),
                            format="json")
    assert r.status_code == 409 and r.json()["rule"]["code"] == "grant.max_renewals"
    assert "art. 3" in r.json()["rule"]["legal_basis"] and "nova seleção" in str(r.json())


@pytest.mark.django_db
def test_auxiliary_sees_their_own_alvara_but_not_the_act_nor_the_holders_alvara(arapora, api, applicant, clerk, agent):
    """API.md: the act is for the holder and staff only; Araporã art. 9 gives each driver an alvará."""
    from licensing.models import Alvara

    open_call("taxi")
    app = create_and_submit(api, applicant, "taxi", auxiliaries=1)
    review_all_and_inspect(api, clerk, agent, app["id"])
    body = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/").json()
    auth_id = body["authorization"]["id"]
    own = Alvara.objects.get(authorization_id=auth_id, person__name="Auxiliar 1")
    holders = Alvara.objects.get(authorization_id=auth_id, person=applicant)
    auxiliary = own.person
    assert api(auxiliary).get(f"/api/v1/alvaras/{own.pk}/pdf").status_code == 200
    assert api(auxiliary).get(f"/api/v1/alvaras/{holders.pk}/pdf").status_code == 404
    assert api(auxiliary).get(f"/api/v1/authorizations/{auth_id}/act.pdf").status_code == 404
    assert api(applicant).get(f"/api/v1/authorizations/{auth_id}/act.pdf").status_code == 200
    assert api(applicant).get(f"/api/v1/alvaras/{own.pk}/pdf").status_code == 200


@pytest.mark.django_db
def test_clerk_accepts_the_checked_documents_in_one_action_all_or_none(alegre, api, web, applicant, outsider, clerk):
    from licensing.models import ApplicationDocument
    from portal.models import AuditEntry

    open_call("taxi")
    app = create_and_submit(api, applicant)
    docs = list(ApplicationDocument.objects.filter(application_id=app["id"]).order_by("id"))
    page = web(clerk).get(f"/requerimentos/{app['id']}/").content.decode()
    assert f'form="accept-many" name="documents" value="{docs[0].pk}"' in page
    assert f"{len(docs)} documentos em análise" in page
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/documents/accept/",
                        {"documents": [docs[0].pk, docs[1].pk]}, format="json")
    assert r.status_code == 200 and [d["status"] for d in r.json()["accepted"]] == ["accepted", "accepted"]
    assert AuditEntry.objects.filter(action="document_reviewed", to_state="accepted").count() == 2
    # one already reviewed: nothing of the batch is accepted, the message names it
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/documents/accept/",
                        {"documents": [docs[2].pk, docs[0].pk]}, format="json")
    assert r.status_code == 409 and "já foi analisado" in str(r.json())
    assert ApplicationDocument.objects.get(pk=docs[2].pk).status == "pending"
    other = create_and_submit(api, outsider)
    foreign = ApplicationDocument.objects.filter(application_id=other["id"]).first()
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/documents/accept/", {"documents": [foreign.pk]},
                        format="json")
    assert r.status_code == 400 and "documents" in r.json()["errors"]
    assert api(applicant).post(f"/api/v1/applications/{app['id']}/documents/accept/",
                               {"documents": [docs[3].pk]}, format="json").status_code == 403
    r = web(clerk).post(f"/atendimento/requerimentos/{app['id']}/documentos/aceitar/",
                        {"documents": [str(d.pk) for d in docs[2:]]}, follow=True)
    assert f"{len(docs) - 2} documentos aceitos" in r.content.decode()
    assert not ApplicationDocument.objects.filter(application_id=app["id"], status="pending").exists()
