"""Money: Decimal rounded half up to the cent (PRODUCT.md, interpretations)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, localcontext

CENT = Decimal("0.01")


def to_cents(value) -> Decimal:
    """``value`` as a Decimal rounded half up to the cent.

    Computed with a wide precision: progressive doubling of fines (×2, ×4, … ×2ⁿ) has no
    ceiling in the law and must not overflow the default 28 digits."""
    with localcontext() as ctx:
        ctx.prec = 80
        return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)
