"""The fine's DAM is a DAM of the fees room: barcode, Pix, reconciliation and dívida ativa
come with it. Enforcement calls the fees services (enforcement → licensing is the allowed
direction) and hears ``licensing.fees.signals.fee_paid`` to mark its fine paid, whichever way
the DAM was settled (bank file, Pix statement, the fees desk or the auto's page)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from enforcement.models import Fine, Infraction
from licensing.fees import services as fees
from licensing.fees.models import Fee, FeeKind, FeeStatus
from portal.audit import audit_log
from portal.numbering import document_number


def fine_legal_basis(infraction: Infraction) -> str:
    return "; ".join(e.get("legal_basis", "") for e in infraction.catalogue if e.get("legal_basis"))


def _fee_for(*, actor, infraction: Infraction, amount: Decimal, due_date: date) -> Fee | None:
    """The fees room's DAM; none when the auto names no holder account (a clandestine vehicle
    whose driver has no account): that fine keeps its own number and is paid at the desk."""
    if not infraction.holder_id:
        return None
    return fees.fee_issue(
        actor=actor, kind=FeeKind.FINE, holder=infraction.holder, authorization=infraction.authorization,
        description=f"Multa — auto de infração nº {infraction.number}",
        legal_basis=fine_legal_basis(infraction) or "Auto de infração", amount=amount, due_date=due_date,
        source=f"Auto de infração nº {infraction.number}", notify_holder=False,
    )


def fine_issue(*, actor, infraction: Infraction, amount: Decimal, due_date: date, today: date) -> Fine:
    fee = _fee_for(actor=actor, infraction=infraction, amount=amount, due_date=due_date)
    fine = Fine.objects.create(infraction=infraction, number=fee.number if fee else document_number("dam", today.year),
                               amount=amount, due_date=due_date, fee=fee)
    audit_log(actor=actor, obj=fine, action="fine_issued", to_state="open", reason=f"DAM do auto nº {infraction.number}",
              data={"amount": str(amount), "due_date": due_date.isoformat(), "fee": fee.pk if fee else None})
    return fine


def fine_reissue(*, actor, fine: Fine, amount: Decimal, reason: str) -> Fine:
    """A new amount for an unpaid fine (recidivism recomputed): the DAM issued is never edited —
    it is cancelled and a new one issued, with the same due date."""
    if fine.fee_id and fine.fee.status == FeeStatus.ISSUED:
        fees.fee_cancel(actor=actor, fee=fine.fee, reason=f"Substituído: {reason}")
        fee = _fee_for(actor=actor, infraction=fine.infraction, amount=amount, due_date=fine.due_date)
        fine.fee, fine.number = fee, fee.number
    fine.amount = amount
    fine.save(update_fields=["amount", "fee", "number"])
    return fine


def on_fee_paid(sender, fee: Fee, actor, **kwargs) -> None:
    """The DAM of a fine was settled: the fine is paid (in the same transaction)."""
    fine = Fine.objects.select_for_update().filter(fee=fee, paid=False).first()
    if fine is None:
        return
    fine.paid, fine.paid_on = True, fee.paid_on
    fine.paid_recorded_by = actor if getattr(actor, "is_authenticated", False) else None
    fine.save(update_fields=["paid", "paid_on", "paid_recorded_by"])
    audit_log(actor=actor, obj=fine, action="fine_paid", from_state="open", to_state="paid",
              reason=f"DAM nº {fee.number} pago ({fee.payment_reference or 'baixa registrada'})",
              data={"paid_on": fee.paid_on.isoformat(), "amount": str(fine.amount), "fee": fee.pk})


def fine_pix_payload(fine: Fine) -> str:
    """The Pix copia e cola of the fine's DAM, for the notice ('' without a fees-room DAM)."""
    return fees.fee_pix_payload(fine.fee) if fine.fee_id else ""
