"""The expiry job over 40.000 authorizations, as a ratio to one raw SQL UPDATE of the same rows.

Runs on PostgreSQL (BENCH_DATABASE_URL, default the bench's ``bench_perf``: a database
``test_<name>`` is created and dropped); BENCH_DATABASE_URL=sqlite runs on in-memory SQLite.
BENCH_QUICK=1: 8.000 authorizations. The job does
more than the UPDATE — one audit row and one notice per authorization — and the target is
to stay within 3× of the bare UPDATE. The job runs as the application's role, as the worker
does in production (row-level security applies); the UPDATE, the set-up and VACUUM as the
owner. Usage: ``python bench/bench_jobs.py [N]``.

On PostgreSQL the data is built once and copied (``CREATE DATABASE … TEMPLATE``), and the
UPDATE and the job are timed in two rounds, one on each copy (the job cannot be undone: its
audit rows are permanent): UPDATE, job, UPDATE, job; the ratio is the fastest job over the
fastest UPDATE. Timed once each, a slow second of the shared machine decided the line: on one
machine the UPDATE alone took 976 to 1.605 ms between runs.
"""

from __future__ import annotations

import os
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.common import (  # noqa: E402
    DB_URL,
    QUICK,
    app_role_env,
    connect_as_application,
    drop_database,
    in_scratch,
    recreate_database,
)
from bench.common import result as report_line  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else (8_000 if QUICK else 40_000)
TARGET = 3.0

os.environ["PORTAL_TESTING"] = "1"
in_scratch("bench-jobs-")  # never leave bench files or messages where a portal would take them
os.environ.update(app_role_env())  # the owner's migrate creates the application's role (bench.common)
if DB_URL != "sqlite":
    os.environ["DATABASE_URL"] = DB_URL
else:
    os.environ.pop("DATABASE_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def build(pack) -> None:
    from licensing.models import Authorization
    from portal.models import Notification

    User = get_user_model()
    today = pack.today()
    User.objects.bulk_create(
        [User(username=f"bench{i:06d}", email=f"bench{i:06d}@example.org", password="!") for i in range(N)],
        batch_size=5000,
    )
    holders = list(User.objects.filter(username__startswith="bench").order_by("pk").values_list("pk", flat=True))
    modality = next(iter(pack.modalities))
    Authorization.objects.bulk_create(
        [
            Authorization(
                number=f"{i % 1000:03d}/{1000 + i // 1000}", act_name="Autorização", modality=modality,
                holder_id=holder, valid_from=today - timedelta(days=365),
                valid_until=today - timedelta(days=1 + i % 30), verification_code=f"B{i:013d}",
                legal_basis="bench",
            )
            for i, holder in enumerate(holders)
        ],
        batch_size=5000,
    )
    assert Authorization.objects.count() == N and Notification.objects.count() == 0


def raw_update(today) -> float:
    """One UPDATE of the same rows, committed as each of the job's transactions is (a rolled-back
    UPDATE never waits for its WAL to reach the disk, which each commit of the job does), then
    put back as it was (untimed) so that the job finds them."""
    columns = "status, status_reason, status_changed_at"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE bench_before AS SELECT id, {columns} FROM licensing_authorization")
    vacuum()
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE licensing_authorization SET status = %s, status_reason = %s, status_changed_at = %s "
            "WHERE status IN (%s, %s) AND valid_until < %s",
            ["expired", "Prazo de validade encerrado", timezone.now(), "active", "suspended", today],
        )
        assert cursor.rowcount == N, cursor.rowcount
    took = time.perf_counter() - started
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE licensing_authorization AS a SET status = b.status, status_reason = b.status_reason, "
            "status_changed_at = b.status_changed_at FROM bench_before b WHERE a.id = b.id"
        )
        cursor.execute("DROP TABLE bench_before")
    vacuum()
    return took


def use_database(name: str) -> None:
    """Point the connection at the database ``name`` (the next query connects to it)."""
    connection.close()
    connection.settings_dict["NAME"] = name


def _url_of(name: str) -> str:
    """BENCH_DATABASE_URL's server with the database ``name``."""
    return f"{DB_URL.rsplit('/', 1)[0]}/{name}"


def one_round(jobs, pack) -> tuple[float, float, float]:
    """The UPDATE (undone), then the job, then the job again (nothing left to do): seconds each."""
    from licensing.models import Authorization
    from portal.models import AuditEntry, Notification

    baseline = raw_update(pack.today())  # the bare UPDATE, as the owner
    connect_as_application(connection)  # the job as the worker runs it, under row-level security
    started = time.perf_counter()
    result = jobs.expire_grants()
    job = time.perf_counter() - started
    assert result.authorizations == N, result
    assert Authorization.objects.filter(status="expired").count() == N
    assert AuditEntry.objects.filter(action="authorization_status").count() == N
    assert Notification.objects.count() == N
    started = time.perf_counter()
    again = jobs.expire_grants()
    second = time.perf_counter() - started
    assert again.changed == 0 and Notification.objects.count() == N
    connect_as_application(connection, False)
    return baseline, job, second


def vacuum() -> None:
    """Drop the dead row versions the UPDATE and its undoing leave on PostgreSQL, so that the job
    starts from the state the UPDATE started from, and write every dirty page out (CHECKPOINT):
    the UPDATE and the job each start right after a checkpoint (the first change to each page
    logs the whole page) and none lands in the middle of either."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE licensing_authorization")
            cursor.execute("CHECKPOINT")


def main() -> int:
    from licensing.grants import jobs
    from portal import regulation, tenancy
    from portal.celery import app

    app.conf.task_always_eager = False  # e-mails are the worker's business, not the job's
    old_name = connection.settings_dict["NAME"]
    test_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    rounds = [test_name] + ([f"{test_name}_2"] if connection.vendor == "postgresql" else [])
    try:
        slug = regulation.available_packs()[0]
        loaded = regulation.load_pack(slug)
        tenancy.set_current((loaded.municipality_id, slug))  # the job runs per municipality
        pack = regulation.current()
        started = time.perf_counter()
        build(pack)
        vacuum()
        print(f"base: {N} autorizações vencidas em {time.perf_counter() - started:.1f} s ({connection.vendor})")
        connection.close()  # nobody may be connected to the template of a copy
        for copy in rounds[1:]:
            recreate_database(_url_of(copy), template=test_name)
        from portal.celery import load_urlconf

        load_urlconf()  # what a worker does when it starts (worker_process_init)
        timings = []
        for name in rounds:
            if len(rounds) > 1:  # (closing an in-memory SQLite database would lose it)
                use_database(name)
            baseline, job, second = one_round(jobs, pack)
            timings.append((baseline, job))
            print(f"rodada {len(timings)}: UPDATE bruto (com o commit) {baseline * 1000:.0f} ms; tarefa de expiração "
                  f"(UPDATE + {N} auditorias + {N} avisos) {job * 1000:.0f} ms ({job / baseline:.2f}×); "
                  f"segunda execução (nada a fazer) {second * 1000:.0f} ms")
        baseline, job = min(b for b, _ in timings), min(j for _, j in timings)
        ratio = job / baseline
        ok = report_line(f"expiração de {N} outorgas ({connection.vendor})",
                         f"{ratio:.2f}× ({job * 1000:.0f} / {baseline * 1000:.0f} ms, as mais rápidas de {len(rounds)})",
                         f"≤ {TARGET:.0f}× UPDATE", ratio <= TARGET)
    finally:
        connect_as_application(connection, False)
        if len(rounds) > 1:
            use_database(test_name)
            for copy in rounds[1:]:
                drop_database(_url_of(copy))
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
