"""Enforcement figures as ratios to a baseline measured in the same run.

- issuing an auto (validation, gap-free number, audit, alvará retention) and judging it
  (recidivism over the holder's earlier autos, penalty, audit), each against a plain
  single-row INSERT of the same table;
- the agent's plate lookup and the API list page of 50 autos out of 600, against a
  single-row SELECT.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.common import in_scratch  # noqa: E402

# its own SQLite database, whatever DATABASE_URL says: the bench migrates, loads every pack and
# writes users, grants and autos
os.environ["DATABASE_URL"] = f"sqlite:///{in_scratch('bench-enforcement-') / 'bench_enforcement.sqlite3'}"
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("SECRET_KEY", "bench-only")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,.localhost")


def _timed(func, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    import django

    django.setup()
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone
    from rest_framework.test import APIClient

    from enforcement import selectors, services
    from enforcement.models import Infraction
    from portal import regulation, tenancy
    from portal.models import StaffAssignment
    from portal.roles import Role
    from tests.factories import UserFactory, VehicleFactory, issue_authorization

    call_command("migrate", verbosity=0)
    # The pack whose recidivism doubles progressively (the costliest judgement), and one of
    # its infractions whose fine has a value.
    for slug in regulation.available_packs():
        loaded = regulation.load_pack(slug)
        tenancy.set_current((loaded.municipality_id, slug))  # every record belongs to the municipality
        if regulation.current().value("recidivism.mode") == "progressive":
            break
    pack = regulation.current()
    code = next(e["code"] for e in selectors.catalogue(pack)
                if any(p["kind"] == "fine" and p.get("fine_amount") for p in e["penalties"]))
    agent = UserFactory(role=Role.AGENT, registration_number="AG-9")
    clerk = UserFactory(role=Role.CLERK)
    judge = UserFactory(role=Role.JUDGE)
    assert StaffAssignment.objects.filter(role=Role.JUDGE, user=judge).exists()
    holder = UserFactory()
    auth, _ = issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder),
                                  valid_from=pack.today() - timedelta(days=300))
    plate = auth.vehicle.plate
    counter = iter(range(1, 10**6))

    def baseline_insert():
        n = next(counter)
        Infraction.objects.create(number=f"B{n:06d}", plate=plate, agent=agent, infraction_code=code,
                                  occurred_at=timezone.now(), occurred_on=pack.today(), location="x", description="y")

    def baseline_select():
        Infraction.objects.filter(plate=plate).first()

    issued = []

    def issue():
        inf, _ = services.infraction_issue(actor=agent, plate=plate, infraction_code=code,
                                           occurred_at=timezone.now() - timedelta(days=1), location="Rua A",
                                           description="Bench.")
        issued.append(inf)

    base_insert = _timed(baseline_insert, 200)
    base_select = _timed(baseline_select, 200)
    t_issue = _timed(issue, 100)
    for inf in issued:
        services.infraction_notify(actor=clerk, infraction=inf, acknowledged_on=pack.today())
        # judged at once: the holder waives the defense period in writing (else the judgement
        # waits for its end, which the bench cannot)
        services.defense_waive(actor=holder, infraction=inf, text="Renuncio ao prazo de defesa.")
    pending = iter(issued)

    def judge_one():
        services.infraction_judge(actor=judge, infraction=next(pending), upheld=True, grounds="Bench.")

    t_judge = _timed(judge_one, 100)
    while Infraction.objects.count() < 600:
        baseline_insert()
    t_lookup = _timed(lambda: selectors.vehicle_status(plate, pack.today()), 50)
    client = APIClient(HTTP_HOST=f"{slug}.localhost")  # the municipality's own host (portal.tenant_hosts)
    client.force_authenticate(clerk)

    def api_list():
        response = client.get("/api/v1/infractions/")
        assert response.status_code == 200 and len(response.json()["results"]) == 50, response.status_code

    t_list = _timed(api_list, 30)
    print(f"baseline INSERT {base_insert * 1000:.2f} ms, SELECT {base_select * 1000:.2f} ms")
    print(f"issue auto            ×{t_issue / base_insert:6.1f} of INSERT")
    print(f"judge (recidivism)    ×{t_judge / base_insert:6.1f} of INSERT (up to 100 earlier autos of the holder)")
    print(f"plate lookup          ×{t_lookup / base_select:6.1f} of SELECT")
    print(f"API list, 50 of 600   ×{t_list / base_select:6.1f} of SELECT")
    return 0


if __name__ == "__main__":
    sys.exit(main())
