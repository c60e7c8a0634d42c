"""Each request end to end on each pack where it exists, and refused where the pack forbids it."""

from datetime import timedelta

import pytest

from licensing.grants.rules import add_years
from licensing.models import AlvaraStatus, AuthorizationStatus
from licensing.requests.models import (
    AuxiliaryDriver,
    AuxiliaryStatus,
    LeaveOfAbsence,
    LeaveStatus,
    Preposto,
    RequestStatus,
)
from licensing.requests.services import leaves_flag_overdue
from portal.models import AuditEntry, Notification
from tests.licensing.requests.helpers import (
    aux_data,
    decide,
    file,
    grant,
    inspect,
    new_holder_data,
    req,
    vehicle_data,
)

pytestmark = pytest.mark.django_db


# --- auxiliary drivers -------------------------------------------------------------------
def test_itagiba_auxiliary_add_reissues_the_vehicle_alvara_and_respects_the_limit(itagiba, applicant, clerk, api):
    auth, (old_alvara,) = grant(applicant)
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="B"))
    assert r.status_code == 201, r.json()
    assert r.json()["status"] == "filed" and r.json()["protocol"]
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200, d.json()
    assert d.json()["status"] == "approved"
    aux = AuxiliaryDriver.objects.get(authorization=auth)
    assert aux.status == AuxiliaryStatus.ACTIVE and aux.person.cpf
    old_alvara.refresh_from_db()
    assert old_alvara.status == AlvaraStatus.SUPERSEDED
    new = old_alvara.superseded_by
    assert new.status == AlvaraStatus.ACTIVE and d.json()["result"]["alvara"]["number"] == new.number
    second = file(api, applicant, auth, "auxiliary_add", aux_data())
    assert second.status_code == 409
    assert second.json()["rule"] == {"code": "auxiliary_limit", "legal_basis": "PL 015/2025 (Itagibá/BA), art. 4, §5"}


def test_itagiba_auxiliary_must_meet_the_holders_requirements(itagiba, applicant, api):
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="A", cnh_ear=False))
    assert r.status_code == 400
    assert "cnh_category" in r.json()["errors"] and "cnh_ear" in r.json()["errors"]


def test_arapora_auxiliary_gets_an_alvara_de_condutor(arapora, applicant, clerk, api):
    auth, alvaras = grant(applicant)
    assert len(alvaras) == 1
    r = file(api, applicant, auth, "auxiliary_add", aux_data())
    decide(api, clerk, r.json()["id"])
    aux = AuxiliaryDriver.objects.get(authorization=auth)
    aux_alvara = auth.alvaras.get(person=aux.person)
    assert aux_alvara.is_auxiliary and aux_alvara.status == AlvaraStatus.ACTIVE
    assert alvaras[0].__class__.objects.get(pk=alvaras[0].pk).status == AlvaraStatus.ACTIVE  # holder's untouched


def test_alegre_auxiliary_add_up_to_two(alegre, applicant, clerk, api):
    auth, _ = grant(applicant)
    for _ in range(2):
        r = file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="B"))
        assert r.status_code == 201, r.json()
    third = file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="B"))
    assert third.status_code == 409 and "art. 3, II" in third.json()["rule"]["legal_basis"]


def _with_auxiliary(api, applicant, clerk, auth):
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="D"))
    decide(api, clerk, r.json()["id"])
    return AuxiliaryDriver.objects.get(authorization=auth, status=AuxiliaryStatus.ACTIVE)


def test_itagiba_removal_reported_on_day_2_is_in_time(itagiba, applicant, clerk, api):
    auth, _ = grant(applicant)
    aux = _with_auxiliary(api, applicant, clerk, auth)
    left = itagiba.today() - timedelta(days=2)
    r = file(api, applicant, auth, "auxiliary_remove", {"auxiliary": aux.pk, "left_on": left.isoformat()})
    assert r.status_code == 201 and r.json()["late"] is False
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200
    aux.refresh_from_db()
    assert aux.status == AuxiliaryStatus.REMOVED and not aux.removal_late
    assert auth.alvaras.filter(status=AlvaraStatus.ACTIVE).count() == 1


