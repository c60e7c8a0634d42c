"""Summary tables kept by the database itself: counters and sums of a tenant table, grouped by
a few keys, that can never drift from the rows they count.

A ``Tally`` names a source table (e.g. the grants), a target table (a ``TenantModel`` with a
unique constraint on ``municipality`` + the keys) and, per row of the source, its keys and the
values it adds to the sums. ``install`` creates triggers that apply every INSERT, UPDATE and
DELETE of the source to the target in the same statement, so no code path — a service, the
expiry job's bulk UPDATE, the admin, raw SQL — can change the rows without the summary:

- PostgreSQL: one statement-level trigger per event with transition tables, so a bulk UPDATE of
  40.000 rows costs one grouped upsert (not 40.000), and a second trigger rebuilds a
  municipality's rows when its time zone changes (local days and months move with it).
- SQLite (tests, development): row-level triggers. The local date is computed by the function
  Django registers on each of its SQLite connections (``django_datetime_cast_date``): a write
  to a source table from outside Django (the sqlite3 shell) fails instead of drifting.

A trap on SQLite: Django changes a column there by rebuilding the table (create, copy, drop,
rename). Rebuilding a source table drops its triggers with it, and rebuilding a table a trigger
reads (``portal_municipality``, for the time zone) fails at the rename ("error in trigger …: no
such table"). Both show at once in the test suite, which builds its database from the migrations
(the property tests compare the summary with the live rows): such a migration must uninstall
the triggers before and install them after (``install`` backfills). The tally migrations depend
on the latest portal migration for that reason.

Keys and values are SQL expressions built per database by a ``Dialect`` for a row alias
(``r`` in PostgreSQL's set statements, ``NEW``/``OLD`` in SQLite's row triggers). Used by the
apps' migrations (portal imports no domain app: the apps pass their tables and columns).
"""

# The SQL below is built from the apps' table and column names (constants of their migrations),
# never from input: S608 does not apply to this module.
# ruff: noqa: S608

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

# (dialect, row alias) -> SQL expression
Expr = Callable[["Dialect", str], str]

EPOCH = "1970-01-01"  # sums of days are kept as days since this date (see epoch_day)


class Dialect(ABC):
    """The SQL of local dates for one database (PostgreSQL and SQLite below)."""

    vendor = ""

    @abstractmethod
    def local_date(self, row: str, column: str) -> str:
        """The municipality's local date of the timestamp ``column``."""

    @abstractmethod
    def month(self, row: str, column: str) -> str:
        """First day of the municipality's local month of the timestamp ``column``."""

    @abstractmethod
    def epoch_day(self, row: str, column: str) -> str:
        """The municipality's local date of ``column`` as days since 1970-01-01 (an integer)."""


class Postgres(Dialect):
    """In set statements the row ``r`` is joined to its municipality ``m`` (its time zone)."""

    vendor = "postgresql"

    def local_date(self, row: str, column: str) -> str:
        return f"({row}.{column} AT TIME ZONE m.time_zone)::date"

    def month(self, row: str, column: str) -> str:
        return f"date_trunc('month', {row}.{column} AT TIME ZONE m.time_zone)::date"

    def epoch_day(self, row: str, column: str) -> str:
        return f"({self.local_date(row, column)} - DATE '{EPOCH}')"


class Sqlite(Dialect):
    vendor = "sqlite"

    def local_date(self, row: str, column: str) -> str:
        # Django stores aware datetimes in UTC on SQLite (USE_TZ, no database TIME_ZONE)
        zone = f"(SELECT time_zone FROM portal_municipality WHERE id = {row}.municipality_id)"
        return f"django_datetime_cast_date({row}.{column}, {zone}, 'UTC')"

    def month(self, row: str, column: str) -> str:
        return f"strftime('%Y-%m-01', {self.local_date(row, column)})"

    def epoch_day(self, row: str, column: str) -> str:
        return f"CAST(julianday({self.local_date(row, column)}) - julianday('{EPOCH}') AS INTEGER)"


def column(name: str) -> Expr:
    return lambda d, r: f"{r}.{name}"


def one() -> Expr:
    return lambda d, r: "1"


def month_of(name: str) -> Expr:
    return lambda d, r: d.month(r, name)


def epoch_day_of(name: str) -> Expr:
    return lambda d, r: d.epoch_day(r, name)


def days_between(start: str, end: str) -> Expr:
    """Calendar days from the local date of ``start`` to that of ``end``."""
    return lambda d, r: f"({d.epoch_day(r, end)} - {d.epoch_day(r, start)})"


