"""A Pix statement of received payments, as the receiving bank exports it: CSV or JSON.

JSON: a list of payments, or the Banco Central Pix API answer to ``GET /pix`` (``{"pix": [...]}``)
with ``endToEndId``, ``txid``, ``valor`` (text, dot as decimal mark) and ``horario`` (ISO 8601).
CSV (``;`` or ``,`` separated, header row): columns ``txid``, ``valor`` (or ``value``/``amount``),
``data`` (or ``date``/``horario``) and optionally ``endToEndId`` (or ``e2e``/``id``). Values may
be written 1234.56, 1234,56 or 1.234,56; dates as AAAA-MM-DD (optionally with the time) or DD/MM/AAAA.

Pure: reads the text and says what each line holds or why it could not be read.
"""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

TXID_KEYS = ("txid",)
AMOUNT_KEYS = ("valor", "value", "amount")
DATE_KEYS = ("horario", "data", "date", "datahora", "paid_at")
E2E_KEYS = ("endtoendid", "e2eid", "e2e", "id")


class StatementError(ValueError):
    """The file is not a readable Pix statement (refused as a whole)."""


@dataclass(frozen=True)
class PixPayment:
    line_no: int
    raw: str
    txid: str = ""
    amount: Decimal | None = None
    paid_on: date | None = None
    end_to_end: str = ""
    error: str = ""

    @property
    def identity_fields(self) -> tuple:
        """The end-to-end id names one Pix uniquely (Banco Central); without it, the txid,
        value and moment of the statement line."""
        if self.end_to_end:
            return ("pix", self.end_to_end)
        return ("pix", self.txid, str(self.amount), self.paid_on.isoformat() if self.paid_on else "", self.raw)


def _key(name: str) -> str:
    plain = unicodedata.normalize("NFKD", str(name)).encode("ascii", "ignore").decode()
    return "".join(ch for ch in plain.lower() if ch.isalnum())


def parse_amount(raw) -> Decimal:
    text = str(raw).replace("R$", "").strip()
    if "," in text:
        text = text.replace(".", "").replace(",", ".")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError(raw) from None
    if not value.is_finite():
        raise ValueError(raw)
    return value.quantize(Decimal("0.01"))


def parse_day(raw) -> date:
    text = str(raw).strip()
    if "/" in text:
        day, month, year = text.split(" ")[0].split("/")
        return date(int(year), int(month), int(day))
    if "T" in text or " " in text:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    return date.fromisoformat(text)


def _pick(row: dict, keys: tuple) -> str:
    for key in keys:
        if key in row and row[key] not in (None, ""):
            return str(row[key]).strip()
    return ""


def _payment(line_no: int, raw: str, row: dict) -> PixPayment:
    row = {_key(k): v for k, v in row.items() if k is not None}
    txid, raw_amount, raw_date = _pick(row, TXID_KEYS), _pick(row, AMOUNT_KEYS), _pick(row, DATE_KEYS)
    e2e = _pick(row, E2E_KEYS)
    if not txid:
        return PixPayment(line_no, raw, end_to_end=e2e, error="Sem txid (identificador do DAM).")
    try:
        amount = parse_amount(raw_amount)
    except ValueError:
        return PixPayment(line_no, raw, txid=txid, end_to_end=e2e, error=f"Valor inválido: {raw_amount!r}.")
    try:
        paid_on = parse_day(raw_date)
    except (ValueError, TypeError):
        return PixPayment(line_no, raw, txid=txid, amount=amount, end_to_end=e2e,
                          error=f"Data inválida: {raw_date!r}.")
    return PixPayment(line_no, raw, txid=txid, amount=amount, paid_on=paid_on, end_to_end=e2e)


def parse_statement(text: str) -> list[PixPayment]:
    stripped = text.lstrip()
    if stripped[:1] in ("[", "{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise StatementError(f"JSON inválido (linha {exc.lineno}).") from None
        items = data.get("pix") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise StatementError("O JSON do extrato Pix deve ser uma lista de pagamentos ou {\"pix\": [...]}.")
        return [_payment(n, json.dumps(item, ensure_ascii=False, sort_keys=True), item if isinstance(item, dict) else {})
                for n, item in enumerate(items, start=1)]
    lines = text.splitlines()
    if not lines:
        raise StatementError("Extrato vazio.")
    delimiter = ";" if lines[0].count(";") >= lines[0].count(",") else ","
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    fields = {_key(f) for f in reader.fieldnames or [] if f}
    if not (fields & set(TXID_KEYS) and fields & set(AMOUNT_KEYS) and fields & set(DATE_KEYS)):
        raise StatementError("O CSV do extrato Pix precisa do cabeçalho com as colunas txid, valor e data.")
    out = []
    for row in reader:
        line_no = reader.line_num
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)):
            continue
        raw = delimiter.join(str(row.get(f) or "") for f in reader.fieldnames or [])
        out.append(_payment(line_no, raw, row))
    return out
