"""Renúncia: the holder gives the grant up (with the pack's notice on fees); granted, the
grant is renounced and its stand place handed to the next in line."""

from __future__ import annotations

from licensing.grants.models import AuthorizationStatus
from licensing.grants.services import authorization_set_status
from licensing.requests import forms
from licensing.requests.kinds.base import (
    Kind,
    read_text,
    register,
)
from licensing.requests.models import RequestKind
from licensing.requests.rules import renunciation_fee_notice
from licensing.stands.models import AssignmentStatus, StandAssignment
from licensing.stands.services import _assignment_close, _fill_places


def clean(pack, auth, data, on, exclude_pk) -> tuple[dict, str]:
    refunds = pack.param("renunciation.refunds_fees", auth.modality)
    return ({"reason": read_text(data, "reason", "o motivo da renúncia", required=False, max_length=1000),
             "fee_notice": renunciation_fee_notice(refunds)}, refunds.legal_basis if refunds else "")


def apply(*, actor, req, auth, pack, reason) -> dict:
    authorization_set_status(actor=actor, authorization=auth, to=AuthorizationStatus.RENOUNCED,
                             reason=f"Renúncia (pedido {req.protocol}). {req.data.get('reason', '')}".strip(),
                             data={"request": req.protocol, "fee_notice": req.data.get("fee_notice", "")})
    for assignment in StandAssignment.objects.filter(
        authorization=auth, status__in=[AssignmentStatus.ACTIVE, AssignmentStatus.WAITING]
    ).select_related("stand"):
        _assignment_close(actor=actor, assignment=assignment, reason="Renúncia da autorização")
        _fill_places(actor=actor, stand=assignment.stand)
    return {"status": AuthorizationStatus.RENOUNCED, "fee_notice": req.data.get("fee_notice", "")}


KIND = register(Kind(
    code=RequestKind.RENUNCIATION, form=forms.RenunciationForm, clean=clean, apply=apply,
    recheck_on_decision=False,
    labels={"fee_notice": "taxas", "status": "situação"},
))
