"""Users' complaints about a line."""

from __future__ import annotations

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from licensing.transit import rules as rules
from licensing.transit.models import (
    BusLine,
    Complaint,
    ComplaintStatus,
)
from licensing.transit.services._common import _law_basis, _locked, _user, transit_pack
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.exceptions import InvalidTransition
from portal.numbering import protocol_number, verification_code


# --- complaints (art. 11, VII) ---------------------------------------------------------------
@transaction.atomic
def complaint_file(*, actor=None, line: BusLine, text: str, name: str = "", contact: str = "",
                   occurred_on: date | None = None) -> Complaint:
    """Anyone may complain about a line; the Município receives, investigates and answers."""
    pack = transit_pack()
    if not text.strip() or len(text.strip()) < 10:
        raise ValidationError({"text": ["Descreva o problema (pelo menos 10 caracteres)."]})
    if occurred_on and occurred_on > pack.today():
        raise ValidationError({"occurred_on": ["A data do ocorrido não pode ser futura."]})
    complaint = Complaint.objects.create(
        line=line, protocol=protocol_number(pack.today().year), access_code=verification_code(),
        name=name.strip(), contact=contact.strip(),
        occurred_on=occurred_on, text=text.strip(),
    )
    audit_log(actor=actor if getattr(actor, "is_authenticated", False) else "público (sem login)", obj=complaint,
              action=AuditAction.COMPLAINT_FILED, to_state=complaint.status,
              reason="Reclamação registrada", data={"line": line.code,
                                                    "legal_basis": _law_basis(pack, "complaints")})
    return complaint


@transaction.atomic
def complaint_answer(*, actor, complaint: Complaint, answer: str) -> Complaint:
    locked = _locked(Complaint, complaint)
    if locked.status != ComplaintStatus.OPEN:
        raise InvalidTransition("A reclamação já foi respondida.")
    if not answer.strip():
        raise ValidationError({"answer": ["Escreva a resposta ao usuário."]})
    locked.status = ComplaintStatus.ANSWERED
    locked.answer = answer.strip()
    locked.answered_at = timezone.now()
    locked.answered_by = _user(actor)
    locked.save(update_fields=["status", "answer", "answered_at", "answered_by"])
    audit_log(actor=actor, obj=locked, action=AuditAction.COMPLAINT_ANSWERED, from_state=ComplaintStatus.OPEN,
              to_state=ComplaintStatus.ANSWERED, reason="Reclamação respondida")
    complaint.refresh_from_db()
    return locked
