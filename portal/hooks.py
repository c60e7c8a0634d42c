"""Extension points through which feature apps show things on base pages (home)."""

from __future__ import annotations

from collections.abc import Callable

_HOME_SECTIONS: list[Callable] = []


def register_home_section(func: Callable) -> Callable:
    """``func(request) -> dict | None`` with keys title, template, context."""
    if func not in _HOME_SECTIONS:
        _HOME_SECTIONS.append(func)
    return func


def home_sections(request) -> list[dict]:
    out = []
    for func in _HOME_SECTIONS:
        section = func(request)
        if section:
            out.append(section)
    return out


_DEMO_SEEDS: list[Callable] = []


def register_demo_seed(func: Callable) -> Callable:
    """``func(users: dict[str, User], stdout, *, sample_data: bool) -> None``; idempotent.

    Without ``sample_data`` a seed adds only records that change no rule's outcome (no grant,
    no open call, nothing counted against a quota), so that a fresh deployment or an
    acceptance run starts from the law alone. ``make run`` asks for the full sample.
    """
    if func not in _DEMO_SEEDS:
        _DEMO_SEEDS.append(func)
    return func


def demo_seeds() -> list[Callable]:
    return list(_DEMO_SEEDS)


_PACK_LOADED: list[Callable] = []


def register_pack_loaded(func: Callable) -> Callable:
    """``func(load_result)`` run after `load_regulation` (e.g. a quota check). Idempotent."""
    if func not in _PACK_LOADED:
        _PACK_LOADED.append(func)
    return func


def pack_loaded_callbacks() -> list[Callable]:
    return list(_PACK_LOADED)
