"""Public pages under load: fare calculator, verification page and transparency list.

Runs gunicorn on 127.0.0.1 against PostgreSQL with 10.000 current grants inserted in bulk,
hits each page with 50 concurrent clients for a few seconds and prints requests per second
and p95 latency, each as a ratio to a bare Django view (a constant response, enabled only with
BENCH=1) measured on the same server in the same run. Pages and the bare view alternate in
short slices over a few rounds (the machine may be shared). Anonymous public pages are served
from the shared cache (Redis when it runs on 127.0.0.1) while their data is unchanged, so the
"cold" rows (thousands of different documents or pages) show the cost of rendering.
Bounded: about 80 seconds in all, never more than HARD_LIMIT.

Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/portal_bench_public;
the database is dropped and recreated), BENCH_SECONDS (per slice, default 2.5), BENCH_ROUNDS (3), BENCH_CLIENTS (50),
BENCH_WORKERS (gunicorn workers, default 2 × CPUs), BENCH_PACK (default: the first pack).
"""

from __future__ import annotations

import http.client
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"  # never anything else
GRANTS = 10_000
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "50"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "2.5"))  # per slice
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
WORKERS = int(os.environ.get("BENCH_WORKERS", str(2 * (os.cpu_count() or 1))))
DB_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/portal_bench_public"
)
HARD_LIMIT = 170  # seconds: the whole bench stays under 3 minutes


def _env() -> dict:
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": DB_URL,
            "DEBUG": "0",
            "SECRET_KEY": "bench-only-not-secret-" + "x" * 40,
            "ALLOWED_HOSTS": HOST,
            "SECURE_COOKIES": "0",
            "SECURE_SSL_REDIRECT": "0",
            "BENCH": "1",
            "THROTTLE_VERIFY": "100000000/min",
            "LOG_LEVEL": "ERROR",
            "PORTAL_TESTING": "0",
            "SITE_URL": f"http://{HOST}",
            "DJANGO_SETTINGS_MODULE": "bench.settings_bench",
        }
    )
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
    if (
        redis_url
        and urlparse(redis_url).hostname == HOST
        and _port_open(6379 if not urlparse(redis_url).port else urlparse(redis_url).port)
    ):
        env["REDIS_URL"] = redis_url  # the cache shared by the workers, as in production
    else:
        env.pop("REDIS_URL", None)
    return env


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((HOST, port)) == 0


def _recreate_database() -> None:
    import psycopg2

    url = urlparse(DB_URL)
    if url.hostname not in ("127.0.0.1", "localhost"):
        raise SystemExit("bench: only a local PostgreSQL is allowed")
    name = url.path.lstrip("/")
    conn = psycopg2.connect(
        host=url.hostname,
        port=url.port or 5432,
        user=url.username or "postgres",
        password=url.password or None,
        dbname="postgres",
    )
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute(f'DROP DATABASE IF EXISTS "{name}"')
        cur.execute(f'CREATE DATABASE "{name}"')
    conn.close()


SEED = r"""
import random
from datetime import timedelta
from django.utils import timezone
from django.contrib.auth import get_user_model
from fleet.models import Vehicle
from licensing.models import Authorization
from portal import regulation
from portal.numbering import verification_code

pack = regulation.current()
User = get_user_model()
rng = random.Random(5)
first = ["Ana", "João", "Maria", "José", "Antônio", "Francisca", "Conceição", "Sebastião", "Luís", "Inês"]
last = ["Gonçalves", "Araújo", "Conceição", "Lima", "Souza", "Simões", "Brandão", "Mendonça", "Pereira", "Lopes"]
users = User.objects.bulk_create(
    [User(username=f"bench{i:05d}", name=f"{rng.choice(first)} {rng.choice(last)} {i}", password="!")
     for i in range(N)], batch_size=2000)
letters = "ABCDEFGHJKLMNPRSTUVWXYZ"
def plate(i):
    return f"{letters[i // 2300 % 23]}{letters[i // 100 % 23]}{letters[i % 23]}{i % 10}{letters[i // 10 % 23]}{i // 1000 % 10}{i // 230 % 10}"
vehicles = Vehicle.objects.bulk_create(
    [Vehicle(plate=plate(i), renavam="00000000000", make="Chevrolet", model="Spin", color="branca",
             manufacture_year=2024, owner=u) for i, u in enumerate(users)], batch_size=2000)
now = timezone.now()
today = pack.today()
Authorization.objects.bulk_create(
    [Authorization(number=f"{i + 1:05d}/{today.year}", act_name="Autorização", modality="taxi" if i % 4 else "mototaxi",
                   holder=u, vehicle=v, status="active" if i % 20 else "suspended",
                   issued_at=now - timedelta(days=rng.randrange(365)), valid_from=today,
                   valid_until=today + timedelta(days=3650), verification_code=verification_code(),
                   legal_basis="bench")
     for i, (u, v) in enumerate(zip(users, vehicles))], batch_size=2000)
from django.db import connection
with connection.cursor() as cur:
    cur.execute("ANALYZE")  # what autovacuum does after a bulk load
codes = list(Authorization.objects.order_by("?").values_list("verification_code", flat=True)[:5000])
open(OUT, "w").write("\n".join(codes))
print(f"{Authorization.objects.count()} outorgas em vigor")
"""


