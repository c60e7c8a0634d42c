from __future__ import annotations

from portal import menu, regulation
from portal.roles import Role, user_roles


def portal(request) -> dict:
    pack = regulation.current(required=False)
    user = getattr(request, "user", None)
    roles = user_roles(user) if user is not None else set()
    role_labels = [label for value, label in Role.choices if value in roles]
    return {
        "pack": pack,
        "service_name": "Táxi e Mototáxi",
        "menu_items": menu.items_for(user) if user is not None else [],
        "user_role_labels": role_labels,
    }
