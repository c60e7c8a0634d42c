"""Pure enforcement rules at their boundaries (no database)."""

from datetime import date, timedelta
from decimal import Decimal

import pytest

from enforcement import rules
from enforcement.rules import PriorFine
from portal.exceptions import RuleViolation


def test_fifteen_calendar_days_count_from_the_day_after_the_notice():
    assert rules.deadline(date(2026, 3, 2), 15) == date(2026, 3, 17)


def test_weekend_does_not_extend_unless_the_pack_says_so():
    # 2026-03-07 is a Saturday
    assert rules.deadline(date(2026, 2, 20), 15) == date(2026, 3, 7)
    assert rules.deadline(date(2026, 2, 20), 15, weekend_extends=True) == date(2026, 3, 9)


def test_act_on_the_last_day_is_accepted_and_the_next_day_refused():
    rules.check_within_deadline(date(2026, 3, 17), date(2026, 3, 17), what="x", legal_basis="art. 22", code="c")
    with pytest.raises(RuleViolation) as exc:
        rules.check_within_deadline(date(2026, 3, 18), date(2026, 3, 17), what="x", legal_basis="art. 22", code="c")
    assert exc.value.conflict and exc.value.legal_basis == "art. 22"


def _prior(days_before: int, new: date, multiplier=1, ref="001/2026"):
    return PriorFine(ref=ref, occurred_on=new - timedelta(days=days_before), multiplier=multiplier)


@pytest.mark.parametrize("days,expected", [(0, 2), (1, 2), (30, 2), (31, 1)])
def test_alegre_fine_doubled_within_30_days_inclusive(days, expected):
    new = date(2026, 5, 31)
    multiplier, refs = rules.recidivism(new, [_prior(days, new)], window_days=30, mode="double_once")
    assert multiplier == expected
    assert bool(refs) == (expected == 2)


def test_alegre_doubles_only_once():
    new = date(2026, 5, 31)
    priors = [_prior(20, new, 1, "001/2026"), _prior(10, new, 2, "002/2026")]
    multiplier, refs = rules.recidivism(new, priors, window_days=30, mode="double_once")
    assert multiplier == 2 and [p.ref for p in refs] == ["001/2026", "002/2026"]


@pytest.mark.parametrize("days,expected", [(90, 2), (91, 1)])
def test_arapora_recidivism_window_is_90_days_inclusive(days, expected):
    new = date(2026, 9, 1)
    assert rules.recidivism(new, [_prior(days, new)], window_days=90, mode="progressive")[0] == expected


def test_arapora_third_offence_is_four_times():
    new = date(2026, 9, 1)
    priors = [_prior(60, new, 1, "001/2026"), _prior(30, new, 2, "002/2026")]
    assert rules.recidivism(new, priors, window_days=90, mode="progressive")[0] == 4


def test_no_recidivism_rule_means_no_multiplier():
    new = date(2026, 9, 1)
    assert rules.recidivism(new, [_prior(1, new)], window_days=None, mode=None) == (1, [])


ARAPORA_CODES = {
    "A": {"code": "A", "kind": "warning", "legal_basis": "art. 22, I"},
    "B-1": {"code": "B-1", "kind": "fine", "fine_units": 2, "legal_basis": "art. 22, II"},
    "B-3": {"code": "B-3", "kind": "fine", "fine_units": 6, "legal_basis": "art. 22, II"},
    "C-2": {"code": "C-2", "kind": "suspension", "suspension_days": 10, "legal_basis": "art. 22, III"},
    "C-4": {"code": "C-4", "kind": "suspension", "suspension_days": 30, "legal_basis": "art. 22, III"},
    "D": {"code": "D", "kind": "impediment", "legal_basis": "art. 22, IV"},
}


def test_coded_infraction_carries_every_code_cumulatively():
    entry = rules.catalogue_entry({"code": "23-II", "legal_basis": "art. 23, II", "penalty_codes": ["B-1", "C-2", "D"]},
                                  ARAPORA_CODES)
    assert [p["kind"] for p in entry["penalties"]] == ["fine", "suspension", "impediment"]
    pen = rules.compute_penalty([entry], unit_value=Decimal("10.00"), unit_name="UMT")
    assert pen["kinds"] == ["fine", "suspension", "impediment"]
    assert (pen["fine_units"], pen["base_amount"], pen["amount"], pen["suspension_days"]) == (2, "20.00", "20.00", 10)


