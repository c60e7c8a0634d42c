"""Boundaries of the pure rules of a grant's life (each cites its article)."""

from datetime import date, timedelta

import pytest

from licensing.fees.rules import fee_amount, tff_settlement, tff_violation
from licensing.grants.rules import add_years
from licensing.requests.rules import (
    auxiliary_limit_violation,
    auxiliary_removal_report,
    driver_requirement_violations,
    leave_last_day,
    leave_overdue,
    leave_violation,
    preposto_violation,
    renunciation_fee_notice,
    substitution_violation,
    transfer_violation,
)
from licensing.stands.rules import StandSlot, stand_reallocation, stand_swap_violation
from portal.exceptions import RuleViolation
from portal.regulation import Param

D = date(2026, 6, 15)
ITAGIBA = "PL 015/2025 (Itagibá/BA)"
ARAPORA = "Lei 724/2008 (Araporã/MG)"


def P(value, basis="Lei X, art. 1"):
    return Param("k", value, basis, date(2000, 1, 1))


REMOVAL_DAYS = P(2, f"{ITAGIBA}, art. 12, I; art. 19, §2")


def test_auxiliary_removal_reported_on_day_2_is_in_time():
    report = auxiliary_removal_report(left_on=D, reported_on=D + timedelta(days=2), deadline=REMOVAL_DAYS)
    assert not report.late and report.days_after == 2
    assert "art. 19, §2" in report.legal_basis


def test_auxiliary_removal_reported_on_day_3_is_late():
    report = auxiliary_removal_report(left_on=D, reported_on=D + timedelta(days=3), deadline=REMOVAL_DAYS)
    assert report.late and report.days_after == 3 and report.deadline_days == 2


def test_auxiliary_removal_without_deadline_in_the_law_is_never_late():
    assert not auxiliary_removal_report(left_on=D, reported_on=D + timedelta(days=300), deadline=None).late


def test_auxiliary_removal_in_the_future_is_refused():
    with pytest.raises(RuleViolation) as exc:
        auxiliary_removal_report(left_on=D + timedelta(days=1), reported_on=D, deadline=REMOVAL_DAYS)
    assert exc.value.field == "left_on"


def test_auxiliary_limit_boundary():
    limit = P(1, f"{ITAGIBA}, art. 4, §5")
    assert auxiliary_limit_violation(current=0, max_param=limit) is None
    violation = auxiliary_limit_violation(current=1, max_param=limit)
    assert violation.code == "auxiliary_limit" and violation.conflict and "art. 4, §5" in violation.legal_basis
    assert auxiliary_limit_violation(current=1, max_param=P(2)) is None
    assert auxiliary_limit_violation(current=2, max_param=P(2)) is not None


def test_auxiliary_driver_requirements_age_category_years_ear():
    kwargs = dict(min_age=P(21), categories=P(["B", "C", "D", "E"]), cnh_min_years=P(2), ear_required=P(True), on=D)
    ok = driver_requirement_violations(birth_date=date(2005, 6, 15), cnh_category="B",
                                       cnh_first_issued=date(2024, 6, 15), cnh_ear=True, **kwargs)
    assert ok == []
    bad = driver_requirement_violations(birth_date=date(2005, 6, 16), cnh_category="A",
                                        cnh_first_issued=date(2024, 6, 16), cnh_ear=False, **kwargs)
    assert {v.code for v in bad} == {"driver.min_age", "driver.cnh_categories", "driver.cnh_min_years",
                                     "driver.ear_required"}
    assert {v.field for v in bad} == {"birth_date", "cnh_category", "cnh_first_issued", "cnh_ear"}
    acc = driver_requirement_violations(birth_date=None, cnh_category="ACC", cnh_first_issued=None, cnh_ear=True,
                                        on=D, categories=P(["A"]))
    assert [v.code for v in acc] == ["driver.cnh_categories"]  # a moped permit is not category A
    assert driver_requirement_violations(birth_date=None, cnh_category="AB", cnh_first_issued=None, cnh_ear=True,
                                         on=D, categories=P(["B"])) == []


TRANSFER_ALLOWED = P(True, f"{ARAPORA}, art. 8")
MIN_YEARS = P(2, f"{ARAPORA}, art. 8, I")
HEIR_DAYS = P(120, f"{ARAPORA}, art. 8, II")


def _transfer(**kw):
    base = dict(allowed=TRANSFER_ALLOWED, ground="holder_years", held_since=date(2024, 3, 10), filed_on=D,
                min_years=MIN_YEARS, heir_days=HEIR_DAYS)
    base.update(kw)
    return transfer_violation(**base)


