"""Licensing figures: time per PDF of each kind against a one-line WeasyPrint page rendered in the
same run (ratio), and the time to issue 1.000 alvarás in one batch. Runs on a throwaway database."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("PORTAL_TESTING", "1")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
BATCH = int(os.environ.get("BENCH_ALVARAS", "1000"))


def timed(func, repeat: int = REPEAT) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    setup_test_environment()
    settings.MEDIA_ROOT = tempfile.mkdtemp()
    old_name = connection.creation.create_test_db(verbosity=0)
    try:
        return run()
    finally:
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
    from portal import regulation
    from portal.pdf import render_pdf
    from portal.signing import sign_pdf
    from tests.factories import UserFactory, VehicleFactory, issue_authorization

    regulation.load_pack(_pick_pack())
    regulation.invalidate()
    holder = UserFactory(name="Maria Bench")
    agent = UserFactory(name="Agente Bench", role="agente")
    vehicle = VehicleFactory(owner=holder)
    auth, alvaras = issue_authorization(holder=holder, vehicle=vehicle)
    app = Application.objects.create(applicant=holder, modality="taxi", status="in_review", protocol="2026/000001",
                                     submitted_at=timezone.now(), vehicle=vehicle, authorization=auth)
    ApplicationAuxiliary.objects.create(application=app, position=1, cpf="52998224725", name="Aux Bench",
                                        cnh_category="B")
    Inspection.objects.create(application=app, agent=agent, scheduled_for=timezone.now() + timedelta(days=1))

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
    for name, func in kinds.items():
        t = timed(func)
        print(f"{name}: {t * 1000:.1f} ms — {t / baseline:.1f}× a página de uma linha")

    # Issue #14: signing (PAdES) may add at most 1× the time of rendering the act.
    act = _render_authorization(auth)
    render_t = timed(lambda: _render_authorization(auth))
    sign_t = timed(lambda: sign_pdf(act, reason="bench", location="bench"))
    ok = sign_t <= render_t
    print(f"assinatura do ato: {sign_t * 1000:.1f} ms — {sign_t / render_t:.2f}× a renderização "
          f"({render_t * 1000:.1f} ms); meta ≤ 1× — {'OK' if ok else 'FALHOU'}")
    stored_t = timed(lambda: authorization_pdf(auth))
    print(f"ato servido do armazenamento: {stored_t * 1000:.2f} ms")

    start = time.perf_counter()
    with transaction.atomic():
        for _ in range(BATCH):
            alvara_issue(actor=None, authorization=auth, person=holder)
    batch = time.perf_counter() - start
    print(f"{BATCH} alvarás num lote: {batch:.2f} s ({batch / BATCH * 1000:.2f} ms cada; "
          f"{batch / baseline:.0f}× a página de uma linha) — banco {connection.vendor}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
