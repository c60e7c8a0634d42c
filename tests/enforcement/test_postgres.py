"""PostgreSQL-only guarantees: concurrent double submits, autos protected from deletion."""

import contextvars
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections
from django.utils import timezone

from enforcement import services
from enforcement.models import Infraction

pg_only = pytest.mark.skipif(connection.vendor != "postgresql", reason="precisa de PostgreSQL (concorrência real)")


@pg_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_submits_with_one_key_create_one_auto(load_pack, agent):
    from tests.factories import VehicleFactory, issue_authorization

    load_pack("alegre")
    auth, _ = issue_authorization(vehicle=VehicleFactory())
    results, errors = [], []

    def submit():
        try:
            inf, created = services.infraction_issue(
                actor=agent, plate=auth.vehicle.plate, infraction_code="19-I", occurred_at=timezone.now(),
                location="x", description="y", idempotency_key="same-key-concurrent")
            results.append((inf.pk, created))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    # each thread runs in a copy of the test's context: the municipality in scope (portal.tenancy)
    threads = [threading.Thread(target=contextvars.copy_context().run, args=(submit,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len({pk for pk, _ in results}) == 1 and sum(created for _, created in results) == 1
    assert Infraction.objects.count() == 1 and Infraction.objects.get().number == f"001/{timezone.now().year}"


@pg_only
@pytest.mark.django_db(transaction=True)
def test_database_refuses_to_delete_an_auto(load_pack, agent):
    from django.db import InternalError

    load_pack("alegre")
    inf, _ = services.infraction_issue(actor=agent, plate="ABC1D23", infraction_code="19-I",
                                       occurred_at=timezone.now() - timedelta(hours=1), location="x", description="y")
    with pytest.raises(InternalError):
        Infraction.objects.filter(pk=inf.pk).delete()
