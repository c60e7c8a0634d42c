"""Menu entries of a grant's requests: the holder's page and the desk's queue."""

from __future__ import annotations

from portal.menu import MenuItem, register
from portal.roles import Role

DESK = (Role.CLERK.value, Role.ADMIN.value)


def connect() -> None:
    register(
        MenuItem("Minha autorização", "lifecycle-mine", (Role.APPLICANT.value,), 20),
        MenuItem("Pedidos de alteração", "lifecycle-queue", DESK, 32, group="Atendimento"),
        MenuItem("Vistorias de substituição", "lifecycle-queue", (Role.AGENT.value,), 33),
    )
