"""Many municipalities against one (issue 17): 100 municipalities × 1.000 grants against
1 municipality × 100.000 grants, in the same database and the same run.

The per-request cost of a public page must not grow with the number of municipalities: a
page of one of the 100 small municipalities is compared with the same page of the big one
(every query carries the municipality column, indexed, so a small municipality's page reads
its own rows only). The grants are saved interleaved, as an installation issues them over the
years (``save_interleaved``): a small municipality's are 1 in 200 of the table's ids, spread over
all of it, so that a plan walking an index of ids past the others' rows shows. The expiry job
over the 100 small municipalities (one run per municipality, as beat does) is compared with the
job over the big one — the same 100.000 grants expiring either way.

Public pages are asked in-process through the whole middleware stack (Django test client,
host ``<slug>.localhost``), connected as the application's role on PostgreSQL (row-level
security applies, as in production; the set-up runs as the owner), each request for a code
never asked before (the cold path), the public page cache off. Figures: median and p95 per
request, queries per request, ratio many ÷ one.

Two lines per page. **Steady state** (what counts): requests arrive every ``BENCH_GAP_SECONDS``
(0,5 s: two requests a second per process), spread at random over the municipalities, and the
process's clock (``time.monotonic``/``time.time``) moves on by that gap between requests, so
every per-process cache with a lifetime expires as it would in production — a small
municipality is asked every MANY × 0,5 s (50 s with 100), far longer than any cache's few
seconds, the big one every 0,5 s. **Caches held**: no time passes, every cache stays warm (the
page's own cost, without any revalidation). The two streams alternate in blocks of 20 requests
(``measure_pair``), so that the machine's slow moments fall on both. Targets: page ratio ≤ 1,2 and the same number of queries; expiry ratio ≤ 1,5
(a hundred runs, each with its own bookkeeping, against one).

PostgreSQL (BENCH_DATABASE_URL's server; the database ``test_<BENCH_TENANTS_DB>``, by default
``test_bench_tenants``, is created and dropped), or BENCH_DATABASE_URL=sqlite. BENCH_QUICK=1: 20 × 500 against 1 × 10.000.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlparse, urlunparse

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

MANY, PER = (20, 500) if QUICK else (100, 1_000)
TOTAL = MANY * PER
REQUESTS = 200 if QUICK else 300
PAGE_TARGET, JOB_TARGET = 1.2, 1.5
GAP_SECONDS = float(os.environ.get("BENCH_GAP_SECONDS", "0.5"))

os.environ["PORTAL_TESTING"] = "1"
in_scratch("bench-tenants-")  # never leave bench files or messages where a portal would take them
os.environ["THROTTLE_VERIFY"] = "100000000/min"  # the bench asks far more than a person would
os.environ.update(app_role_env())  # the owner's migrate creates the application's role (bench.common)
if DB_URL != "sqlite":
    parts = urlparse(DB_URL)
    # its own name (BENCH_TENANTS_DB): benches of several people may share one server
    os.environ["DATABASE_URL"] = urlunparse(parts._replace(path="/" + os.environ.get("BENCH_TENANTS_DB", "bench_tenants")))
else:
    os.environ.pop("DATABASE_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
settings.PUBLIC_PAGE_CACHE = False
settings.TENANT_BASE_DOMAIN = "localhost"
settings.DEFAULT_MUNICIPALITY = ""
settings.ALLOWED_HOSTS = [".localhost", "localhost", "127.0.0.1"]


def clone_municipalities(template, slugs: list[str]):
    """Municipalities with the template's pack and parameters (what load_regulation writes)."""
    from portal.models import FiscalUnitValue, Municipality, RegulationParameter

    params = list(RegulationParameter.objects.filter(municipality=template))
    units = list(FiscalUnitValue.objects.filter(municipality=template))
    made = []
    for slug in slugs:
        m = Municipality.objects.get(pk=template.pk)
        m.pk, m.slug, m.name = None, slug, f"Município {slug}"
        m.save()
        for p in params:
            p.pk, p.municipality_id = None, m.pk
        RegulationParameter.objects.bulk_create(params)
        for u in units:
            u.pk, u.municipality_id = None, m.pk
        FiscalUnitValue.objects.bulk_create(units)
        made.append(m)
    return made


