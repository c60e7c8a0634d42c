"""Code run in a new interpreter, in the project: what a process that starts from a given
environment does before anything of this test run's can reach it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fresh_json(code: str, env: dict[str, str]) -> dict:
    """What ``code`` printed last, as JSON, run by ``python -c`` in the project (its directory
    is on the path) with exactly ``env``; the run must succeed."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
