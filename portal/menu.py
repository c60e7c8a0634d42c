"""Navigation by role. Each app registers its entries here (only built features appear)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse

from portal.roles import has_role


@dataclass(frozen=True)
class MenuItem:
    label: str
    url_name: str
    roles: tuple[str, ...]  # empty = everyone (public); "*" = any signed-in user
    order: int = 100
    visible: Callable[[], bool] | None = None  # e.g. only when the active pack has the module
    group: str = ""  # the heading it goes under when a person has many entries (GROUP_AFTER)


_ITEMS: list[MenuItem] = []


def register(*items: MenuItem) -> None:
    for item in items:
        if item not in _ITEMS:
            _ITEMS.append(item)


def items_for(user, *, public: bool | None = None) -> list[dict]:
    """Entries the user may open. ``public=True``: only the public pages (for the footer);
    ``public=False``: only the user's own work (the main menu of a signed-in person)."""
    out = []
    for item in sorted(_ITEMS, key=lambda i: (i.order, i.label)):
        if item.visible is not None and not item.visible():
            continue
        is_public = item.roles == ()
        if public is True and not is_public:
            continue
        if public is False and is_public and item.url_name != "home":
            continue
        if item.roles == ("*",):
            if not user.is_authenticated:
                continue
        elif item.roles and not has_role(user, *item.roles):
            continue
        url = _url_of(item.url_name)
        if url is None:
            continue
        out.append({"label": item.label, "url": url, "url_name": item.url_name, "group": item.group})
    return out


_URLS: dict[tuple, str | None] = {}


def _url_of(url_name: str) -> str | None:
    """reverse(url_name), kept for the process: every page asked it for each menu entry
    (two menus, some twenty reversals a page). What a reversal depends on is the key: the
    script prefix and the URLconf (the request's, or the settings')."""
    from django.conf import settings

    key = (get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF, url_name)
    if key not in _URLS:
        try:
            _URLS[key] = reverse(url_name)
        except NoReverseMatch:
            _URLS[key] = None
    return _URLS[key]


GROUP_AFTER = 9  # up to this many entries the menu stays flat (an agent's plate search stays one tap away)


def grouped(items: list[dict]) -> list[dict]:
    """The entries as [{label, items}] in the order of each group's first entry; entries
    without a group (and every entry of a short menu) stand alone (label "")."""
    if len(items) <= GROUP_AFTER:
        return [{"label": "", "items": [i]} for i in items]
    out: list[dict] = []
    by_label: dict[str, dict] = {}
    for item in items:
        if not item["group"]:
            out.append({"label": "", "items": [item]})
        elif item["group"] in by_label:
            by_label[item["group"]]["items"].append(item)
        else:
            by_label[item["group"]] = {"label": item["group"], "items": [item]}
            out.append(by_label[item["group"]])
    return out
