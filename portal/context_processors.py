from __future__ import annotations

from portal import menu, regulation
from portal.roles import Role, user_roles

GENERIC_SERVICE = "Transporte municipal"  # before any pack is loaded


def service_name(pack=None) -> str:
    """The branding of the portal follows the law (portal.regulation.Pack.service_name)."""
    pack = pack if pack is not None else regulation.current(required=False)
    return pack.service_name if pack is not None else GENERIC_SERVICE


def portal(request) -> dict:
    pack = regulation.current(required=False)
    user = getattr(request, "user", None)
    roles = user_roles(user) if user is not None else set()
    role_labels = [label for value, label in Role.choices if value in roles]
    items = menu.items_for(user, public=False if user.is_authenticated else None) if user is not None else []
    return {
        "pack": pack,
        "service_name": service_name(pack),
        # Signed-in people see their work in the menu; the public pages go to the footer.
        "menu_items": items,
        "menu_groups": menu.grouped(items),  # a long menu (a clerk's 18 entries) under headings
        # the footer's public entries, shown to signed-in people only: built when a template reads them
        "public_menu_items": (lambda: menu.items_for(user, public=True)) if user is not None else [],
        "user_role_labels": role_labels,
    }