def test_itagiba_removal_reported_on_day_3_is_late_recorded_and_the_clerk_told(itagiba, applicant, clerk, api):
    auth, _ = grant(applicant)
    aux = _with_auxiliary(api, applicant, clerk, auth)
    left = itagiba.today() - timedelta(days=3)
    r = file(api, applicant, auth, "auxiliary_remove", {"auxiliary": aux.pk, "left_on": left.isoformat()})
    assert r.status_code == 201
    body = r.json()
    assert body["late"] is True and "art. 19, §2" in body["late_note"] and "art. 12, I" in body["legal_basis"]
    assert AuditEntry.objects.filter(action="auxiliary_removal_late", object_id=str(body["id"])).exists()
    assert Notification.objects.filter(recipient=clerk, subject__icontains="fora do prazo").exists()
    decide(api, clerk, body["id"])
    aux.refresh_from_db()
    assert aux.status == AuxiliaryStatus.REMOVED and aux.removal_late


def test_arapora_removal_cancels_the_auxiliarys_alvara_without_deadline(arapora, applicant, clerk, api):
    auth, _ = grant(applicant)
    aux = _with_auxiliary(api, applicant, clerk, auth)
    r = file(api, applicant, auth, "auxiliary_remove",
             {"auxiliary": aux.pk, "left_on": (arapora.today() - timedelta(days=30)).isoformat()})
    assert r.json()["late"] is False
    decide(api, clerk, r.json()["id"])
    assert auth.alvaras.get(person=aux.person).status == AlvaraStatus.CANCELLED


# --- vehicle substitution -------------------------------------------------------------
def test_itagiba_substitution_needs_the_vistoria_then_supersedes_the_alvara(itagiba, applicant, clerk, agent, api):
    auth, (old_alvara,) = grant(applicant, manufacture_year=2020)
    r = file(api, applicant, auth, "substitution", {"ground": "newer", "vehicle": vehicle_data()})
    assert r.status_code == 201, r.json()
    rid = r.json()["id"]
    early = decide(api, clerk, rid)
    assert early.status_code == 409 and early.json()["rule"]["code"] == "substitution_inspection_required"
    partial = api(agent).post(f"/api/v1/requests/{rid}/inspection/", {"approved": True, "notes": "ok"}, format="json")
    assert partial.status_code == 400 and partial.json()["rule"]["code"] == "inspection.checklist_incomplete"
    assert "art. 13" in partial.json()["rule"]["legal_basis"] or "Anexo" in partial.json()["rule"]["legal_basis"]
    insp = inspect(api, agent, auth, rid)
    assert insp.status_code == 200 and insp.json()["inspection"]["approved"] is True
    d = decide(api, clerk, rid)
    assert d.status_code == 200, d.json()
    auth.refresh_from_db()
    old_alvara.refresh_from_db()
    assert auth.vehicle.plate == "QWE1R23"
    assert old_alvara.status == AlvaraStatus.SUPERSEDED
    assert old_alvara.superseded_by.vehicle.plate == "QWE1R23"
    assert AuditEntry.objects.filter(action="authorization_vehicle_substituted", object_id=str(auth.pk)).exists()


def test_itagiba_substitution_by_an_older_vehicle_is_refused(itagiba, applicant, api):
    auth, _ = grant(applicant, manufacture_year=2024)
    r = file(api, applicant, auth, "substitution", {"ground": "newer", "vehicle": vehicle_data(manufacture_year=2023)})
    assert r.status_code == 400 and r.json()["rule"]["legal_basis"] == "PL 015/2025 (Itagibá/BA), art. 15, I"


def test_itagiba_total_loss_needs_the_certificate(itagiba, applicant, api):
    auth, _ = grant(applicant, manufacture_year=2024)
    r = file(api, applicant, auth, "substitution", {"ground": "total_loss", "vehicle": vehicle_data(manufacture_year=2022)})
    assert r.status_code == 400 and r.json()["rule"]["code"] == "substitution_certificate_issuer"
    ok = file(api, applicant, auth, "substitution", {"ground": "total_loss", "certificate_issuer": "police",
                                                     "certificate_number": "BO 123/2026",
                                                     "vehicle": vehicle_data(manufacture_year=2022)})
    assert ok.status_code == 201, ok.json()


