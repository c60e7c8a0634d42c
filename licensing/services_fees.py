"""Writes of fees and fines (DAM): issue in fiscal units or reais, the yearly TFF,
payment marked by the clerk or read from a bank return file, cancellation. One
transaction per action, with an audit entry."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from licensing.models import Authorization
from licensing.models_lifecycle import FEE_TRANSITIONS, Fee, FeeKind, FeeStatus
from licensing.rules_lifecycle import fee_amount, tff_violation
from portal import regulation
from portal.audit import audit_log
from portal.exceptions import InvalidTransition, RuleViolation
from portal.notifications import notify
from portal.numbering import document_number

DEFAULT_FEE_DUE_DAYS = 30

@transaction.atomic
def fee_issue(
    *, actor, kind: str, holder, description: str, legal_basis: str, authorization: Authorization | None = None,
    units: Decimal | int | str | None = None, amount: Decimal | str | None = None, reference_year: int | None = None,
    due_date: date | None = None, source: str = "",
) -> Fee:
    """Issue a DAM for a fee or fine: in fiscal units (converted at the unit's value) or in reais."""
    if kind not in FeeKind.values:
        raise ValidationError({"kind": ["Tipo de cobrança inválido."]})
    pack = regulation.current()
    today = pack.today()
    unit_name, unit_value = "", None
    if units is not None:
        fu = pack.fiscal_unit_value(today)
        if fu is None:
            raise RuleViolation("fiscal_unit_missing", "O município não tem unidade fiscal configurada.", field="units")
        unit_value = fu[0]
        unit_name = pack.fiscal_unit.get("name", "")
        amount = fee_amount(units=units, unit_value=unit_value)
    if amount is None or Decimal(str(amount)) <= 0:
        raise ValidationError({"amount": ["Informe um valor positivo."]})
    due_days = int(pack.value("fees.due_days", authorization.modality if authorization else None, DEFAULT_FEE_DUE_DAYS))
    fee = Fee.objects.create(
        number=document_number("dam", today.year), kind=kind, authorization=authorization, holder=holder,
        description=description[:250], reference_year=reference_year or today.year,
        units=Decimal(str(units)) if units is not None else None, unit_name=unit_name, unit_value=unit_value,
        amount=Decimal(str(amount)).quantize(Decimal("0.01")), legal_basis=legal_basis[:300], source=source[:60],
        issued_by=actor if getattr(actor, "is_authenticated", False) else None,
        due_date=due_date or today + timedelta(days=due_days),
    )
    audit_log(actor=actor, obj=fee, action="fee_issued", to_state=fee.status,
              data={"number": fee.number, "amount": str(fee.amount), "kind": kind, "units": str(units or "")})
    notify(recipient=holder, subject=f"DAM nº {fee.number} emitido: {fee.description}",
           body=f"Valor R$ {fee.amount}, vencimento {fee.due_date:%d/%m/%Y}. O DAM com o Pix está no portal.",
           link=reverse("lifecycle-mine"), dedup_key=f"fee-issued:{fee.pk}")
    return fee


@transaction.atomic
def tff_issue(*, actor, authorization: Authorization, year: int | None = None) -> Fee:
    """The yearly TFF of a grant (``fees.tff_units`` per modality, in the fiscal unit)."""
    pack = regulation.current()
    param = pack.param("fees.tff_units", authorization.modality)
    violation = tff_violation(param)
    if violation:
        raise violation
    year = year or pack.today().year
    Authorization.objects.select_for_update().filter(pk=authorization.pk).first()  # one issuer at a time
    already = Fee.objects.filter(kind=FeeKind.TFF, reference_year=year).exclude(status=FeeStatus.CANCELLED).filter(
        Q(authorization=authorization) | Q(authorization__isnull=True, holder_id=authorization.holder_id))
    if already.exists():
        raise RuleViolation("tff_already_issued", f"A TFF de {year} desta autorização já foi emitida.",
                            param.legal_basis, field="year", conflict=True)
    return fee_issue(
        actor=actor, kind=FeeKind.TFF, holder=authorization.holder, authorization=authorization,
        description=f"TFF {year} — {pack.modality_label(authorization.modality)}, autorização nº {authorization.number}",
        legal_basis=param.legal_basis, units=param.value, reference_year=year,
    )


@transaction.atomic
def tff_issue_for_application(*, actor, holder, modality: str, year: int | None = None, source: str = "") -> Fee:
    """The TFF an applicant pays before the grant (the grant is refused while it is unpaid:
    ``tff_unpaid_violation``). Counts as the grant's TFF for that year."""
    pack = regulation.current()
    param = pack.param("fees.tff_units", modality)
    violation = tff_violation(param)
    if violation:
        raise violation
    year = year or pack.today().year
    type(holder).objects.select_for_update().filter(pk=holder.pk).first()  # one issuer at a time
    if Fee.objects.filter(kind=FeeKind.TFF, reference_year=year, holder=holder).exclude(
        status=FeeStatus.CANCELLED
    ).exists():
        raise RuleViolation("tff_already_issued", f"A TFF de {year} deste requerente já foi emitida.",
                            param.legal_basis, field="year", conflict=True)
    return fee_issue(
        actor=actor, kind=FeeKind.TFF, holder=holder, authorization=None,
        description=f"TFF {year} — {pack.modality_label(modality)} (outorga)", legal_basis=param.legal_basis,
        units=param.value, reference_year=year, source=source,
    )


def tff_unpaid_violation(*, holder, modality: str, year: int | None = None) -> RuleViolation | None:
    """Where the law sets a TFF, a grant cannot be issued before it is paid for the year."""
    pack = regulation.current()
    param = pack.param("fees.tff_units", modality)
    if param is None:
        return None
    year = year or pack.today().year
    if Fee.objects.filter(kind=FeeKind.TFF, reference_year=year, holder=holder, status=FeeStatus.PAID).exists():
        return None
    return RuleViolation("tff_unpaid", f"A TFF de {year} precisa estar paga antes da outorga.", param.legal_basis,
                         field="tff", conflict=True)


@transaction.atomic
def fee_mark_paid(*, actor, fee: Fee, paid_on: date | None = None, reference: str = "") -> Fee:
    locked = Fee.objects.select_for_update().get(pk=fee.pk)
    if FeeStatus.PAID not in FEE_TRANSITIONS.get(locked.status, set()):
        raise InvalidTransition(f"O DAM nº {locked.number} está {locked.get_status_display()}.")
    pack = regulation.current()
    paid_on = paid_on or pack.today()
    if paid_on > pack.today():
        raise ValidationError({"paid_on": ["A data do pagamento não pode ser futura."]})
    if paid_on < timezone.localtime(locked.issued_at, pack.tz).date():
        raise ValidationError({"paid_on": ["A data do pagamento não pode ser anterior à emissão do DAM."]})
    locked.status = FeeStatus.PAID
    locked.paid_on = paid_on
    locked.paid_at = timezone.now()
    locked.paid_marked_by = actor
    locked.payment_reference = (reference or "").strip()[:80]
    locked.save(update_fields=["status", "paid_on", "paid_at", "paid_marked_by", "payment_reference"])
    audit_log(actor=actor, obj=locked, action="fee_paid", from_state=FeeStatus.ISSUED, to_state=FeeStatus.PAID,
              data={"paid_on": paid_on.isoformat(), "reference": locked.payment_reference})
    return locked


@transaction.atomic
def fee_cancel(*, actor, fee: Fee, reason: str) -> Fee:
    locked = Fee.objects.select_for_update().get(pk=fee.pk)
    if FeeStatus.CANCELLED not in FEE_TRANSITIONS.get(locked.status, set()):
        raise InvalidTransition(f"O DAM nº {locked.number} está {locked.get_status_display()}.")
    if not (reason or "").strip():
        raise ValidationError({"reason": ["Informe o motivo do cancelamento."]})
    before = locked.status
    locked.status = FeeStatus.CANCELLED
    locked.status_reason = reason.strip()
    locked.save(update_fields=["status", "status_reason"])
    audit_log(actor=actor, obj=locked, action="fee_cancelled", from_state=before, to_state=locked.status,
              reason=reason)
    return locked


BANK_RETURN_MAX_BYTES = 1_000_000


def _parse_bank_date(raw: str) -> date:
    raw = raw.strip()
    if "/" in raw:
        day, month, year = raw.split("/")
        return date(int(year), int(month), int(day))
    return date.fromisoformat(raw)


def fees_import_bank_return(*, actor, content: bytes | str) -> dict:
    """Record the payments of a simplified bank return file: one line per payment,
    ``DAM number;payment date;amount;authentication`` (";" or "," separated, optional
    header). Each payment is checked (DAM issued, same amount, date not in the future) and
    recorded in its own transaction with an audit entry; problems are reported per line."""
    if isinstance(content, bytes):
        if len(content) > BANK_RETURN_MAX_BYTES:
            raise ValidationError({"file": ["Arquivo de retorno grande demais (máximo 1 MB)."]})
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError:
            content = content.decode("latin-1")
    paid: list[str] = []
    errors: list[dict] = []
    for line_no, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(";" if ";" in line else ",")]
        if len(parts) < 3:
            errors.append({"line": line_no, "error": "Linha incompleta: use número do DAM;data;valor;autenticação."})
            continue
        number, raw_date, raw_amount = parts[0], parts[1], parts[2].replace("R$", "").strip()
        if line_no == 1 and not any(ch.isdigit() for ch in number):
            continue  # header
        fee = Fee.objects.filter(number=number).first()
        if fee is None:
            errors.append({"line": line_no, "error": f"DAM nº {number} não encontrado."})
            continue
        try:
            paid_on = _parse_bank_date(raw_date)
            amount = Decimal(raw_amount.replace(".", "").replace(",", ".") if "," in raw_amount else raw_amount)
        except (ValueError, ArithmeticError):
            errors.append({"line": line_no, "error": "Data ou valor inválido."})
            continue
        if amount != fee.amount:
            errors.append({"line": line_no, "error": f"DAM nº {number}: valor pago {amount} difere do devido {fee.amount}."})
            continue
        try:
            fee_mark_paid(actor=actor, fee=fee, paid_on=paid_on, reference=parts[3] if len(parts) > 3 else "retorno bancário")
        except (InvalidTransition, ValidationError) as exc:
            message = exc.message if isinstance(exc, InvalidTransition) else " ".join(exc.messages)
            errors.append({"line": line_no, "error": f"DAM nº {number}: {message}"})
            continue
        paid.append(number)
    return {"paid": paid, "errors": errors}
