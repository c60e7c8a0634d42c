"""Menu entries of stands; stands synced from the pack on load and in the demo (idempotent)."""

from __future__ import annotations

from portal.hooks import register_demo_seed, register_pack_loaded
from portal.menu import MenuItem
from portal.menu import register as register_menu
from portal.roles import Role

DESK = (Role.CLERK.value, Role.ADMIN.value)


def _sync_stands(*_args) -> None:
    from licensing.stands.services import stands_sync_from_pack

    stands_sync_from_pack(actor=None)


def _demo_seed(users, stdout, *, sample_data: bool = False) -> None:
    from licensing.stands.services import stands_sync_from_pack

    created = stands_sync_from_pack(actor=None)
    if created and stdout is not None:
        stdout.write(f"Pontos de táxi criados a partir do pacote: {created}")


def connect() -> None:
    register_menu(
        MenuItem("Gestão de pontos", "lifecycle-stands-manage", DESK, 44, group="Atendimento"),
        MenuItem("Pontos de táxi", "lifecycle-stands-public", (), 70),
    )
    register_pack_loaded(_sync_stands)
    register_demo_seed(_demo_seed)
