"""One source of bus fares: the public calculator and the fare API quote the line's fare by decree."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse

from licensing.transit import rules as rules
from licensing.transit import services as svc
from licensing.transit.models import BusFare

QUOTE = "/api/v1/fares/quote/"
TARIFFS = "/api/v1/fares/tariffs/"


def _set(line, amount, announced, effective, zone="urban"):
    return svc.fare_set(actor=None, line=line, zone=zone, amount=Decimal(amount), decree=f"Decreto {amount}",
                        announced_on=announced, effective_from=effective)


@pytest.fixture
def priced(running, alegre):
    """The running line with 4,00 for a month and a change to 4,55 announced today (in force on day 10)."""
    _, line = running
    today = alegre.today()
    _set(line, "4.00", today - timedelta(days=30), today - timedelta(days=30))
    _set(line, "4.55", today, today + timedelta(days=10))
    return line


def _at(d: date) -> str:
    return f"{d.isoformat()}T08:00:00-03:00"


@pytest.mark.parametrize(("day", "in_force"), [(9, False), (10, True)])
def test_rule_change_in_force_only_from_day_10(day, in_force):
    announced = date(2026, 3, 1)
    at = announced + timedelta(days=day)
    assert rules.fare_in_force_on(at, announced, announced, 10, is_change=True) is in_force
    assert rules.fare_in_force_on(at, announced, announced, 10, is_change=False) is True  # the first fare


def test_quote_by_line_day_9_old_fare_day_10_new_fare(priced, api, alegre):
    today = alegre.today()
    day9 = api(None).get(QUOTE, {"modality": "bus", "line": priced.pk, "zone": "urban", "at": _at(today + timedelta(days=9))})
    day10 = api(None).get(QUOTE, {"modality": "bus", "line": priced.pk, "at": _at(today + timedelta(days=10))})
    assert day9.status_code == 200 and day9.json()["total"] == "4.00"
    body = day10.json()
    assert body["total"] == "4.55" and body["currency"] == "BRL"
    assert body["tariff"] == {"decree": "Decreto 4.55", "effective_from": (today + timedelta(days=10)).isoformat(),
                              "published_on": today.isoformat(), "structure": "line", "is_example": False}
    assert "art. 17" in body["legal_basis"] and body["line"]["code"] == "L01"
    assert body["components"] == [{"label": body["components"][0]["label"], "amount": "4.55"}]


def test_change_stored_with_short_notice_is_not_in_force_before_day_10(running, api, alegre):
    """Art. 17 also when reading: a change announced 9 days before the date does not apply yet."""
    _, line = running
    today = alegre.today()
    _set(line, "4.00", today - timedelta(days=30), today - timedelta(days=30))
    BusFare.objects.create(line=line, zone="urban", amount=Decimal("5.00"), decree="Decreto antigo",
                           announced_on=today, effective_from=today + timedelta(days=1), legal_basis="art. 17")
    totals = [api(None).get(QUOTE, {"line": line.pk, "at": _at(today + timedelta(days=d))}).json()["total"]
              for d in (1, 9, 10)]
    assert totals == ["4.00", "4.00", "5.00"]


@pytest.mark.parametrize(("full", "half"), [("4.55", "2.28"), ("4.53", "2.27"), ("4.50", "2.25")])
def test_student_pays_half_rounded_half_up(running, api, alegre, full, half):
    _, line = running
    _set(line, full, alegre.today(), alegre.today())
    body = api(None).get(QUOTE, {"modality": "bus", "line": line.pk, "student": "true"}).json()
    assert body["total"] == half and body["student"] is True
    assert sum(Decimal(c["amount"]) for c in body["components"]) == Decimal(half)
    assert "art. 4, parágrafo único" in body["legal_basis"]


def test_without_line_the_pack_table_answers_as_before(priced, api):
    r = api(None).get(QUOTE, {"modality": "bus", "student": "false", "at": "2026-02-01T08:00:00-03:00"})
    assert r.status_code == 200 and r.json()["total"] == "4.50" and r.json()["tariff"]["structure"] == "zones"


def test_line_quote_bad_input_names_the_field(priced, api, alegre):
    cases = [
        ({"line": "999999"}, "line"),
        ({"line": "abc"}, "line"),
        ({"line": priced.pk, "modality": "taxi"}, "line"),
        ({"line": priced.pk, "zone": "lunar"}, "zone"),
        ({"line": priced.pk, "zone": "rural"}, "zone"),  # the line has no rural fare
        ({"line": priced.pk, "student": "talvez"}, "student"),
        ({"line": priced.pk, "at": "ontem"}, "at"),
        ({"line": priced.pk, "at": _at(alegre.today() - timedelta(days=31))}, "zone"),  # before any fare
    ]
    for params, field in cases:
        r = api(None).get(QUOTE, params)
        assert r.status_code == 400, params
        assert field in r.json()["errors"], (params, r.json())


def test_tariffs_endpoint_by_line(priced, api, alegre):
    today = alegre.today()
    now = api(None).get(TARIFFS, {"modality": "bus", "line": priced.pk}).json()
    assert now["components"] == {"urban": "4.00", "student_discount": "0.50"} and now["decree"] == "Decreto 4.00"
    later = api(None).get(TARIFFS, {"modality": "bus", "line": priced.pk, "at": _at(today + timedelta(days=10))})
    assert later.json()["components"]["urban"] == "4.55"
    assert api(None).get(TARIFFS, {"line": 999999}).status_code == 404
    assert api(None).get(TARIFFS, {"modality": "bus"}).json()["structure"] == "zones"  # no line: as before


def test_calculator_page_quotes_a_line_without_javascript(priced, client, alegre):
    page = client.get(reverse("tariffs-calculator"))
    html = page.content.decode()
    assert f'<option value="{priced.pk}">L01 — Linha L01</option>' in html
    assert "passagem de cada linha" in html
    day10 = (alegre.today() + timedelta(days=10)).isoformat()
    r = client.get(reverse("tariffs-calculator"),
                   {"modality": "bus", "line": priced.pk, "zone": "urban", "student": "on", "date": day10})
    assert r.status_code == 200
    html = r.content.decode()
    assert "R$ 2,28" in html and "Decreto 4.55" in html and reverse("transit-line", args=[priced.pk]) in html
    r = client.get(reverse("tariffs-calculator"), {"modality": "bus", "line": "999999"})
    assert r.status_code == 400


def test_calculator_page_sees_a_new_fare_at_once(running, client, alegre):
    _, line = running
    _set(line, "4.00", alegre.today(), alegre.today())
    params = {"modality": "bus", "line": line.pk, "zone": "urban"}
    assert "R$ 4,00" in client.get(reverse("tariffs-calculator"), params).content.decode()
    _set(line, "4.80", alegre.today(), alegre.today() + timedelta(days=10))
    params["date"] = (alegre.today() + timedelta(days=10)).isoformat()
    assert "R$ 4,80" in client.get(reverse("tariffs-calculator"), params).content.decode()
    assert "R$ 4,80" not in client.get(reverse("tariffs-calculator")).content.decode()  # not in force today


def test_form_requires_a_line_when_the_pack_has_no_bus_table(priced):
    from tariffs.forms import QuoteForm

    form = QuoteForm({"modality": "bus", "zone": "urban"}, modalities=["taxi", "bus"], km_optional_for=("bus",),
                     lines=[priced], line_required=True)
    assert not form.is_valid() and "Escolha a linha" in form.errors["line"][0]
    form = QuoteForm({"modality": "bus", "line": str(priced.pk)}, modalities=["taxi", "bus"],
                     km_optional_for=("bus",), lines=[priced], line_required=True)
    assert form.is_valid() and form.cleaned_data["line"] == str(priced.pk)
    taxi = QuoteForm({"modality": "taxi", "km": "3", "line": str(priced.pk)}, modalities=["taxi", "bus"],
                     lines=[priced])
    assert taxi.is_valid() and taxi.cleaned_data["line"] == ""  # a line only matters for the bus


def test_calculator_page_queries_do_not_grow_with_the_lines(running, client, alegre, monkeypatch):
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from .conftest import make_line

    concession, line = running

    def count() -> int:
        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("tariffs-calculator")).status_code == 200
        return len(ctx.captured_queries)

    monkeypatch.setattr("tariffs.selectors._FINGERPRINT_SECONDS", 3600.0)  # the tables' own memo, not ours
    _set(line, "4.00", alegre.today(), alegre.today())
    count()  # warm the pack and the tables' memo
    one = count()
    for n in range(2, 31):
        _set(make_line(concession, code=f"L{n:02d}"), "4.00", alegre.today(), alegre.today())
    assert count() == one