def _manage(*args: str, env: dict) -> None:
    subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _wait_up(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", "/bench/bare/")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("bench: gunicorn did not start")


def _load(port: int, paths: list[str], seconds: float) -> dict:
    """CLIENTS concurrent clients (asyncio, one connection per request) for ``seconds``."""
    import asyncio

    latencies: list[float] = []
    errors = [0]

    async def one(path: str) -> bool:
        reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        data = await reader.read()
        writer.close()
        return data[9:12] == b"200"

    async def client(seed: int, stop: float) -> None:
        rng = random.Random(seed)
        loop = asyncio.get_running_loop()
        while loop.time() < stop:
            start = time.perf_counter()
            try:
                ok = await asyncio.wait_for(one(rng.choice(paths)), 30)
            except (TimeoutError, OSError):
                errors[0] += 1
                continue
            latencies.append(time.perf_counter() - start)
            errors[0] += not ok

    async def run() -> float:
        loop = asyncio.get_running_loop()
        began = loop.time()
        await asyncio.gather(*(client(i, began + seconds) for i in range(CLIENTS)))
        return loop.time() - began

    elapsed = asyncio.run(run())
    latencies.sort()
    p95 = latencies[max(int(len(latencies) * 0.95) - 1, 0)] if latencies else float("nan")
    return {
        "rps": len(latencies) / elapsed,
        "p95_ms": p95 * 1000,
        "n": len(latencies),
        "errors": errors[0],
        "median_ms": statistics.median(latencies) * 1000 if latencies else float("nan"),
    }


def main() -> int:
    began = time.monotonic()
    signal.signal(
        signal.SIGALRM, lambda *_: (_ for _ in ()).throw(SystemExit("bench: tempo esgotado"))
    )
    signal.alarm(HARD_LIMIT)
    env = _env()
    _recreate_database()
    _manage("migrate", "--noinput", env=env)
    pack = (
        os.environ.get("BENCH_PACK")
        or sorted(p.stem for p in (ROOT / "portal" / "packs").glob("*.toml"))[0]
    )
    _manage("load_regulation", pack, env=env)
    codes_file = ROOT / "var" / "bench_public_codes.txt"
    codes_file.parent.mkdir(exist_ok=True)
    seed = f"N = {GRANTS}\nOUT = {str(codes_file)!r}\n" + SEED
    subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", seed], cwd=ROOT, env=env, check=True
    )
    codes = codes_file.read_text().split()
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "portal.wsgi:application",
            "-b",
            f"{HOST}:{port}",
            "-w",
            str(WORKERS),
            "--backlog",
            "2048",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    try:
        _wait_up(port)
        scenarios = {
            "bare": ["/bench/bare/"],
            "calculator": [
                f"/tarifas/?modality=taxi&km={km}&date=2026-11-29&time={h:02d}:30"
                for km in (1, 2.5, 7, 10, 18.3)
                for h in (8, 14, 22)
            ],
            # a vehicle checked again and again (QR at the rank): 50 documents
            "verification": [f"/verificar/{c}/" for c in codes[:50]],
            # 5.000 different documents: nearly every request renders the page
            "verification_cold": [f"/verificar/{c}/" for c in codes],
            "transparency": [f"/transparencia/?page={p}" for p in range(1, 6)],  # the first pages
            "transparency_deep": [
                f"/transparencia/?page={p}" for p in range(1, 201)
            ],  # all 200 pages
        }
        for paths in scenarios.values():  # warm up every worker (pack cache, templates)
            _load(port, paths, 1.0)
        # The machine is shared: pages and the bare view alternate in short slices, several
        # rounds, so that a busy moment weighs on all of them alike.
        slices: dict[str, list[dict]] = {name: [] for name in scenarios}
        for _ in range(ROUNDS):
            for name, paths in scenarios.items():
                slices[name].append(_load(port, paths, SECONDS))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=20)
    results = {}
    for name, runs in slices.items():
        n = sum(r["n"] for r in runs)
        results[name] = {
            "rps": sum(r["rps"] for r in runs) / len(runs),
            "p95_ms": statistics.median(r["p95_ms"] for r in runs),
            "errors": sum(r["errors"] for r in runs),
            "n": n,
        }
    bare = results["bare"]
    cache_kind = "Redis" if env.get("REDIS_URL") else "memória local"
    print(
        f"gunicorn {WORKERS} workers em {HOST}, PostgreSQL, cache {cache_kind}, {GRANTS} outorgas, "
        f"{CLIENTS} clientes, {ROUNDS} rodadas de {SECONDS:g} s por página"
    )
    print(
        f"{'página':<14}{'req/s':>9}{'p95 ms':>9}{'erros':>7}{'req/s ÷ base':>14}{'p95 ÷ base':>12}"
    )
    ok = True
    for name, r in results.items():
        print(
            f"{name:<14}{r['rps']:>9.0f}{r['p95_ms']:>9.1f}{r['errors']:>7}{r['rps'] / bare['rps']:>14.2f}"
            f"{r['p95_ms'] / bare['p95_ms']:>12.2f}"
        )
        ok &= r["errors"] == 0
    print("meta: cada página pública com pelo menos 0,5 × a vazão da view vazia")
    print(f"tempo total {time.monotonic() - began:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
