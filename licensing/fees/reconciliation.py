"""Reconciliation: the bank's files of payments settle the DAMs they pay.

Two files name a DAM by the same reference (``dam_reference``, DAM0022026): the FEBRABAN
collection return file through the barcode's free field, the Pix statement through the txid.
Each DAM is settled once, by the line whose amount is the DAM's; a partial or excess payment,
a second payment of a paid DAM, an unknown reference, a repeated or unreadable line are
recorded for the clerk and change no DAM. The same file imported again (same SHA-256) changes
nothing, and a payment already imported from another file (same identity) is reported, not
settled again.
"""

from __future__ import annotations

import hashlib
from datetime import date
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from licensing.fees.documents import febraban_company_code
from licensing.fees.models import (
    Fee,
    FeeStatus,
    PaymentImport,
    PaymentLine,
    PaymentOutcome,
    PaymentSource,
)
from licensing.fees.rules import dam_number_from_reference
from licensing.fees.services import fee_mark_paid
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition
from portal.febraban import barcode_company, barcode_is_valid, free_field_reference
from portal.febraban_return import RECORD_LENGTH, ReturnFileError, parse_return_file
from portal.numbers import brl
from portal.pix_statement import StatementError, parse_statement

MAX_BYTES = 2_000_000


def _decode(content: bytes) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return content.decode("latin-1")  # bank files are often ISO-8859-1


