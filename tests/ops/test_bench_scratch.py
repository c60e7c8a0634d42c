"""A bench never leaves its files or its Celery messages where a portal would take them.

The benches that run the portal in their own process (bench/bench_*.py) send tasks (a frozen
PDF, an e-mail) for records of the bench's database. Queued in the checkout's var/ or on the
caller's Redis, the worker of ``make run`` took them and ran them against the demo's database
(a bench run once left 390 there); with the caller's DATABASE_URL, a bench wrote its users and
autos into that database. Each bench is imported here as ``make bench`` would, with a
developer's environment, and must have moved every such path to its own scratch directory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.ops.fresh import ROOT, fresh_json

IN_PROCESS = ["bench_enforcement", "bench_jobs", "bench_licensing", "bench_tenants"]
KEYS = ("VAR_DIR", "REDIS_URL", "MEDIA_ROOT", "DATABASE_URL")


def _developer_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_")}
    env.update({
        "VAR_DIR": str(ROOT / "var"),
        "REDIS_URL": "redis://127.0.0.1:6379/15",
        "MEDIA_ROOT": str(tmp_path / "developer-media"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'developer.sqlite3'}",
    })
    return env


def _in_scratch(path: str) -> bool:
    resolved = Path(path).resolve()
    return (Path(tempfile.gettempdir()).resolve() in resolved.parents
            and ROOT.resolve() not in resolved.parents and resolved != ROOT.resolve())


@pytest.mark.parametrize("module", IN_PROCESS)
def test_an_in_process_bench_keeps_its_files_messages_and_data_to_itself(module, tmp_path):
    env = _developer_env(tmp_path)
    seen = fresh_json(
        "import importlib, json, os\n"
        f"importlib.import_module('bench.{module}')\n"
        f"print(json.dumps({{k: os.environ.get(k) for k in {KEYS!r}}}))\n",
        env,
    )
    assert _in_scratch(seen["VAR_DIR"]), seen  # its Celery queue, media and certificates
    assert seen["REDIS_URL"] is None, seen  # no message on the caller's broker
    assert seen["MEDIA_ROOT"] is None, seen  # media under its own VAR_DIR
    assert seen["DATABASE_URL"] != env["DATABASE_URL"], seen  # never the caller's database


def test_the_public_bench_serves_the_portal_with_its_own_files_broker_and_database(tmp_path):
    env = _developer_env(tmp_path)
    served = tmp_path / "run" / "var"
    seen = fresh_json(
        "import json\n"
        "from pathlib import Path\n"
        "from bench import bench_public\n"
        f"env = bench_public._env(Path({str(served)!r}))\n"
        f"print(json.dumps({{k: env.get(k) for k in {KEYS!r}}}))\n",
        env,
    )
    assert seen["VAR_DIR"] == str(served), seen
    assert seen["MEDIA_ROOT"] is None, seen
    assert seen["REDIS_URL"] != env["REDIS_URL"], seen  # its own Redis database (db 9), flushed by the run
    assert seen["DATABASE_URL"] != env["DATABASE_URL"], seen
