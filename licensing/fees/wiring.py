"""Menu entry of the fee desk."""

from __future__ import annotations

from portal.menu import MenuItem, register
from portal.roles import Role


def connect() -> None:
    register(MenuItem("Taxas (DAM)", "lifecycle-fees", (Role.CLERK.value, Role.ADMIN.value), 46, group="Atendimento"))