@dataclass(frozen=True)
class Tally:
    name: str  # prefix of the functions and triggers
    source: str  # table counted
    target: str  # table of the summary
    keys: dict[str, Expr]  # target column -> expression of a source row (besides municipality_id)
    sums: dict[str, Expr]  # target column -> what one source row adds
    where: Expr | None = None  # the source rows counted (None: all)
    watch: tuple[str, ...] = field(default=())  # source columns the keys, sums and where read

    def _cond(self, d: Dialect, r: str) -> str:
        return f"({self.where(d, r)})" if self.where else "TRUE"

    # --- PostgreSQL --------------------------------------------------------------------
    def _pg_rows(self, table: str, sign: str, extra: str = "") -> str:
        d = Postgres()
        cols = ", ".join(f"{e(d, 'r')} AS {c}" for c, e in self.keys.items())
        vals = ", ".join(f"{sign}({e(d, 'r')})::bigint AS {c}" for c, e in self.sums.items())
        return (f"SELECT r.municipality_id AS municipality_id, {cols}, {vals} FROM {table} r "
                f"JOIN portal_municipality m ON m.id = r.municipality_id WHERE {self._cond(d, 'r')}{extra}")

    def _pg_upsert(self, parts: list[str]) -> str:
        keys = ", ".join(["municipality_id", *self.keys])
        sums = ", ".join(f"sum({c})" for c in self.sums)
        nonzero = " OR ".join(f"sum({c}) <> 0" for c in self.sums)
        update = ", ".join(f"{c} = t.{c} + EXCLUDED.{c}" for c in self.sums)
        union = " UNION ALL ".join(parts)
        return (f"INSERT INTO {self.target} AS t ({keys}, {', '.join(self.sums)}) "
                f"SELECT {keys}, {sums} FROM ({union}) d GROUP BY {keys} HAVING {nonzero} "
                f"ON CONFLICT ({keys}) DO UPDATE SET {update}")

    def pg_install(self) -> list[str]:
        apply_ins = self._pg_upsert([self._pg_rows("new_rows", "+")])
        apply_upd = self._pg_upsert([self._pg_rows("new_rows", "+"), self._pg_rows("old_rows", "-")])
        apply_del = self._pg_upsert([self._pg_rows("old_rows", "-")])
        fn = f"{self.name}_apply"
        rebuild = f"{self.name}_rebuild"
        keys = ", ".join(["municipality_id", *self.keys])
        return [
            f"""CREATE OR REPLACE FUNCTION {fn}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN {apply_ins};
  ELSIF TG_OP = 'UPDATE' THEN {apply_upd};
  ELSE {apply_del};
  END IF;
  RETURN NULL;
END $$""",
            # PostgreSQL allows transition tables on one event per trigger: three triggers
            f"CREATE TRIGGER {self.name}_ins AFTER INSERT ON {self.source} REFERENCING NEW TABLE AS new_rows "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
            f"CREATE TRIGGER {self.name}_upd AFTER UPDATE ON {self.source} "
            f"REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
            f"CREATE TRIGGER {self.name}_del AFTER DELETE ON {self.source} REFERENCING OLD TABLE AS old_rows "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {fn}()",
            # A rebuild sees every row of the municipality whoever asks (SECURITY DEFINER: the
            # owner, who is not subject to row-level security); it only recomputes the truth.
            f"""CREATE OR REPLACE FUNCTION {rebuild}(mid bigint) RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = public, pg_catalog AS $$
BEGIN
  DELETE FROM {self.target} WHERE municipality_id = mid;
  INSERT INTO {self.target} ({keys}, {', '.join(self.sums)})
    SELECT {keys}, {', '.join(f'sum({c})' for c in self.sums)}
    FROM ({self._pg_rows(self.source, '+', ' AND r.municipality_id = mid')}) d GROUP BY {keys};
END $$""",
            f"""CREATE OR REPLACE FUNCTION {rebuild}_on_zone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN PERFORM {rebuild}(NEW.id); RETURN NULL; END $$""",
            f"CREATE TRIGGER {self.name}_zone AFTER UPDATE OF time_zone ON portal_municipality FOR EACH ROW "
            f"WHEN (OLD.time_zone IS DISTINCT FROM NEW.time_zone) EXECUTE FUNCTION {rebuild}_on_zone()",
            f"SELECT {rebuild}(id) FROM portal_municipality",  # the backfill
        ]

    def pg_uninstall(self) -> list[str]:
        return [
            *(f"DROP TRIGGER IF EXISTS {self.name}_{e} ON {self.source}" for e in ("ins", "upd", "del")),
            f"DROP TRIGGER IF EXISTS {self.name}_zone ON portal_municipality",
            f"DROP FUNCTION IF EXISTS {self.name}_apply()",
            f"DROP FUNCTION IF EXISTS {self.name}_rebuild_on_zone()",
            f"DROP FUNCTION IF EXISTS {self.name}_rebuild(bigint)",
        ]

    # --- SQLite ------------------------------------------------------------------------
    def _sqlite_apply(self, row: str, sign: str) -> list[str]:
        d = Sqlite()
        cond = self._cond(d, row)
        cols = ["municipality_id", *self.keys]
        exprs = [f"{row}.municipality_id", *(e(d, row) for e in self.keys.values())]
        match = " AND ".join(f"{c} = {x}" for c, x in zip(cols, exprs, strict=True))
        zeros = ", ".join("0" for _ in self.sums)
        update = ", ".join(f"{c} = {c} {sign} ({e(d, row)})" for c, e in self.sums.items())
        # a row taken away (OLD) was counted, so its summary row exists: only an added row
        # may need one (and a flush emptying the tables in any order creates none)
        create = [f"INSERT OR IGNORE INTO {self.target} ({', '.join(cols)}, {', '.join(self.sums)}) "
                  f"SELECT {', '.join(exprs)}, {zeros} WHERE {cond}"] if sign == "+" else []
        return [*create, f"UPDATE {self.target} SET {update} WHERE {match} AND {cond}"]

    def _sqlite_rebuild(self, mid: str) -> list[str]:
        d = Sqlite()
        cols = ["municipality_id", *self.keys]
        exprs = ["r.municipality_id", *(e(d, "r") for e in self.keys.values())]
        sums = ", ".join(f"sum({e(d, 'r')})" for e in self.sums.values())
        return [
            f"DELETE FROM {self.target} WHERE municipality_id = {mid}",
            f"INSERT INTO {self.target} ({', '.join(cols)}, {', '.join(self.sums)}) "
            f"SELECT {', '.join(exprs)}, {sums} FROM {self.source} r "
            f"WHERE r.municipality_id = {mid} AND {self._cond(d, 'r')} GROUP BY {', '.join(exprs)}",
        ]

    def sqlite_install(self) -> list[str]:
        def body(statements: list[str]) -> str:
            return "BEGIN " + " ".join(s + ";" for s in statements) + " END"

        watched = ", ".join(("municipality_id", *self.watch))
        return [
            f"CREATE TRIGGER {self.name}_ins AFTER INSERT ON {self.source} "
            + body(self._sqlite_apply("NEW", "+")),
            f"CREATE TRIGGER {self.name}_upd AFTER UPDATE OF {watched} ON {self.source} "
            + body(self._sqlite_apply("OLD", "-") + self._sqlite_apply("NEW", "+")),
            f"CREATE TRIGGER {self.name}_del AFTER DELETE ON {self.source} "
            + body(self._sqlite_apply("OLD", "-")),
            f"CREATE TRIGGER {self.name}_zone AFTER UPDATE OF time_zone ON portal_municipality "
            f"WHEN OLD.time_zone IS NOT NEW.time_zone " + body(self._sqlite_rebuild("NEW.id")),
            *self._sqlite_backfill(),
        ]

    def _sqlite_backfill(self) -> list[str]:
        d = Sqlite()
        cols = ["municipality_id", *self.keys]
        exprs = ["r.municipality_id", *(e(d, "r") for e in self.keys.values())]
        sums = ", ".join(f"sum({e(d, 'r')})" for e in self.sums.values())
        return [f"DELETE FROM {self.target}",
                f"INSERT INTO {self.target} ({', '.join(cols)}, {', '.join(self.sums)}) "
                f"SELECT {', '.join(exprs)}, {sums} FROM {self.source} r WHERE {self._cond(d, 'r')} "
                f"GROUP BY {', '.join(exprs)}"]

    def sqlite_uninstall(self) -> list[str]:
        return [f"DROP TRIGGER IF EXISTS {self.name}_{e}" for e in ("ins", "upd", "del", "zone")]

    # --- both --------------------------------------------------------------------------
    def operation(self):
        """The migration operation that installs (and, backwards, removes) the triggers and
        fills the summary from the rows already there."""
        from django.db import migrations

        def forward(apps, schema_editor):
            self._run(schema_editor, install=True)

        def backward(apps, schema_editor):
            self._run(schema_editor, install=False)

        return migrations.RunPython(forward, backward)

    def _run(self, schema_editor, *, install: bool) -> None:
        vendor = schema_editor.connection.vendor
        if vendor == "postgresql":
            statements = self.pg_install() if install else self.pg_uninstall()
        elif vendor == "sqlite":
            statements = self.sqlite_install() if install else self.sqlite_uninstall()
        else:
            # the project supports these two databases only (ARCHITECTURE.md): refuse, never skip
            raise RuntimeError(f"tallies: o banco {vendor} não é suportado (só PostgreSQL e SQLite)")
        with schema_editor.connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)
