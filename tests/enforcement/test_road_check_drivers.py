"""The agent's plate check recognises every registered driver of the vehicle: an auxiliary
included after the grant (on each pack, with what that pack issues them) and the preposto."""

from __future__ import annotations

from datetime import timedelta

import pytest

from licensing.grants.models import AlvaraStatus
from tests.conftest import make_user
from tests.licensing.requests.helpers import aux_data, decide, file, grant, new_cpf

pytestmark = pytest.mark.django_db


def _status(api, agent, auth, cpf):
    return api(agent).get(f"/api/v1/vehicles/{auth.vehicle.plate}/status/", {"driver_cpf": cpf}).json()


@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_included_auxiliary_is_recognised(load_pack, applicant, clerk, agent, api, slug):
    load_pack(slug)
    auth, _ = grant(applicant)
    cpf = new_cpf()
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cpf=cpf))
    assert r.status_code == 201, r.json()
    assert _status(api, agent, auth, cpf)["driver"]["authorized"] is False  # not yet granted
    assert decide(api, clerk, r.json()["id"]).status_code == 200
    status = _status(api, agent, auth, cpf)
    assert status["driver"] == {**status["driver"], "authorized": True, "role": "condutor auxiliar"}
    assert status["verdict"] == "autorizado", status["reasons"]
    assert "Condutor sem alvará ou cadastro nesta autorização." not in status["reasons"]


def test_arapora_registered_auxiliary_without_a_valid_alvara_is_named_as_such(arapora, applicant, clerk, agent, api):
    auth, _ = grant(applicant)
    cpf = new_cpf()
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cpf=cpf))
    decide(api, clerk, r.json()["id"])
    auth.alvaras.filter(person__cpf=cpf).update(valid_until=arapora.today() - timedelta(days=1))
    status = _status(api, agent, auth, cpf)
    assert status["driver"]["authorized"] is False and status["verdict"] == "irregular"
    assert any("cadastrado nesta autorização, mas sem alvará de condutor válido" in r for r in status["reasons"])
    assert auth.alvaras.filter(person__cpf=cpf, status=AlvaraStatus.ACTIVE).exists()


def test_alegre_preposto_is_recognised(alegre, applicant, clerk, agent, api):
    auth, _ = grant(applicant)
    preposto = make_user("preposto", "requerente", cpf=new_cpf(), name="Paulo Preposto")
    r = file(api, applicant, auth, "preposto", {"preposto_cpf": preposto.cpf, "permanent": True,
                                                "invalidity_on": (alegre.today() - timedelta(days=10)).isoformat(),
                                                "medical_report": "Laudo 12/2026, Dr. Silva"})
    assert r.status_code == 201, r.json()
    assert decide(api, clerk, r.json()["id"]).status_code == 200
    status = _status(api, agent, auth, preposto.cpf)
    assert status["driver"]["authorized"] is True and status["driver"]["role"] == "preposto", status
