"""The municipality in scope: the tenant of every domain record.

One installation serves many municipalities, each with its own law, numbers, staff and data.
Every domain model carries a ``municipality`` column (``portal.models.TenantModel``) and its
default manager only sees the rows of the municipality in scope. The scope is a context
variable set by the request's host (``portal.tenant_middleware``), by each task
(``portal.celery``), by the periodic jobs (once per municipality in service) and by the
``--municipality`` option of the management commands.

A query on a tenant model with no municipality in scope raises :class:`TenantMissing`: it is
a bug (a record read without knowing whose law applies), loud in tests and in production.
Code that works across municipalities on purpose (migrations, the consortium's aggregate
figures) says so with ``Model.all_tenants``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any

from django.db import models


class TenantMissing(RuntimeError):  # noqa: N818 - the name says what is missing
    """A tenant model was queried or saved with no municipality in scope."""


@dataclass(frozen=True)
class Scope:
    id: int
    slug: str


_current: ContextVar[Scope | None] = ContextVar("portal_municipality", default=None)


def _scope_of(municipality: Any) -> Scope:
    """A Municipality row, a regulation Pack, a Scope or an (id, slug) pair."""
    if isinstance(municipality, Scope):
        return municipality
    if isinstance(municipality, tuple):
        return Scope(int(municipality[0]), str(municipality[1]))
    pk = getattr(municipality, "municipality_id", None)  # a regulation.Pack
    if pk is None:
        pk = municipality.pk
    return Scope(int(pk), str(municipality.slug))


def set_current(municipality: Any) -> Token:
    """Put a municipality in scope; give the token back to :func:`reset`. ``None`` clears it."""
    return _current.set(None if municipality is None else _scope_of(municipality))


def reset(token: Token) -> None:
    _current.reset(token)


@contextmanager
def activate(municipality: Any) -> Iterator[Scope | None]:
    """Run the block with ``municipality`` in scope (``None``: with none), then restore."""
    token = set_current(municipality)
    try:
        yield _current.get()
    finally:
        _current.reset(token)


def current() -> Scope | None:
    return _current.get()


def current_id_or_none() -> int | None:
    scope = _current.get()
    return None if scope is None else scope.id


def current_id() -> int:
    scope = _current.get()
    if scope is None:
        raise TenantMissing(
            "Nenhum município em escopo: a consulta a um registro de município precisa de "
            "tenancy.activate(municipio) (requisição, tarefa ou comando com --municipality)."
        )
    return scope.id


def current_slug() -> str:
    current_id()
    return _current.get().slug  # type: ignore[union-attr]


def default_municipality_id() -> int | None:
    """Default of ``TenantModel.municipality``: the municipality in scope.

    ``None`` without a scope (and not an exception) because Django also calls a field's
    default outside any request, when a migration adds or alters the column; a row saved
    without a scope is refused by ``TenantModel.save`` and, for bulk inserts, by NOT NULL."""
    return current_id_or_none()


def cache_key(key: str, key_prefix: str, version: int) -> str:
    """The cache's KEY_FUNCTION: Django's ``prefix:version:key`` with the municipality in scope
    (``m<id>``; ``-`` for the installation), so that no cached value crosses municipalities."""
    scope = _current.get()
    return f"{key_prefix}:{version}:{'-' if scope is None else f'm{scope.id}'}:{key}"


class CurrentMunicipality(models.Expression):
    """``municipality_id = <the municipality in scope>``, read when the SQL is compiled.

    Reading the scope at compile time (not when the queryset is built) lets querysets built
    when a module is imported (a form's ``ModelChoiceField``, a class attribute) carry the
    filter and take the municipality of the request that runs them; compiled with none in
    scope, the query raises ``TenantMissing`` instead of reading every municipality's rows."""

    output_field = models.IntegerField()

    def as_sql(self, compiler, connection):
        return "%s", [current_id()]


class TenantQuerySet(models.QuerySet):
    """Base of the querysets of tenant models (a model's own queryset derives from it)."""


class TenantManager(models.Manager.from_queryset(TenantQuerySet)):
    """The default manager of a tenant model: rows of the municipality in scope only."""

    def get_queryset(self):
        return super().get_queryset().filter(municipality_id=CurrentMunicipality())


def tenant_manager(queryset_class: type[models.QuerySet] | None = None) -> TenantManager:
    """A scoped manager over a model's own queryset (which must derive from TenantQuerySet)."""
    if queryset_class is None:
        return TenantManager()
    if not issubclass(queryset_class, TenantQuerySet):
        raise TypeError(f"{queryset_class.__name__} deve derivar de TenantQuerySet")
    return TenantManager.from_queryset(queryset_class)()


def all_tenants_manager(queryset_class: type[models.QuerySet] | None = None) -> models.Manager:
    """An explicit cross-municipality manager (migrations, consortium figures, admin tools)."""
    if queryset_class is None:
        return models.Manager()
    return models.Manager.from_queryset(queryset_class)()
