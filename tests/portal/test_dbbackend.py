"""portal.dbbackend: Django's health check of a kept connection at most once a second."""

import pytest
from django.db import connection


@pytest.fixture
def postgresql(db):
    if connection.vendor != "postgresql":
        pytest.skip("portal.dbbackend is the PostgreSQL backend")
    connection.ensure_connection()
    connection.health_check_enabled = True


def _probes(monkeypatch) -> list:
    calls: list = []
    monkeypatch.setattr(connection, "is_usable", lambda: calls.append(1) or True)
    return calls


def test_a_connection_that_answered_a_moment_ago_is_not_probed(postgresql, monkeypatch):
    calls = _probes(monkeypatch)
    connection._healthy_at = __import__("time").monotonic()
    connection.health_check_done = False  # a new request
    connection.close_if_health_check_failed()
    assert calls == [] and connection.health_check_done


def test_after_a_second_it_is_probed_again(postgresql, monkeypatch):
    from portal.dbbackend.base import HEALTHY_FOR_SECONDS

    calls = _probes(monkeypatch)
    connection._healthy_at -= HEALTHY_FOR_SECONDS + 0.1
    connection.health_check_done = False
    connection.close_if_health_check_failed()
    assert calls == [1]
    connection.health_check_done = False  # the next request, within the second: not probed
    connection.close_if_health_check_failed()
    assert calls == [1]


def test_after_a_failed_query_it_is_probed(postgresql, monkeypatch):
    calls = _probes(monkeypatch)
    connection._healthy_at = __import__("time").monotonic()
    monkeypatch.setattr(connection, "errors_occurred", True)
    connection.health_check_done = False
    connection.close_if_health_check_failed()
    assert calls == [1]
