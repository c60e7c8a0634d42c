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