def detect_source(text: str) -> str:
    """A FEBRABAN return file starts with its 150-position A record; anything else is read as a
    Pix statement (JSON or CSV)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.startswith("A") and len(first.rstrip("\r\n")) >= RECORD_LENGTH - 52:
        return PaymentSource.FEBRABAN
    return PaymentSource.PIX


def _identity(fields: tuple) -> str:
    return hashlib.sha256("\x1f".join(str(f) for f in fields).encode()).hexdigest()


def _fee_from_barcode(barcode: str, company: str) -> tuple[Fee | None, str]:
    if not barcode_is_valid(barcode):
        return None, "Código de barras com dígito verificador inválido."
    if not company or barcode_company(barcode) != company:
        return None, f"Código de barras de outro órgão (código FEBRABAN {barcode_company(barcode)})."
    number = dam_number_from_reference(free_field_reference(barcode))
    fee = Fee.objects.filter(number=number).first() if number else None
    return fee, "" if fee else f"Nenhum DAM com a referência {free_field_reference(barcode) or '—'}."


def _fee_from_txid(txid: str) -> tuple[Fee | None, str]:
    number = dam_number_from_reference(txid)
    fee = Fee.objects.filter(number=number).first() if number else None
    return fee, "" if fee else f"Nenhum DAM com o txid {txid}."


def _settle(*, actor, line: PaymentLine, fee: Fee, amount: Decimal, paid_on: date, reference: str) -> None:
    """Decide one payment of a known DAM (the DAM row locked), filling ``line``."""
    locked = Fee.objects.select_for_update().get(pk=fee.pk)
    line.fee = locked
    if locked.status == FeeStatus.CANCELLED:
        line.outcome, line.message = PaymentOutcome.NOT_PAYABLE, f"DAM nº {locked.number} cancelado: analisar restituição."
    elif locked.status == FeeStatus.PAID:
        line.outcome = PaymentOutcome.ALREADY_PAID
        line.message = (f"DAM nº {locked.number} já pago em {locked.paid_on:%d/%m/%Y}: pagamento em duplicidade "
                        f"de {brl(amount)}, analisar restituição.")
    elif amount < locked.amount:
        line.outcome = PaymentOutcome.PARTIAL
        line.message = (f"DAM nº {locked.number}: pago {brl(amount)} de {brl(locked.amount)} — falta "
                        f"{brl(locked.amount - amount)}; o DAM continua em aberto.")
    elif amount > locked.amount:
        line.outcome = PaymentOutcome.EXCESS
        line.message = (f"DAM nº {locked.number}: pago {brl(amount)}, devido {brl(locked.amount)} — "
                        f"{brl(amount - locked.amount)} a maior; confira antes de dar baixa.")
    else:
        try:
            fee_mark_paid(actor=actor, fee=locked, paid_on=paid_on, reference=reference)
        except (InvalidTransition, ValidationError) as exc:
            text = exc.message if isinstance(exc, InvalidTransition) else " ".join(exc.messages)
            line.outcome, line.message = PaymentOutcome.INVALID, f"DAM nº {locked.number}: {text}"
        else:
            line.outcome, line.message = PaymentOutcome.SETTLED, f"DAM nº {locked.number} baixado ({brl(amount)})."
    if line.outcome != PaymentOutcome.SETTLED:
        audit_log(actor=actor, obj=locked, action=AuditAction.PAYMENT_FLAGGED, from_state=locked.status,
                  to_state=locked.status, reason=line.message,
                  data={"outcome": line.outcome, "amount": str(amount), "paid_on": paid_on.isoformat(),
                        "reference": reference})


def _items(source: str, text: str) -> tuple[dict, list]:
    """(import fields, payments as (line_no, raw, identity fields, amount, paid_on, ref, error, lookup))."""
    if source == PaymentSource.FEBRABAN:
        parsed = parse_return_file(text)
        head = parsed.header
        company = febraban_company_code(regulation.current())
        meta = {"bank": f"{head.bank_code} {head.bank_name}".strip()[:40], "file_sequence": head.sequence,
                "file_date": head.file_date}
        out = []
        for d in parsed.details:
            ref = (f"Retorno FEBRABAN banco {head.bank_code} NSA {int(head.sequence or 0)} NSR {int(d.nsr or 0)}"
                   + (f" aut. {d.authentication}" if d.authentication else ""))
            out.append((d.line_no, d.raw, d.identity_fields, d.amount, d.paid_on, d.barcode, d.error, ref,
                        (lambda b=d.barcode: _fee_from_barcode(b, company))))
        return meta, out
    out = []
    for p in parse_statement(text):
        ref = f"Pix {p.end_to_end or p.txid}"
        out.append((p.line_no, p.raw, p.identity_fields, p.amount, p.paid_on, p.txid, p.error, ref,
                    (lambda t=p.txid: _fee_from_txid(t.upper()))))
    return {}, out


def payments_import(*, actor, content: bytes, file_name: str = "") -> tuple[PaymentImport, bool]:
    """Import a FEBRABAN collection return file or a Pix statement. Returns the import and
    whether it was new (False: this very file was imported before and nothing changed)."""
    if len(content) > MAX_BYTES:
        raise ValidationError({"file": ["Arquivo grande demais (máximo 2 MB)."]})
    sha = hashlib.sha256(content).hexdigest()
    existing = PaymentImport.objects.filter(sha256=sha).first()
    if existing is not None:
        return existing, False
    text = _decode(content)
    if not text.strip():
        raise ValidationError({"file": ["Arquivo vazio."]})
    source = detect_source(text)
    try:
        meta, items = _items(source, text)
    except (ReturnFileError, StatementError) as exc:
        raise ValidationError({"file": [str(exc)]}) from None
    try:
        return _import(actor=actor, sha=sha, source=source, file_name=file_name, meta=meta, items=items), True
    except IntegrityError:  # the same file imported at the same moment by someone else
        existing = PaymentImport.objects.filter(sha256=sha).first()
        if existing is None:
            raise
        return existing, False


@transaction.atomic
def _import(*, actor, sha: str, source: str, file_name: str, meta: dict, items: list) -> PaymentImport:
    imp = PaymentImport.objects.create(source=source, sha256=sha, file_name=file_name[:200], imported_by=actor,
                                       imported_at=timezone.now(), lines_total=len(items), **meta)
    seen: dict[str, int] = {}
    lines: list[PaymentLine] = []
    for line_no, raw, fields, amount, paid_on, ref_text, error, reference, lookup in items:
        line = PaymentLine(payment_import=imp, line_no=line_no, reference=(ref_text or "")[:60], amount=amount,
                           paid_on=paid_on)
        if error:
            line.identity = _identity(("raw", raw))
            line.outcome, line.message = PaymentOutcome.INVALID, error
        else:
            line.identity = _identity(fields)
            earlier = PaymentLine.objects.filter(identity=line.identity, first_occurrence=True).select_related(
                "payment_import").first()
            if line.identity in seen:
                line.outcome = PaymentOutcome.DUPLICATE
                line.message = f"Repete a linha {seen[line.identity]} deste arquivo: não muda nada."
            elif earlier is not None:
                line.outcome, line.fee_id = PaymentOutcome.ALREADY_IMPORTED, earlier.fee_id
                line.message = (f"Pagamento já importado em {timezone.localtime(earlier.payment_import.imported_at):%d/%m/%Y} "
                                f"(linha {earlier.line_no}): não muda nada.")
            else:
                seen[line.identity] = line_no
                line.first_occurrence = True
                fee, why = lookup()
                if fee is None:
                    line.outcome, line.message = PaymentOutcome.UNKNOWN, why
                else:
                    _settle(actor=actor, line=line, fee=fee, amount=amount, paid_on=paid_on, reference=reference)
        line.message = line.message[:300]
        line.save()
        lines.append(line)
    imp.settled_count = sum(1 for x in lines if x.outcome == PaymentOutcome.SETTLED)
    imp.flagged_count = len(lines) - imp.settled_count
    imp.save(update_fields=["settled_count", "flagged_count"])
    counts: dict[str, int] = {}
    for x in lines:
        counts[x.outcome] = counts.get(x.outcome, 0) + 1
    audit_log(actor=actor, obj=imp, action=AuditAction.PAYMENTS_IMPORTED, to_state="imported",
              reason=f"{imp.get_source_display()}: {imp.settled_count} DAM(s) baixado(s), "
                     f"{imp.flagged_count} linha(s) para conferência",
              data={"sha256": sha, "file_name": file_name[:200], "outcomes": counts})
    return imp


def import_report(imp: PaymentImport, *, new: bool = True) -> dict:
    """The import as the API answers it."""
    lines = list(imp.lines.select_related("fee"))
    return {
        "id": imp.pk, "source": imp.source, "sha256": imp.sha256, "already_imported": not new,
        "imported_at": imp.imported_at.isoformat(), "lines_total": imp.lines_total,
        "settled": [x.fee.number for x in lines if x.outcome == PaymentOutcome.SETTLED],
        "lines": [{"line": x.line_no, "outcome": x.outcome, "dam": x.fee.number if x.fee else None,
                   "amount": f"{x.amount:.2f}" if x.amount is not None else None,
                   "paid_on": x.paid_on.isoformat() if x.paid_on else None, "message": x.message} for x in lines],
    }
