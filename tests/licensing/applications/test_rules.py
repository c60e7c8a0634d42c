"""Every entry rule at its boundaries, per pack, with the article it cites."""

from datetime import date, timedelta

import pytest

from fleet import rules as fleet_rules
from licensing.applications import rules
from portal.regulation import Param
from tests.licensing.applications.helpers import open_call, payload

TODAY = date(2026, 6, 15)


def codes(violations):
    return [v.code for v in violations]


@pytest.mark.django_db
def test_driver_age_21_itagiba(itagiba):
    p = itagiba.param("driver.min_age", "taxi")
    assert codes(rules.driver_age(date(2005, 6, 16), TODAY, p)) == ["driver.min_age"]  # 20 years, 364 days
    assert rules.driver_age(date(2005, 6, 15), TODAY, p) == []  # 21 today
    v = rules.driver_age(date(2005, 6, 16), TODAY, p)[0]
    assert "art. 9, I" in v.legal_basis and "20 anos" in v.message


@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["itagiba", "arapora"])
def test_cnh_two_years(slug, load_pack):
    pack = load_pack(slug)
    p = pack.param("driver.cnh_min_years", "taxi")
    one_year_364 = TODAY - timedelta(days=365 + 364)
    assert codes(rules.cnh_years(one_year_364, TODAY, p)) == ["driver.cnh_min_years"]
    assert rules.cnh_years(date(2024, 6, 15), TODAY, p) == []
    assert rules.cnh_years(date(2024, 6, 16), TODAY, p) != []


@pytest.mark.django_db
def test_alegre_has_no_cnh_years_rule(alegre):
    assert rules.cnh_years(TODAY, TODAY, alegre.param("driver.cnh_min_years", "taxi")) == []


@pytest.mark.django_db
def test_cnh_category_per_modality(itagiba):
    taxi = itagiba.param("driver.cnh_categories", "taxi")
    moto = itagiba.param("driver.cnh_categories", "mototaxi")
    assert rules.cnh_category("B", taxi) == [] and rules.cnh_category("AB", taxi) == []
    assert codes(rules.cnh_category("A", taxi)) == ["driver.cnh_categories"]
    assert rules.cnh_category("A", moto) == [] and codes(rules.cnh_category("B", moto)) == ["driver.cnh_categories"]
    assert "art. 10, III" in rules.cnh_category("B", moto)[0].legal_basis
    ear = itagiba.param("driver.ear_required", "taxi")
    assert codes(rules.cnh_ear(False, ear)) == ["driver.ear_required"] and rules.cnh_ear(True, ear) == []


@pytest.mark.django_db
@pytest.mark.parametrize("slug,ok_age,article", [("alegre", 7, "art. 9"), ("arapora", 5, "art. 16, IV")])
def test_vehicle_age_by_manufacture_year(slug, ok_age, article, load_pack):
    pack = load_pack(slug)
    basis, max_age = pack.param("vehicle.age_basis", "taxi"), pack.param("vehicle.max_age_years", "taxi")
    assert fleet_rules.vehicle_age(TODAY.year - ok_age, None, TODAY, basis, max_age) == []
    too_old = fleet_rules.vehicle_age(TODAY.year - ok_age - 1, None, TODAY, basis, max_age)
    assert codes(too_old) == ["vehicle.max_age_years"] and article in too_old[0].legal_basis


@pytest.mark.django_db
def test_vehicle_age_by_first_registration_itagiba(itagiba):
    basis, max_age = itagiba.param("vehicle.age_basis", "taxi"), itagiba.param("vehicle.max_age_years", "taxi")
    assert fleet_rules.vehicle_age(2000, date(2018, 6, 15), TODAY, basis, max_age) == []  # exactly 8 full years
    assert fleet_rules.vehicle_age(2000, date(2017, 6, 16), TODAY, basis, max_age) == []  # 8 years 364 days
    assert codes(fleet_rules.vehicle_age(2000, date(2017, 6, 15), TODAY, basis, max_age)) == ["vehicle.max_age_years"]
    assert codes(fleet_rules.vehicle_age(2020, None, TODAY, basis, max_age)) == ["vehicle.max_age_years"]


