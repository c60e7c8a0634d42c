"""Fare rules at their boundaries (pure functions, no database)."""

from datetime import date, datetime
from decimal import Decimal
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from portal.exceptions import RuleViolation
from tariffs import rules

SP = ZoneInfo("America/Sao_Paulo")
BA = ZoneInfo("America/Bahia")
ALEGRE = {"base": "14.99", "per_km": "1.60"}
ITAGIBA = {
    "base": "6.00",
    "flag1_per_km": "3.00",
    "flag2_per_km": "3.60",
    "flag2_from": "21:00",
    "flag2_until": "06:00",
    "flag2_weekdays": [6],
    "flag2_dates": ["12-25", "01-01"],
    "per_hour_waiting": "30.00",
}
BANDS = {
    "bands": [
        {"up_to_km": "3", "max_fare": "6.00"},
        {"up_to_km": "6", "max_fare": "9.00"},
        {"up_to_km": "10", "max_fare": "14.00"},
        {"up_to_km": "20", "max_fare": "25.00"},
    ]
}
ARAPORA = {
    "unit_name": "UT",
    "unit_value": "1.00",
    "base_units": "6",
    "per_km_units": "3",
    "per_hour_waiting_units": "30",
}
BUS = {"urban": "4.50", "rural": "6.50", "student_discount": "0.50"}
WEDNESDAY = datetime(2026, 11, 25, 14, 0, tzinfo=SP)


def q(structure, comps, km, when=WEDNESDAY, **kw):
    return rules.quote_fare(structure, comps, km=Decimal(str(km)), local_dt=when, **kw)


@pytest.mark.parametrize("km,total", [(0, "14.99"), (10, "30.99"), (1, "16.59"), ("2.5", "18.99")])
def test_alegre_base_plus_km_formula(km, total):
    assert q("base_plus_km", ALEGRE, km).total == Decimal(total)


def test_alegre_fractional_km_rounds_half_up_to_the_cent():
    # 0.003 km × 1.60 = 0.0048 → 0.00 ; 0.0032 not possible (3 decimals); 1.003 × 1.60 = 1.6048 → 1.60
    assert q("base_plus_km", ALEGRE, "1.003").total == Decimal("16.59")
    # 1.0031 is not allowed by the form, but the rule itself rounds half up: 0.005 → 0.01
    assert q("base_plus_km", {"base": "0", "per_km": "1"}, "0.005").total == Decimal("0.01")
    assert q("base_plus_km", {"base": "0", "per_km": "1"}, "0.004").total == Decimal("0.00")
    assert q("base_plus_km", ALEGRE, "3.128").total == Decimal("19.99")  # 5.0048 → 5.00


def test_components_add_up_to_the_total():
    quote = q("base_plus_km", ALEGRE, 10)
    assert [line.amount for line in quote.lines] == [Decimal("14.99"), Decimal("16.00")]
    assert sum(line.amount for line in quote.lines) == quote.total


@pytest.mark.parametrize(
    "when,flag",
    [
        (datetime(2026, 11, 25, 20, 59, tzinfo=BA), 1),
        (datetime(2026, 11, 25, 21, 0, tzinfo=BA), 2),
        (datetime(2026, 11, 26, 5, 59, tzinfo=BA), 2),
        (datetime(2026, 11, 26, 6, 0, tzinfo=BA), 1),
        (datetime(2026, 11, 26, 0, 0, tzinfo=BA), 2),
    ],
)
def test_itagiba_flag_by_hour(when, flag):
    quote = q("flags", ITAGIBA, 10, when)
    assert quote.flag == flag
    assert quote.total == (Decimal("36.00") if flag == 1 else Decimal("42.00"))


def test_itagiba_sunday_and_special_dates_are_flag_2_all_day():
    assert q("flags", ITAGIBA, 1, datetime(2026, 11, 29, 12, 0, tzinfo=BA)).flag == 2  # Sunday
    assert q("flags", ITAGIBA, 1, datetime(2026, 11, 28, 12, 0, tzinfo=BA)).flag == 1  # Saturday
    assert q("flags", ITAGIBA, 1, datetime(2026, 12, 25, 12, 0, tzinfo=BA)).flag == 2
    assert q("flags", ITAGIBA, 1, datetime(2027, 1, 1, 12, 0, tzinfo=BA)).flag == 2
    assert q("flags", ITAGIBA, 1, datetime(2026, 12, 24, 12, 0, tzinfo=BA)).flag == 1


def test_waiting_time_per_hour():
    quote = q("flags", ITAGIBA, 0, waiting_minutes=30)
    assert quote.lines[-1].amount == Decimal("15.00")
    assert quote.total == Decimal("21.00")
    assert q("flags", ITAGIBA, 0, waiting_minutes=1).lines[-1].amount == Decimal("0.50")


def test_waiting_without_a_waiting_tariff_is_not_charged_and_says_so():
    quote = q("base_plus_km", ALEGRE, 0, waiting_minutes=20)
    assert quote.total == Decimal("14.99") and quote.notes


