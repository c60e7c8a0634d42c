"""Writes of fees and fines (DAM): issue in fiscal units or reais, the yearly TFF,
payment marked by the clerk or read from a bank return file, cancellation. One
transaction per action, with an audit entry."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from licensing.applications.models import ApplicationStatus, DocumentStatus
from licensing.fees.models import FEE_TRANSITIONS, Fee, FeeKind, FeeStatus
from licensing.fees.rules import TffSettlement, fee_amount, tff_settlement, tff_violation
from licensing.fees.signals import fee_paid
from licensing.grants.models import Authorization
from portal import regulation
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition, RuleViolation
from portal.notifications import notify
from portal.numbering import document_number
from portal.numbers import brl

DEFAULT_FEE_DUE_DAYS = 30


def fee_pix_payload(fee: Fee) -> str:
    """The DAM's Pix copia e cola for its notice ('' when the Pix cannot be built)."""
    from licensing.fees.documents import fee_pix

    return fee_pix(fee).get("payload", "")

@transaction.atomic
def fee_issue(
    *, actor, kind: str, holder, description: str, legal_basis: str, authorization: Authorization | None = None,
    units: Decimal | int | str | None = None, amount: Decimal | str | None = None, reference_year: int | None = None,
    due_date: date | None = None, source: str = "", notify_holder: bool = True,
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
    audit_log(actor=actor, obj=fee, action=AuditAction.FEE_ISSUED, to_state=fee.status,
              data={"number": fee.number, "amount": str(fee.amount), "kind": kind, "units": str(units or "")})
    if notify_holder:
        notify(recipient=holder, subject=f"DAM nº {fee.number} emitido: {fee.description}",
               body=f"Valor {brl(fee.amount)}, vencimento {fee.due_date:%d/%m/%Y}. O DAM com o Pix e o código de "
                    "barras está no portal.",
               link=reverse("lifecycle-fee-detail", args=[fee.pk]), dedup_key=f"fee-issued:{fee.pk}",
               pix_payload=fee_pix_payload(fee))
    _freeze_on_commit(fee)
    return fee


def _freeze_on_commit(fee: Fee) -> None:
    """Once the issuing transaction commits, a worker renders, signs and stores the DAM."""
    from licensing.fees.tasks import freeze_dam

    transaction.on_commit(lambda: freeze_dam.delay(fee.pk))


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


def application_tff_year(application) -> int:
    """The fiscal year of an application's TFF: the year it was protocolled (today for a draft)."""
    pack = regulation.current()
    if application.submitted_at:
        return timezone.localtime(application.submitted_at, pack.tz).date().year
    return pack.today().year


def holder_tff_of_year(holder, year: int) -> Fee | None:
    """The person's TFF of a year that is not cancelled (a paid one first)."""
    fees = list(Fee.objects.filter(kind=FeeKind.TFF, reference_year=year, holder=holder).exclude(
        status=FeeStatus.CANCELLED).order_by("-issued_at", "-id"))
    return next((f for f in fees if f.status == FeeStatus.PAID), fees[0] if fees else None)


@dataclass(frozen=True)
class ApplicationTff:
    """Where an application stands with the TFF of its year (None where the law sets no TFF)."""

    year: int
    units: object
    receipt_code: str
    fee: Fee | None
    settlement: TffSettlement
    receipt_basis: str = ""

    @property
    def legal_basis(self) -> str:
        return self.units.legal_basis

    @property
    def amount(self) -> Decimal | None:
        """The amount in reais today (the DAM's own amount once issued)."""
        if self.fee is not None:
            return self.fee.amount
        unit = regulation.current().fiscal_unit_value()
        return fee_amount(units=self.units.value, unit_value=unit[0]) if unit else None


def application_tff(application) -> ApplicationTff | None:
    pack = regulation.current()
    units = pack.param("fees.tff_units", application.modality)
    if units is None:
        return None
    receipt = pack.param("fees.tff_receipt_document")
    year = application_tff_year(application)
    fee = holder_tff_of_year(application.applicant, year)
    receipt_accepted = False
    if receipt is not None:
        receipt_accepted = application.documents.filter(
            type=receipt.value, superseded_by__isnull=True, status=DocumentStatus.ACCEPTED).exists()
    settlement = tff_settlement(receipt, year=year, fee_paid=fee is not None and fee.status == FeeStatus.PAID,
                                receipt_accepted=receipt_accepted)
    return ApplicationTff(year, units, receipt.value if receipt else "", fee, settlement,
                          receipt.legal_basis if receipt else "")


@transaction.atomic
def application_tff_issue(*, actor, application) -> tuple[Fee, bool]:
    """The applicant's DAM of the TFF, to pay before the grant (the one already issued for the
    year, if any: ``created`` is False then)."""
    pack = regulation.current()
    param = pack.param("fees.tff_units", application.modality)
    violation = tff_violation(param)
    if violation:
        raise violation
    holder = application.applicant
    type(holder).objects.select_for_update().filter(pk=holder.pk).first()  # one issuer at a time
    if application.status in (ApplicationStatus.APPROVED, ApplicationStatus.REFUSED, ApplicationStatus.WITHDRAWN):
        raise InvalidTransition(f"O requerimento já está {application.get_status_display()}.")
    year = application_tff_year(application)
    existing = holder_tff_of_year(holder, year)
    if existing is not None:
        return existing, False
    fee = fee_issue(
        actor=actor, kind=FeeKind.TFF, holder=holder, authorization=None,
        description=f"TFF {year} — {pack.modality_label(application.modality)} (requerimento)",
        legal_basis=param.legal_basis, units=param.value, reference_year=year,
        source=f"Requerimento {application.protocol or f'nº {application.pk} (rascunho)'}", notify_holder=False,
    )
    audit_log(actor=actor, obj=application, action=AuditAction.TFF_ISSUED, data={"fee": fee.number, "year": year})
    notify(recipient=holder, subject=f"DAM nº {fee.number} emitido: {fee.description}",
           body=f"Valor {brl(fee.amount)}, vencimento {fee.due_date:%d/%m/%Y}. Pague pelo Pix do DAM; a baixa do "
                "pagamento dispensa o comprovante no requerimento.",
           link=reverse("licensing-application", args=[application.pk]), dedup_key=f"fee-issued:{fee.pk}",
           pix_payload=fee_pix_payload(fee))
    return fee, True


@transaction.atomic
def tff_settle_on_grant(*, actor, application, authorization: Authorization) -> Fee | None:
    """The TFF of the grant's year. Where the receipt is part of the request, it is settled
    before the grant (``approval_blockers``): a receipt the clerk accepted is recorded as the
    payment of the year's DAM (issued now if there was none), so it is never charged again.
    Elsewhere the grant comes with its DAM for the year, unless the holder already has one."""
    pack = regulation.current()
    if pack.param("fees.tff_units", authorization.modality) is None or pack.fiscal_unit_value() is None:
        return None
    year = application_tff_year(application)
    fee = holder_tff_of_year(authorization.holder, year)
    receipt = pack.param("fees.tff_receipt_document")
    if receipt is None:
        return fee or tff_issue(actor=actor, authorization=authorization, year=year)
    if fee is not None and fee.status == FeeStatus.PAID:
        return fee
    state = application_tff(application)
    if state.settlement.violation is not None:
        raise state.settlement.violation
    if fee is None:
        param = pack.param("fees.tff_units", authorization.modality)
        fee = fee_issue(
            actor=actor, kind=FeeKind.TFF, holder=authorization.holder, authorization=authorization,
            description=f"TFF {year} — {pack.modality_label(authorization.modality)}, "
                        f"autorização nº {authorization.number}",
            legal_basis=param.legal_basis, units=param.value, reference_year=year,
            source=f"Requerimento {application.protocol}", notify_holder=False,
        )
    return fee_mark_paid(actor=actor, fee=fee,
                         reference=f"Comprovante conferido no requerimento {application.protocol}")


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
    audit_log(actor=actor, obj=locked, action=AuditAction.FEE_PAID, from_state=FeeStatus.ISSUED, to_state=FeeStatus.PAID,
              data={"paid_on": paid_on.isoformat(), "reference": locked.payment_reference})
    fee_paid.send(sender=Fee, fee=locked, actor=actor)
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
    audit_log(actor=actor, obj=locked, action=AuditAction.FEE_CANCELLED, from_state=before, to_state=locked.status,
              reason=reason)
    return locked
