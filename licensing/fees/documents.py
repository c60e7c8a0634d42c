"""The DAM (Documento de Arrecadação Municipal) PDF of a fee or fine, with its static Pix."""

from __future__ import annotations

import base64

from django.conf import settings

from licensing.fees.models import Fee, FeeStatus
from portal import regulation
from portal.febraban import BarcodeError, barcode_svg, dam_code
from portal.pdf import qr_png_data_uri, render_pdf
from portal.pix import PixError, brcode_payload


def pix_receiver(pack) -> dict:
    """Key, name and city that receive the Pix (settings PIX_KEY overrides the pack's)."""
    muni = pack.municipality
    key = getattr(settings, "PIX_KEY", "") or muni.get("pix_key", "")
    return {
        "key": key,
        "name": muni.get("pix_name") or f"PREFEITURA DE {pack.name}",
        "city": muni.get("pix_city") or pack.name,
        "is_example": bool(muni.get("pix_key_example")) and not getattr(settings, "PIX_KEY", ""),
    }


def fee_pix(fee: Fee, pack=None) -> dict:
    """The Pix "copia e cola" and QR code of an issued DAM ({} when it cannot be paid by Pix)."""
    pack = pack or regulation.current()
    if fee.status != FeeStatus.ISSUED:
        return {}
    receiver = pix_receiver(pack)
    try:
        payload = brcode_payload(key=receiver["key"], name=receiver["name"], city=receiver["city"],
                                 amount=fee.amount, txid=dam_reference(fee))
    except PixError as exc:
        return {"error": str(exc)}
    return {"payload": payload, "qr": qr_png_data_uri(payload), "key": receiver["key"],
            "is_example": receiver["is_example"]}


def dam_reference(fee: Fee) -> str:
    """The one identifier of a DAM in the bank's files: the Pix txid and the barcode's free field
    both carry it (DAM + number without the slash: DAM0022026)."""
    return f"DAM{fee.number.replace('/', '')}"


def febraban_company_code(pack) -> str:
    """The Prefeitura's 4-digit FEBRABAN code: setting FEBRABAN_CODE over the pack's."""
    return getattr(settings, "FEBRABAN_CODE", "") or str(pack.municipality.get("febraban_code", "") or "")


def fee_barcode(fee: Fee, pack=None) -> dict:
    """Barcode (44 digits, FEBRABAN collection layout, segment 1 — prefeituras) and linha
    digitável (48) of an issued DAM; {} when it cannot be paid by barcode (no FEBRABAN code of
    the Prefeitura: setting FEBRABAN_CODE or the pack's ``febraban_code``)."""
    pack = pack or regulation.current()
    if fee.status != FeeStatus.ISSUED:
        return {}
    configured = getattr(settings, "FEBRABAN_CODE", "")
    company = febraban_company_code(pack)
    if not company:
        return {}
    try:
        code = dam_code(amount=fee.amount, company_code=company, due_date=fee.due_date,
                        reference=dam_reference(fee))
    except BarcodeError as exc:
        return {"error": str(exc)}
    return {
        "barcode": code.barcode, "digitable_line": code.digitable_line, "formatted_line": code.formatted_line,
        "svg": "data:image/svg+xml;base64," + base64.b64encode(barcode_svg(code.barcode)).decode(),
        "is_example": bool(pack.municipality.get("febraban_code_example")) and not configured,
    }


def render_dam(fee: Fee) -> bytes:
    pack = regulation.current()
    return render_pdf("licensing/fees/pdf/dam.html", {"fee": fee, "pack": pack, "pix": fee_pix(fee, pack),
                                                        "barcode": fee_barcode(fee, pack)})
