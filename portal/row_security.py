"""PostgreSQL row-level security on every tenant table (issue 17: the second wall).

After every ``migrate`` on PostgreSQL (post_migrate), each table of a ``TenantModel`` gets RLS
enabled and one policy, ``municipality_isolation``: a row is visible and writable only when its
``municipality_id`` is the one the session holds in ``app.municipality`` (set by
``portal.dbbackend`` from the scope of the request or task). With no municipality in scope the
application sees no row of any municipality; tables whose rows may belong to the installation
(``installation_rows``, the audit of global accounts) show those rows then.

Who the wall stops: the application's own database role (``DATABASE_URL`` in production), which
is not the owner of the tables. The owner — the role that runs migrations and the consortium's
figures across municipalities (``DATABASE_ADMIN_URL``) — and superusers are not subject to the
policies (RLS is enabled, not forced), which is what lets them work across municipalities.
Migrations run as the owner (``DATABASE_URL`` set to the owner's for that command); with
``DATABASE_APP_ROLE`` (and ``DATABASE_APP_PASSWORD``) the migrate creates the application's role
when it is missing, sets its password and grants it the tables.
"""

from __future__ import annotations

import os

from django.db import connections

POLICY = "municipality_isolation"
_SCOPE = "NULLIF(current_setting('app.municipality', true), '')::bigint"


def tenant_tables() -> list[tuple[str, bool]]:
    """(table, may hold installation rows) for every concrete tenant model."""
    from django.apps import apps

    from portal.models import TenantModel

    out = []
    for model in apps.get_models():
        meta = model._meta
        if issubclass(model, TenantModel) and meta.managed and not meta.proxy:
            out.append((meta.db_table, bool(model.installation_rows)))
    return sorted(set(out))


def policy_sql(table: str, installation_rows: bool) -> list[str]:
    if installation_rows:
        condition = f"(municipality_id = {_SCOPE} OR (municipality_id IS NULL AND {_SCOPE} IS NULL))"
    else:
        condition = f"(municipality_id = {_SCOPE})"
    quoted = f'"{table}"'
    return [
        f"ALTER TABLE {quoted} ENABLE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS {POLICY} ON {quoted}",
        f"CREATE POLICY {POLICY} ON {quoted} USING {condition} WITH CHECK {condition}",
    ]


def app_role() -> tuple[str, str]:
    """(role, password) of the application, for the owner's migrate to create and grant."""
    return os.environ.get("DATABASE_APP_ROLE", "").strip(), os.environ.get("DATABASE_APP_PASSWORD", "")


def install(using: str = "default") -> int:
    """Create (again) the policy of every tenant table; create and grant the application's
    role (``DATABASE_APP_ROLE``). Idempotent."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return 0
    existing = set(connection.introspection.table_names())
    tables = [(t, inst) for t, inst in tenant_tables() if t in existing]
    name, password = app_role()
    with connection.cursor() as cursor:
        for table, installation_rows in tables:
            for sql in policy_sql(table, installation_rows):
                cursor.execute(sql)
        if name:
            role = connection.ops.quote_name(name)
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [name])
            if cursor.fetchone() is None:
                # not a superuser, not the owner: the policies apply to it
                cursor.execute(f"CREATE ROLE {role} LOGIN NOSUPERUSER NOBYPASSRLS")
            if password:
                cursor.execute(f"ALTER ROLE {role} PASSWORD %s", [password])
            cursor.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
            cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
    return len(tables)


def after_migrate(sender, using="default", **kwargs) -> None:
    """post_migrate receiver: runs once per migrate (for the portal app's signal)."""
    install(using)
