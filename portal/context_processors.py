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
        # Signed-in people see their work in the menu; the public pages go to the footer.
        "menu_items": (
            menu.items_for(user, public=False if user.is_authenticated else None) if user is not None else []
        ),
        "public_menu_items": menu.items_for(user, public=True) if user is not None else [],
        "user_role_labels": role_labels,
    }
