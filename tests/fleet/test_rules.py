"""Vehicle rules (fleet.rules) at their boundaries for each pack."""

from datetime import date

import pytest

from fleet import rules

TODAY = date(2026, 6, 15)


@pytest.mark.django_db
@pytest.mark.parametrize("slug,max_age", [("alegre", 7), ("itagiba", 8), ("arapora", 5)])
def test_age_equal_to_max_allowed_one_more_refused(slug, max_age, load_pack):
    pack = load_pack(slug)
    basis, limit = pack.param("vehicle.age_basis", "taxi"), pack.param("vehicle.max_age_years", "taxi")
    assert limit.value == max_age
    ok_reg = TODAY.replace(year=TODAY.year - max_age)
    old_reg = TODAY.replace(year=TODAY.year - max_age - 1)
    assert rules.vehicle_age(TODAY.year - max_age, ok_reg, TODAY, basis, limit) == []
    refused = rules.vehicle_age(TODAY.year - max_age - 1, old_reg, TODAY, basis, limit)
    assert [v.code for v in refused] == ["vehicle.max_age_years"] and refused[0].legal_basis == limit.legal_basis


def test_colour_matching_ignores_case_accents_and_gender():
    assert rules.normalize_color(" Amarela ") == "amarela"
    assert rules._same_color("BRANCO", "branca") and not rules._same_color("prata", "branca")


def test_missing_parameter_means_no_rule():
    assert rules.vehicle_doors(None, None) == [] and rules.vehicle_engine(50, None) == []
    assert rules.vehicle_seats(99, None, None) == [] and rules.vehicle_color("rosa", None) == []


def test_plate_in_service_refuses_only_while_another_person_holds_a_grant_on_it():
    assert rules.plate_in_service("ABC1D23", False, "art. X") == []
    (violation,) = rules.plate_in_service("ABC1D23", True, "art. X")
    assert violation.code == "vehicle.plate_in_service" and violation.conflict
    assert violation.field == "vehicle.plate" and violation.legal_basis == "art. X"
    assert "ABC1D23" in violation.message and "CRLV" in violation.message
