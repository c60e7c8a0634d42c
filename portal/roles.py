"""Roles of the portal (Django groups) and helpers to check them."""

from __future__ import annotations

from django.db import models


class Role(models.TextChoices):
    APPLICANT = "requerente", "Requerente"
    CLERK = "atendente", "Atendente"
    AGENT = "agente", "Agente de fiscalização"
    JUDGE = "julgador", "Julgador"
    ADMIN = "admin", "Administrador"


STAFF_ROLES = (Role.CLERK, Role.AGENT, Role.JUDGE, Role.ADMIN)


def user_roles(user) -> set[str]:
    """Names of the roles the user holds (cached on the user object)."""
    if not getattr(user, "is_authenticated", False):
        return set()
    cached = getattr(user, "_portal_roles", None)
    if cached is None:
        cached = set(user.groups.values_list("name", flat=True))
        if user.is_superuser:
            cached.add(Role.ADMIN.value)
        user._portal_roles = cached
    return cached


def has_role(user, *roles: str) -> bool:
    held = user_roles(user)
    return any(str(role) in held for role in roles)


def is_staff_member(user) -> bool:
    return has_role(user, *STAFF_ROLES)
