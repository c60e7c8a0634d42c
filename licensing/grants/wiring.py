"""Grant jobs' wiring: the quota check after ``load_regulation`` and the jobs' menu entries."""

from __future__ import annotations

from portal.menu import MenuItem, register
from portal.roles import Role


def connect() -> None:
    from licensing.grants.jobs import register_hooks

    register_hooks()  # quota check after load_regulation


def connect_menu() -> None:
    register(
        MenuItem("Tarefas automáticas", "ops-jobs", (Role.CLERK, Role.ADMIN), 80),
        MenuItem("Veículos na idade máxima", "ops-aged-vehicles", (Role.CLERK, Role.ADMIN), 81),
    )
