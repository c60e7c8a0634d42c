"""Row-level security, the second wall of issue 17 (PostgreSQL only; SQLite has no RLS).

The tests act as the application's database role would in production — a role that is not
the owner of the tables — with ``SET LOCAL ROLE`` inside the test's transaction (the role is
created there too, so nothing is left behind). The suite itself connects as the owner, which
the policies do not stop, as they do not stop migrations and the consortium's figures.
"""

from __future__ import annotations

import uuid

import pytest
from django.db import DatabaseError, connection, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from portal import tenancy
from portal.row_security import POLICY, tenant_tables
from tests.factories import issue_authorization


@pytest.fixture
def app_role(db):
    if connection.vendor != "postgresql":
        pytest.skip("row-level security is PostgreSQL's")
    name = f"portal_app_probe_{uuid.uuid4().hex[:10]}"
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {name} NOLOGIN")
        cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {name}")
        cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {name}")
    return name


def _act_as(role: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL ROLE {role}")


def _count(sql: str, params=()) -> int:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def test_every_tenant_table_has_its_policy(app_role):
    tables = dict(tenant_tables())
    assert "licensing_authorization" in tables and "portal_auditentry" in tables and len(tables) > 30
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname FROM pg_class WHERE relrowsecurity AND relname = ANY(%s)", [list(tables)])
        secured = {r[0] for r in cursor.fetchall()}
        cursor.execute("SELECT tablename FROM pg_policies WHERE policyname = %s", [POLICY])
        with_policy = {r[0] for r in cursor.fetchall()}
    assert set(tables) - secured == set()
    assert set(tables) - with_policy == set()


@pytest.mark.django_db
def test_raw_sql_under_the_application_role_returns_no_row_of_a_in_bs_session(app_role, two_municipalities):
    town = two_municipalities
    with tenancy.activate(town.a):
        issue_authorization()
    _act_as(app_role)
    with tenancy.activate(town.a):
        seen_in_a = {t: _count(f'SELECT count(*) FROM "{t}" WHERE municipality_id = %s', [town.a.id])  # noqa: S608
                     for t, _ in tenant_tables()}
    populated = [t for t, n in seen_in_a.items() if n]
    assert {"licensing_authorization", "fleet_vehicle", "portal_auditentry"} <= set(populated), populated
    with tenancy.activate(town.b):
        for table, _ in tenant_tables():
            # a query that forgot its municipality reads B's rows only: none of A, none of the installation
            assert _count(f'SELECT count(*) FROM "{table}" WHERE municipality_id IS DISTINCT FROM %s',  # noqa: S608
                          [town.b.id]) == 0, table
        # nor can B's session change A's rows: they are not there for it
        with connection.cursor() as cursor:
            cursor.execute('UPDATE "licensing_authorization" SET status = status')
            assert cursor.rowcount == 0


@pytest.mark.django_db
def test_the_orm_across_municipalities_is_stopped_by_the_database(app_role, two_municipalities):
    """``all_tenants`` (the explicit way across municipalities) under the application's role
    still sees only the municipality in scope: only the owner's role crosses them."""
    from licensing.grants.models import Authorization

    town = two_municipalities
    with tenancy.activate(town.a):
        auth, _ = issue_authorization()
    _act_as(app_role)
    with tenancy.activate(town.b):
        assert Authorization.all_tenants.count() == 0
    with tenancy.activate(town.a):
        assert list(Authorization.all_tenants.values_list("pk", flat=True)) == [auth.pk]
    with tenancy.activate(None):
        assert Authorization.all_tenants.count() == 0  # no municipality in scope: no municipality's rows


@pytest.mark.django_db
def test_a_row_cannot_be_moved_into_another_municipality(app_role, two_municipalities):
    town = two_municipalities
    with tenancy.activate(town.a):
        auth, _ = issue_authorization()
    _act_as(app_role)
    with tenancy.activate(town.a), pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute('UPDATE "licensing_authorization" SET municipality_id = %s WHERE id = %s',
                           [town.b.id, auth.pk])


@pytest.mark.django_db
def test_the_pages_work_under_the_application_role(app_role, two_municipalities):
    town = two_municipalities
    with tenancy.activate(town.a):
        auth, _ = issue_authorization()
    holder = auth.holder
    _act_as(app_role)
    assert town.client_a.get("/api/v1/authorizations/").json()["count"] == 1
    assert town.client_b.get("/api/v1/authorizations/").json()["count"] == 0
    assert town.client_a.get(f"/api/v1/verify/{auth.verification_code}/").status_code == 200
    assert town.client_b.get(f"/api/v1/verify/{auth.verification_code}/").status_code == 404
    town.client_a.force_login(holder)
    town.client_b.force_login(holder)
    assert town.client_a.get(reverse("dashboard")).status_code == 200
    act = reverse("api-authorization-act-pdf", args=[auth.pk])
    assert town.client_a.get(act).status_code == 200
    assert town.client_b.get(act).status_code == 404


@pytest.mark.django_db
def test_the_installation_s_audit_rows_are_seen_without_a_municipality(app_role, two_municipalities):
    from portal.audit import audit_log
    from portal.models import AuditEntry
    from tests.factories import UserFactory

    town = two_municipalities
    user = UserFactory()
    with tenancy.activate(None):
        audit_log(actor=None, obj=user, action="role_granted")
    with tenancy.activate(town.a):
        issue_authorization()
    _act_as(app_role)
    with tenancy.activate(None):
        rows = list(AuditEntry.all_tenants.values_list("municipality_id", flat=True))
        assert rows and set(rows) == {None}
    with tenancy.activate(town.a):
        assert set(AuditEntry.all_tenants.values_list("municipality_id", flat=True)) == {town.a.id}


@pytest.mark.django_db
def test_the_session_setting_follows_the_scope_after_a_rollback(app_role, two_municipalities):
    """PostgreSQL undoes a set_config made inside a rolled-back savepoint: the backend must
    send the setting again rather than trust what it sent."""
    town = two_municipalities

    def setting() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('app.municipality', true)")
            return cursor.fetchone()[0]

    with tenancy.activate(town.a):
        assert setting() == str(town.a.id)
        savepoint = transaction.savepoint()  # taken while A is in scope
        with tenancy.activate(town.b):
            assert setting() == str(town.b.id)  # sent inside the savepoint
            transaction.savepoint_rollback(savepoint)  # PostgreSQL is back to A's setting
            assert setting() == str(town.b.id)
    with tenancy.activate(None):
        assert setting() == ""


@pytest.mark.django_db
def test_migrate_creates_and_grants_the_application_s_role(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("row-level security is PostgreSQL's")
    from portal.row_security import install

    name = f"portal_app_new_{uuid.uuid4().hex[:10]}"
    monkeypatch.setenv("DATABASE_APP_ROLE", name)
    assert install() > 30
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolcanlogin, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", [name])
        assert cursor.fetchone() == (True, False, False)
        cursor.execute("SELECT has_table_privilege(%s, 'licensing_authorization', 'SELECT, INSERT, UPDATE')", [name])
        assert cursor.fetchone()[0] is True


def _current_setting(conn=connection) -> str:
    with conn.cursor() as cursor:
        cursor.execute("SELECT current_setting('app.municipality', true)")
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_a_change_of_municipality_goes_with_the_cursor_s_first_statement():
    """One round trip, not two: the set_config and the statement are one query string."""
    if connection.vendor != "postgresql":
        pytest.skip("row-level security is PostgreSQL's")
    with tenancy.activate(tenancy.Scope(101, "um")):
        with connection.cursor() as cursor:
            cursor.execute("SELECT %s || '%%', current_setting('app.municipality', true)", ["x"])
            assert cursor.fetchall() == [("x%", "101")]  # the statement's own result, its parameters
            assert bytes(cursor.cursor.query).startswith(b"SELECT set_config('app.municipality', '101', false); SELECT ")
        with connection.cursor() as cursor:
            cursor.execute("SELECT '100%'")  # no parameters: the percent sign stays as written
            assert cursor.fetchone() == ("100%",)
            assert bytes(cursor.cursor.query) == b"SELECT '100%'"  # the session holds it: nothing in front
    with tenancy.activate(tenancy.Scope(303, "tres")), CaptureQueriesContext(connection) as captured:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            assert bytes(cursor.cursor.query).startswith(b"SELECT set_config(")
    assert [q["sql"] for q in captured.captured_queries] == ["SELECT 1"]  # connection.queries: as the caller ran it
    with tenancy.activate(tenancy.Scope(202, "dois")):
        # a server-side cursor (iterator, CSV export): its DECLARE takes one statement, the setting goes first
        with connection.chunked_cursor() as cursor:
            cursor.execute("SELECT current_setting('app.municipality', true)")
            assert cursor.fetchone() == ("202",)
    with tenancy.activate(None):
        assert _current_setting() == ""


@pytest.mark.django_db
def test_a_failed_first_statement_sends_the_setting_again():
    """Outside a transaction the setting and a failed statement are undone together: the
    session still holds the previous municipality, and the next statement must send it again."""
    if connection.vendor != "postgresql":
        pytest.skip("row-level security is PostgreSQL's")
    other = connections.create_connection("default")  # autocommit, outside the test's transaction
    try:
        with tenancy.activate(tenancy.Scope(101, "um")):
            assert _current_setting(other) == "101"
        with tenancy.activate(tenancy.Scope(202, "dois")):
            with pytest.raises(DatabaseError), other.cursor() as cursor:
                cursor.execute("SELECT 1 / 0")
            assert _current_setting(other) == "202"
            with other.cursor() as cursor:
                cursor.execute("SELECT current_setting('app.municipality', true)")
                assert bytes(cursor.cursor.query) == b"SELECT current_setting('app.municipality', true)"
    finally:
        other.close()



def _scans(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from _scans(child)


def _generic_plan(statement: str, *, analyze: bool = False) -> dict:
    """The plan a prepared statement's later runs reuse (the generic one, every parameter
    unknown to the planner) of ``statement`` (an EXECUTE), EXPLAINed (and run, with ``analyze``)."""
    with connection.cursor() as cursor:
        cursor.execute("SET plan_cache_mode = force_generic_plan")
        try:
            cursor.execute(f"EXPLAIN ({'ANALYZE, ' if analyze else ''}FORMAT JSON) {statement}")
            return cursor.fetchone()[0][0]["Plan"]
        finally:
            cursor.execute("RESET plan_cache_mode")


@pytest.mark.django_db
def test_the_verification_lookup_reaches_the_stored_pdf_by_its_index_under_the_application_role(app_role,
                                                                                                 two_municipalities):
    """Under row-level security a condition that calls a function PostgreSQL does not know to be
    leakproof (the cast of the act's id to the text of the stored PDF's object_id) is applied only
    after the policy, never in an index scan ahead of it: the stored PDF of a QR code was found by
    reading every document of the municipality — 2 ms at 8.000 grants, growing with them, and in
    production only (the owner, whom the policies do not stop, had the index)."""
    from licensing.grants.selectors import verification_rows
    from licensing.requests.selectors import has_active_auxiliaries
    from portal.models import IssuedDocument

    town = two_municipalities
    with tenancy.activate(town.a):
        auth, _ = issue_authorization()
        # a municipality with many stored documents, as the planner sees it after ANALYZE
        IssuedDocument.objects.bulk_create([
            IssuedDocument(object_type="licensing.authorization", object_id=str(10**6 + i), kind="authorization",
                           verification_code=f"Z{i:04d}-ZZZZ-ZZZZ", pdf=b"%PDF", sha256=f"{i:064x}", size=4)
            for i in range(2000)])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE portal_issueddocument")
    _act_as(app_role)
    with tenancy.activate(town.a):
        qs = verification_rows(auth.verification_code, has_auxiliaries=has_active_auxiliaries())
        sql, params = qs.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")  # what is left is what an index can reach
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
            plan = cursor.fetchone()[0][0]["Plan"]
    issued = [node for node in _scans(plan) if node.get("Relation Name") == "portal_issueddocument"]
    assert len(issued) == 1, issued  # hash, signed and signer in one subquery
    for node in issued:
        condition = node.get("Index Cond", "")
        # the document's own key, not every row of the municipality
        assert "verification_code" in condition or "object_id" in condition, (node["Node Type"], condition)


@pytest.mark.django_db
def test_the_data_stamp_reads_the_municipality_s_newest_rows_from_an_index_under_the_application_role(
        app_role, two_municipalities):
    """The stamp of the public pages (grants_fingerprint: the newest grant and audit entry) is
    MAX(id) under the policy. Without an index that starts with the municipality, PostgreSQL
    walked the primary key back until it met a row of the municipality in scope — for a small
    one among many, every grant and entry written after its last: 5 ms per page of theirs in
    bench_tenants (1,6 ms for the big one)."""
    from django.contrib.auth import get_user_model

    from licensing.models import Authorization
    from portal.models import AuditEntry

    town = two_municipalities
    with tenancy.activate(town.a):
        auth, _ = issue_authorization()  # A's rows come first; B's, many, after them
    with tenancy.activate(town.b):
        holder = get_user_model().objects.create(username="stamp-holder")
        Authorization.objects.bulk_create([
            Authorization(number=f"{i:04d}/2026", act_name="Autorização", modality="taxi", holder=holder,
                          valid_from=auth.valid_from, valid_until=auth.valid_until, status="expired",
                          verification_code=f"S{i:04d}-SSS-SSS", legal_basis="teste") for i in range(2000)])
        AuditEntry.objects.bulk_create([AuditEntry(object_type="x", object_id=str(i), action="x") for i in range(2000)])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE licensing_authorization")
        cursor.execute("ANALYZE portal_auditentry")
    _act_as(app_role)
    from licensing.portal_providers import grants_fingerprint
    from portal.public.http import _GRANTS_MEMO

    with tenancy.activate(town.a):
        _GRANTS_MEMO.clear()
        with CaptureQueriesContext(connection) as captured:
            stamp = grants_fingerprint()
        # one statement, prepared once per session (PREPARE the first time, then only EXECUTE)
        executed = [q["sql"] for q in captured.captured_queries if not q["sql"].startswith("PREPARE")]
        assert len(executed) == 1 and executed[0].startswith("EXECUTE grants_stamp"), executed
        plan = _generic_plan(executed[0])  # the municipality a parameter
    scans = {node["Relation Name"]: node for node in _scans(plan) if "Relation Name" in node}
    assert set(scans) == {"licensing_authorization", "portal_auditentry"}
    for table, node in scans.items():
        # the municipality's rows through an index that starts with it (for a municipality with
        # many: grant_newest_per_municipality / audit_newest_per_municipality), never the
        # primary key walked back past the other municipalities' rows
        assert "municipality_id" in node.get("Index Cond", ""), (table, node.get("Index Name"), node.get("Filter"))
    # and the stamp is A's own: B's newer rows do not change it
    assert stamp.split(":")[0] == str(auth.pk)


@pytest.mark.django_db
def test_a_transparency_page_reads_no_row_outside_its_span_of_ids(app_role, two_municipalities):
    """A page of the transparency list (open_data_page) is a prepared statement: after five runs
    PostgreSQL keeps one generic plan for every municipality, judged by the average one, which
    may walk the primary key back from the page's first id and filter by municipality. Without
    a lower bound, a page with fewer rows than a full one (the last) walked on to the table's
    first row: for a municipality whose grants began after another's, every older row of the
    other. Every page must be its own rows, read within its span of ids (the next page's first
    id, or its oldest, to its first) — under the generic plan too."""
    from django.contrib.auth import get_user_model

    from licensing.models import Authorization
    from licensing.portal_providers import open_data_page

    town = two_municipalities
    with tenancy.activate(town.a):
        auth, _ = issue_authorization()
    holder = get_user_model().objects.create(username="page-holder")
    # A's grants began first (1.000 of them), then B's, with one of A's in a hundred among them
    owners = [town.a] * 1000 + [town.a if i % 100 == 0 else town.b for i in range(5030)]
    rows = [Authorization(municipality_id=owner.id, number=f"{i:05d}/2026", act_name="Autorização",
                          modality=auth.modality, holder=holder, valid_from=auth.valid_from,
                          valid_until=auth.valid_until, status="active", verification_code=f"P{i:05d}-PPP-PPP",
                          legal_basis="teste") for i, owner in enumerate(owners)]
    Authorization.all_tenants.bulk_create(rows)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE licensing_authorization")
    _act_as(app_role)
    for municipality, depth in ((town.a, 0), (town.a, 1000), (town.b, 0), (town.b, 2000), (town.b, 4950)):
        with tenancy.activate(municipality):
            current = Authorization.objects.filter(status__in=["active", "suspended"]).order_by("-id")
            ids = list(current.values_list("id", flat=True))
            first, after = ids[depth], (ids[depth + 50] if depth + 50 < len(ids) else ids[-1] - 1)  # as CountedRows
            for _ in range(6):  # past the five custom plans of a prepared statement
                with CaptureQueriesContext(connection) as captured:
                    page = open_data_page(first, "", after)
            expected = list(current.filter(id__lte=first).values_list("number", flat=True)[:50])
            assert [row["number"] for row in page] == expected, (municipality.slug, depth)
            executed = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("EXECUTE")]
            assert len(executed) == 1, captured.captured_queries
            plan = _generic_plan(executed[0], analyze=True)
        scans = [node for node in _scans(plan) if node.get("Relation Name") == "licensing_authorization"]
        assert len(scans) == 1, scans
        node = scans[0]
        read = node["Actual Rows"] + node.get("Rows Removed by Filter", 0)
        assert read <= first - after, (municipality.slug, depth, first - after, node)
        if municipality == town.b:  # B's pages are dense: its own rows and the few of A's among them
            assert read <= 60, (depth, node)