# --- leave ----------------------------------------------------------------------------
def test_arapora_leave_90_days_for_theft_keeps_the_grant(arapora, applicant, clerk, api):
    auth, _ = grant(applicant)
    start = arapora.today()
    r = file(api, applicant, auth, "leave", {"reason": "theft", "starts_on": start.isoformat(), "days": 90})
    assert r.status_code == 201, r.json()
    decide(api, clerk, r.json()["id"])
    leave = LeaveOfAbsence.objects.get(authorization=auth)
    assert leave.ends_on == start + timedelta(days=89) and leave.status == LeaveStatus.ACTIVE
    auth.refresh_from_db()
    assert auth.status == AuthorizationStatus.ACTIVE


@pytest.mark.parametrize("reason,days", [("theft", 91), ("accident", 91), ("substitution", 31)])
def test_arapora_leave_one_day_too_long_is_refused(arapora, applicant, api, reason, days):
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "leave", {"reason": reason, "starts_on": arapora.today().isoformat(), "days": days})
    assert r.status_code == 400
    assert r.json()["rule"]["code"] == "leave_too_long" and "art. 18" in r.json()["rule"]["legal_basis"]


def test_leave_not_provided_by_itagiba(itagiba, applicant, api):
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "leave", {"reason": "theft", "starts_on": itagiba.today().isoformat(), "days": 10})
    assert r.status_code == 400 and r.json()["rule"]["code"] == "leave_not_provided"


def test_overdue_leave_is_flagged_once_and_return_recorded(arapora, applicant, clerk, api):
    auth, _ = grant(applicant)
    start = arapora.today() - timedelta(days=100)
    r = file(api, applicant, auth, "leave", {"reason": "accident", "starts_on": start.isoformat(), "days": 90})
    decide(api, clerk, r.json()["id"])
    assert leaves_flag_overdue() == 1
    assert leaves_flag_overdue() == 0
    leave = LeaveOfAbsence.objects.get(authorization=auth)
    assert leave.status == LeaveStatus.OVERDUE
    assert Notification.objects.filter(recipient=applicant, subject__icontains="atraso").count() == 1
    back = api(applicant).post(f"/api/v1/leaves/{leave.pk}/return/", {}, format="json")
    assert back.status_code == 200 and back.json()["status"] == "returned"


# --- transfer -------------------------------------------------------------------------
def test_arapora_transfer_at_2_years_issues_a_new_term_and_cancels_the_old(arapora, applicant, outsider, clerk, api):
    today = arapora.today()
    auth, _ = grant(applicant, valid_from=add_years(today, -2))
    r = file(api, applicant, auth, "transfer", {"ground": "holder_years", "new_holder_cpf": outsider.cpf,
                                                **new_holder_data()})
    assert r.status_code == 201, r.json()
    assert r.json()["legal_basis"].endswith("art. 8, I")
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200, d.json()
    auth.refresh_from_db()
    assert auth.status == AuthorizationStatus.CANCELLED
    new = auth.__class__.objects.get(pk=d.json()["result"]["authorization"]["id"])
    assert new.holder == outsider and new.valid_until == auth.valid_until and new.status == AuthorizationStatus.ACTIVE
    assert new.alvaras.filter(person=outsider, status=AlvaraStatus.ACTIVE).exists()
    assert auth.alvaras.filter(status=AlvaraStatus.ACTIVE).count() == 0


def test_a_companys_permission_transfers_on_art_8_i_to_a_natural_person(arapora, applicant, outsider, clerk, api):
    """Art. 8, I: to "outro motorista profissional autônomo" — the successor is a natural person."""
    today = arapora.today()
    auth, _ = grant(applicant, valid_from=add_years(today, -2))
    auth.__class__.objects.filter(pk=auth.pk).update(holder_type="pj", company_name="Táxi Ltda", cnpj="11222333000181")
    r = file(api, applicant, auth, "transfer", {"ground": "holder_years", "new_holder_cpf": outsider.cpf,
                                                **new_holder_data()})
    assert r.status_code == 201, r.json()
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200, d.json()
    new = auth.__class__.objects.get(pk=d.json()["result"]["authorization"]["id"])
    assert (new.holder, new.holder_type, new.company_name, new.cnpj) == (outsider, "pf", "", "")


