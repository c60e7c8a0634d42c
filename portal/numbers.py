"""Numbers as a Brazilian reader writes them: thousands grouped by a dot (15.310)."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def thousands(value) -> str:
    """A whole number with the Brazilian thousands separator: 15310 -> '15.310', -1200 -> '-1.200'.

    None and '' give ''; anything that is not a whole number is returned unchanged, as text."""
    if value is None or value == "":
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and value.strip().removeprefix("-").isdigit():
        number = int(value)
    else:
        return str(value)
    digits = f"{abs(number):,}".replace(",", ".")
    return f"-{digits}" if number < 0 else digits


def br_number(value, places: int = 2) -> str:
    """1234.5 → '1.234,50' (pt-BR), rounded half up to ``places``."""
    q = Decimal(str(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    text = f"{q:,.{places}f}"
    return text.replace(",", "_").replace(".", ",").replace("_", ".")


def brl(value) -> str:
    """R$ 1.234,56"""
    return f"R$ {br_number(value)}"
