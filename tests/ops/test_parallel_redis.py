"""The test run never empties the caller's Redis database (tests/parallel.py).

Every test clears the cache, a FLUSHDB on Redis. The caller's database is the one ``make run``
uses as cache and as Celery's broker (the README exports ``REDIS_URL=…/0`` for both commands):
a single test run from that shell emptied a running portal's queue. Each process of a run takes
another database, counted from the caller's, whether or not xdist runs it.
"""

from __future__ import annotations

import os

import pytest

from tests.ops.fresh import fresh_json


def _redis_url_seen_by(env_extra: dict[str, str]) -> dict:
    """REDIS_URL (and the caller's, kept) after tests/parallel.py ran in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_XDIST_WORKER", "PORTAL_TESTS_CALLER_REDIS_URL")}
    env.update(env_extra)
    return fresh_json("import json, os\n"
                      "import tests.parallel\n"
                      "print(json.dumps({'url': os.environ.get('REDIS_URL'),"
                      " 'caller': os.environ.get('PORTAL_TESTS_CALLER_REDIS_URL')}))\n", env)


def test_a_run_without_workers_leaves_the_caller_s_database_alone():
    seen = _redis_url_seen_by({"REDIS_URL": "redis://127.0.0.1:6379/0"})
    assert seen == {"url": "redis://127.0.0.1:6379/1", "caller": "redis://127.0.0.1:6379/0"}


@pytest.mark.parametrize(("worker", "database"), [("gw0", 1), ("gw1", 2), ("gw7", 8)])
def test_each_worker_counts_from_the_caller_s_database_not_from_its_controller_s(worker, database):
    # xdist's controller moved REDIS_URL to …/1 before it started the workers, who inherit it
    seen = _redis_url_seen_by({"REDIS_URL": "redis://127.0.0.1:6379/1", "PYTEST_XDIST_WORKER": worker,
                               "PORTAL_TESTS_CALLER_REDIS_URL": "redis://127.0.0.1:6379/0"})
    assert seen["url"] == f"redis://127.0.0.1:6379/{database}"


def test_without_redis_nothing_is_set():
    env = {"REDIS_URL": ""}
    assert _redis_url_seen_by(env) == {"url": "", "caller": None}


def test_this_run_is_not_on_the_caller_s_database():
    caller = os.environ.get("PORTAL_TESTS_CALLER_REDIS_URL")
    if not caller:
        pytest.skip("sem REDIS_URL nesta execução")
    assert os.environ["REDIS_URL"] != caller