def test_arapora_transfer_at_1_year_364_days_is_refused(arapora, applicant, outsider, api):
    today = arapora.today()
    auth, _ = grant(applicant, valid_from=add_years(today, -2) + timedelta(days=1))
    r = file(api, applicant, auth, "transfer", {"ground": "holder_years", "new_holder_cpf": outsider.cpf})
    assert r.status_code == 409
    assert r.json()["rule"] == {"code": "transfer_min_years", "legal_basis": "Lei 724/2008 (Araporã/MG), art. 8, I"}


@pytest.mark.parametrize("days,status", [(120, 201), (121, 409)])
def test_arapora_heir_transfer_deadline(arapora, applicant, outsider, api, days, status):
    auth, _ = grant(applicant)
    event = arapora.today() - timedelta(days=days)
    r = file(api, applicant, auth, "transfer", {"ground": "death", "relationship": "heir", "event_on": event.isoformat(),
                                                "new_holder_cpf": outsider.cpf, **new_holder_data()})
    assert r.status_code == status, r.json()
    if status == 409:
        assert r.json()["rule"]["code"] == "transfer_heir_deadline"


@pytest.mark.parametrize("pack_fixture,basis", [
    ("alegre", "Lei 3.703/2022 (Alegre/ES), art. 14"),
    ("itagiba", "PL 015/2025 (Itagibá/BA), art. 4, §4; art. 5, I"),
])
def test_transfer_refused_where_the_pack_forbids_it(request, pack_fixture, basis, applicant, outsider, api):
    request.getfixturevalue(pack_fixture)
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "transfer", {"ground": "holder_years", "new_holder_cpf": outsider.cpf})
    assert r.status_code == 400
    assert r.json()["rule"] == {"code": "transfer_forbidden", "legal_basis": basis}


# --- preposto -------------------------------------------------------------------------
def test_alegre_preposto_on_permanent_invalidity(alegre, applicant, outsider, clerk, api):
    auth, _ = grant(applicant)
    data = {"preposto_cpf": outsider.cpf, "permanent": True, "invalidity_on": alegre.today().isoformat(),
            "medical_report": "Laudo 12/2026, Dr. X"}
    r = file(api, applicant, auth, "preposto", data)
    assert r.status_code == 201, r.json()
    assert r.json()["legal_basis"] == "Lei 3.703/2022 (Alegre/ES), art. 14, §1 e §2"
    decide(api, clerk, r.json()["id"])
    assert Preposto.objects.get(authorization=auth).person == outsider
    auth.refresh_from_db()
    assert auth.holder == applicant and auth.status == AuthorizationStatus.ACTIVE


def test_alegre_preposto_refused_without_permanent_invalidity(alegre, applicant, outsider, api):
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "preposto", {"preposto_cpf": outsider.cpf, "permanent": False,
                                                "invalidity_on": alegre.today().isoformat(), "medical_report": "x"})
    assert r.status_code == 400 and r.json()["rule"]["code"] == "preposto_permanent_only"


def test_preposto_not_provided_in_itagiba(itagiba, applicant, outsider, api):
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "preposto", {"preposto_cpf": outsider.cpf, "permanent": True,
                                                "invalidity_on": itagiba.today().isoformat(), "medical_report": "x"})
    assert r.status_code == 400 and r.json()["rule"]["code"] == "preposto_not_provided"


# --- renunciation ---------------------------------------------------------------------
def test_itagiba_renunciation_without_refund(itagiba, applicant, clerk, api):
    from licensing.fees.services import fee_mark_paid, tff_issue

    auth, (alvara,) = grant(applicant)
    fee = tff_issue(actor=clerk, authorization=auth)
    fee_mark_paid(actor=clerk, fee=fee)
    r = file(api, applicant, auth, "renunciation", {"reason": "Aposentadoria"})
    assert r.status_code == 201
    assert "art. 4, §7" in r.json()["data"]["fee_notice"]
    d = decide(api, clerk, r.json()["id"])
    assert d.status_code == 200
    auth.refresh_from_db()
    alvara.refresh_from_db()
    fee.refresh_from_db()
    assert auth.status == AuthorizationStatus.RENOUNCED and alvara.status == AlvaraStatus.CANCELLED
    assert fee.status == "paid"
    again = file(api, applicant, auth, "leave", {})
    assert again.status_code == 409


