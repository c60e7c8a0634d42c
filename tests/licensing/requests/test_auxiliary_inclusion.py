"""An auxiliary driver included after the grant meets what one named in the application meets
(the holder's requirements, the documents, exclusivity), at the boundaries, on every pack."""

from __future__ import annotations

from datetime import timedelta

import pytest

from licensing.grants.rules import add_years
from tests.licensing.requests.helpers import aux_data, file, grant

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_inclusion_needs_the_documents_of_the_application(load_pack, applicant, api, slug):
    load_pack(slug)
    auth, _ = grant(applicant)
    missing = file(api, applicant, auth, "auxiliary_add", {**aux_data(), "documents": aux_data()["documents"][1:]})
    assert missing.status_code == 400 and "documents" in missing.json()["errors"]
    assert file(api, applicant, auth, "auxiliary_add", aux_data()).status_code == 201


def test_itagiba_holder_of_another_grant_cannot_be_included(itagiba, applicant, api):
    auth, _ = grant(applicant)
    other, _ = grant()
    r = file(api, applicant, auth, "auxiliary_add", aux_data(cpf=other.holder.cpf))
    assert r.status_code == 400
    assert r.json()["rule"] == {"code": "grant.exclusive_public_permission",
                                "legal_basis": "PL 015/2025 (Itagibá/BA), art. 9, VIII; art. 10, VIII"}


def test_itagiba_minimum_age_at_inclusion(itagiba, applicant, api):
    today = itagiba.today()
    auth, _ = grant(applicant)
    young = file(api, applicant, auth, "auxiliary_add",
                 aux_data(birth_date=(add_years(today, -21) + timedelta(days=1)).isoformat(),
                          cnh_first_issued=add_years(today, -2).isoformat()))
    assert young.status_code == 400 and young.json()["rule"]["code"] == "driver.min_age"
    ok = file(api, applicant, auth, "auxiliary_add",
              aux_data(birth_date=add_years(today, -21).isoformat(), cnh_first_issued=add_years(today, -2).isoformat()))
    assert ok.status_code == 201, ok.json()


def test_arapora_cnh_years_at_inclusion(arapora, applicant, api):
    today = arapora.today()
    auth, _ = grant(applicant)
    short = file(api, applicant, auth, "auxiliary_add",
                 aux_data(cnh_first_issued=(add_years(today, -2) + timedelta(days=1)).isoformat()))
    assert short.status_code == 400 and short.json()["rule"] == {
        "code": "driver.cnh_min_years", "legal_basis": "Lei 724/2008 (Araporã/MG), art. 4, §1, I; art. 9, II"}
    assert file(api, applicant, auth, "auxiliary_add",
                aux_data(cnh_first_issued=add_years(today, -2).isoformat())).status_code == 201


@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_implausible_dates_are_refused_naming_the_field(load_pack, applicant, api, slug):
    pack = load_pack(slug)
    today = pack.today()
    auth, _ = grant(applicant)
    # first CNH one day before the 18th birthday
    r = file(api, applicant, auth, "auxiliary_add",
             aux_data(birth_date="1990-05-10", cnh_first_issued="2008-05-09"))
    assert r.status_code == 400 and "cnh_first_issued" in r.json()["errors"]
    assert "18 anos" in r.json()["errors"]["cnh_first_issued"][0]
    r = file(api, applicant, auth, "auxiliary_add", aux_data(birth_date=(today + timedelta(days=1)).isoformat()))
    assert r.status_code == 400 and "birth_date" in r.json()["errors"]
    r = file(api, applicant, auth, "auxiliary_add", aux_data(birth_date=(add_years(today, -18) + timedelta(days=1))
                                                             .isoformat(), cnh_first_issued=None))
    assert r.status_code == 400 and "birth_date" in r.json()["errors"]
    ok = file(api, applicant, auth, "auxiliary_add", aux_data(birth_date="1990-05-10", cnh_first_issued="2010-05-10"))
    assert ok.status_code == 201, ok.json()
