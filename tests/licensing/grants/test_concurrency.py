"""Concurrent grants on PostgreSQL: gap-free numbers and the quota lock."""

import contextvars
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from licensing.applications.selectors import pending_ranking, required_documents
from licensing.applications.services import application_approve
from licensing.models import Application, ApplicationDocument, Authorization, Inspection
from portal.exceptions import RuleViolation
from tests.factories import UserFactory, VehicleFactory, issue_authorization

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="concorrência real (SELECT … FOR UPDATE) só no PostgreSQL")


@pytest.fixture(autouse=True)
def _roles(transactional_db):
    """A transactional test flushes the tables; the role groups come back for the next test."""
    from django.contrib.auth.models import Group

    from portal.roles import Role

    for role in Role:
        Group.objects.get_or_create(name=role.value)


def ready_application(agent) -> Application:
    """An application with every document accepted and the vistoria approved (ready to grant)."""
    holder = UserFactory()
    app = Application.objects.create(applicant=holder, modality="taxi", status="in_review", protocol=None,
                                     vehicle=VehicleFactory(owner=holder), cnh_category="B",
                                     submitted_at=timezone.now())
    for item in required_documents(app):
        ApplicationDocument.objects.create(application=app, type=item.code, code=item.base_code, file="x/doc.pdf",
                                           mime="application/pdf", size=10, status="accepted")
    Inspection.objects.create(application=app, agent=agent, scheduled_for=timezone.now() - timedelta(hours=1),
                              approved=True, recorded_at=timezone.now())
    return app


def approve_all(apps, clerk):
    barrier = threading.Barrier(len(apps))
    results, errors = [], []

    def work(app):
        try:
            barrier.wait()
            results.append(application_approve(actor=clerk, application=app)[0].number)
        except RuleViolation as exc:
            errors.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(work, a)) for a in apps]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors


@pytest.mark.django_db(transaction=True)
def test_twenty_simultaneous_grants_get_consecutive_numbers(load_pack, clerk, agent):
    pack = load_pack("alegre")
    apps = [ready_application(agent) for _ in range(20)]
    numbers, errors = approve_all(apps, clerk)
    year = pack.today().year
    assert errors == []
    assert sorted(numbers) == [f"{n:03d}/{year}" for n in range(1, 21)]


@pytest.mark.django_db(transaction=True)
def test_one_slot_left_exactly_one_of_five_wins(load_pack, clerk, agent):
    load_pack("alegre", population=2400)  # 3 táxi slots (1 per 800 inhabitants)
    issue_authorization(modality="taxi")
    issue_authorization(modality="taxi")
    apps = [ready_application(agent) for _ in range(5)]
    top = pending_ranking("taxi").entries[0].key.pk
    numbers, errors = approve_all(apps, clerk)
    # Whoever takes the lock first is served first: a request ranked below the free place is
    # refused by the ranking's order while the top one is pending, and every request after the
    # grant finds the quota full. Only the top-ranked request can win.
    assert len(numbers) == 1 and len(errors) == 4
    assert set(errors) <= {"quota.full", "ranking.order"}
    assert Authorization.objects.filter(modality="taxi").count() == 3
    assert list(Application.objects.filter(status="approved").values_list("pk", flat=True)) == [top]