@pytest.mark.django_db
def test_doors_seats_cc_colour(itagiba):
    t = "taxi"
    assert codes(fleet_rules.vehicle_doors(3, itagiba.param("vehicle.min_doors", t))) == ["vehicle.min_doors"]
    assert fleet_rules.vehicle_doors(4, itagiba.param("vehicle.min_doors", t)) == []
    seats = (itagiba.param("vehicle.min_seats", t), itagiba.param("vehicle.max_seats", t))
    assert codes(fleet_rules.vehicle_seats(4, *seats)) == ["vehicle.min_seats"]
    assert fleet_rules.vehicle_seats(5, *seats) == [] and fleet_rules.vehicle_seats(7, *seats) == []
    assert codes(fleet_rules.vehicle_seats(8, *seats)) == ["vehicle.max_seats"]
    assert codes(fleet_rules.vehicle_engine(999, itagiba.param("vehicle.min_engine_cc", t))) == ["vehicle.min_engine_cc"]
    assert fleet_rules.vehicle_engine(1000, itagiba.param("vehicle.min_engine_cc", t)) == []
    assert fleet_rules.vehicle_engine(125, itagiba.param("vehicle.min_engine_cc", "mototaxi")) == []
    assert codes(fleet_rules.vehicle_engine(124, itagiba.param("vehicle.min_engine_cc", "mototaxi"))) == ["vehicle.min_engine_cc"]
    colors = itagiba.param("vehicle.colors", t)
    assert fleet_rules.vehicle_color("Branca", colors) == [] and fleet_rules.vehicle_color("BRANCO", colors) == []
    assert codes(fleet_rules.vehicle_color("prata", colors)) == ["vehicle.colors"]
    assert fleet_rules.vehicle_color("amarela", itagiba.param("vehicle.colors", "mototaxi")) == []


@pytest.mark.django_db
@pytest.mark.parametrize("slug,limit", [("alegre", 2), ("itagiba", 1)])
def test_auxiliary_limit(slug, limit, load_pack):
    p = load_pack(slug).param("auxiliary.max", "taxi")
    assert rules.auxiliary_count(limit, p) == []
    assert codes(rules.auxiliary_count(limit + 1, p)) == ["auxiliary.max"]


@pytest.mark.django_db
def test_one_grant_per_person(alegre):
    p = alegre.param("grant.max_per_holder", "taxi")
    assert rules.one_grant_per_person(0, 0, p) == []
    assert codes(rules.one_grant_per_person(1, 0, p)) == ["grant.max_per_holder"]
    assert codes(rules.one_grant_per_person(0, 1, p)) == ["grant.max_per_holder"]
    assert "art. 12" in rules.one_grant_per_person(1, 0, p)[0].legal_basis


def test_quota_slots_and_full():
    assert rules.quota_available(36, 35, "art. 10") == []
    full = rules.quota_available(36, 36, "art. 10")
    assert full[0].conflict and full[0].code == "quota.full"
    assert rules.quota_available(None, 999, "") == []


def test_ranking_itagiba_order():
    from datetime import datetime

    crit = ["renewal_first", "cnh_years_desc", "vehicle_newer", "cnh_points_asc", "schooling_desc", "dependents_desc"]
    t = datetime(2026, 1, 5)

    def e(key, **kw):
        base = dict(key=key, renewal=False, cnh_years=5, vehicle_year=2020, cnh_points=0, schooling=4, dependents=1,
                    bid=None, submitted_at=t)
        return rules.RankingEntry(**{**base, **kw})

    entries = [e("a"), e("b", renewal=True, cnh_years=1), e("c", cnh_years=9), e("d", vehicle_year=2024),
               e("e", dependents=3), e("f", cnh_points=5)]
    assert [x.key for x in rules.rank(entries, crit)] == ["b", "c", "d", "e", "a", "f"]
    bids = [e("x", bid=100), e("y", bid=300), e("z", bid=200)]
    assert [x.key for x in rules.rank(bids, ["bid_desc"])] == ["y", "z", "x"]


