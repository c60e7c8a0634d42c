"""Dívida ativa: late charges at their boundaries, the staff page and the CSV."""

import io
from datetime import date, timedelta
from decimal import Decimal

import pytest
from defusedcsv import csv

from licensing.fees.models import Fee
from licensing.fees.rules import add_months, late_charges, months_or_fraction
from licensing.fees.services import fee_issue

RATES = {"interest_monthly_percent": Decimal("1"), "penalty_daily_percent": Decimal("0.33"),
         "penalty_max_percent": Decimal("20")}


@pytest.mark.parametrize("due,on,months", [
    (date(2026, 1, 31), date(2026, 1, 31), 0),   # paid on the due date: on time
    (date(2026, 1, 31), date(2026, 2, 1), 1),    # the day after: a month begun
    (date(2026, 1, 31), date(2026, 2, 28), 1),   # 31/01 + 1 month = 28/02
    (date(2026, 1, 31), date(2026, 3, 1), 2),
    (date(2026, 3, 15), date(2026, 4, 15), 1),
    (date(2026, 3, 15), date(2026, 4, 16), 2),
])
def test_months_or_fraction(due, on, months):
    assert months_or_fraction(due, on) == months


def test_add_months_clamps_to_the_last_day():
    assert add_months(date(2026, 1, 31), 1) == date(2026, 2, 28)
    assert add_months(date(2026, 11, 30), 3) == date(2027, 2, 28)


@pytest.mark.parametrize("days,interest,penalty", [
    (0, "0.00", "0.00"),
    (1, "0.95", "0.31"),      # 95,00 × 1% × 1 month; 95,00 × 0,33%
    (60, "1.90", "18.81"),    # 59 days after 15/03 is 14/05: 2 months; 60 × 0,33% = 19,80%
    (61, "1.90", "19.00"),    # 15/05, still month 2; 61 × 0,33% = 20,13% → capped at 20%
    (62, "2.85", "19.00"),    # 16/05: month 3 begun
])
def test_late_charges_at_the_penalty_cap(days, interest, penalty):
    due = date(2026, 3, 15)
    c = late_charges(amount=Decimal("95.00"), due=due, on=due + timedelta(days=days), in_force=True, **RATES)
    assert (c.days, str(c.interest), str(c.penalty)) == (days, interest, penalty)
    assert c.charged == Decimal(interest) + Decimal(penalty)
    example = late_charges(amount=Decimal("95.00"), due=due, on=due + timedelta(days=days), in_force=False, **RATES)
    assert example.interest == c.interest and example.charged == Decimal("0.00")  # an example charges nothing


@pytest.mark.django_db
def test_overdue_page_and_csv_for_the_treasury(itagiba, clerk, applicant, web):
    today = itagiba.today()
    fee = fee_issue(actor=clerk, kind="fine", holder=applicant, description="=HYPERLINK(x)",
                    legal_basis="PL 015/2025 (Itagibá/BA), art. 33", amount="1234.56", due_date=today - timedelta(days=1))
    Fee.objects.filter(pk=fee.pk).update(issued_at=fee.issued_at - timedelta(days=40))
    fee_issue(actor=clerk, kind="fine", holder=applicant, description="Multa em dia",
              legal_basis="PL 015/2025 (Itagibá/BA), art. 33", amount="10.00", due_date=today)
    page = web(clerk).get("/atendimento/taxas/divida-ativa/")
    html = page.content.decode()
    assert page.status_code == 200 and fee.number in html and "Multa em dia" not in html
    assert "R$ 1.234,56" in html and "de exemplo" in html
    assert web(applicant).get("/atendimento/taxas/divida-ativa/").status_code == 403
    r = web(clerk).get("/atendimento/taxas/divida-ativa.csv")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.content.decode("utf-8-sig"))))
    assert len(rows) == 1
    row = rows[0]
    assert row["dam"] == fee.number and row["principal"] == "1234.56" and row["juros"] == "12.35"
    assert row["multa_mora"] == "4.07" and row["total"] == "1234.56" and row["acrescimos_em_vigor"] == "nao"
    assert row["descricao"].startswith("'=")  # a formula is data
    assert row["vencimento"] == (today - timedelta(days=1)).isoformat() and row["dias_atraso"] == "1"
    semi = web(clerk).get("/atendimento/taxas/divida-ativa.csv?sep=;").content.decode("utf-8-sig")
    assert semi.splitlines()[0].startswith("dam;tipo;")


@pytest.mark.django_db
def test_recorded_tax_code_rates_are_charged(itagiba, clerk, applicant):
    from licensing.fees.overdue import overdue_rows
    from portal import regulation
    from portal.models import RegulationParameter

    today = itagiba.today()
    fee_issue(actor=clerk, kind="fine", holder=applicant, description="Multa", legal_basis="art. 33",
              amount="100.00", due_date=today - timedelta(days=10))
    for key in ("fees.late_interest_monthly_percent", "fees.late_penalty_daily_percent",
                "fees.late_penalty_max_percent"):
        RegulationParameter.objects.filter(key=key).update(is_example=False, legal_basis="Código Tributário, art. 50")
    regulation.invalidate()
    [row], rates = overdue_rows()
    assert rates.in_force and row.charges.interest == Decimal("1.00") and row.charges.penalty == Decimal("3.30")
    assert row.total == Decimal("104.30")
