"""Barcode of the FEBRABAN collection standard ("arrecadação"), as on a municipal DAM.

Layout from FEBRABAN's "Layout Padrão de Arrecadação/Recebimento com Utilização do Código de
Barras" (version 4): 44 digits —

  1      product: 8 (arrecadação)
  2      segment: 1 (prefeituras)
  3      value identifier: 6 or 7 — check digits by modulo 10; 8 or 9 — by modulo 11
         (6/8: the value in reais; 7/9: a quantity of a currency unit)
  4      general check digit (DAC) over the other 43 digits
  5–15   value, 11 digits, in cents
  16–19  company/agency code assigned by FEBRABAN (segments other than 6)
  20–44  free field (25 digits), laid out by the convênio with the collecting bank

The linha digitável splits the 44 digits into four blocks of 11, each followed by its own
check digit by the same modulo: 48 digits. The bars are Interleaved 2 of 5 (narrow:wide 1:3).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

PRODUCT_COLLECTION = "8"
SEGMENT_CITY = "1"
MODULO_10_IDS = {"6", "7"}
MODULO_11_IDS = {"8", "9"}
MAX_CENTS = 10**11 - 1


class BarcodeError(ValueError):
    """The data cannot make a valid collection barcode."""


def modulo10(digits: str) -> int:
    """FEBRABAN modulo 10: weights 2, 1, 2, 1… from the right, digits of each product summed."""
    total, weight = 0, 2
    for ch in reversed(digits):
        product = int(ch) * weight
        total += product // 10 + product % 10
        weight = 1 if weight == 2 else 2
    rest = total % 10
    return 0 if rest == 0 else 10 - rest


def modulo11(digits: str) -> int:
    """FEBRABAN modulo 11 of the collection layout: weights 2…9 from the right; a rest of 0 or
    1 gives 0, any other rest r gives 11 − r."""
    total, weight = 0, 2
    for ch in reversed(digits):
        total += int(ch) * weight
        weight = 2 if weight == 9 else weight + 1
    rest = total % 11
    return 0 if rest in (0, 1) else 11 - rest


def _check(value_id: str):
    if value_id in MODULO_10_IDS:
        return modulo10
    if value_id in MODULO_11_IDS:
        return modulo11
    raise BarcodeError(f"Identificador de valor {value_id!r} inválido (use 6, 7, 8 ou 9).")


def free_field(*, due_date: date | None, reference: str) -> str:
    """The 25-digit free field: due date AAAAMMDD (zeros when none) and the DAM reference
    (digits only, right-aligned with zeros) — the layout most municipal convênios use."""
    digits = "".join(ch for ch in reference if ch.isdigit())
    head = due_date.strftime("%Y%m%d") if due_date else "00000000"
    if len(digits) > 25 - len(head):
        raise BarcodeError("Referência do DAM longa demais para o campo livre do código de barras.")
    return head + digits.rjust(25 - len(head), "0")


def collection_barcode(*, amount: Decimal | str, company_code: str, free: str, value_id: str = "8",
                       segment: str = SEGMENT_CITY) -> str:
    """The 44 digits of the collection barcode, general check digit in position 4."""
    cents = int((Decimal(str(amount)) * 100).quantize(Decimal("1"), rounding=ROUND_HALF_UP))
    if cents <= 0 or cents > MAX_CENTS:
        raise BarcodeError("Valor fora do intervalo do código de barras.")
    if not (company_code.isdigit() and len(company_code) == 4):
        raise BarcodeError("O código FEBRABAN do órgão tem 4 dígitos.")
    if not (free.isdigit() and len(free) == 25):
        raise BarcodeError("O campo livre tem 25 dígitos.")
    body = PRODUCT_COLLECTION + segment + value_id + f"{cents:011d}" + company_code + free
    dac = _check(value_id)(body)
    return body[:3] + str(dac) + body[3:]


def barcode_is_valid(barcode: str) -> bool:
    if len(barcode) != 44 or not barcode.isdigit() or barcode[0] != PRODUCT_COLLECTION:
        return False
    try:
        check = _check(barcode[2])
    except BarcodeError:
        return False
    return check(barcode[:3] + barcode[4:]) == int(barcode[3])


def digitable_line(barcode: str) -> str:
    """The 48-digit linha digitável: four blocks of 11 digits, each with its check digit."""
    if not barcode_is_valid(barcode):
        raise BarcodeError("Código de barras inválido.")
    check = _check(barcode[2])
    return "".join(block + str(check(block)) for block in (barcode[i:i + 11] for i in range(0, 44, 11)))


def format_digitable_line(line: str) -> str:
    """As printed: 85820000001-5 66980270116-2 30001280018-9 67222025113-0."""
    return " ".join(f"{line[i:i + 11]}-{line[i + 11]}" for i in range(0, 48, 12))


def barcode_svg(barcode: str) -> bytes:
    """The bars as SVG, Interleaved 2 of 5 with the 1:3 ratio the standard asks."""
    from barcode import ITF
    from barcode.writer import SVGWriter

    out = io.BytesIO()
    ITF(barcode, writer=SVGWriter(), narrow=1, wide=3).write(
        out, options={"write_text": False, "module_width": 0.33, "module_height": 13, "quiet_zone": 6},
    )
    return out.getvalue()


@dataclass(frozen=True)
class CollectionCode:
    barcode: str
    digitable_line: str

    @property
    def formatted_line(self) -> str:
        return format_digitable_line(self.digitable_line)


def dam_code(*, amount: Decimal | str, company_code: str, due_date: date | None, reference: str,
             value_id: str = "8") -> CollectionCode:
    code = collection_barcode(amount=amount, company_code=company_code,
                              free=free_field(due_date=due_date, reference=reference), value_id=value_id)
    return CollectionCode(barcode=code, digitable_line=digitable_line(code))


def barcode_company(barcode: str) -> str:
    """Positions 16–19: the company/agency code assigned by FEBRABAN."""
    return barcode[15:19]


def barcode_amount(barcode: str) -> Decimal | None:
    """Positions 5–15 as reais when the value identifier says they hold the value in reais (6
    or 8); None for a quantity of another currency unit (7 or 9)."""
    if barcode[2] not in {"6", "8"}:
        return None
    return (Decimal(int(barcode[4:15])) / 100).quantize(Decimal("0.01"))


def free_field_reference(barcode: str) -> str:
    """The DAM reference digits of the free field (``free_field``'s layout: positions 20–27 the
    due date, 28–44 the reference right-aligned with zeros), leading zeros removed."""
    return barcode[27:44].lstrip("0")
