"""Runs every bench/bench_*.py in turn and prints their figures, then one table of every line
with its target and OK/FALHOU. `make bench` (BENCH_QUICK=1 for a fast run)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ("bench_public.py", "bench_licensing.py", "bench_jobs.py")  # the rest after these


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py"), key=lambda p: (ORDER.index(p.name) if p.name in ORDER else len(ORDER), p.name))
    failed, lines = 0, []
    began = time.monotonic()
    for script in scripts:
        print(f"== {script.name}", flush=True)
        proc = subprocess.Popen([sys.executable, str(script)], cwd=HERE.parent, stdout=subprocess.PIPE, text=True)
        for line in proc.stdout:
            if line.startswith("RESULT|"):
                lines.append(line.rstrip("\n").split("|")[1:])
            else:
                print(line, end="", flush=True)
        failed += proc.wait() != 0
    if lines:
        print("\n| linha | medida | meta | resultado |\n|---|---|---|---|")
        for name, figure, target, mark in lines:
            print(f"| {name} | {figure} | {target} | {mark} |")
    print(f"\n{sum(m == 'FALHOU' for *_, m in lines)} linha(s) fora da meta; tempo total {time.monotonic() - began:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
