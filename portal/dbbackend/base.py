"""Django's PostgreSQL backend plus the session setting that row-level security reads.

Every tenant table has a policy (``portal.row_security``) that shows and accepts only the rows
of ``current_setting('app.municipality')``. Before a cursor runs, this backend makes the session
hold the municipality in scope (``portal.tenancy``; empty when none is), so that the
application's role reads nothing of another municipality even through raw SQL or a query that
forgot its filter — the second wall behind the tenant managers.

The setting is sent only when it changes (one ``set_config`` per change of scope, not per
query). PostgreSQL undoes a ``set_config`` made inside a transaction that rolls back, so a
rollback (of the transaction or of a savepoint) forgets what the session is believed to hold,
and the next cursor sends it again. A session setting needs a session: behind a pooler in
transaction mode (PgBouncer ``pool_mode=transaction``) this does not hold — use session mode.
"""

from __future__ import annotations

import re
import time

from django.db.backends.postgresql import base

from portal import tenancy

SETTING = "app.municipality"
_PLACEHOLDER = re.compile(r"%%|%s")
# A persistent connection found working this recently is not probed again (see below).
HEALTHY_FOR_SECONDS = 1.0


class DatabaseWrapper(base.DatabaseWrapper):
    _rls_value: str | None = None  # what the session holds; None: not known

    _healthy_at = float("-inf")

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
        if value != self._rls_value:
            with self.connection.cursor() as raw:
                raw.execute("SELECT set_config(%s, %s, false)", [SETTING, value])
            self._rls_value = value
        return super().create_cursor(name)

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