def grants(municipality, n: int, holders: list[int], today, tag: int) -> list:
    """``n`` current grants of ``municipality`` (valid until tomorrow), not yet saved."""
    from licensing.models import Authorization

    modality = next(iter(municipality.pack.get("modalities", {"taxi": {}})))
    return [
        Authorization(
            municipality_id=municipality.pk, number=f"{i + 1:06d}/{today.year}", act_name="Autorização",
            modality=modality, holder_id=holders[i % len(holders)], valid_from=today - timedelta(days=365),
            valid_until=today + timedelta(days=1), verification_code=f"T{tag:03d}{i:010d}", legal_basis="bench",
        )
        for i in range(n)
    ]


def save_interleaved(small: list[list], big: list) -> None:
    """The grants saved as an installation issues them over the years: every municipality's
    mixed with the others' in the order of their ids (in each round, one grant of every small
    municipality and as many of the big one), not each municipality's in one run of ids. A
    small municipality's grants are then 1 in 200 of the table's, spread over all of it, as in
    a consortium's database: a plan that walks an index of ids and filters by municipality reads
    the others' rows in between, which contiguous ids would hide."""
    from licensing.models import Authorization

    per_round = len(small)
    ordered = []
    for i in range(len(small[0])):
        ordered += [rows[i] for rows in small]
        ordered += big[i * per_round:(i + 1) * per_round]
    ordered += big[len(small[0]) * per_round:]
    Authorization.all_tenants.bulk_create(ordered, batch_size=5000)


class Clock:
    """The process's clock, moved on between requests as if it had waited for the next one.

    ``time.monotonic`` and ``time.time`` (what the per-process caches and the cache backend
    read) answer real time plus the waits simulated so far; the request itself is timed with
    ``time.perf_counter``, which is left alone."""

    def __init__(self):
        self.offset = 0.0
        self._monotonic, self._time = time.monotonic, time.time

    def install(self) -> None:
        time.monotonic = lambda: self._monotonic() + self.offset
        time.time = lambda: self._time() + self.offset

    def uninstall(self) -> None:
        time.monotonic, time.time = self._monotonic, self._time

    def wait(self, seconds: float) -> None:
        self.offset += seconds


CLOCK = Clock()


def _ask(targets: list[tuple[str, str]], path: str, gap: float) -> tuple[list[float], list[int]]:
    """Times (ms) and queries of GET ``path`` (``{code}`` filled) on each host, ``gap`` seconds
    of the process's clock apart."""
    client = Client()
    times, queries = [], []
    for host, code in targets:
        CLOCK.wait(gap)
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(path.format(code=code), HTTP_HOST=host)
            times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (host, path, response.status_code)
        queries.append(len(captured.captured_queries))
        reset_queries()
    return times, queries


def _summary(times: list[float], queries: list[int]) -> tuple[float, float, float]:
    times = sorted(times)
    return statistics.median(times), times[int(len(times) * 0.95) - 1], statistics.mean(queries)


def measure_page(targets: list[tuple[str, str]], path: str, gap: float = 0.0) -> tuple[float, float, float]:
    """Median and p95 (ms) and mean queries of GET ``path`` on each host (see ``_ask``)."""
    return _summary(*_ask(targets, path, gap))


BLOCK = 20


def measure_pair(many: list[tuple[str, str]], one: list[tuple[str, str]], leads: tuple[list, list], path: str,
                 gap: float) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """``measure_page`` of the two streams in alternating blocks of ``BLOCK`` requests, so that
    a slow second of the machine (autovacuum after the set-up, another process) falls on both
    instead of on whichever stream it met: measured one after the other, the ratio of two pages
    with the same queries swung between 1,04× and 1,35× from one run to the next. Each block
    starts with one unmeasured request of its stream (a code from ``leads``, never measured):
    the other stream's block moved the clock on, and the stream's own pace is what each
    measured request must find — the big municipality asked every ``gap`` seconds, its data
    stamp re-read every few of its requests, not on the first of every block."""
    collected = ([], [], [], [])
    for n, start in enumerate(range(0, max(len(many), len(one)), BLOCK)):
        for targets, lead, times, queries in ((many, leads[0], *collected[:2]), (one, leads[1], *collected[2:])):
            _ask([lead[n % len(lead)]], path, gap)
            block_times, block_queries = _ask(targets[start:start + BLOCK], path, gap)
            times += block_times
            queries += block_queries
    return _summary(*collected[:2]), _summary(*collected[2:])


