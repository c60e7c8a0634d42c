"""``{% dam_pay fee %}``: how to pay an issued DAM — Pix QR, copia e cola and linha digitável."""

from __future__ import annotations

from django import template

register = template.Library()


@register.inclusion_tag("licensing/fees/_pay.html")
def dam_pay(fee, compact: bool = False) -> dict:
    from licensing.fees.documents import fee_barcode, fee_pix

    if fee is None or fee.status != "issued":
        return {"fee": fee, "pix": {}, "barcode": {}, "compact": compact}
    return {"fee": fee, "pix": fee_pix(fee), "barcode": fee_barcode(fee), "compact": compact}