def test_transfer_after_1_year_364_days_is_refused_and_at_2_years_accepted():
    held = date(2024, 3, 10)
    two_years = add_years(held, 2)
    refused = _transfer(held_since=held, filed_on=two_years - timedelta(days=1))
    assert refused.code == "transfer_min_years" and refused.conflict and refused.legal_basis.endswith("art. 8, I")
    assert _transfer(held_since=held, filed_on=two_years) is None


def test_heir_transfer_on_day_120_is_accepted_and_day_121_refused():
    event = date(2026, 1, 10)
    assert _transfer(ground="death", relationship="heir", event_on=event, filed_on=event + timedelta(days=120)) is None
    late = _transfer(ground="death", relationship="spouse", event_on=event, filed_on=event + timedelta(days=121))
    assert late.code == "transfer_heir_deadline" and late.conflict and late.legal_basis.endswith("art. 8, II")


def test_heir_transfer_needs_spouse_or_heir_and_date():
    assert _transfer(ground="retirement", relationship="friend", event_on=D).code == "transfer_relationship"
    assert _transfer(ground="invalidity", relationship="heir", event_on=None).code == "transfer_event_date"


def test_transfer_on_incapacity_needs_proof():
    assert _transfer(ground="incapacity", proof="").code == "transfer_proof_required"
    assert _transfer(ground="incapacity", proof="Laudo CRM 1234") is None


@pytest.mark.parametrize("basis", ["Lei 3.703/2022 (Alegre/ES), art. 14", f"{ITAGIBA}, art. 4, §4; art. 5, I"])
def test_transfer_refused_where_the_law_forbids_it(basis):
    violation = _transfer(allowed=P(False, basis))
    assert violation.code == "transfer_forbidden" and violation.legal_basis == basis and not violation.conflict


@pytest.mark.parametrize("reason,limit", [("theft", 90), ("accident", 90), ("substitution", 30)])
def test_leave_limits_accept_the_last_day_and_refuse_the_next(reason, limit):
    param = P(limit, f"{ARAPORA}, art. 18")
    assert leave_violation(reason=reason, days=limit, max_param=param) is None
    violation = leave_violation(reason=reason, days=limit + 1, max_param=param)
    assert violation.code == "leave_too_long" and "art. 18" in violation.legal_basis


def test_leave_not_in_the_law_is_refused():
    assert leave_violation(reason="theft", days=10, max_param=None).code == "leave_not_provided"
    assert leave_violation(reason="vacation", days=10, max_param=P(90)).code == "leave_reason"


def test_leave_dates_and_overdue():
    assert leave_last_day(date(2026, 1, 1), 90) == date(2026, 3, 31)
    assert not leave_overdue(ends_on=D, returned=False, today=D)
    assert leave_overdue(ends_on=D, returned=False, today=D + timedelta(days=1))
    assert not leave_overdue(ends_on=D, returned=True, today=D + timedelta(days=10))


SUBST = P(True, f"{ITAGIBA}, art. 15")
GROUNDS = P({"newer": f"{ITAGIBA}, art. 15, I", "max_age": f"{ITAGIBA}, art. 15, II",
             "total_loss": f"{ITAGIBA}, art. 15, III"}, f"{ITAGIBA}, art. 15")


def _subst(**kw):
    base = dict(allowed=SUBST, grounds=GROUNDS, ground="newer", old_year=2020, old_first_registration=date(2020, 5, 1),
                new_year=2024, age_basis=P("first_registration"), max_age=P(8), on=D)
    base.update(kw)
    return substitution_violation(**base)


def test_substitution_for_a_newer_vehicle_any_time():
    assert _subst() is None
    same = _subst(new_year=2020)
    assert same.code == "substitution_not_newer" and same.legal_basis.endswith("art. 15, I")


def test_substitution_at_max_age():
    at_max = _subst(ground="max_age", old_first_registration=date(2018, 6, 15), new_year=2019)
    assert at_max is None
    young = _subst(ground="max_age", old_first_registration=date(2018, 6, 16))
    assert young.code == "substitution_not_at_max_age" and young.legal_basis.endswith("art. 15, II")


def test_substitution_after_total_loss_needs_the_certificate():
    assert _subst(ground="total_loss", new_year=2019).code == "substitution_certificate_issuer"
    assert _subst(ground="total_loss", certificate_issuer="police").code == "substitution_certificate_required"
    assert _subst(ground="total_loss", certificate_issuer="detran", certificate_number="123/2026") is None


def test_only_the_grounds_the_law_lists():
    assert _subst(ground="whim").code == "substitution_ground"
    assert _subst(grounds=None, ground="") is None  # the law lists none: none asked
    assert _subst(grounds=None, ground="newer").code == "substitution_ground"