def hold_caches() -> None:
    """Per-process caches that never expire (the line without revalidation)."""
    from portal import tenant_revisions
    from portal.public import http

    tenant_revisions.CHECK_SECONDS = http.GRANTS_MEMO_SECONDS = 3600.0


def vacuum() -> None:
    """What autovacuum does within a minute of an update of every row (PostgreSQL, as the
    owner): the dead rows cleaned up and the statistics taken again, so that the planner judges
    the job's statements by the dates as they are now; then a checkpoint, so that the pages
    this wrote are on disk. Neither expiry run then shares the machine with an autovacuum or a
    flush of the rows updated before it (with ANALYZE alone the ratio swung from 1,2× to 1,9×
    between two runs of this bench)."""
    if connection.vendor != "postgresql":
        return
    connect_as_application(connection, False)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("CHECKPOINT")


def run_expiry(active: list, everyone: list) -> tuple[float, int]:
    """The expiry job as beat runs it (no municipality in scope: one run per municipality in
    service), with only ``active`` in service."""
    from licensing.grants import jobs
    from portal import regulation
    from portal.jobs import run_job
    from portal.models import Municipality

    Municipality.objects.filter(pk__in=[m.pk for m in everyone]).update(is_active=False)
    Municipality.objects.filter(pk__in=[m.pk for m in active]).update(is_active=True)
    # the worker has served these municipalities before (its packs' cache holds them while
    # their revisions do); the update above bumped every revision, which production does not
    for m in active:
        regulation.pack_of(m.pk)
    started = time.perf_counter()
    changed = run_job("licensing.expire_grants", lambda: jobs.expire_grants().authorizations)
    return time.perf_counter() - started, changed


def expiry_databases(name: str):
    """Where the expiry is measured, and in which order (a generator: each step is entered with
    the connection on its database). The many municipalities' run and the big one's expire
    disjoint rows, so both run on one database: many then one on the bench's database and, on
    PostgreSQL, one then many on a copy of it made before either ran (``CREATE DATABASE …
    TEMPLATE``, dropped at the end). Measured once each in one order, the ratio moved between
    1,26× and 1,67× across runs with the same code: each run is ~10 s of a shared machine, and
    the second inherits what the first left (its WAL, the checkpoint's work)."""
    if connection.vendor != "postgresql":
        yield ("many", "one")
        return
    settings_dict = connection.settings_dict
    connect_as_application(connection, False)
    connection.close()  # a template must have no session
    parts = urlparse(os.environ["DATABASE_URL"])
    owner = settings_dict["USER"] + (f":{settings_dict['PASSWORD']}" if settings_dict["PASSWORD"] else "")
    copy = f"{name}_copia"
    copy_url = urlunparse(parts._replace(netloc=f"{owner}@{parts.hostname}:{parts.port or 5432}", path="/" + copy))
    recreate_database(copy_url, template=name)
    try:
        yield ("many", "one")
        connect_as_application(connection, False)
        connection.close()
        settings_dict["NAME"] = copy
        yield ("one", "many")
    finally:
        connect_as_application(connection, False)
        connection.close()
        settings_dict["NAME"] = name
        drop_database(copy_url)