@pytest.mark.parametrize(
    "km,fare",
    [(0, "6.00"), (3, "6.00"), ("3.001", "9.00"), (6, "9.00"), (10, "14.00"), (20, "25.00")],
)
def test_mototaxi_maximum_fare_bands_upper_bound_inclusive(km, fare):
    quote = q("max_fare_bands", BANDS, km)
    assert quote.total == Decimal(fare) and quote.is_maximum


def test_mototaxi_beyond_last_band_is_refused_naming_km():
    with pytest.raises(RuleViolation) as exc:
        q("max_fare_bands", BANDS, "20.001", legal_basis="art. 3, XVII")
    assert exc.value.field == "km" and exc.value.legal_basis == "art. 3, XVII"


def test_arapora_units_converted_to_reais():
    assert q("units", ARAPORA, 10).total == Decimal("36.00")  # 6 UT + 30 UT
    assert q("units", {**ARAPORA, "unit_value": "2.50"}, 10).total == Decimal("90.00")
    assert q("units", ARAPORA, 0, waiting_minutes=60).total == Decimal("36.00")


def test_bus_student_pays_half():
    assert q("zones", BUS, 0).total == Decimal("4.50")
    assert q("zones", BUS, 0, student=True).total == Decimal("2.25")
    assert q("zones", BUS, 0, student=True, zone="rural").total == Decimal("3.25")
    assert q("zones", BUS, 0, student=True, student_discount=Decimal("0.50")).total == Decimal(
        "2.25"
    )
    # the student's fare is 50 % of the fare, rounded half up (4.55 → 2.275 → 2.28), the same
    # as a line's fare (licensing.rules_transit.student_fare); not the fare less a rounded half
    odd = q("zones", {"urban": "4.55", "student_discount": "0.50"}, 0, student=True)
    assert odd.total == Decimal("2.28")
    assert [line.amount for line in odd.lines] == [Decimal("4.55"), Decimal("-2.27")]
    assert q("zones", {"urban": "4.53", "student_discount": "0.50"}, 0, student=True).total == Decimal(
        "2.27"
    )


def _t(day):
    return SimpleNamespace(effective_from=day)


def test_table_in_force_ignores_future_tables_and_uses_the_one_then_in_force():
    old, new, future = _t(date(2022, 5, 18)), _t(date(2026, 1, 1)), _t(date(2026, 12, 1))
    tables = [old, new, future]
    assert rules.table_in_force(tables, date(2026, 11, 30)) is new
    assert rules.table_in_force(tables, date(2026, 12, 1)) is future
    assert rules.table_in_force(tables, date(2025, 12, 31)) is old
    assert rules.table_in_force(tables, date(2022, 5, 17)) is None


def test_effective_date_never_before_publication():
    v = rules.effective_date_violation(
        modality="taxi",
        published_on=date(2026, 1, 10),
        effective_from=date(2026, 1, 9),
        legal_basis="x",
    )
    assert v and v.field == "effective_from"
    assert (
        rules.effective_date_violation(
            modality="taxi",
            published_on=date(2026, 1, 10),
            effective_from=date(2026, 1, 10),
            legal_basis="x",
        )
        is None
    )


def test_bus_fare_needs_ten_days_notice():
    kw = {
        "modality": "bus",
        "published_on": date(2026, 1, 10),
        "legal_basis": "x",
        "min_notice_days": 10,
        "notice_basis": "Lei 3.447/2017 (Alegre/ES), art. 17",
    }
    v = rules.effective_date_violation(effective_from=date(2026, 1, 19), **kw)
    assert v and v.legal_basis.endswith("art. 17") and "20/01/2026" in v.message
    assert rules.effective_date_violation(effective_from=date(2026, 1, 20), **kw) is None


def test_component_errors_name_the_problem():
    assert rules.component_errors("base_plus_km", ALEGRE) == []
    assert rules.component_errors("flags", ITAGIBA) == []
    assert rules.component_errors("max_fare_bands", BANDS) == []
    assert rules.component_errors("units", ARAPORA) == []
    assert rules.component_errors("zones", BUS) == []
    assert any("per_km" in e for e in rules.component_errors("base_plus_km", {"base": "1"}))
    assert rules.component_errors("base_plus_km", {"base": "-1", "per_km": "x"})
    assert rules.component_errors("flags", {**ITAGIBA, "flag2_from": "25h"})
    assert rules.component_errors(
        "max_fare_bands",
        {"bands": [{"up_to_km": "6", "max_fare": "1"}, {"up_to_km": "3", "max_fare": "1"}]},
    )
    assert rules.component_errors("zones", {"urban": "4", "student_discount": "1.5"})


def test_table_rows_for_every_structure():
    assert rules.table_rows("base_plus_km", ALEGRE)[0] == ("Tarifa básica (TB)", "R$ 14,99")
    assert "domingos" in rules.table_rows("flags", ITAGIBA)[2][0]
    assert rules.table_rows("max_fare_bands", BANDS)[1] == (
        "Mais de 3 até 6 km (tarifa máxima)",
        "R$ 9,00",
    )
    assert rules.table_rows("units", ARAPORA)[1][1] == "R$ 6,00"
    assert rules.table_rows("zones", BUS)[-1][1] == "paga 50 % da passagem"