@pytest.mark.parametrize("slug", ["alegre", "arapora"])
def test_renunciation_exists_on_every_pack(load_pack, slug, applicant, clerk, api):
    load_pack(slug)
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "renunciation", {})
    decide(api, clerk, r.json()["id"])
    auth.refresh_from_db()
    assert auth.status == AuthorizationStatus.RENOUNCED


# --- decisions, scoping ---------------------------------------------------------------
def test_refusal_needs_a_reason_and_is_final(itagiba, applicant, clerk, api):
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "renunciation", {})
    rid = r.json()["id"]
    no_reason = decide(api, clerk, rid, approved=False)
    assert no_reason.status_code == 400 and "reason" in no_reason.json()["errors"]
    refused = decide(api, clerk, rid, approved=False, reason="Pedido feito por engano")
    assert refused.status_code == 200 and refused.json()["status"] == RequestStatus.REFUSED
    assert decide(api, clerk, rid).status_code == 409
    history = api(applicant).get(f"/api/v1/requests/{rid}/").json()["history"]
    assert [h["action"] for h in history] == ["lifecycle_request_filed", "lifecycle_request_decided"]


def test_a_holder_sees_only_their_own_requests(itagiba, applicant, outsider, clerk, api):
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "renunciation", {})
    rid = r.json()["id"]
    assert file(api, outsider, auth, "renunciation", {}).status_code == 404
    assert api(outsider).get(f"/api/v1/authorizations/{auth.pk}/requests/").status_code == 404
    assert api(outsider).get(f"/api/v1/requests/{rid}/").status_code == 404
    assert api(outsider).get("/api/v1/requests/").json()["count"] == 0
    assert api(applicant).get("/api/v1/requests/").json()["count"] == 1
    assert decide(api, applicant, rid).status_code == 403
    assert api(None).get("/api/v1/requests/").status_code == 401
    assert api(clerk).get("/api/v1/requests/?status=filed").json()["count"] == 1


def test_the_clerk_can_file_at_the_desk(itagiba, applicant, clerk, api):
    auth, _ = grant(applicant)
    r = file(api, clerk, auth, "renunciation", {})
    assert r.status_code == 201
    assert req(r.json()["id"]).filed_by == clerk


def test_overdue_job_task_records_its_run(arapora, applicant, clerk, api):
    from django.conf import settings

    from licensing.requests.tasks import leaves_flag_overdue_task
    from portal.models import JobRun

    auth, _ = grant(applicant)
    r = file(api, applicant, auth, "leave", {"reason": "substitution", "days": 30,
                                             "starts_on": (arapora.today() - timedelta(days=31)).isoformat()})
    decide(api, clerk, r.json()["id"])
    assert leaves_flag_overdue_task() == 1 and leaves_flag_overdue_task() == 0
    assert sorted(JobRun.objects.filter(name="leaves_flag_overdue").values_list("changed", flat=True)) == [0, 1]
    assert settings.CELERY_BEAT_SCHEDULE["leaves-flag-overdue"]["task"] == leaves_flag_overdue_task.name


@pytest.mark.parametrize("slug", ["alegre", "arapora"])
def test_substitution_where_the_law_lists_no_grounds_amends_the_act(load_pack, slug, applicant, clerk, api):
    pack = load_pack(slug)
    auth, alvaras = grant(applicant, manufacture_year=2023)
    doors = pack.value("vehicle.min_doors", "taxi")
    newer = pack.today().year - 1
    short = file(api, applicant, auth, "substitution", {"vehicle": vehicle_data(manufacture_year=newer, doors=doors - 1)})
    assert short.status_code == 400 and short.json()["rule"]["code"] == "vehicle.min_doors"
    assert short.json()["rule"]["legal_basis"] == pack.basis("vehicle.min_doors", "taxi")
    listed_nowhere = file(api, applicant, auth, "substitution",
                          {"ground": "newer", "vehicle": vehicle_data(manufacture_year=newer, doors=doors)})
    assert listed_nowhere.status_code == 400 and listed_nowhere.json()["rule"]["code"] == "substitution_ground"
    r = file(api, applicant, auth, "substitution", {"vehicle": vehicle_data(manufacture_year=newer, doors=doors)})
    assert r.status_code == 201, r.json()
    rid = r.json()["id"]
    inspect(api, clerk, auth, rid)
    assert decide(api, clerk, rid).status_code == 200
    auth.refresh_from_db()
    assert auth.vehicle.plate == "QWE1R23"
    for alvara in alvaras:  # a driver's alvará does not name the vehicle: it stays
        alvara.refresh_from_db()
        assert alvara.status == AlvaraStatus.ACTIVE