def test_simultaneous_infractions_add_up():
    e1 = rules.catalogue_entry({"code": "23-IX", "legal_basis": "art. 23, IX", "penalty_codes": ["B-3", "C-4"]}, ARAPORA_CODES)
    e2 = rules.catalogue_entry({"code": "23-X", "legal_basis": "art. 23, X", "penalty_codes": ["A", "B-1"]}, ARAPORA_CODES)
    pen = rules.compute_penalty([e1, e2], unit_value=Decimal("10.00"), unit_name="UMT", multiplier=4,
                                recidivism_refs=["001/2026"])
    assert pen["fine_units"] == 8 and pen["base_amount"] == "80.00" and pen["amount"] == "320.00"
    assert pen["suspension_days"] == 30 and pen["recidivism"] is True and pen["multiplier"] == 4
    assert pen["kinds"] == ["warning", "fine", "suspension"]


def test_uncoded_fine_in_reais_and_flags():
    item = {"code": "20-I", "legal_basis": "Lei 3.703/2022, art. 20, I",
            "penalties": {"fine_amount": "250.00", "fine_example": True, "until_regularised": True, "new_inspection": True}}
    entry = rules.catalogue_entry(item, {})
    pen = rules.compute_penalty([entry], unit_value=None, multiplier=2, recidivism_refs=["001/2026"])
    assert pen["amount"] == "500.00" and pen["fine_units"] is None
    assert pen["kinds"] == ["fine", "suspension_until_regularised", "new_inspection"]


def test_fine_without_value_cannot_be_imposed_and_names_the_article():
    item = {"code": "19-I", "legal_basis": "PL 015/2025, art. 19, I", "penalties": {"fine_example": True, "cassation": True}}
    entry = rules.catalogue_entry(item, {})
    with pytest.raises(RuleViolation) as exc:
        rules.compute_penalty([entry], unit_value=None)
    assert exc.value.code == "fine_value_not_set" and "art. 19, I" in str(exc.value)


def test_units_without_fiscal_unit_value_are_not_set():
    item = {"code": "4-P1", "legal_basis": "art. 4, §1", "penalties": {"fine_units": 10, "seizure": True}}
    with pytest.raises(RuleViolation):
        rules.compute_penalty([rules.catalogue_entry(item, {})], unit_value=None)


def test_money_rounds_half_up_to_the_cent():
    assert rules.money("2.675") == Decimal("2.68") and rules.money("2.665") == Decimal("2.67")
    item = {"code": "x", "legal_basis": "b", "penalties": {"fine_units": 3}}
    pen = rules.compute_penalty([rules.catalogue_entry(item, {})], unit_value=Decimal("3.335"))
    assert pen["base_amount"] == "10.01"  # 3 × 3.335 = 10.005 → 10.01


def test_warning_only_has_no_amount():
    pen = rules.compute_penalty([rules.catalogue_entry({"code": "x", "legal_basis": "b", "penalty_codes": ["A"]},
                                                       ARAPORA_CODES)], unit_value=Decimal("10"), multiplier=2,
                                recidivism_refs=["001/2026"])
    assert pen["amount"] is None and pen["multiplier"] == 1 and pen["recidivism"] is False


def test_suspension_last_day_and_second_instance():
    assert rules.suspension_last_day(date(2026, 3, 1), 5) == date(2026, 3, 5)
    assert rules.second_instance_allowed(["B-2", "D"], ["D", "E"])
    assert not rules.second_instance_allowed(["B-2"], ["D", "E"])
    assert not rules.second_instance_allowed(["E"], None)


def test_long_progressive_chains_do_not_overflow():
    entry = rules.catalogue_entry({"code": "x", "legal_basis": "b", "penalty_codes": ["B-1"]}, ARAPORA_CODES)
    pen = rules.compute_penalty([entry], unit_value=Decimal("10.00"), multiplier=2**100, recidivism_refs=["1"])
    assert Decimal(pen["amount"]) == 20 * 2**100


def test_a_further_suspension_starts_after_the_one_being_served():
    d = date(2026, 3, 2)
    assert rules.next_suspension_start(d, None) == d
    assert rules.next_suspension_start(d, d) == d + timedelta(days=1)  # last day still served
    assert rules.next_suspension_start(d, d - timedelta(days=1)) == d  # already over


def test_appeal_deadline_from_the_decision_or_from_the_notice():
    from portal.regulation import Param

    notice = Param("appeal.counted_from", "notice", "Lei X, art. 18, §7", date(2000, 1, 1))
    decided, noticed = date(2026, 11, 30), date(2026, 11, 1)
    assert rules.appeal_deadline(decided_on=decided, notice_on=noticed, days=30, counted_from=None,
                                 weekend_extends=False) == date(2026, 12, 30)
    assert rules.appeal_deadline(decided_on=decided, notice_on=noticed, days=30, counted_from=notice,
                                 weekend_extends=False) == date(2026, 12, 1)
    assert rules.appeal_deadline(decided_on=decided, notice_on=None, days=30, counted_from=notice,
                                 weekend_extends=False) == date(2026, 12, 30)