def main() -> int:
    from django.contrib.auth import get_user_model

    from licensing.models import Authorization
    from portal import regulation, tenancy
    from portal.celery import app
    from portal.models import Municipality

    app.conf.task_always_eager = False  # e-mails are the worker's business, not the job's
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    ok = True
    try:
        started = time.perf_counter()
        slug = regulation.available_packs()[0]
        regulation.load_pack(slug)
        template = Municipality.objects.get(slug=slug)
        today = regulation.pack_of(template.pk).today()
        small = clone_municipalities(template, [f"m{i:03d}" for i in range(MANY)])
        big = clone_municipalities(template, ["grande"])[0]
        Municipality.objects.filter(pk=template.pk).update(is_active=False)
        User = get_user_model()
        User.objects.bulk_create([User(username=f"bench{i:06d}", password="!") for i in range(TOTAL)], batch_size=5000)
        holders = list(User.objects.filter(username__startswith="bench").order_by("pk").values_list("pk", flat=True))
        rows_small = {m.pk: grants(m, PER, holders[i * PER:(i + 1) * PER], today, i) for i, m in enumerate(small)}
        rows_big = grants(big, TOTAL, holders, today, 999)
        save_interleaved(list(rows_small.values()), rows_big)
        codes_small = {pk: [r.verification_code for r in rows] for pk, rows in rows_small.items()}
        codes_big = [r.verification_code for r in rows_big]
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        print(f"base: {MANY} municípios × {PER} outorgas e 1 × {TOTAL} ({connection.vendor}), "
              f"{time.perf_counter() - started:.0f} s")
        regulation.invalidate()
        # what production runs as: the application's role, under row-level security
        connect_as_application(connection)
        rng = random.Random(17)
        many_targets = [(f"{m.slug}.localhost", rng.choice(codes_small[m.pk]))
                        for m in (rng.choice(small) for _ in range(REQUESTS))]
        big_codes = rng.sample(codes_big, REQUESTS + 20)
        one_targets = [("grande.localhost", code) for code in big_codes[:REQUESTS]]
        # warm-ups with codes the measured requests never ask (each measured code is asked once)
        asked = {code for _host, code in many_targets}
        warm_many = [(f"{m.slug}.localhost", next(c for c in codes_small[m.pk] if c not in asked))
                     for m in (small[i % MANY] for i in range(MANY * 2))]
        warm_one = [("grande.localhost", code) for code in big_codes[REQUESTS:]]
        measure_page(warm_many[:20], "/verificar/{code}/")  # warm the process (imports, templates)
        measure_page(warm_one, "/verificar/{code}/")
        CLOCK.install()
        try:
            for caches, gap in ((f"pedidos a cada {GAP_SECONDS:g} s", GAP_SECONDS), ("caches mantidos", 0.0)):
                if not gap:
                    hold_caches()
                for label, path in (("verificação por código (página)", "/verificar/{code}/"),
                                    ("verificação por código (API)", "/api/v1/verify/{code}/"),
                                    ("transparência, página 1", "/transparencia/?c={code}")):
                    # the process has run a while: every municipality asked before, at the same pace
                    measure_page(warm_many, path, gap)
                    measure_page(warm_one, path, gap)
                    many, one = measure_pair(many_targets, one_targets, (warm_many, warm_one), path, gap)
                    ratio = many[0] / one[0]
                    print(f"{label} ({caches}): {MANY} × {PER}: mediana {many[0]:.1f} ms, p95 {many[1]:.1f} ms, "
                          f"{many[2]:.1f} consultas; 1 × {TOTAL}: mediana {one[0]:.1f} ms, p95 {one[1]:.1f} ms, "
                          f"{one[2]:.1f} consultas")
                    ok &= report_line(
                        f"{label}, {caches}: {MANY}×{PER} ÷ 1×{TOTAL}",
                        f"{ratio:.2f}× ({many[0]:.1f} / {one[0]:.1f} ms; {many[2]:.1f} e {one[2]:.1f} consultas)",
                        f"≤ {PAGE_TARGET}× e as mesmas consultas (médias arredondadas)",
                        ratio <= PAGE_TARGET and round(many[2]) <= round(one[2]))
        finally:
            CLOCK.uninstall()
        everyone = [*small, big]
        connect_as_application(connection, False)  # the set-up crosses municipalities: the owner's
        Authorization.all_tenants.filter(municipality__in=everyone).update(valid_until=today - timedelta(days=1))
        vacuum()
        regulation.invalidate()
        many_s, one_s = [], []
        for order in expiry_databases(connection.settings_dict["NAME"]):  # many then one; on PostgreSQL, one then many on a copy
            for runs in order:
                vacuum()  # and before the second: the first run's 100.000 updated rows are not its to clean up
                connect_as_application(connection)  # the worker's role
                seconds, changed = run_expiry(small if runs == "many" else [big], everyone)
                assert changed == TOTAL, (runs, changed)
                (many_s if runs == "many" else one_s).append(seconds)
            with tenancy.activate(big):
                assert not Authorization.objects.filter(status__in=["active", "suspended"]).exists()
        ratio = sum(many_s) / sum(one_s)
        shown = " e ".join(f"{m:.1f} / {o:.1f} s" for m, o in zip(many_s, one_s, strict=True))
        print(f"expiração: {MANY} execuções × {PER} contra 1 execução × {TOTAL}: {shown}")
        ok &= report_line(f"expiração: {MANY}×{PER} ÷ 1×{TOTAL}", f"{ratio:.2f}× ({shown})",
                          f"≤ {JOB_TARGET}×", ratio <= JOB_TARGET)
    finally:
        connect_as_application(connection, False)
        connection.creation.destroy_test_db(old_name, verbosity=0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
