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


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", ["alvara-alone", "row-by-row"])
def test_the_expiry_locks_the_documents_not_the_users_it_reads(postgres_only, restore_roles, path,  # noqa: F811
                                                               monkeypatch):
    """The expiry locks the rows it changes. A plain FOR UPDATE on a query that reads the
    recipient's e-mail through a join also locked that user's row for the chunk: a login
    (last_login) or a profile saved meanwhile would wait for it, or deadlock with it. While the
    job holds its locks, another session must still be able to lock the user's row at once."""
    import psycopg2
    from psycopg2 import errors as pg_errors

    from licensing.grants import services
    from licensing.models import Alvara
    from portal import regulation

    ensure_roles()
    regulation.load_pack("itagiba")  # an alvará per grant
    today = regulation.current().today()
    if path == "alvara-alone":  # an alvará whose own validity ended, its grant current
        auth, (alvara,) = issue_authorization(valid_from=date(today.year, 1, 1))
        Alvara.objects.filter(pk=alvara.pk).update(valid_until=date.fromordinal(today.toordinal() - 1))
        user_id, name = alvara.person_id, "alvara_set_status"
    else:
        auth, _ = issue_authorization(valid_from=date(today.year - 11, 1, 1))
        user_id, name = auth.holder_id, "authorization_set_status"
    seen: list = []
    original = getattr(services, name)

    def while_locked(*args, **kwargs):  # runs inside the chunk's transaction, after its FOR UPDATE
        other = psycopg2.connect(**connection.get_connection_params())
        try:
            with other.cursor() as cursor:
                cursor.execute("SELECT set_config('app.municipality', %s, false)", [str(auth.municipality_id)])
                cursor.execute(f"SELECT id FROM {type(auth.holder)._meta.db_table} WHERE id = %s FOR UPDATE NOWAIT",
                               [user_id])
                seen.append("free")
        except pg_errors.LockNotAvailable:
            seen.append("locked")
        finally:
            other.rollback()
            other.close()
        return original(*args, **kwargs)

    monkeypatch.setattr(services, name, while_locked)
    result = jobs.expire_grants(set_based=path == "alvara-alone")
    assert result.changed >= 1
    assert seen and set(seen) == {"free"}, seen
