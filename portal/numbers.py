"""Numbers as a Brazilian reader writes them: thousands grouped by a dot (15.310)."""

from __future__ import annotations


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
