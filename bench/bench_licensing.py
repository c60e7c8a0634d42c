"""Licensing figures: time per PDF of each kind against a one-line WeasyPrint page rendered in the
same run (ratio; target ≤ 5× for the act and the alvará), and the time to issue 1.000 and 3.000
alvarás in one transaction with their PDFs (rendered, signed and stored as the worker does after
the commit; targets: 1.000 ≤ 120 s, 3.000 ≤ 3,2× of 1.000). Runs on a throwaway PostgreSQL
database (``test_`` + the bench's, BENCH_DATABASE_URL), set up as its owner and measured as the
application's role (row-level security applies, as in production). BENCH_QUICK=1: 30 and 90 alvarás."""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.common import DB_URL, QUICK, app_role_env, connect_as_application, in_scratch, result  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("PORTAL_TESTING", "1")
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "1"  # the PDFs are frozen at commit, in this process
in_scratch("bench-licensing-")  # never leave bench files or messages where a portal would take them
os.environ.update(app_role_env())  # the owner's migrate creates the application's role (bench.common)
if DB_URL != "sqlite":
    os.environ["DATABASE_URL"] = DB_URL

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
BATCH = int(os.environ.get("BENCH_ALVARAS", "30" if QUICK else "1000"))
PDF_TARGET = 5.0


def timed(func, repeat: int = REPEAT) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        return run()
    finally:
        connect_as_application(connection, False)
        connection.creation.destroy_test_db(old_name, verbosity=0)


def _pick_pack() -> str:
    """A pack with every kind of PDF (an alvará and a declaration), unless BENCH_PACK names one."""
    from portal.regulation import available_packs, read_pack_file

    if os.environ.get("BENCH_PACK"):
        return os.environ["BENCH_PACK"]
    for slug in available_packs():
        data = read_pack_file(slug)
        if data.get("acts", {}).get("alvara", {}).get("scope", "none") != "none" and any(
                d["code"].startswith("declaracao_anexo") for d in data.get("documents", [])):
            return slug
    return available_packs()[0]


def run() -> int:
    from datetime import timedelta

    from django.utils import timezone

    from licensing.applications.documents import (
        declaration_item,
        declaration_pdf,
        inspection_pdf,
        receipt_pdf,
    )
    from licensing.grants.documents import _render_alvara, _render_authorization, authorization_pdf
    from licensing.grants.services import alvara_issue
    from licensing.models import Application, ApplicationAuxiliary, Inspection
    from portal import regulation, tenancy
    from portal.pdf import render_pdf
    from portal.signing import sign_pdf
    from tests.factories import UserFactory, VehicleFactory, issue_authorization

    slug = _pick_pack()
    loaded = regulation.load_pack(slug)
    regulation.invalidate()
    tenancy.set_current((loaded.municipality_id, slug))  # every record belongs to the municipality
    holder = UserFactory(name="Maria Bench")
    agent = UserFactory(name="Agente Bench", role="agente")
    vehicle = VehicleFactory(owner=holder)
    auth, alvaras = issue_authorization(holder=holder, vehicle=vehicle)
    app = Application.objects.create(applicant=holder, modality="taxi", status="in_review", protocol="2026/000001",
                                     submitted_at=timezone.now(), vehicle=vehicle, authorization=auth)
    ApplicationAuxiliary.objects.create(application=app, position=1, cpf="52998224725", name="Aux Bench",
                                        cnh_category="B")
    Inspection.objects.create(application=app, agent=agent, scheduled_for=timezone.now() + timedelta(days=1))

    # measured as the web and worker processes run: the application's role, under row-level security
    connect_as_application(connection)
    render_pdf("licensing/pdf/one_line.html", {})  # warm fonts and WeasyPrint
    baseline = timed(lambda: render_pdf("licensing/pdf/one_line.html", {}))
    kinds = {
        # the renderings themselves (the served PDF is the stored one, rendered once at issue)
        "ato de outorga": lambda: _render_authorization(auth),
        "alvará": lambda: _render_alvara(alvaras[0]),
        "comprovante de protocolo": lambda: receipt_pdf(app),
        "formulário de vistoria": lambda: inspection_pdf(app),
    }
    if declaration_item(app) is not None:
        kinds["declaração"] = lambda: declaration_pdf(app)
    print(f"página de uma linha (base): {baseline * 1000:.1f} ms")
    ok = True
    for name, func in kinds.items():
        t = timed(func)
        target = name in ("ato de outorga", "alvará")
        ok &= result(f"PDF: {name}", f"{t / baseline:.1f}× ({t * 1000:.0f} / {baseline * 1000:.0f} ms)",
                     f"≤ {PDF_TARGET:.0f}× uma linha" if target else "", t / baseline <= PDF_TARGET if target else None)

    # Issue #14: signing (PAdES) may add at most 1× the time of rendering the act.
    act = _render_authorization(auth)
    render_t = timed(lambda: _render_authorization(auth))
    sign_t = timed(lambda: sign_pdf(act, reason="bench", location="bench"))
    ok &= result("assinatura do ato", f"{sign_t / render_t:.2f}× a renderização ({sign_t * 1000:.0f} ms)",
                 "≤ 1× renderização", sign_t <= render_t)
    stored_t = timed(lambda: authorization_pdf(auth))
    print(f"ato servido do armazenamento: {stored_t * 1000:.2f} ms")

    times = {}
    for count in (BATCH, 3 * BATCH):
        start = time.perf_counter()
        with transaction.atomic():
            for _ in range(count):
                alvara_issue(actor=None, authorization=auth, person=holder)
        times[count] = time.perf_counter() - start  # the commit froze (rendered, signed, stored) each PDF
    one, three = times[BATCH], times[3 * BATCH]
    limit = 120 * BATCH / 1000
    ok &= result(f"{BATCH} alvarás num lote, com PDFs ({connection.vendor})", f"{one:.1f} s ({one / BATCH * 1000:.0f} ms cada)",
                 f"≤ {limit:.0f} s", one <= limit)
    ok &= result(f"{3 * BATCH} alvarás num lote, com PDFs", f"{three:.1f} s = {three / one:.2f}× de {BATCH}",
                 "≤ 3,2×", three / one <= 3.2)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
