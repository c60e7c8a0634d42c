"""Runs every bench/bench_*.py in turn and prints their results. `make bench`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    if not scripts:
        print("nenhum benchmark em bench/")
        return 0
    failed = 0
    for script in scripts:
        print(f"== {script.name}", flush=True)
        result = subprocess.run([sys.executable, str(script)], cwd=HERE.parent)
        failed += result.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
