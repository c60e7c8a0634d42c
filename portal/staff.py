"""Granting and revoking staff roles per municipality (``StaffAssignment``), audited.

Every grant and every revocation writes an audit entry on the person (who, when, which role,
which municipality, why) in the same transaction; a revoked assignment is kept, not deleted.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from portal import tenancy
from portal.audit import audit_log
from portal.audit_actions import AuditAction
from portal.models import Municipality, StaffAssignment
from portal.roles import MUNICIPAL_ROLES, forget_roles

STAFF_ROLE_VALUES = tuple(r.value for r in MUNICIPAL_ROLES)


@transaction.atomic
def grant_role(*, actor, user, municipality: Municipality, role: str, reason: str = "") -> StaffAssignment:
    """Give ``user`` the ``role`` in ``municipality`` (a staff role or the appeal authority;
    nothing new if already held)."""
    role = str(role)
    if role not in STAFF_ROLE_VALUES:
        raise ValidationError({"role": f"Perfil “{role}” não é um perfil de servidor do município."})
    held = StaffAssignment.objects.select_for_update().filter(
        user=user, municipality=municipality, role=role, revoked_at__isnull=True).first()
    if held is not None:
        return held
    assignment = StaffAssignment.objects.create(
        user=user, municipality=municipality, role=role, reason=reason[:300],
        granted_by=actor if getattr(actor, "is_authenticated", False) else None,
    )
    with tenancy.activate(municipality):  # the entry belongs to the municipality of the role
        audit_log(actor=actor, obj=user, action=AuditAction.ROLE_GRANTED, to_state=role,
                  reason=reason or "Perfil concedido",
                  data={"role": role, "municipality": municipality.slug, "assignment": assignment.pk})
    forget_roles(user)
    return assignment


@transaction.atomic
def revoke_role(*, actor, assignment: StaffAssignment, reason: str) -> StaffAssignment:
    """End an assignment (kept, with who ended it and why). A reason is required."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": "Informe o motivo da retirada do perfil."})
    locked = StaffAssignment.objects.select_for_update().get(pk=assignment.pk)
    if locked.revoked_at is not None:
        return locked
    locked.revoked_at = timezone.now()
    locked.revoked_by = actor if getattr(actor, "is_authenticated", False) else None
    locked.revoked_reason = reason[:300]
    locked.save(update_fields=["revoked_at", "revoked_by", "revoked_reason"])
    with tenancy.activate(locked.municipality):
        audit_log(actor=actor, obj=locked.user, action=AuditAction.ROLE_REVOKED, from_state=locked.role,
                  reason=reason, data={"role": locked.role, "municipality": locked.municipality.slug,
                                       "assignment": locked.pk})
    forget_roles(locked.user)
    return locked


def assignments_of(municipality: Municipality):
    """The municipality's staff, active first."""
    return (StaffAssignment.objects.filter(municipality=municipality)
            .select_related("user", "granted_by", "revoked_by")
            .order_by(F("revoked_at").asc(nulls_first=True), "user__name", "role"))
