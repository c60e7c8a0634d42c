"""Two beats at once (PostgreSQL): the second run of a job waits for the first's row locks and
then finds nothing left to do — every grant is expired, audited and noticed exactly once."""

from __future__ import annotations

import contextvars
import threading
from datetime import date

import pytest
from django.db import connection, connections

from licensing.grants import jobs
from licensing.models import Authorization
from portal.models import AuditEntry, Notification
from tests.factories import issue_authorization
from tests.ops.transactional import ensure_roles, restore_roles  # noqa: F401  (fixture)


@pytest.fixture
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip("concorrência real entre transações só no PostgreSQL (o SQLite serializa escritas)")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("set_based", [True, False], ids=["set-based", "row-by-row"])
def test_two_concurrent_expiry_runs_change_each_grant_once(postgres_only, restore_roles, set_based, monkeypatch):  # noqa: F811
    import time

    from portal import regulation

    def slow_hold(pack, ids):  # keeps each chunk's transaction open a while, so that the runs overlap
        time.sleep(0.4)
        return set()

    monkeypatch.setattr(jobs, "_held_by_renewal", slow_hold)

    ensure_roles()
    regulation.load_pack("alegre")  # grants without alvarás: only the grants' own row locks order the runs
    today = regulation.current().today()
    grants = [issue_authorization(valid_from=date(today.year - 11, 1, 1))[0] for _ in range(30)]
    results: list = []
    errors: list = []
    barrier = threading.Barrier(2)

    def run():
        try:
            barrier.wait(timeout=10)
            results.append(jobs.expire_grants(chunk=7, set_based=set_based))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(run,)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sum(r.authorizations for r in results) == 30
    assert Authorization.objects.filter(status="expired").count() == 30
    for grant in grants:
        entries = AuditEntry.objects.filter(object_type="licensing.authorization", object_id=str(grant.pk),
                                            action="authorization_status")
        assert entries.count() == 1
    assert Notification.objects.filter(dedup_key__startswith="grant-expired:").count() == 30
