"""What every bench script shares: quick mode, the bench database and one result line per figure.

Each figure is printed as it is measured and also as a machine-readable line
``RESULT|name|figure|target|ok``, which bench/run.py gathers into the final table.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlparse, urlunparse

QUICK = os.environ.get("BENCH_QUICK") == "1"
DB_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/bench_perf")
# The portal is measured as production runs it: connected as the application's role, which is not
# the owner of the tables, so that row-level security (portal.row_security) applies to every query
# — the owner and superusers skip the policies. The owner's migrate creates and grants it
# (DATABASE_APP_ROLE, as docker-compose does with portal_app); the load is written as the owner.
# BENCH_AS_OWNER=1 measures as the owner instead (no row-level security): what the policies cost.
AS_OWNER = os.environ.get("BENCH_AS_OWNER") == "1"
APP_ROLE = os.environ.get("BENCH_APP_ROLE", "bench_portal_app")
APP_PASSWORD = "bench-app-only-not-secret"  # noqa: S105 - a local bench role, on a local server only


def result(name: str, figure: str, target: str, ok: bool | None) -> bool:
    """Print one line of the table; ``ok`` None is a figure without a target (information)."""
    mark = "—" if ok is None else ("OK" if ok else "FALHOU")
    print(f"  {name:<44} {figure:<50} {target:<18} {mark}", flush=True)
    print(f"RESULT|{name}|{figure}|{target}|{mark}", flush=True)
    return ok is not False


def scratch_dir(prefix: str) -> Path:
    """A temporary directory for this run (a VAR_DIR, a MEDIA_ROOT, a SQLite file), removed when
    the process exits: bench_public collects the static files into one (~50 MB a run)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def in_scratch(prefix: str) -> Path:
    """An in-process bench's own VAR_DIR (its Celery queue, media files, demonstration
    certificates, SQLite files) in a scratch directory, and no REDIS_URL or MEDIA_ROOT of the
    caller's: what it stores and the tasks it sends never reach the checkout's var/ or a shared
    broker, where the worker of ``make run`` would take them — tasks naming records of the
    bench's database, run against the demo's (one run of bench_enforcement left 390 there)."""
    var = scratch_dir(prefix)
    os.environ["VAR_DIR"] = str(var)
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("MEDIA_ROOT", None)
    return var


def _admin_connection(url: str = DB_URL):
    """A connection to the maintenance database of the (local only) server of ``url``, and the
    name of ``url``'s database."""
    import psycopg2

    parts = urlparse(url)
    if parts.hostname not in ("127.0.0.1", "localhost"):
        raise SystemExit("bench: só um PostgreSQL local é permitido")
    conn = psycopg2.connect(host=parts.hostname, port=parts.port or 5432, user=parts.username or "postgres",
                            password=parts.password or None, dbname="postgres")
    conn.autocommit = True
    return conn, parts.path.lstrip("/")


def recreate_database(url: str = DB_URL, *, template: str | None = None) -> None:
    """Drop and create the bench database (local PostgreSQL only); with ``template``, as a copy
    of that database (which nobody may be connected to)."""
    conn, name = _admin_connection(url)
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        cur.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    conn.close()


def drop_database(url: str) -> None:
    conn, name = _admin_connection(url)
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    conn.close()


def app_role_env() -> dict[str, str]:
    """What the owner's migrate needs to create the application's role and grant it the tables."""
    return {"DATABASE_APP_ROLE": APP_ROLE, "DATABASE_APP_PASSWORD": APP_PASSWORD}


def as_app_role(url: str) -> str:
    """``url`` connected as the application's role instead of its owner (BENCH_AS_OWNER: as is)."""
    if AS_OWNER:
        return url
    parts = urlparse(url)
    host = parts.hostname + (f":{parts.port}" if parts.port else "")
    return urlunparse(parts._replace(netloc=f"{APP_ROLE}:{APP_PASSWORD}@{host}"))


_OWNERS: dict[str, tuple[str, str]] = {}


def connect_as_application(connection, application: bool = True) -> None:
    """In-process benches on PostgreSQL: the next queries of ``connection`` run as the
    application's role (``application``), as the web and worker processes of production do, or
    as the owner who created the test database (its set-up: bulk loads, VACUUM, the bare SQL
    yardsticks). The owner's migrate created and granted the role when ``app_role_env()`` was in
    the environment. Outside a transaction: the connection is closed and opened again."""
    if connection.vendor != "postgresql" or AS_OWNER:
        return
    current = (connection.settings_dict["USER"], connection.settings_dict["PASSWORD"])
    owner = _OWNERS.setdefault(connection.alias, current)
    wanted = (APP_ROLE, APP_PASSWORD) if application else owner
    if current != wanted:
        connection.close()
        connection.settings_dict["USER"], connection.settings_dict["PASSWORD"] = wanted
    if application:  # never measured as the owner by mistake: the policies must apply
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user, rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user")
            assert cursor.fetchone() == (APP_ROLE, False), "bench: não conectado como o papel da aplicação"


def database_name(url: str = DB_URL) -> str:
    return urlparse(url).path.lstrip("/")
