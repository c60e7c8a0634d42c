"""Enforcement played from outside (token auth, JSON only) against the text of each law."""

from __future__ import annotations

from datetime import date

import pytest

from tests.test_api_contract import application_payload, client, run_grant, setup_pack, sign_up  # noqa: F401

pytestmark = pytest.mark.django_db

CPF_HOLDER = "39053344705"
CPF_AUX = "11144477735"


def _aux(cpf=CPF_AUX, name="Bob Auxiliar"):
    return {"cpf": cpf, "name": name, "birth_date": "1985-03-10", "cnh_number": "02650306461", "cnh_category": "B",
            "cnh_first_issued": date(date.today().year - 10, 1, 1).isoformat(), "cnh_ear": True}


def _issue(tokens, plate, code, occurred: date, **extra):
    r = client(tokens["agente"]).post("/api/v1/infractions/", {
        "plate": plate, "infraction_code": code, "occurred_at": f"{occurred.isoformat()}T10:00:00-03:00",
        "location": "Centro", "description": "Constatado pelo agente.", "driver_cpf": "", "alvara_retained": False,
        **extra}, format="json")
    assert r.status_code == 201, r.content
    return r.json()["id"]


def _notify(tokens, inf_id, on: date):
    r = client(tokens["atendente"]).post(f"/api/v1/infractions/{inf_id}/notify/",
                                         {"acknowledged_on": on.isoformat()}, format="json")
    assert r.status_code == 200, r.content
    return r.json()


def _judge(tokens, inf_id, upheld=True, holder_token=None):
    """Judge once the defense period is over or waived (here the holder waives it in writing), and
    record the notice of the decision, which opens the appeal period."""
    if holder_token:
        r = client(holder_token).post(f"/api/v1/infractions/{inf_id}/defense/waiver/",
                                      {"text": "Renuncio ao prazo de defesa."}, format="json")
        assert r.status_code == 201, r.content
    r = client(tokens["julgador"]).post(f"/api/v1/infractions/{inf_id}/judge/",
                                        {"upheld": upheld, "grounds": "Comprovado."}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    if body.get("decision_notice_pending"):
        n = client(tokens["atendente"]).post(f"/api/v1/infractions/{inf_id}/decision-notice/",
                                             {"acknowledged_on": date.today().isoformat()}, format="json")
        assert n.status_code == 200, n.content
        body["appeal_deadline"] = n.json()["appeal_deadline"]
    return body


def _appeal_denied(tokens, holder_token, inf_id):
    r = client(holder_token).post(f"/api/v1/infractions/{inf_id}/appeal/", {"text": "Recorro."}, format="json")
    assert r.status_code == 201, r.content
    same = client(tokens["julgador"]).post(f"/api/v1/infractions/{inf_id}/appeal/judge/",
                                           {"granted": False, "grounds": "Mantida."}, format="json")
    assert same.status_code == 409 and same.json()["rule"]["code"] == "same_judge_both_instances"
    r = client(tokens["julgador2"]).post(f"/api/v1/infractions/{inf_id}/appeal/judge/",
                                         {"granted": False, "grounds": "Mantida."}, format="json")
    assert r.status_code == 200, r.content
    return r.json()


def test_itagiba_cassation_bars_the_auxiliary_named_in_the_application(setup_pack):  # noqa: F811
    """PL 015/2025 art. 19, §4: the cassação bars the holder "e, em havendo, seu condutor auxiliar"
    for 60 months. Under this law the alvará is per vehicle, so the auxiliary has no alvará of
    their own: they are known from the application that was granted."""
    tokens = setup_pack("itagiba")
    bob = sign_up(CPF_AUX, "Bob Auxiliar")
    alice = sign_up(CPF_HOLDER, "Alice Taxista")
    _, ap = run_grant(tokens, alice, application_payload(aux=[_aux()]))
    assert ap.status_code == 200, ap.content
    # the grant began today: an auto answers to the grant in force when the infraction happened
    from tests.enforcement.helpers import at

    inf_id = _issue(tokens, "QRS1A23", "19-VII", date.today(), occurred_at=at(date.today()))
    _notify(tokens, inf_id, date.today())
    assert "cassation" in _judge(tokens, inf_id, holder_token=alice)["penalty"]["kinds"]
    assert _appeal_denied(tokens, alice, inf_id)["status"] == "final"
    again = client(bob).post("/api/v1/applications/", application_payload(plate="XYZ9Z99"), format="json")
    assert again.status_code == 400, again.content
    assert again.json()["rule"]["code"] == "cassation.bar" and "art. 19, §4" in again.json()["rule"]["legal_basis"]
