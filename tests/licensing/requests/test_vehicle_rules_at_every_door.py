"""One set of vehicle rules (fleet.rules.vehicle_violations) at every door: the substitute
vehicle and the yearly proof of requirements are judged by the entry rules of each pack, at
their boundaries, each refusal with its article."""

from __future__ import annotations

from datetime import timedelta

import pytest

from licensing.grants.rules import add_years
from tests.licensing.requests.helpers import file, grant, vehicle_data

pytestmark = pytest.mark.django_db


def _substitute(pack, **kw) -> dict:
    """A substitute that meets every rule of the pack's taxi (one field changed by ``kw``)."""
    today = pack.today()
    data = vehicle_data(manufacture_year=today.year, first_registration_date=today.isoformat(),
                        doors=pack.value("vehicle.min_doors", "taxi") or 4, seats=5, engine_cc=1300, color="branca")
    data.update(kw)
    return data


def _sub(api, applicant, auth, pack, **kw):
    ground = {"ground": "newer"} if pack.value("substitution.grounds", "taxi") else {}
    return file(api, applicant, auth, "substitution", {**ground, "vehicle": _substitute(pack, **kw)})


@pytest.mark.parametrize("slug,field,ok,bad,article", [
    ("itagiba", "doors", 4, 3, "PL 015/2025 (Itagibá/BA), art. 13, IV"),
    ("itagiba", "seats", 5, 4, "PL 015/2025 (Itagibá/BA), art. 13, V"),
    ("itagiba", "seats", 7, 8, "PL 015/2025 (Itagibá/BA), art. 13, V; art. 3, IV"),
    ("itagiba", "engine_cc", 1000, 999, "PL 015/2025 (Itagibá/BA), art. 13, VI"),
    ("itagiba", "color", "branco", "preta", "PL 015/2025 (Itagibá/BA), art. 13, III; Anexo IV"),
    ("alegre", "doors", 5, 4, "Lei 3.703/2022 (Alegre/ES), art. 9, I"),
    ("alegre", "seats", 8, 9, "Lei 3.703/2022 (Alegre/ES), art. 3, I"),
    ("arapora", "doors", 4, 3, "Lei 724/2008 (Araporã/MG), art. 16, V"),
    ("arapora", "color", "branca", "prata", "Lei 724/2008 (Araporã/MG), art. 16, I"),
])
def test_substitute_vehicle_meets_the_entry_rules(load_pack, applicant, api, slug, field, ok, bad, article):
    pack = load_pack(slug)
    auth, _ = grant(applicant, manufacture_year=pack.today().year - 3)
    refused = _sub(api, applicant, auth, pack, **{field: bad})
    assert refused.status_code == 400, refused.json()
    assert refused.json()["rule"]["legal_basis"] == article
    assert f"vehicle_{field}" in refused.json()["errors"]
    accepted = _sub(api, applicant, auth, pack, **{field: ok})
    assert accepted.status_code == 201, accepted.json()


def test_itagiba_substitute_age_counts_from_the_first_crlv(itagiba, applicant, api):
    today = itagiba.today()
    auth, _ = grant(applicant, manufacture_year=2010, first_registration_date=add_years(today, -9))
    eight = (add_years(today, -9) + timedelta(days=1)).isoformat()  # 8 years: the maximum, admitted
    nine = add_years(today, -9).isoformat()
    refused = _sub(api, applicant, auth, itagiba, manufacture_year=2011, first_registration_date=nine)
    assert refused.status_code == 400 and refused.json()["rule"] == {
        "code": "vehicle.max_age_years", "legal_basis": "PL 015/2025 (Itagibá/BA), art. 13, II; art. 14, II"}
    accepted = _sub(api, applicant, auth, itagiba, manufacture_year=2011, first_registration_date=eight)
    assert accepted.status_code == 201, accepted.json()


@pytest.mark.parametrize("slug,max_age", [("alegre", 7), ("arapora", 5)])
def test_substitute_age_by_manufacture_year(load_pack, applicant, api, slug, max_age):
    pack = load_pack(slug)
    year = pack.today().year
    auth, _ = grant(applicant, manufacture_year=year - max_age - 3)
    refused = _sub(api, applicant, auth, pack, manufacture_year=year - max_age - 1)
    assert refused.status_code == 400 and refused.json()["rule"]["code"] == "vehicle.max_age_years"
    assert _sub(api, applicant, auth, pack, manufacture_year=year - max_age).status_code == 201


def test_itagiba_ground_max_age_needs_the_current_vehicle_at_the_maximum(itagiba, applicant, api):
    today = itagiba.today()
    young, _ = grant(applicant, manufacture_year=2018, first_registration_date=add_years(today, -8) + timedelta(days=1))
    r = file(api, applicant, young, "substitution", {"ground": "max_age", "vehicle": _substitute(itagiba)})
    assert r.status_code == 400 and r.json()["rule"] == {"code": "substitution_not_at_max_age",
                                                         "legal_basis": "PL 015/2025 (Itagibá/BA), art. 15, II"}
    young.vehicle.first_registration_date = add_years(today, -8)  # 8 years today: reached, still admitted
    young.vehicle.save()
    r = file(api, applicant, young, "substitution", {"ground": "max_age", "vehicle": _substitute(itagiba)})
    assert r.status_code == 201, r.json()
    assert r.json()["legal_basis"] == "PL 015/2025 (Itagibá/BA), art. 15, II"


def test_itagiba_only_the_grounds_of_the_law(itagiba, applicant, api):
    auth, _ = grant(applicant, manufacture_year=2020)
    r = file(api, applicant, auth, "substitution", {"ground": "whim", "vehicle": _substitute(itagiba)})
    assert r.status_code == 400 and r.json()["rule"] == {"code": "substitution_ground",
                                                         "legal_basis": "PL 015/2025 (Itagibá/BA), art. 15"}


def test_substitute_with_dates_in_the_future_is_refused(itagiba, applicant, api):
    auth, _ = grant(applicant, manufacture_year=2020)
    today = itagiba.today()
    r = _sub(api, applicant, auth, itagiba, first_registration_date=(today + timedelta(days=1)).isoformat())
    assert r.status_code == 400 and "vehicle_first_registration_date" in r.json()["errors"]
    r = _sub(api, applicant, auth, itagiba, manufacture_year=today.year + 1)
    assert r.status_code == 400 and "vehicle_manufacture_year" in r.json()["errors"]


def test_arapora_yearly_proof_checks_the_vehicle(arapora, applicant, api):
    today = arapora.today()
    docs = [d["code"] for d in arapora.documents("taxi", "renewal", applies_to="holder")]
    auth, _ = grant(applicant, valid_from=add_years(today + timedelta(days=1), -1), manufacture_year=today.year - 6)
    r = file(api, applicant, auth, "compliance_proof", {"documents": docs})
    assert r.status_code == 400 and r.json()["rule"] == {"code": "vehicle.max_age_years",
                                                         "legal_basis": "Lei 724/2008 (Araporã/MG), art. 16, IV"}
    auth.vehicle.manufacture_year = today.year - 5
    auth.vehicle.save()
    assert file(api, applicant, auth, "compliance_proof", {"documents": docs}).status_code == 201
