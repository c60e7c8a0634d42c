"""A ``values()`` lookup compiled once and run many times with a new value.

Django builds and compiles a queryset's SQL on every evaluation. For a lookup with a few
subqueries (the public verification of a QR code: the act, its holder, its vehicle, its stored
PDF, its amendments and auxiliary drivers) that costs several times the query itself, on the
path that every distinct code takes (the page cache cannot help: each code is asked once).

:class:`CompiledLookup` compiles the queryset once per database and municipality in scope, with
a sentinel in place of the looked-up value, and then runs the same SQL with the value in the
sentinel's parameter slot, applying the same converters Django would (dates on SQLite, JSON,
booleans). On PostgreSQL (``portal.dbbackend``) it is a prepared statement of the session,
planned once per connection. The SQL is the ORM's: the tenant filter, row-level security (the backend sets the
session's municipality) and every annotation stay exactly as the queryset says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connections
from django.db.models import QuerySet

from portal import tenancy

_SENTINEL = "\x00compiled-lookup-value\x00"  # never a value a caller looks up (no NUL in codes)


class CompiledLookup:
    """``build(value)`` → a ``values()`` queryset filtering on ``value`` once; ``rows(value)``
    runs its SQL compiled on first use per municipality in scope (the tenant filter's
    parameter, and the database the router gave the queryset, are those of that first use)."""

    def __init__(self, build: Callable[[Any], QuerySet]):
        self.build = build
        self._compiled: dict[int | None, tuple] = {}

    def _compile(self, key: int | None) -> tuple:
        qs = self.build(_SENTINEL)
        compiler = qs.query.get_compiler(using=qs.db)
        sql, params = compiler.as_sql()
        slots = [i for i, p in enumerate(params) if p == _SENTINEL]
        if len(slots) != 1:  # a value used twice, or folded into the SQL: not for this cache
            raise ValueError("CompiledLookup: o valor deve ser um único parâmetro da consulta")
        query = qs.query
        names = [*query.extra_select, *query.values_select, *query.annotation_select]
        fields = [s[0] for s in compiler.select[: compiler.col_count]]
        converters = compiler.get_converters(fields)
        name = f"cl{id(self):x}m{key if key is not None else 0}"  # a prepared statement's name
        compiled = (qs.db, sql, tuple(params), slots[0], names, compiler, converters, name)
        self._compiled[key] = compiled
        return compiled

    def rows(self, value: Any) -> list[dict]:
        key = tenancy.current_id_or_none()
        compiled = self._compiled.get(key) or self._compile(key)
        alias, sql, params, slot, names, compiler, converters, name = compiled
        params = list(params)
        params[slot] = value
        connection = connections[alias]
        with connection.cursor() as cursor:
            if hasattr(connection, "execute_prepared"):  # portal.dbbackend: planned once a session
                connection.execute_prepared(cursor, name, sql, params)
            else:
                cursor.execute(sql, params)
            rows = cursor.fetchall()
        if converters:
            rows = compiler.apply_converters(rows, converters)
        return [dict(zip(names, row, strict=True)) for row in rows]

    def forget(self) -> None:
        """Compile again on next use (tests that change the schema or the wiring)."""
        self._compiled.clear()
