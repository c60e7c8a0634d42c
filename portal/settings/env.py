"""Small helpers to read settings from the environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import dj_database_url


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on", "sim"}


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return int(raw) if raw not in (None, "") else default


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def default_site_url(environ=os.environ) -> str:
    """SITE_URL when set; else the address ``make run`` / ``bin/serve`` serves (HOST and PORT),
    so that links and QR codes of a server on another port point at it. A wildcard bind
    address is not reachable by that name, so the loopback name stands for it."""
    explicit = (environ.get("SITE_URL") or "").strip()
    if explicit:
        return explicit.rstrip("/")
    host = (environ.get("HOST") or "").strip() or "127.0.0.1"
    if host in ("0.0.0.0", "::", "[::]"):  # noqa: S104 - a bind address, not a listener
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    port = (environ.get("PORT") or "").strip() or "8000"
    return f"http://{host}:{port}"


def parse_database_url(url: str | None, var_dir: Path, conn_max_age: int = 0) -> dict[str, Any]:
    """Parse DATABASE_URL; default to SQLite under var/.

    Connections are closed after each request unless ``conn_max_age`` (DB_CONN_MAX_AGE) says
    otherwise: the threaded development server of `make run` opens one per request thread, and
    kept open they exhaust PostgreSQL's max_connections within a minute of traffic. Gunicorn's
    sync workers (docker-compose) may keep them (e.g. 60 s)."""
    if not url:
        url = f"sqlite:///{var_dir / 'portal.sqlite3'}"
    config = dj_database_url.parse(url, conn_max_age=conn_max_age, conn_health_checks=True)
    if config["ENGINE"] == "django.db.backends.sqlite3":
        config["CONN_MAX_AGE"] = 0
        # Web, worker and beat share the file: take the write lock at BEGIN (no "database is
        # locked" when a read transaction upgrades) and let readers run beside a writer (WAL).
        config.setdefault("OPTIONS", {}).update(
            {"timeout": 20, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
        )
        config["TEST"] = {"NAME": None}
    elif config["ENGINE"] in ("django.db.backends.postgresql", "django.db.backends.postgresql_psycopg2"):
        # Django's backend plus the session setting that row-level security reads (portal.dbbackend)
        config["ENGINE"] = "portal.dbbackend"
    return config
