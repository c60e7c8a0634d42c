"""Static Pix BR Code ("Pix copia e cola"): EMV® QRCPS-MPM payload with CRC16-CCITT-FALSE.

Format from the Banco Central do Brasil "Manual de Padrões para Iniciação do Pix"
(BR Code, static QR): each field is ID (2 digits) + length (2 digits) + value; the
payload ends with field 63 holding the CRC16 (polynomial 0x1021, initial value 0xFFFF)
computed over the whole payload including "6304".
"""

from __future__ import annotations

import re
import unicodedata
from decimal import ROUND_HALF_UP, Decimal

GUI = "br.gov.bcb.pix"
MAX_NAME = 25
MAX_CITY = 15
MAX_TXID = 25
MAX_INFO = 72


class PixError(ValueError):
    """The data cannot make a valid BR Code (missing key, field too long)."""


def crc16_ccitt_false(data: str) -> str:
    """CRC16-CCITT-FALSE of ``data`` (UTF-8) as four upper-case hex digits."""
    crc = 0xFFFF
    for byte in data.encode("utf-8"):
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
            crc &= 0xFFFF
    return f"{crc:04X}"


def _field(tag: str, value: str) -> str:
    length = len(value.encode("utf-8"))
    if length > 99:
        raise PixError(f"Campo {tag} do BR Code longo demais ({length} caracteres).")
    return f"{tag}{length:02d}{value}"


def _ascii(text: str, limit: int) -> str:
    """Upper-case ASCII without accents, as banks' apps expect, cut to ``limit``."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    plain = re.sub(r"[^A-Za-z0-9 .\-/]", " ", plain)
    return re.sub(r"\s+", " ", plain).strip().upper()[:limit]


def clean_txid(txid: str) -> str:
    """The reference label (txid): letters and digits only, at most 25; '***' when none."""
    cleaned = re.sub(r"[^A-Za-z0-9]", "", txid or "")[:MAX_TXID]
    return cleaned or "***"


def brcode_payload(
    *, key: str, name: str, city: str, amount: Decimal | str | None = None, txid: str = "",
    info: str = "", normalize: bool = True,
) -> str:
    """The static BR Code for a Pix ``key`` (CPF/CNPJ digits, e-mail, +55 phone or random key).

    ``name`` (≤ 25) and ``city`` (≤ 15) are the receiver's; ``amount`` in reais (optional);
    ``txid`` identifies the payment (the DAM number); ``info`` is a message to the payer.
    """
    key = (key or "").strip()
    if not key:
        raise PixError("Chave Pix não configurada.")
    if normalize:
        name, city = _ascii(name, MAX_NAME), _ascii(city, MAX_CITY)
    if not name or not city:
        raise PixError("Informe o nome e a cidade do recebedor do Pix.")
    account = _field("00", GUI) + _field("01", key)
    if info:
        account += _field("02", _ascii(info, MAX_INFO) if normalize else info[:MAX_INFO])
    payload = _field("00", "01") + _field("26", account) + _field("52", "0000") + _field("53", "986")
    if amount is not None:
        value = Decimal(str(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        if value <= 0:
            raise PixError("O valor do Pix precisa ser positivo.")
        payload += _field("54", f"{value:.2f}")
    payload += _field("58", "BR") + _field("59", name) + _field("60", city)
    payload += _field("62", _field("05", clean_txid(txid)))
    payload += "6304"
    return payload + crc16_ccitt_false(payload)


def parse_tlv(payload: str) -> dict[str, str]:
    """Top-level fields of a BR Code (for checks and tests)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(payload):
        tag, length = payload[i:i + 2], int(payload[i + 2:i + 4])
        out[tag] = payload[i + 4:i + 4 + length]
        i += 4 + length
    return out


def payload_is_valid(payload: str) -> bool:
    """True when the trailing CRC matches the payload."""
    return len(payload) > 8 and payload[-8:-4] == "6304" and crc16_ccitt_false(payload[:-4]) == payload[-4:]
