"""Concurrent decisions on PostgreSQL: a request is applied once, a TFF issued once."""

import contextvars
import threading

import pytest
from django.db import connection

from licensing.fees.models import Fee
from licensing.fees.services import tff_issue
from licensing.requests.models import AuxiliaryDriver, RequestKind
from licensing.requests.services import request_decide, request_file
from portal.exceptions import InvalidTransition, RuleViolation
from tests.licensing.requests.helpers import aux_data, grant

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql",
                                reason="needs PostgreSQL row locks and concurrent transactions")


@pytest.fixture
def roles_exist(transactional_db):
    """A transactional test flushes the tables: recreate the role groups first."""
    from django.contrib.auth.models import Group

    from portal.roles import Role

    for role in Role.values:
        Group.objects.get_or_create(name=role)


def _race(func, n=2):
    barrier = threading.Barrier(n)
    results = []

    def worker():
        from django.db import connection as conn

        try:
            barrier.wait()
            func()
            results.append("ok")
        except (InvalidTransition, RuleViolation):
            results.append("refused")
        except Exception as exc:  # noqa: BLE001 - an integrity error also counts as refused
            results.append(type(exc).__name__)
        finally:
            conn.close()

    threads = [threading.Thread(target=contextvars.copy_context().run, args=(worker,)) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(results)


@pytest.mark.django_db(transaction=True)
def test_two_clerks_deciding_the_same_request_apply_it_once(roles_exist, load_pack, applicant, clerk):
    load_pack("itagiba")
    auth, _ = grant(applicant)
    req = request_file(actor=applicant, authorization=auth, kind=RequestKind.AUXILIARY_ADD, data=aux_data(cnh_category="B"))
    assert _race(lambda: request_decide(actor=clerk, request=req, approved=True)) == ["ok", "refused"]
    assert AuxiliaryDriver.objects.filter(authorization=auth).count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_yearly_tff_is_issued_once_under_concurrency(roles_exist, load_pack, clerk):
    load_pack("itagiba")
    auth, _ = grant()
    assert _race(lambda: tff_issue(actor=clerk, authorization=auth)) == ["ok", "refused"]
    assert Fee.objects.filter(authorization=auth, kind="tff").count() == 1
