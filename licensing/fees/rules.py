"""Pure rules of fees: amounts in UFM and how the TFF settles a grant's receipt."""

from __future__ import annotations

from dataclasses import dataclass
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