def test_substitute_vehicle_must_be_within_max_age():
    """The substitute's age is the entry rule's (fleet.rules.vehicle_violations), not a rule of its own."""
    from fleet.rules import vehicle_violations

    params = {"vehicle.age_basis": P("first_registration"), "vehicle.max_age_years": P(8)}
    old = vehicle_violations({"manufacture_year": 2017, "first_registration_date": date(2017, 6, 14)}, D, params)
    assert [v.code for v in old] == ["vehicle.max_age_years"]
    assert vehicle_violations({"manufacture_year": 2017, "first_registration_date": D.replace(year=D.year - 8)},
                              D, params) == []


def test_substitution_forbidden_where_the_law_says_so():
    assert _subst(allowed=P(False)).code == "substitution_forbidden"


def test_preposto_on_permanent_invalidity_only():
    allowed = P(True, "Lei 3.703/2022 (Alegre/ES), art. 14, §1 e §2")
    assert preposto_violation(allowed=allowed, permanent=True, invalidity_on=D, filed_on=D) is None
    assert preposto_violation(allowed=allowed, permanent=False, invalidity_on=D, filed_on=D).code == "preposto_permanent_only"
    assert preposto_violation(allowed=None, permanent=True, invalidity_on=D, filed_on=D).code == "preposto_not_provided"
    assert preposto_violation(allowed=allowed, permanent=True, invalidity_on=D + timedelta(days=1),
                              filed_on=D).code == "preposto_invalidity_date"


def test_renunciation_notice_says_no_refund_with_the_article():
    notice = renunciation_fee_notice(P(False, f"{ITAGIBA}, art. 4, §7"))
    assert "não dá direito à devolução" in notice and "art. 4, §7" in notice
    assert renunciation_fee_notice(None) == ""


def _slot(pk, registered, year):
    return StandSlot(pk, registered, year)


def test_stand_reduction_moves_the_most_recent_registrations_tie_by_newer_vehicle():
    occupants = [_slot(1, date(2010, 1, 1), 2020), _slot(2, date(2015, 1, 1), 2018),
                 _slot(3, date(2015, 1, 1), 2023), _slot(4, date(2020, 1, 1), 2024)]
    plan = stand_reallocation(occupants=occupants, waiting=[], capacity=2)
    assert [s.id for s in plan.keep] == [1, 3]  # 2 and 3 tie on registration: newer vehicle (3) stays
    assert {s.id for s in plan.move_out} == {2, 4}


def test_stand_increase_gives_places_to_the_oldest_waiting_tie_by_newer_vehicle():
    occupants = [_slot(1, date(2010, 1, 1), 2020)]
    waiting = [_slot(5, date(2019, 1, 1), 2024), _slot(6, date(2012, 1, 1), 2016), _slot(7, date(2012, 1, 1), 2022)]
    plan = stand_reallocation(occupants=occupants, waiting=waiting, capacity=3)
    assert [s.id for s in plan.move_in] == [7, 6]
    assert plan.move_out == []


def test_swap_without_consent_is_refused():
    consent = P(True, f"{ARAPORA}, art. 12")
    violation = stand_swap_violation(requires_consent=consent, consent_a=True, consent_b=False)
    assert violation.code == "stand_swap_without_consent" and violation.legal_basis.endswith("art. 12")
    assert stand_swap_violation(requires_consent=consent, consent_a=True, consent_b=True) is None
    assert stand_swap_violation(requires_consent=None, consent_a=False, consent_b=False) is None


def test_tff_amounts_in_fiscal_units():
    from decimal import Decimal

    assert fee_amount(units=19, unit_value=Decimal("5.00")) == Decimal("95.00")
    assert fee_amount(units=2, unit_value=Decimal("5.00")) == Decimal("10.00")
    assert fee_amount(units="1.5", unit_value=Decimal("3.333")) == Decimal("5.00")
    assert tff_violation(None).code == "tff_not_provided" and tff_violation(P(19)) is None


@pytest.mark.parametrize("fee_paid,receipt_accepted,settled,waived", [
    (False, False, False, False), (True, False, True, True), (False, True, True, False), (True, True, True, True),
])
def test_tff_settlement_before_the_grant(fee_paid, receipt_accepted, settled, waived):
    receipt = P("comprovante_tff", f"{ITAGIBA}, art. 17, III e §3")
    out = tff_settlement(receipt, year=2027, fee_paid=fee_paid, receipt_accepted=receipt_accepted)
    assert (out.settled, out.receipt_waived) == (settled, waived)
    if not settled:
        assert out.violation.code == "tff_unpaid" and out.violation.conflict
        assert out.violation.legal_basis.endswith("art. 17, III e §3") and "2027" in out.violation.message
    else:
        assert out.violation is None


def test_no_tff_settlement_where_the_receipt_is_not_part_of_the_request():
    out = tff_settlement(None, year=2027, fee_paid=False, receipt_accepted=False)
    assert out.settled and out.violation is None and not out.receipt_waived
