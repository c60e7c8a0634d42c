"""Boundaries of the collective-transport rules (Lei 3.447/2017 as loaded in the pack)."""

from datetime import date, timedelta
from decimal import Decimal

import pytest

from licensing.transit import rules as rules

ONIBUS = {"code": "onibus", "label": "Ônibus", "min_seated": 31, "max_standing": 10, "legal_basis": "art. 2, a"}
MICRO = {"code": "microonibus", "label": "Micro-ônibus", "max_seated": 29, "max_standing": 0, "legal_basis": "art. 2, b"}
LOTACAO = {"code": "lotacao", "label": "Lotação", "min_seated": 8, "max_standing": 0, "legal_basis": "art. 2, c"}
D0 = date(2026, 3, 2)


@pytest.fixture
def pack_categories(alegre):
    return {c["code"]: c for c in alegre.collective_transport["categories"]}


def test_onibus_needs_more_than_30_seated(pack_categories):
    cat = pack_categories["onibus"]
    v = rules.bus_category_violation(cat, 30, 0)
    assert v and v.field == "seated" and "art. 2" in v.legal_basis
    assert rules.bus_category_violation(cat, 31, 0) is None


def test_onibus_allows_up_to_10_standing(pack_categories):
    cat = pack_categories["onibus"]
    assert rules.bus_category_violation(cat, 40, 10) is None
    v = rules.bus_category_violation(cat, 40, 11)
    assert v and v.field == "standing"


def test_microonibus_needs_fewer_than_30_seated_and_none_standing(pack_categories):
    cat = pack_categories["microonibus"]
    assert rules.bus_category_violation(cat, 29, 0) is None
    assert rules.bus_category_violation(cat, 30, 0).code == "bus_category_seated"
    assert rules.bus_category_violation(cat, 31, 0).code == "bus_category_seated"
    assert rules.bus_category_violation(cat, 20, 1).code == "bus_category_standing"


def test_lotacao_needs_at_least_8_seated_none_standing(pack_categories):
    cat = pack_categories["lotacao"]
    assert rules.bus_category_violation(cat, 7, 0).code == "bus_category_seated"
    assert rules.bus_category_violation(cat, 8, 0) is None
    assert rules.bus_category_violation(cat, 8, 1).code == "bus_category_standing"


def test_category_rules_from_literal_entries():
    assert rules.bus_category_violation(ONIBUS, 30, 0) is not None
    assert rules.bus_category_violation(ONIBUS, 31, 10) is None
    assert rules.bus_category_violation(MICRO, 30, 0) is not None
    assert rules.bus_category_violation(LOTACAO, 7, 0) is not None
    assert rules.bus_category_violation(LOTACAO, 8, 0) is None


def test_bus_category_must_match_contract():
    assert rules.bus_matches_concession_violation("onibus", "onibus", "art. 9, I") is None
    assert rules.bus_matches_concession_violation("lotacao", "onibus", "art. 9, I").code == "bus_category_mismatch"


def _segs(*lengths, zone="urban"):
    return [rules.Segment(f"P{i}", f"P{i + 1}", Decimal(str(km)), zone) for i, km in enumerate(lengths)]


def test_itinerary_change_of_exactly_25_percent_is_an_amendment():
    assert rules.itinerary_change_violation(Decimal("100"), Decimal("25"), "0.25", "art. 7") is None


def test_itinerary_change_of_25_01_percent_needs_new_bidding():
    v = rules.itinerary_change_violation(Decimal("100"), Decimal("25.01"), "0.25", "art. 7, caput e §1")
    assert v is not None and v.code == "itinerary_change_over_limit"
    assert "25,01 %" in v.message and "concorrência" in v.message and v.legal_basis == "art. 7, caput e §1"


def test_changed_km_counts_added_altered_and_dropped_segments_against_the_original():
    original = _segs(10, 20, 30, 40)  # 100 km
    same = _segs(10, 20, 30, 40)
    assert rules.changed_km(original, same) == 0
    added = [*original, rules.Segment("P4", "P5", Decimal("25"))]
    assert rules.changed_km(original, added) == Decimal("25")
    added_more = [*original, rules.Segment("P4", "P5", Decimal("25.01"))]
    assert rules.changed_km(original, added_more) == Decimal("25.01")
    replaced = [original[0], rules.Segment("P1", "X", Decimal("21")), original[2], original[3]]
    assert rules.changed_km(original, replaced) == Decimal("21")
    dropped = original[:3]
    assert rules.changed_km(original, dropped) == Decimal("40")


