"""The DAM (Documento de Arrecadação Municipal) PDF of a fee or fine, with its static Pix."""

from __future__ import annotations

from django.conf import settings

from licensing.fees.models import Fee, FeeStatus
from portal import regulation
from portal.pdf import qr_svg_data_uri, render_pdf
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
                                 amount=fee.amount, txid=f"DAM{fee.number.replace('/', '')}")
    except PixError as exc:
        return {"error": str(exc)}
    return {"payload": payload, "qr": qr_svg_data_uri(payload), "key": receiver["key"],
            "is_example": receiver["is_example"]}


def render_dam(fee: Fee) -> bytes:
    pack = regulation.current()
    return render_pdf("licensing/fees/pdf/dam.html", {"fee": fee, "pack": pack, "pix": fee_pix(fee, pack)})
