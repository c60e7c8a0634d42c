"""Pure rules of fees: amounts in UFM and how the TFF settles a grant's receipt."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from portal.exceptions import RuleViolation
from portal.money import to_cents

# --- fees ----------------------------------------------------------------------------


def fee_amount(*, units, unit_value: Decimal) -> Decimal:
    """Amount in reais of a fee set in fiscal units, rounded half up to the cent."""
    return to_cents(Decimal(str(units)) * Decimal(str(unit_value)))


def tff_violation(tff_units) -> RuleViolation | None:
    """The TFF exists only where the law sets it (``fees.tff_units``)."""
    if tff_units is None:
        return RuleViolation("tff_not_provided",
                             "A lei do município não prevê a Taxa de Fiscalização e Funcionamento.", field="kind")
    return None


@dataclass(frozen=True)
class TffSettlement:
    """How the TFF of a grant's year stands before the grant (``fees.tff_receipt_document``):
    ``settled`` when the DAM is paid or the receipt was accepted by the clerk; ``receipt_waived``
    when the paid DAM makes the receipt unnecessary; ``violation`` otherwise."""

    settled: bool
    receipt_waived: bool
    violation: RuleViolation | None


def tff_settlement(receipt_param, *, year: int, fee_paid: bool, receipt_accepted: bool) -> TffSettlement:
    """Where the law makes the receipt of the TFF part of the request, with the clerk checking
    the payment (the pack's ``fees.tff_receipt_document``), the grant needs the TFF of the year
    paid: a DAM marked paid (the portal knows it, so the receipt is not asked) or a receipt the
    clerk accepted."""
    if receipt_param is None:
        return TffSettlement(True, False, None)
    if fee_paid:
        return TffSettlement(True, True, None)
    if receipt_accepted:
        return TffSettlement(True, False, None)
    return TffSettlement(False, False, RuleViolation(
        "tff_unpaid",
        f"A TFF de {year} não está recolhida: pague o DAM da TFF ou envie o comprovante de recolhimento "
        "para conferência do servidor.",
        receipt_param.legal_basis, field="tff", conflict=True,
    ))


# --- reconciliation ------------------------------------------------------------------


def dam_number_from_reference(reference: str) -> str | None:
    """The DAM number a bank file names: the Pix txid ``DAM0022026`` or the digits of the
    barcode's free field ``22026`` both mean DAM nº 002/2026 (sequence, then the 4-digit year;
    numbers are written with at least three digits, so the inverse is exact). None when the
    reference cannot be a DAM."""
    text = (reference or "").strip().upper()
    text = text.removeprefix("DAM")
    if not text.isdigit() or len(text) < 5:
        return None
    sequence, year = int(text[:-4]), text[-4:]
    if sequence <= 0:
        return None
    return f"{sequence:03d}/{year}"


# --- dívida ativa ----------------------------------------------------------------------


def months_or_fraction(due: date, on: date) -> int:
    """Months of delay counted "por mês ou fração": 0 on or before the due date; from the day
    after, the number of months begun (due 31/01: 28/02 is month 1, 01/03 month 2)."""
    if on <= due:
        return 0
    n = 1
    while add_months(due, n) < on:
        n += 1
    return n


def add_months(day: date, months: int) -> date:
    """``day`` plus whole months, clamped to the month's last day (31/01 + 1 = 28/02)."""
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


@dataclass(frozen=True)
class LateCharges:
    days: int
    months: int
    interest: Decimal
    penalty: Decimal
    in_force: bool  # False: the rates are examples of the pack, they charge nothing

    @property
    def charged(self) -> Decimal:
        return self.interest + self.penalty if self.in_force else Decimal("0.00")


def late_charges(*, amount: Decimal, due: date, on: date, interest_monthly_percent, penalty_daily_percent,
                 penalty_max_percent, in_force: bool) -> LateCharges:
    """Juros de mora (simple, per month or fraction: CTN art. 161, §1º, unless the municipal tax
    code says otherwise) and multa de mora (per day of delay, capped) of an amount unpaid past
    its due date, each rounded half up to the cent. Paid on the due date: nothing."""
    days = max((on - due).days, 0)
    months = months_or_fraction(due, on)
    amount = Decimal(str(amount))
    interest = to_cents(amount * Decimal(str(interest_monthly_percent)) * months / 100)
    rate = min(Decimal(str(penalty_daily_percent)) * days, Decimal(str(penalty_max_percent)))
    penalty = to_cents(amount * rate / 100)
    return LateCharges(days, months, interest, penalty, in_force)
