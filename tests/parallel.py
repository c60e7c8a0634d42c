"""`make test` runs the suite in parallel (pytest-xdist, one worker process per core): each
worker gets its own Redis database and its own VAR_DIR, set here before Django reads its
settings (this plugin is loaded with ``-p`` in pyproject's addopts, ahead of pytest-django).

Every test empties the cache (tests/conftest.py) and some start a real Celery worker on Redis
(tests/ops/test_reliability.py): sharing one Redis database, one worker's ``cache.clear()`` or
task would land in another's test. The signing certificates, the embedded Celery broker and
the screenshots live under VAR_DIR. Each worker's test database already has its own name
(pytest-django adds the worker's id). Without xdist (``PYTEST_ARGS=-n0`` or a single test) the
tests still leave the caller's Redis database alone: it is the one ``make run`` uses (the
README's ``REDIS_URL=…/0``), as cache and as Celery's broker, and every test's ``cache.clear()``
is a FLUSHDB — it emptied a running portal's queue. Such a run takes the database of worker 0."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse, urlunparse

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1"… set by xdist before plugins load


def _worker_redis_url(url: str, number: int) -> str:
    """The same server, database (the URL's, default 0) + 1 + the worker's number. Redis has 16
    databases unless configured otherwise: the Makefile caps the workers at 8 (--maxprocesses).
    A URL that names no database by its path (a unix socket) is left as it is."""
    parts = urlparse(url)
    base = parts.path.strip("/")
    if parts.scheme not in ("redis", "rediss") or not (base == "" or base.isdigit()):
        return url
    return urlunparse(parts._replace(path=f"/{int(base or 0) + 1 + number}"))


# the caller's REDIS_URL, kept by the first process that moved it (xdist's controller runs this
# plugin too, and its workers inherit its environment: each counts from the caller's database)
CALLER_REDIS_URL = "PORTAL_TESTS_CALLER_REDIS_URL"
IS_WORKER = WORKER.startswith("gw") and WORKER[2:].isdigit()

if os.environ.get("REDIS_URL"):
    caller = os.environ.setdefault(CALLER_REDIS_URL, os.environ["REDIS_URL"])
    os.environ["REDIS_URL"] = _worker_redis_url(caller, int(WORKER[2:]) if IS_WORKER else 0)

if IS_WORKER:
    root = Path(os.environ.get("VAR_DIR") or Path(__file__).resolve().parent.parent / "var")
    os.environ["VAR_DIR"] = str(root / f"xdist-{WORKER}")
