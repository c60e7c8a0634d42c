"""Grant jobs' wiring: the quota check after ``load_regulation`` and the jobs' menu entries."""

from __future__ import annotations


def connect() -> None:
    from licensing.grants.jobs import register_hooks

    register_hooks()  # quota check after load_regulation
