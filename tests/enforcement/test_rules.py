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
    # the example value has no legal effect: nothing is charged and the missing regulation is named
    assert pen["amount"] is None and pen["base_amount"] is None and pen["fine_units"] is None
    assert "regulamento" in pen["missing_regulation"] and "art. 20, I" in pen["missing_regulation"]
    assert pen["kinds"] == ["fine", "suspension_until_regularised", "new_inspection"]
    # once a regulation fixes the value (override), it is charged, doubled by the recidivism
    pen = rules.compute_penalty([entry], unit_value=None, multiplier=2, recidivism_refs=["001/2026"],
                                fine_overrides={"20-I": Decimal("250.00")})
    assert pen["amount"] == "500.00" and pen["missing_regulation"] is None


def test_fine_without_value_is_recorded_without_amount_and_names_the_missing_regulation():
    item = {"code": "19-I", "legal_basis": "PL 015/2025, art. 19, I", "penalties": {"fine_example": True, "cassation": True}}
    entry = rules.catalogue_entry(item, {})
    pen = rules.compute_penalty([entry], unit_value=None)
    assert pen["kinds"] == ["fine", "cassation"] and pen["amount"] is None
    assert "19-I" in pen["missing_regulation"] and "art. 19, I" in pen["missing_regulation"]


def test_units_without_fiscal_unit_value_or_with_an_example_value_are_not_charged():
    item = {"code": "4-P1", "legal_basis": "art. 4, §1", "penalties": {"fine_units": 10, "seizure": True}}
    entry = rules.catalogue_entry(item, {})
    assert rules.compute_penalty([entry], unit_value=None)["amount"] is None
    pen = rules.compute_penalty([entry], unit_value=Decimal("5.00"), unit_name="UFP", unit_is_example=True,
                                unit_basis="art. 6")
    assert pen["amount"] is None and pen["fine_units"] == 10 and "UFP" in pen["missing_regulation"]
    assert rules.compute_penalty([entry], unit_value=Decimal("5.00"), unit_name="UFP")["amount"] == "50.00"


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


def test_appeal_period_starts_at_the_notice_of_the_decision_never_before():
    decided, noticed = date(2026, 11, 30), date(2026, 12, 3)
    assert rules.appeal_period_start(counted_from=None, decided_on=decided, decision_notice_on=None) == decided
    assert rules.appeal_period_start(counted_from="decision_notice", decided_on=decided,
                                     decision_notice_on=None) is None  # waits for the notice
    assert rules.appeal_period_start(counted_from="decision_notice", decided_on=decided,
                                     decision_notice_on=noticed) == noticed
    # the legacy "notice" (of the autuação) is read the same way: never before the holder knew of it
    assert rules.appeal_period_start(counted_from="notice", decided_on=decided, decision_notice_on=noticed) == noticed


def test_a_deadline_on_saturday_moves_to_monday_with_how_it_was_counted():
    # notice on 2026-02-20 + 15 = Saturday 2026-03-07 → Monday 2026-03-09
    last, note = rules.counted_deadline(date(2026, 2, 20), 15, next_business_day=True, uf="ES")
    assert last == date(2026, 3, 9)
    assert "sábado" in note and "domingo" in note and "art. 66" in note and "09/03/2026" in note
    last, note = rules.counted_deadline(date(2026, 2, 20), 15, next_business_day=False, uf="ES")
    assert last == date(2026, 3, 7) and "prorrogado" not in note


def test_a_deadline_on_a_national_state_or_municipal_holiday_moves_to_the_next_business_day():
    # 2026-04-21 (Tiradentes, Tuesday): national
    assert rules.counted_deadline(date(2026, 4, 6), 15, next_business_day=True, uf="ES")[0] == date(2026, 4, 22)
    # 2026-04-13 (Monday): Nossa Senhora da Penha, state holiday of Espírito Santo only
    assert rules.counted_deadline(date(2026, 3, 29), 15, next_business_day=True, uf="ES")[0] == date(2026, 4, 14)
    assert rules.counted_deadline(date(2026, 3, 29), 15, next_business_day=True, uf="MG")[0] == date(2026, 4, 13)
    # a municipal holiday of the pack (Wednesday 2026-06-17)
    municipal = [{"date": "06-17", "name": "Aniversário do município"}]
    last, note = rules.counted_deadline(date(2026, 6, 2), 15, next_business_day=True, uf="BA", municipal=municipal)
    assert last == date(2026, 6, 18) and "feriado municipal" in note


def test_judgement_refused_on_the_last_day_of_the_defense_period_allowed_the_next():
    last = date(2026, 3, 17)
    blocked = rules.judgement_blocked(last, defense_deadline=last, defense_filed=False, waived=False,
                                      legal_basis="art. 22")
    assert blocked is not None and blocked.conflict and blocked.code == "defense_period_running"
    assert "18/03/2026" in str(blocked)
    assert rules.judgement_blocked(last + timedelta(days=1), defense_deadline=last, defense_filed=False, waived=False,
                                   legal_basis="art. 22") is None
    assert rules.judgement_blocked(last, defense_deadline=last, defense_filed=True, waived=False, legal_basis="x") is None
    assert rules.judgement_blocked(last, defense_deadline=last, defense_filed=False, waived=True, legal_basis="x") is None


def test_the_same_person_never_decides_two_instances():
    v = rules.same_judge_violation(7, [7], "art. 18, §6")
    assert v is not None and v.conflict and v.code == "same_judge_both_instances" and v.legal_basis == "art. 18, §6"
    assert rules.same_judge_violation(8, [7], "art. 18, §6") is None


def test_alegre_window_is_anchored_at_the_first_fine_and_does_not_slide():
    """Lei 3.703/2022 art. 23: 30 days "a contar da data da primeira multa"."""
    new = date(2026, 3, 31)
    first = PriorFine(ref="1", occurred_on=new - timedelta(days=40), multiplier=1)
    doubled = PriorFine(ref="2", occurred_on=new - timedelta(days=20), multiplier=2)
    assert rules.recidivism(new, [first, doubled], window_days=30, mode="double_once",
                            counted_from="first_fine") == (1, [])
    # without the anchor, the doubled fine would slide the window
    assert rules.recidivism(new, [first, doubled], window_days=30, mode="double_once")[0] == 2


def test_arapora_counts_earlier_autos_without_fine():
    """Lei 724/2008 art. 26, parágrafo único: "a prática de mais de uma infração no período de 90 dias"."""
    new = date(2026, 3, 31)
    warning = PriorFine(ref="1", occurred_on=new - timedelta(days=60), multiplier=1, has_fine=False)
    assert rules.recidivism(new, [warning], window_days=90, mode="progressive")[0] == 1
    assert rules.recidivism(new, [warning], window_days=90, mode="progressive", counts="any_penalty")[0] == 2
