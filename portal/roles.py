"""Roles of the portal and helpers to check them.

Two kinds of role (issue 17, one installation for many municipalities):

- **installation-wide**, kept as Django groups: ``requerente`` (a citizen's account, by CPF, is
  one across the installation — a driver may apply in two municipalities) and ``consorcio``
  (the consortium's administrator, who sees aggregate figures of every municipality and no
  personal data);
- **per municipality**, kept as ``portal.models.StaffAssignment``: ``atendente``, ``agente``,
  ``julgador`` and ``admin`` (the staff, who work the municipality's files), and
  ``autoridade_recursal`` — the person the municipality designates to decide appeals (e.g. the
  Prefeito, a secretary), who needs not be a julgador and reaches only the appeals (where the
  pack's ``appeal.designated_authority`` says so). ``user_roles`` reads the assignments of the
  municipality in scope (the request's host, the task's municipality): a clerk of one
  municipality holds no role on another's host.

A superuser is the installation's operator: admin everywhere.
"""

from __future__ import annotations

from django.db import models


class Role(models.TextChoices):
    APPLICANT = "requerente", "Requerente"
    CLERK = "atendente", "Atendente"
    AGENT = "agente", "Agente de fiscalização"
    JUDGE = "julgador", "Julgador"
    ADMIN = "admin", "Administrador"
    APPEAL_AUTHORITY = "autoridade_recursal", "Autoridade recursal"
    CONSORTIUM = "consorcio", "Administrador do consórcio"


STAFF_ROLES = (Role.CLERK, Role.AGENT, Role.JUDGE, Role.ADMIN)
# every role granted per municipality (portal.staff): the staff, and the designated appeal
# authority — not staff: it sees the autos under appeal and decides appeals, nothing else
MUNICIPAL_ROLES = (*STAFF_ROLES, Role.APPEAL_AUTHORITY)
# held through Django groups, the same in every municipality
INSTALLATION_ROLES = (Role.APPLICANT, Role.CONSORTIUM)
_INSTALLATION_NAMES = frozenset(r.value for r in INSTALLATION_ROLES)


def scope_municipality_id() -> int | None:
    """The municipality whose staff roles count now: the one in scope (``portal.tenancy``: the
    request's host, the task's municipality). None outside any: no staff role then."""
    from portal import tenancy

    return tenancy.current_id_or_none()


def user_roles(user) -> set[str]:
    """Names of the roles the user holds in the municipality in scope (cached on the user
    object, per municipality: one object may serve a task that walks several)."""
    if not getattr(user, "is_authenticated", False):
        return set()
    municipality_id = scope_municipality_id()
    cache = getattr(user, "_portal_roles", None)
    if not isinstance(cache, dict):
        cache = {}
        user._portal_roles = cache
    held = cache.get(municipality_id)
    if held is None:
        held = {name for name in user.groups.values_list("name", flat=True) if name in _INSTALLATION_NAMES}
        if municipality_id is not None:
            from portal.models import StaffAssignment

            held |= set(StaffAssignment.objects.filter(
                user_id=user.pk, municipality_id=municipality_id, revoked_at__isnull=True,
            ).values_list("role", flat=True))
        if user.is_superuser:
            held.add(Role.ADMIN.value)
        cache[municipality_id] = held
    return held


def forget_roles(user) -> None:
    """Drop the roles cached on ``user`` (after a grant or a revocation)."""
    if hasattr(user, "_portal_roles"):
        del user._portal_roles


def has_role(user, *roles: str) -> bool:
    held = user_roles(user)
    return any(str(role) in held for role in roles)


def is_staff_member(user) -> bool:
    """Does the account carry a staff or consortium role anywhere in the installation?

    For the account's security (second factor, shorter API tokens), not for access: a clerk
    of one municipality signs in with the second factor on any host."""
    if not getattr(user, "is_authenticated", False):
        return False
    if user.is_superuser:
        return True
    from portal.models import StaffAssignment

    if StaffAssignment.objects.filter(user_id=user.pk, revoked_at__isnull=True).exists():
        return True
    return user.groups.filter(name=Role.CONSORTIUM).exists()


def staff_users(role: str, municipality_id: int | None = None):
    """Active accounts holding ``role`` in the municipality (default: the one in scope), e.g.
    the clerks to notify of something of that municipality."""
    from django.contrib.auth import get_user_model

    if municipality_id is None:
        municipality_id = scope_municipality_id()
    return get_user_model().objects.filter(
        is_active=True, staff_assignments__municipality_id=municipality_id,
        staff_assignments__role=str(role), staff_assignments__revoked_at__isnull=True,
    ).distinct()
