"""The rows of a transparency page (open_data_rows): on PostgreSQL one prepared statement for
every page, the same rows and order as the ORM's query."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

import licensing.portal_providers as providers
from licensing.grants.services import authorization_set_status
from portal.public import selectors
from tests.factories import UserFactory, issue_authorization


@pytest.fixture
def grants(alegre):
    return [issue_authorization(holder=UserFactory(name=f"Titular {i}"))[0] for i in range(5)]


def test_the_rows_are_the_orms_in_the_order_of_the_ids(grants, monkeypatch, clerk):
    authorization_set_status(actor=clerk, authorization=grants[1], to="suspended", reason="Teste")
    ids = [g.pk for g in reversed(grants)] + [999_999]  # an id that is not there is left out
    rows = selectors.open_data_rows(ids)
    monkeypatch.setattr(providers, "_is_postgresql", lambda: False)
    assert rows == selectors.open_data_rows(ids)
    assert [r["holder"] for r in rows] == [f"Titular {i}" for i in (4, 3, 2, 1, 0)]
    assert rows[3]["status"] == "suspended" and selectors.open_data_rows([]) == []


def test_on_postgresql_every_page_is_one_prepared_statement(grants):
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements are PostgreSQL's")
    with CaptureQueriesContext(connection) as queries:
        selectors.open_data_rows([g.pk for g in grants[:2]])
        selectors.open_data_rows([g.pk for g in grants[2:]])
    sent = [q["sql"].split()[0] for q in queries if "set_config" not in q["sql"]]
    assert sent in (["PREPARE", "EXECUTE", "EXECUTE"], ["EXECUTE", "EXECUTE"])  # prepared before in the session
    statements = {q["sql"].split()[1] for q in queries if q["sql"].startswith("EXECUTE")}
    assert len(statements) == 1
