"""Django's PostgreSQL backend plus the session setting that row-level security reads.

Every tenant table has a policy (``portal.row_security``) that shows and accepts only the rows
of ``current_setting('app.municipality')``. Before a cursor runs, this backend makes the session
hold the municipality in scope (``portal.tenancy``; empty when none is), so that the
application's role reads nothing of another municipality even through raw SQL or a query that
forgot its filter — the second wall behind the tenant managers.

The setting is sent only when it changes (one ``set_config`` per change of scope, not per
query), and in the same round trip as the cursor's first statement (``_ScopingCursor``): an
installation that serves many municipalities changes scope on a kept connection at almost
every request of a small one. PostgreSQL undoes a ``set_config`` made inside a transaction that
rolls back (an outer one, a savepoint, or the implicit one of a failed statement sent with it),
so a rollback or a failed statement forgets what the session is believed to hold, and the next
cursor sends it again. A session setting needs a session: behind a pooler in
transaction mode (PgBouncer ``pool_mode=transaction``) this does not hold — use session mode.
"""

from __future__ import annotations

import re
import time

import psycopg2.extensions
from django.db.backends.postgresql import base, operations

from portal import tenancy

SETTING = "app.municipality"
_SET_SCOPE = "SELECT set_config(%s, %s, false)"  # sent alone, with [SETTING, value]
_PLACEHOLDER = re.compile(r"%%|%s")
# A persistent connection found working this recently is not probed again (see below).
HEALTHY_FOR_SECONDS = 1.0


_SCOPE_VALUE = re.compile(r"-?[0-9]*")  # a municipality's id, or empty for none
# what rides in front of a cursor's first statement, with the value (digits) written as a literal
_SCOPE_PREFIX = "SELECT set_config('" + SETTING + "', '{}', false); "
# Statements that may run inside a transaction block: two statements in one query string run as
# one (implicit) transaction, which CREATE DATABASE, VACUUM, CREATE INDEX CONCURRENTLY… refuse.
_JOINABLE = re.compile(r"\s*(?:SELECT|INSERT|UPDATE|DELETE|WITH|EXECUTE|PREPARE)\b", re.IGNORECASE)


class _ScopingCursor(psycopg2.extensions.cursor):
    """psycopg2's cursor that, when its backend found the session's municipality out of date,
    sends ``SELECT set_config(…);`` in front of its first statement: psycopg2 sends the two as
    one query string, one round trip, and the cursor's result is the last statement's. Only a
    query (``SELECT``, ``INSERT``, ``UPDATE``, ``DELETE``, ``WITH``, ``PREPARE``, ``EXECUTE``)
    takes it along; any other statement, and the other ways of running SQL (``executemany``,
    ``callproc``, ``COPY``), send the setting alone first, as before."""

    _scope: tuple[DatabaseWrapper, str] | None = None  # (backend, value) still to be sent

    def execute(self, query, vars=None):
        scope = self._scope
        if scope is None:
            return super().execute(query, vars)
        owner, value = scope
        if not isinstance(query, str) or not _JOINABLE.match(query):
            self._send_scope_alone()
            return super().execute(query, vars)
        self._scope = None
        try:
            # the value is digits (checked when the scope was attached): a literal, so that a
            # query without parameters keeps its percent signs as they are
            result = super().execute(_SCOPE_PREFIX.format(value) + query, vars)
        except BaseException:
            # not sent, or undone with the failed statement's transaction: send it again
            self._scope = scope
            owner._rls_value = None
            raise
        owner._rls_value = value
        return result

    def executemany(self, query, vars_list):
        self._send_scope_alone()
        return super().executemany(query, vars_list)

    def callproc(self, procname, parameters=None):
        self._send_scope_alone()
        return super().callproc(procname, parameters)

    def copy_expert(self, sql, file, size=8192):
        self._send_scope_alone()
        return super().copy_expert(sql, file, size)

    def copy_from(self, *args, **kwargs):
        self._send_scope_alone()
        return super().copy_from(*args, **kwargs)

    def copy_to(self, *args, **kwargs):
        self._send_scope_alone()
        return super().copy_to(*args, **kwargs)

    def _send_scope_alone(self) -> None:
        scope, self._scope = self._scope, None
        if scope is not None:
            owner, value = scope
            owner._rls_value = None  # until PostgreSQL has answered
            super().execute(_SET_SCOPE, [SETTING, value])
            owner._rls_value = value