def test_fare_change_effective_on_day_10_not_day_9():
    announced = D0
    assert rules.notice_violation(announced, announced + timedelta(days=10), 10, "art. 17") is None
    v = rules.notice_violation(announced, announced + timedelta(days=9), 10, "art. 17", code="fare_notice_too_short")
    assert v is not None and v.code == "fare_notice_too_short" and v.field == "effective_from"


def test_itinerary_notice_same_boundary():
    assert rules.notice_violation(D0, D0 + timedelta(days=10), 10, "art. 7, §2") is None
    assert rules.notice_violation(D0, D0 + timedelta(days=9), 10, "art. 7, §2") is not None


def test_contract_signed_on_day_10_ok_day_11_renounced():
    assert rules.contract_signature_violation(D0, D0 + timedelta(days=10), 10, "art. 8") is None
    v = rules.contract_signature_violation(D0, D0 + timedelta(days=11), 10, "art. 8")
    assert v.code == "contract_sign_deadline" and v.conflict
    assert rules.contract_signature_violation(D0, D0 - timedelta(days=1), 10, "art. 8").code == "contract_before_bidding"


def test_service_start_on_day_30_ok_day_31_lapses():
    assert rules.service_start_violation(D0, D0 + timedelta(days=30), 30, "art. 22") is None
    v = rules.service_start_violation(D0, D0 + timedelta(days=31), 30, "art. 22")
    assert v.code == "service_start_lapsed" and v.conflict
    assert not rules.start_lapsed(D0, D0 + timedelta(days=30), 30)
    assert rules.start_lapsed(D0, D0 + timedelta(days=31), 30)


def test_intervention_procedure_opened_within_30_days():
    assert rules.intervention_open_violation(D0, D0 + timedelta(days=30), 30, "art. 24") is None
    assert rules.intervention_open_violation(D0, D0 + timedelta(days=31), 30, "art. 24").code == "intervention_open_deadline"
    assert rules.intervention_open_deadline(D0, 30) == D0 + timedelta(days=30)


def test_intervention_procedure_concluded_within_180_days():
    assert rules.intervention_conclude_violation(D0, D0 + timedelta(days=180), 180, "art. 24, §2") is None
    v = rules.intervention_conclude_violation(D0, D0 + timedelta(days=181), 180, "art. 24, §2")
    assert v.code == "intervention_conclude_deadline" and "inválida" in v.message


def test_concession_term_is_10_years_and_one_renewal():
    assert rules.concession_term_end(date(2026, 3, 2), 10) == date(2036, 3, 1)
    assert rules.concession_term_end(date(2024, 2, 29), 10) == date(2034, 2, 27)
    assert rules.renewal_violation(0, 1, "art. 25") is None
    assert rules.renewal_violation(1, 1, "art. 25").code == "concession_renewal_limit"


@pytest.mark.parametrize("full,expected", [("4.50", "2.25"), ("4.55", "2.28"), ("4.05", "2.03"), ("0.01", "0.01")])
def test_student_pays_half_rounded_half_up(full, expected):
    assert rules.student_fare(Decimal(full), "0.50") == Decimal(expected)


def test_rural_fare_only_when_the_line_has_rural_stretches():
    assert rules.fare_zone_violation("urban", {"urban"}, True, "art. 16") is None
    assert rules.fare_zone_violation("rural", {"urban"}, True, "art. 16").code == "fare_zone_not_served"
    assert rules.fare_zone_violation("rural", {"urban", "rural"}, True, "art. 16") is None
    assert rules.fare_zone_violation("rural", {"urban", "rural"}, False, "art. 16").code == "fare_zone_not_allowed"


def test_default_proceeding_only_after_the_period_to_cure():
    assert rules.default_open_violation(None, 15, D0, "art. 20, §3").code == "default_not_notified"
    assert rules.default_open_violation(D0, 15, D0 + timedelta(days=15), "art. 20, §3").code == "default_cure_period_running"
    assert rules.default_open_violation(D0, 15, D0 + timedelta(days=16), "art. 20, §3") is None
    assert rules.cure_days_violation(0, "x") is not None and rules.cure_days_violation(1, "x") is None
