"""Dívida ativa hand-off: fees and fines unpaid past their due date, with the late charges of
the pack, listed for the treasury (page and CSV)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from defusedcsv import csv
from django.urls import reverse

from licensing.fees.models import Fee, FeeStatus
from licensing.fees.rules import LateCharges, late_charges
from portal import registry, regulation

RATE_KEYS = ("fees.late_interest_monthly_percent", "fees.late_penalty_daily_percent", "fees.late_penalty_max_percent")


@dataclass(frozen=True)
class Rates:
    interest_monthly: Decimal
    penalty_daily: Decimal
    penalty_max: Decimal
    in_force: bool
    legal_basis: str
    missing: bool


def late_rates(pack, on: date) -> Rates:
    """The pack's rates in force on ``on``. An example value (until the municipal tax code is
    recorded as the parameter's value) is shown but charges nothing; no rate in the pack, nothing."""
    params = [pack.param(key, at=on) for key in RATE_KEYS]
    if any(p is None for p in params):
        return Rates(Decimal("0"), Decimal("0"), Decimal("0"), False, "", True)
    values = [Decimal(str(p.value)) for p in params]
    basis = "; ".join(dict.fromkeys(p.legal_basis for p in params))
    return Rates(values[0], values[1], values[2], not any(p.is_example for p in params), basis, False)


@dataclass(frozen=True)
class Debt:
    """A fee or fine owed, as the treasury reads it."""

    number: str
    kind: str
    kind_label: str
    description: str
    debtor: str
    cpf: str
    authorization: str
    source: str
    legal_basis: str
    reference_year: int
    due_date: date
    amount: Decimal
    url: str = ""

    @classmethod
    def of_fee(cls, fee: Fee) -> Debt:
        return cls(fee.number, fee.kind, fee.get_kind_display(), fee.description, fee.holder.display_name,
                   getattr(fee.holder, "cpf", "") or "", fee.authorization.number if fee.authorization_id else "",
                   fee.source, fee.legal_basis, fee.reference_year, fee.due_date, fee.amount,
                   reverse("lifecycle-fee-detail", args=[fee.pk]))


@dataclass(frozen=True)
class OverdueRow:
    debt: Debt
    charges: LateCharges

    @property
    def total(self) -> Decimal:
        return self.debt.amount + self.charges.charged


def overdue_rows(on: date | None = None) -> tuple[list[OverdueRow], Rates]:
    """Every DAM of the fees room unpaid past its due date, and the fines another app keeps
    outside it (``portal.registry.OVERDUE_FINES``), oldest due date first."""
    pack = regulation.current()
    on = on or pack.today()
    rates = late_rates(pack, on)
    fees = (Fee.objects.select_related("holder", "authorization")
            .filter(status=FeeStatus.ISSUED, due_date__lt=on).order_by("due_date", "number"))
    debts = [Debt.of_fee(fee) for fee in fees]
    if registry.has(registry.OVERDUE_FINES):
        debts += registry.call(registry.OVERDUE_FINES, on)
    debts.sort(key=lambda d: (d.due_date, d.number))
    rows = [OverdueRow(d, late_charges(amount=d.amount, due=d.due_date, on=on,
                                       interest_monthly_percent=rates.interest_monthly,
                                       penalty_daily_percent=rates.penalty_daily,
                                       penalty_max_percent=rates.penalty_max, in_force=rates.in_force))
            for d in debts]
    return rows, rates


CSV_FIELDS = ("dam", "tipo", "descricao", "contribuinte", "cpf", "autorizacao", "origem", "base_legal", "exercicio",
              "vencimento", "dias_atraso", "meses_juros", "principal", "juros", "multa_mora", "total",
              "acrescimos_em_vigor", "base_legal_acrescimos", "calculado_em")


def overdue_csv(rows: list[OverdueRow], rates: Rates, on: date, sep: str = ",") -> bytes:
    """CSV in UTF-8 with BOM; values machine-readable (dot as decimal mark, ISO dates); cells a
    spreadsheet would run as a formula neutralised by defusedcsv. With example rates the charges
    are listed but ``total`` is the principal and ``acrescimos_em_vigor`` says "nao"."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep if sep in (",", ";") else ",", lineterminator="\r\n")
    writer.writerow(CSV_FIELDS)
    for row in rows:
        d, c = row.debt, row.charges
        writer.writerow([
            d.number, d.kind, d.description, d.debtor, d.cpf, d.authorization, d.source, d.legal_basis,
            d.reference_year, d.due_date.isoformat(), c.days, c.months, f"{d.amount:.2f}", f"{c.interest:.2f}",
            f"{c.penalty:.2f}",
            f"{row.total:.2f}", "sim" if c.in_force else "nao", rates.legal_basis, on.isoformat(),
        ])
    return b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8")