def test_substitute_vehicle_over_the_max_age_is_refused(arapora, applicant, api):
    auth, _ = grant(applicant)
    old_year = arapora.today().year - 6
    r = file(api, applicant, auth, "substitution", {"vehicle": vehicle_data(manufacture_year=old_year)})
    assert r.status_code == 400
    assert r.json()["rule"] == {"code": "vehicle.max_age_years",
                                "legal_basis": "Lei 724/2008 (Araporã/MG), art. 16, IV"}


@pytest.mark.parametrize("slug,kind,data,code", [
    ("alegre", "leave", {"reason": "theft", "starts_on": "2026-01-01", "days": 10}, "leave_not_provided"),
    ("arapora", "preposto", {"preposto_cpf": "", "permanent": True, "invalidity_on": "2026-01-01",
                             "medical_report": "x"}, "preposto_not_provided"),
])
def test_requests_the_pack_does_not_provide_are_refused(load_pack, slug, kind, data, code, applicant, api):
    load_pack(slug)
    auth, _ = grant(applicant)
    r = file(api, applicant, auth, kind, data)
    assert r.status_code == 400 and r.json()["rule"]["code"] == code


def test_alegre_auxiliary_removal_has_no_deadline(alegre, applicant, clerk, api):
    auth, _ = grant(applicant)
    aux = _with_auxiliary(api, applicant, clerk, auth)
    r = file(api, applicant, auth, "auxiliary_remove",
             {"auxiliary": aux.pk, "left_on": (alegre.today() - timedelta(days=40)).isoformat()})
    assert r.status_code == 201 and r.json()["late"] is False
    assert decide(api, clerk, r.json()["id"]).status_code == 200
    aux.refresh_from_db()
    assert aux.status == AuxiliaryStatus.REMOVED


# --- what the holder is offered ----------------------------------------------------------
def _offered(pack, auth) -> set[str]:
    from licensing.requests.services import request_kinds_available

    return {kind for kind, _ in request_kinds_available(pack, auth)}


def test_removal_and_reregistration_are_offered_only_with_an_active_auxiliary(alegre, applicant, clerk, api, web):
    auth, _ = grant(applicant)
    assert {"auxiliary_add", "renunciation"} <= _offered(alegre, auth)
    assert not {"auxiliary_remove", "aux_reregistration"} & _offered(alegre, auth)
    page = web(applicant).get("/minha-autorizacao/").content.decode()
    assert "Exclusão de condutor auxiliar" not in page and "Inclusão de condutor auxiliar" in page
    r = file(api, applicant, auth, "auxiliary_remove", {"auxiliary": 1, "left_on": alegre.today().isoformat()})
    assert r.status_code == 409 and r.json()["rule"]["code"] == "auxiliary_none"  # the service refuses it too
    form = web(applicant).get(f"/minha-autorizacao/{auth.pk}/pedidos/novo/auxiliary_remove/").content.decode()
    assert "não pode ser feito agora" in form and "não tem condutor auxiliar ativo" in form

    _with_auxiliary(api, applicant, clerk, auth)
    assert {"auxiliary_remove", "aux_reregistration"} <= _offered(alegre, auth)
    assert "Exclusão de condutor auxiliar" in web(applicant).get("/minha-autorizacao/").content.decode()


def test_a_request_already_in_analysis_is_not_offered_again(itagiba, applicant, api):
    auth, _ = grant(applicant)
    assert "renunciation" in _offered(itagiba, auth)
    assert file(api, applicant, auth, "renunciation", {"reason": "Mudança de cidade."}).status_code == 201
    assert "renunciation" not in _offered(itagiba, auth)
    again = file(api, applicant, auth, "renunciation", {"reason": "De novo."})
    assert again.status_code == 409


