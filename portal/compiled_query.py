"""A ``values()`` lookup compiled once and run many times with a new value.

Django builds and compiles a queryset's SQL on every evaluation. For a lookup with a few
subqueries (the public verification of a QR code: the act, its holder, its vehicle, its stored
PDF, its amendments and auxiliary drivers) that costs several times the query itself, on the
path that every distinct code takes (the page cache cannot help: each code is asked once).

:class:`CompiledLookup` compiles the queryset once, with a sentinel in place of the looked-up
value and a marker municipality in scope; each run sends the same SQL with the value in the
sentinel's parameter slot and the municipality in scope in the tenant filter's slots, and
applies the converters Django would (dates on SQLite, JSON, booleans). On PostgreSQL
(``portal.dbbackend``) it is a prepared statement of the session, planned once per connection.
The SQL is the ORM's: the tenant filter, row-level security (the backend sets the session's
municipality before the cursor runs) and every annotation stay exactly as the queryset says.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from typing import Any

from django.db import connections
from django.db.models import QuerySet

from portal import tenancy

_SENTINEL = "\x00compiled-lookup-value\x00"  # never a value a caller looks up (no NUL in codes)


def _sentinel(i: int) -> str:
    """The marker of the ``i``-th looked-up value (the first is _SENTINEL itself)."""
    return _SENTINEL if i == 0 else f"{_SENTINEL}{i}\x00"


# The scope a lookup is compiled in: its id marks the tenant filter's parameters, which each run
# fills with the municipality then in scope (an id no municipality has; no query runs in it).
_COMPILE_SCOPE = tenancy.Scope(-2_000_000_011, "compiled-lookup")


_PLACEHOLDER = re.compile(r"%%|%s")


def execute_prepared(connection, cursor, name: str, sql: str, params: list) -> None:
    """``sql`` as the session's prepared statement ``name`` where the backend has them
    (portal.dbbackend: planned once a session), as a plain statement elsewhere (SQLite)."""
    if hasattr(connection, "execute_prepared"):
        connection.execute_prepared(cursor, name, sql, params)
    else:
        cursor.execute(sql, params)


def _constants_written_in(connection, sql: str, params: list, slots: tuple[int, ...],
                          tenant_slots: tuple[int, ...]) -> tuple[str, list, tuple[int, ...], tuple[int, ...]]:
    """The statement with its constant parameters (a kind, a content type, a status) written
    into it, quoted by the driver, and placeholders left only for what changes from run to run:
    the looked-up values and the municipality. A prepared statement takes them once, when it is
    prepared, instead of each run sending, quoting and parsing them again (16 parameters of
    the verification lookup were ~25 µs of its ~125)."""
    kept: list = []
    new_slots, new_tenant_slots = dict.fromkeys(slots, -1), []
    numbers = iter(range(len(params)))

    def put(match: re.Match) -> str:
        if match.group() == "%%":
            return "%%"
        i = next(numbers)
        if i in new_slots or i in tenant_slots:
            if i in new_slots:
                new_slots[i] = len(kept)
            else:
                new_tenant_slots.append(len(kept))
            kept.append(params[i])
            return "%s"
        # a literal percent sign in the quoted constant stays literal for the numbering that follows
        return connection.ops.compose_sql("%s", [params[i]]).replace("%", "%%")

    sql = _PLACEHOLDER.sub(put, sql)
    return sql, kept, tuple(new_slots[i] for i in slots), tuple(new_tenant_slots)


class CompiledLookup:
    """``build(value)`` → a ``values()`` queryset filtering on ``value`` once; ``rows(value)``
    runs its SQL, compiled once per process (the database is the one the router gave the
    queryset then) with the municipality in scope at each run. ``values=n``: ``build`` and
    ``rows`` take n values, each used once."""

    def __init__(self, build: Callable[..., QuerySet], *, values: int = 1):
        self.build = build
        self.values = values
        self._compiled: tuple | None = None

    def _compile(self) -> tuple:
        with tenancy.activate(_COMPILE_SCOPE):
            qs = self.build(*(_sentinel(i) for i in range(self.values)))
            compiler = qs.query.get_compiler(using=qs.db)
            sql, params = compiler.as_sql()
        slots = [[i for i, p in enumerate(params) if p == _sentinel(v)] for v in range(self.values)]
        if any(len(found) != 1 for found in slots):  # a value used twice, or folded into the SQL
            raise ValueError("CompiledLookup: cada valor deve ser um único parâmetro da consulta")
        slots = tuple(found[0] for found in slots)
        tenant_slots = tuple(i for i, p in enumerate(params) if p == _COMPILE_SCOPE.id)
        query = qs.query
        # the names in the order of the row, as Django's ValuesIterable takes them
        names = list(query.selected) if query.selected else [
            *query.extra_select, *query.values_select, *query.annotation_select]
        fields = [s[0] for s in compiler.select[: compiler.col_count]]
        converters = compiler.get_converters(fields)
        if hasattr(connections[qs.db], "execute_prepared"):
            sql, params, slots, tenant_slots = _constants_written_in(connections[qs.db], sql, params, slots, tenant_slots)
        # one prepared statement for every municipality (the same SQL, their id a parameter),
        # named by its text: two lookups with the same SQL share it, two different never do
        name = "cl" + hashlib.sha256(sql.encode()).hexdigest()[:24]
        self._compiled = (qs.db, sql, tuple(params), slots, tenant_slots, names, compiler, converters, name)
        return self._compiled

    def rows(self, *values: Any) -> list[dict]:
        alias, sql, params, slots, tenant_slots, names, compiler, converters, name = self._compiled or self._compile()
        params = list(params)
        for slot, value in zip(slots, values, strict=True):
            params[slot] = value
        if tenant_slots:
            municipality = tenancy.current_id()  # none in scope: TenantMissing, as the queryset would
            for i in tenant_slots:
                params[i] = municipality
        connection = connections[alias]
        with connection.cursor() as cursor:
            execute_prepared(connection, cursor, name, sql, params)
            rows = cursor.fetchall()
        if converters:
            rows = compiler.apply_converters(rows, converters)
        return [dict(zip(names, row, strict=True)) for row in rows]


@functools.cache
def _ids_lookup(model, field: str) -> CompiledLookup:
    return CompiledLookup(lambda value: model.objects.filter(**{field: value}).values("pk"))


def ids_where(model, field: str, value: Any) -> list:
    """The ids of ``model``'s rows whose ``field`` is ``value`` (in the municipality in scope, as
    its manager filters), by one statement compiled once per process and prepared on
    PostgreSQL: whether a document exists costs a round trip, not the ORM's compilation of the
    document with its relations (several times the query, for a code that is not there)."""
    return [row["pk"] for row in _ids_lookup(model, field).rows(value)]


def first_where(model, field: str, value: Any, queryset: Callable[[], QuerySet] | None = None) -> Any:
    """The row of ``model`` whose ``field`` is ``value``, read from ``queryset()`` (default: its
    ``objects`` manager; a caller's select_related), or None. The id is asked by ids_where
    first, so that a value that is no row costs one prepared statement and no queryset is built
    or compiled. For unique fields (a verification code): a plain LIMIT 1, without
    ``.first()``'s ORDER BY."""
    found = ids_where(model, field, value)
    if not found:
        return None
    rows = queryset() if queryset is not None else model.objects.all()
    return next(iter(rows.filter(pk=found[0])[:1]), None)