_SENT_WITH_SCOPE = re.compile(re.escape(_SCOPE_PREFIX).replace(re.escape("{}"), _SCOPE_VALUE.pattern))


class DatabaseOperations(operations.DatabaseOperations):
    def last_executed_query(self, cursor, sql, params):
        """The statement as its caller ran it (``connection.queries``, the debug log), without the
        setting that rode in front of it — which, sent alone, was never among them either."""
        query = super().last_executed_query(cursor, sql, params)
        found = _SENT_WITH_SCOPE.match(query) if query else None
        return query[found.end():] if found else query


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
    _rls_value: str | None = None  # what the session holds; None: not known

    _healthy_at = float("-inf")

    def get_connection_params(self):
        params = super().get_connection_params()
        params["cursor_factory"] = _ScopingCursor
        return params

    def init_connection_state(self):
        self._rls_value = None
        self._prepared: set[str] = set()  # a new session has none
        super().init_connection_state()
        self._healthy_at = time.monotonic()

    def close_if_health_check_failed(self):
        """Django's health check (CONN_HEALTH_CHECKS) sends a ``SELECT 1`` before the first query
        of every request on a kept connection: on a one-query page (verification by code) that
        doubled the round trips to PostgreSQL. It is sent at most once a second per connection:
        a connection that answered less than a second ago is taken as alive, unless a query
        failed since (Django then probes it itself at the end of that request)."""
        if (self.connection is not None and not self.health_check_done and not self.errors_occurred
                and time.monotonic() - self._healthy_at < HEALTHY_FOR_SECONDS):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
        if self.connection is not None:
            self._healthy_at = time.monotonic()

    def execute_prepared(self, cursor, name: str, sql: str, params: list) -> None:
        """Run ``sql`` (Django's, with ``%s`` placeholders) as the session's prepared statement
        ``name``: PREPAREd on its first use in this session, then only EXECUTEd, so that
        PostgreSQL plans it once (planning is most of a one-row lookup's time). A prepared
        statement belongs to the session and outlives a rollback; the set of names is new
        with every new connection. Row-level security is applied when it runs (the policies
        read the session's setting at execution), as for any statement."""
        prepared = self.__dict__.setdefault("_prepared", set())
        if name not in prepared:
            counter = iter(range(1, len(params) + 1))
            # sent without parameters, so a literal percent sign is written once, not escaped
            numbered = _PLACEHOLDER.sub(lambda m: "%" if m.group() == "%%" else f"${next(counter)}", sql)
            cursor.execute(f"PREPARE {name} AS {numbered}")
            prepared.add(name)
        if params:
            cursor.execute(f"EXECUTE {name} ({', '.join(['%s'] * len(params))})", params)
        else:
            cursor.execute(f"EXECUTE {name}")

    def create_cursor(self, name=None):
        wanted = tenancy.current_id_or_none()
        value = "" if wanted is None else str(wanted)
        cursor = super().create_cursor(name)
        if value != self._rls_value:
            if name is None and isinstance(cursor, _ScopingCursor) and _SCOPE_VALUE.fullmatch(value):
                cursor._scope = (self, value)  # sent with the cursor's first statement
            else:  # a server-side cursor's DECLARE takes one statement: the setting goes first
                with self.connection.cursor() as raw:
                    raw.execute(_SET_SCOPE, [SETTING, value])
                self._rls_value = value
        return cursor

    # forgotten after the rollback: the ROLLBACK statement's own cursor may have sent it again
    def _rollback(self):
        try:
            return super()._rollback()
        finally:
            self._rls_value = None

    def _savepoint_rollback(self, sid):
        try:
            return super()._savepoint_rollback(sid)
        finally:
            self._rls_value = None