def test_no_second_leave_while_one_runs_and_no_auxiliary_beyond_the_limit(arapora, applicant, clerk, api):
    auth, _ = grant(applicant)
    assert "leave" in _offered(arapora, auth)
    r = file(api, applicant, auth, "leave", {"reason": "theft", "starts_on": arapora.today().isoformat(), "days": 10})
    decide(api, clerk, r.json()["id"])
    assert LeaveOfAbsence.objects.get(authorization=auth).status == LeaveStatus.ACTIVE
    assert "leave" not in _offered(arapora, auth)
    again = file(api, applicant, auth, "leave", {"reason": "accident", "starts_on": "", "days": ""})
    assert again.status_code == 409 and again.json()["rule"]["code"] == "leave_open"  # whatever the data


def test_auxiliary_add_is_not_offered_at_the_limit(itagiba, applicant, api):
    auth, _ = grant(applicant)
    assert file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="B")).status_code == 201  # 1 allowed
    assert "auxiliary_add" not in _offered(itagiba, auth)


def test_reregistration_of_two_auxiliaries_can_be_in_analysis_together(alegre, applicant, clerk, api):
    auth, _ = grant(applicant)
    _with_auxiliary(api, applicant, clerk, auth)
    decide(api, clerk, file(api, applicant, auth, "auxiliary_add", aux_data(cnh_category="D")).json()["id"])
    first, second = AuxiliaryDriver.objects.filter(authorization=auth, status=AuxiliaryStatus.ACTIVE).order_by("pk")
    docs = [d["code"] for d in alegre.documents("taxi", "renewal", applies_to="auxiliary")]
    r = file(api, applicant, auth, "aux_reregistration", {"auxiliary": first.pk, "documents": docs})
    assert r.status_code == 201, r.json()
    assert "aux_reregistration" in _offered(alegre, auth)  # the second one still can
    r = file(api, applicant, auth, "aux_reregistration", {"auxiliary": second.pk, "documents": docs})
    assert r.status_code == 201, r.json()
    assert "aux_reregistration" not in _offered(alegre, auth)


def test_arapora_transfer_checks_the_new_holder(arapora, applicant, outsider, api):
    """Art. 8: the new permissionário meets every condition — CNH "D" for 2 years (art. 4, §1, I),
    the documents, the vehicle (art. 16)."""
    today = arapora.today()
    auth, _ = grant(applicant, valid_from=add_years(today, -2))
    base = {"ground": "holder_years", "new_holder_cpf": outsider.cpf}
    r = file(api, applicant, auth, "transfer", {**base, **new_holder_data(new_holder_cnh_category="B")})
    assert r.status_code == 400 and r.json()["rule"] == {
        "code": "driver.cnh_categories", "legal_basis": "Lei 724/2008 (Araporã/MG), art. 4, §1, I; art. 9, II"}
    assert "new_holder_cnh_category" in r.json()["errors"]
    short = (add_years(today, -2) + timedelta(days=1)).isoformat()
    r = file(api, applicant, auth, "transfer", {**base, **new_holder_data(new_holder_cnh_first_issued=short)})
    assert r.status_code == 400 and r.json()["rule"]["code"] == "driver.cnh_min_years"
    r = file(api, applicant, auth, "transfer", {**base, **new_holder_data(documents=[])})
    assert r.status_code == 400 and "documents" in r.json()["errors"]
    auth.vehicle.doors = 3
    auth.vehicle.save()
    r = file(api, applicant, auth, "transfer", {**base, **new_holder_data()})
    assert r.status_code == 400 and r.json()["rule"]["code"] == "vehicle.min_doors"


def test_arapora_time_as_holder_counts_across_renewals(arapora, applicant, outsider, api):
    """Art. 8, I: two years as holder, counted from the first grant of a renewed permission."""
    from licensing.applications.models import Application

    today = arapora.today()
    first, _ = grant(applicant, valid_from=add_years(today, -2))
    first.status = AuthorizationStatus.EXPIRED
    first.save(update_fields=["status"])
    renewed, _ = grant(applicant, valid_from=today - timedelta(days=30))
    Application.objects.create(applicant=applicant, kind="renewal", modality="taxi", status="approved",
                               previous_authorization=first, authorization=renewed)
    r = file(api, applicant, renewed, "transfer", {"ground": "holder_years", "new_holder_cpf": outsider.cpf,
                                                   **new_holder_data()})
    assert r.status_code == 201, r.json()
