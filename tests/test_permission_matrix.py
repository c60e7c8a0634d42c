"""Every named URL × every persona → expected status. Fails when a URL has no row."""

from __future__ import annotations

import importlib

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.matrix import LOGIN, PERSONAS

APPS = ["portal", "fleet", "licensing", "enforcement", "tariffs", "transit"]
EXEMPT_NAMESPACES = {"admin"}  # the admin site checks the admin role itself (tests/portal)


def _modules():
    mods = []
    for app in APPS:
        try:
            mods.append(importlib.import_module(f"tests.{app}.matrix"))
        except ModuleNotFoundError:
            continue
    return mods


def all_rows():
    return [row for mod in _modules() for row in mod.ROWS]


def _named_patterns(resolver=None, namespace=None):
    resolver = resolver or get_resolver()
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            if p.namespace in EXEMPT_NAMESPACES:
                continue
            yield from _named_patterns(p, p.namespace or namespace)
        elif isinstance(p, URLPattern) and p.name:
            yield f"{namespace}:{p.name}" if namespace else p.name


def test_every_named_url_has_a_row():
    covered = {row.name for row in all_rows()}
    missing = sorted(set(_named_patterns()) - covered)
    assert not missing, f"URLs sem linha na matriz de permissões: {missing}"


CASES = [(row, persona) for row in all_rows() for persona in PERSONAS]


@pytest.mark.parametrize(
    "row,persona", CASES, ids=[f"{r.name}-{r.method}-{p}" for r, p in CASES]
)
def test_permission(row, persona, any_matrix_world, api, web):
    world, personas = any_matrix_world
    user = personas[persona]
    url = reverse(row.name, kwargs=row.kwargs(world) if row.kwargs else None) + row.query
    data = row.data(world) if row.data else None
    if row.api:
        client = api(user)
        response = getattr(client, row.method)(url, data=data, format="json") if data is not None else getattr(client, row.method)(url)
    else:
        client = web(user)
        response = getattr(client, row.method)(url, data=data or {})
    expected = row.expected(persona)
    if expected == LOGIN:
        assert response.status_code == 302 and "/conta/entrar/" in response["Location"], (
            f"{row.name} {persona}: esperado redirecionar ao login, veio {response.status_code}"
        )
    else:
        assert response.status_code == expected, (
            f"{row.name} {row.method} {persona}: esperado {expected}, veio {response.status_code}"
        )


POST_ROWS = [row for row in all_rows() if row.method == "post" and not row.api]


@pytest.mark.parametrize("row", POST_ROWS, ids=[r.name for r in POST_ROWS])
def test_csrf_enforced_on_every_html_post(row, any_matrix_world):
    """Every HTML form endpoint refuses a POST without the CSRF token, for every signed-in role."""
    from django.test import Client

    world, personas = any_matrix_world
    url = reverse(row.name, kwargs=row.kwargs(world) if row.kwargs else None) + row.query
    for persona in PERSONAS:
        client = Client(enforce_csrf_checks=True)
        if personas[persona] is not None:
            client.force_login(personas[persona], backend="portal.auth.UsernameOrCpfBackend")
        data = row.data(world) if row.data else {}
        assert client.post(url, data).status_code == 403, f"{row.name} {persona} sem CSRF"


@pytest.fixture
def any_matrix_world(db, personas, load_pack):
    world = {"pack": load_pack("alegre")}
    for mod in _modules():
        builder = getattr(mod, "build", None)
        if builder:
            builder(world, personas)
    return world, personas