# --- the same rules through the API, with the article in the answer --------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("slug,modality,field,value,code", [
    ("alegre", "taxi", "manufacture_year", 8, "vehicle.max_age_years"),
    ("arapora", "taxi", "manufacture_year", 6, "vehicle.max_age_years"),
    ("arapora", "taxi", "color", "prata", "vehicle.colors"),
    ("alegre", "taxi", "doors", 4, "vehicle.min_doors"),
    ("itagiba", "taxi", "engine_cc", 999, "vehicle.min_engine_cc"),
])
def test_api_vehicle_rules(slug, modality, field, value, code, load_pack, api, applicant):
    pack = load_pack(slug)
    open_call(modality)
    vehicle = {field: pack.today().year - value if field == "manufacture_year" else value}
    r = api(applicant).post("/api/v1/applications/", payload(modality, vehicle=vehicle), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == code
    assert r.json()["rule"]["legal_basis"] == pack.basis(code, modality)
    ok = {field: pack.today().year - value + 1} if field == "manufacture_year" else None
    if ok:
        assert api(applicant).post("/api/v1/applications/", payload(modality, vehicle=ok), format="json").status_code == 201


@pytest.mark.django_db
@pytest.mark.parametrize("slug,limit", [("alegre", 2), ("itagiba", 1)])
def test_api_auxiliary_boundary(slug, limit, load_pack, api, applicant):
    load_pack(slug)
    open_call("taxi")
    r = api(applicant).post("/api/v1/applications/", payload("taxi", auxiliaries=limit + 1), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "auxiliary.max"
    assert api(applicant).post("/api/v1/applications/", payload("taxi", auxiliaries=limit), format="json").status_code == 201


@pytest.mark.django_db
def test_api_driver_age_and_cnh(itagiba, api, applicant):
    open_call("taxi")
    today = itagiba.today()
    applicant.birth_date = today.replace(year=today.year - 21) + timedelta(days=1)
    applicant.save()
    two_years = today.replace(year=today.year - 2).isoformat()  # a CNH issued after the 18th birthday
    r = api(applicant).post("/api/v1/applications/", payload("taxi", driver={"cnh_first_issued": two_years}),
                            format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "driver.min_age"
    applicant.birth_date = today.replace(year=today.year - 21)
    applicant.save()
    recent = (today - timedelta(days=365 + 364)).isoformat()
    r = api(applicant).post("/api/v1/applications/", payload("taxi", driver={"cnh_first_issued": recent}), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "driver.cnh_min_years"
    r = api(applicant).post("/api/v1/applications/", payload("taxi", driver={"cnh_ear": False,
                                                                            "cnh_first_issued": two_years}),
                            format="json")
    assert r.status_code == 400 and "driver.cnh_ear" in r.json()["errors"]
    # a 21-year-old whose first CNH would be 10 years old: issued at 11, refused naming the field
    r = api(applicant).post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 400 and "18 anos" in r.json()["errors"]["driver.cnh_first_issued"][0]
    assert api(applicant).post("/api/v1/applications/", payload("taxi", driver={"cnh_first_issued": two_years}),
                               format="json").status_code == 201


@pytest.mark.django_db
def test_api_one_grant(alegre, api, applicant):
    from tests.factories import issue_authorization

    open_call("taxi")
    issue_authorization(holder=applicant)
    r = api(applicant).post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "grant.max_per_holder"


@pytest.mark.django_db
def test_api_cassation_bar(alegre, api, applicant):
    from licensing.grants.services import grant_bar_create

    open_call("taxi")
    grant_bar_create(actor=None, person=applicant, until=alegre.today() + timedelta(days=30), reason="Cassação",
                     legal_basis="Lei 3.703/2022 (Alegre/ES), art. 24")
    r = api(applicant).post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "cassation.bar"
    assert r.json()["rule"]["legal_basis"].endswith("art. 24")


@pytest.mark.django_db
def test_api_bidding_needs_offer(arapora, api, applicant):
    open_call("taxi", min_bid=1000)
    r = api(applicant).post("/api/v1/applications/", payload("taxi", bid_amount=None), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "selection.bid"
    r = api(applicant).post("/api/v1/applications/", payload("taxi", bid_amount="999.99"), format="json")
    assert r.status_code == 400 and "bid_amount" in r.json()["errors"]
    assert api(applicant).post("/api/v1/applications/", payload("taxi"), format="json").status_code == 201


@pytest.mark.django_db
def test_api_field_errors_are_flat_and_portuguese(alegre, api, applicant):
    open_call("taxi")
    r = api(applicant).post("/api/v1/applications/", payload("taxi", vehicle={"plate": "XX", "renavam": "123"}),
                            format="json")
    assert r.status_code == 400
    assert "Placa" in r.json()["errors"]["vehicle.plate"][0] and "RENAVAM" in r.json()["errors"]["vehicle.renavam"][0]


@pytest.mark.django_db
def test_mototaxi_refused_where_pack_has_none(arapora, api, applicant):
    r = api(applicant).post("/api/v1/applications/", payload("mototaxi"), format="json")
    assert r.status_code == 400 and "modality" in r.json()["errors"]


@pytest.mark.django_db
def test_api_one_grant_counts_filed_requests_not_drafts(alegre, api, applicant):
    from tests.licensing.applications.helpers import create_and_submit

    open_call("taxi")
    assert api(applicant).post("/api/v1/applications/", payload("taxi"), format="json").status_code == 201  # draft
    create_and_submit(api, applicant)  # a second draft may still be filed: the first is not a request yet
    r = api(applicant).post("/api/v1/applications/", payload("taxi"), format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "grant.max_per_holder"


def test_renewal_window_only_where_the_law_sets_it():
    p = Param("renewal.in_request_window", True, "Lei X, art. 17", date(2000, 1, 1))
    window = (date(2027, 1, 1), date(2027, 1, 29))
    assert rules.renewal_window(True, p, "Táxi", window) == []
    v = rules.renewal_window(False, p, "Táxi", window)
    assert codes(v) == ["renewal.window"] and v[0].legal_basis == "Lei X, art. 17" and "29/01/2027" in v[0].message
    assert rules.renewal_window(False, None, "Táxi", window) == []
    assert rules.renewal_window(False, Param("renewal.in_request_window", False, "b", date(2000, 1, 1)), "Táxi",
                                window) == []


def test_ranking_places_renewals_keep_their_own_place():
    """Itagibá art. 17 §6: renewals first, and they do not take one of the free places."""
    from types import SimpleNamespace

    from licensing.applications.selectors import Ranking

    def entry(pk, renewal):
        return rules.RankingEntry(SimpleNamespace(pk=pk), renewal, 5, 2024, None, None, None, None, None)

    ranking = Ranking("taxi", ["renewal_first"], [entry(1, True), entry(2, False), entry(3, False)], 5, 4, 1, "b")
    assert ranking.new_requests == 2 and ranking.exceeds
    assert [ranking.within(i) for i in (1, 2, 3)] == [True, True, False]
    assert ranking.position_of(3) == 3 and ranking.position_of(9) is None
    roomy = Ranking("taxi", [], ranking.entries, 6, 4, 2, "b")
    assert not roomy.exceeds and all(roomy.within(i) for i in (1, 2, 3))


def test_renewal_extends_the_term_by_an_equal_period_where_the_law_says_so():
    """Lei 3.703/2022 art. 27 style: "prazo de 10 anos, podendo ser prorrogado por igual período"."""
    extends = Param("renewal.extends_term", True, "Lei X, art. 27", date(2000, 1, 1))
    today = date(2036, 3, 1)
    assert rules.renewal_valid_until(date(2036, 5, 31), today, 10, extends) == date(2046, 5, 31)
    assert rules.renewal_valid_until(date(2036, 2, 29), today, 10, extends) == date(2046, 2, 28)  # ended yesterday
    assert rules.renewal_valid_until(date(2035, 1, 31), today, 10, extends) == date(2046, 2, 28)  # lapsed: from today
    assert rules.renewal_valid_until(date(2036, 5, 31), today, 10, None) is None
