"""Every named URL × every persona → expected status. Fails when a URL has no row."""

from __future__ import annotations

import importlib

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.matrix import LOGIN, PERSONAS

# Each module's ``build`` runs in this order (stands and fees use the requests' grant).
APPS = ["portal", "fleet", "licensing.applications", "licensing.grants", "enforcement", "tariffs", "ops",
        "licensing.requests", "licensing.stands", "licensing.fees", "licensing.transit"]
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


ROWS = all_rows()


def _check(row, persona, world, personas, api, web) -> str | None:
    user = personas[persona]
    url = reverse(row.name, kwargs=row.kwargs(world) if row.kwargs else None) + row.query
    data = row.data(world) if row.data else None
    if row.api:
        client = api(user)
        call = getattr(client, row.method)
        response = call(url, data=data, format="json") if data is not None else call(url)
    else:
        response = getattr(web(user), row.method)(url, data=data or {})
    expected = row.expected(persona)
    if expected == LOGIN:
        if not (response.status_code == 302 and "/conta/entrar/" in response["Location"]):
            return f"{persona}: esperado redirecionar ao login, veio {response.status_code}"
    elif response.status_code != expected:
        return f"{persona}: esperado {expected}, veio {response.status_code}"
    return None


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.name}-{r.method}" for r in ROWS])
def test_permission(row, any_matrix_world, api, web):
    """One row: every persona gets the expected status (all mismatches reported together)."""
    from django.db import transaction

    world, personas = any_matrix_world
    problems = []
    for persona in PERSONAS:
        with transaction.atomic():  # each persona meets the world as built (writes rolled back)
            problem = _check(row, persona, world, personas, api, web)
            transaction.set_rollback(True)
        if problem:
            problems.append(problem)
    assert not problems, f"{row.name} {row.method}: " + "; ".join(problems)


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


def _build_personas():
    from tests.conftest import PERSONA_USERS, make_persona

    return {"anonymous": None, **{persona: make_persona(persona) for persona in PERSONA_USERS}}


@pytest.fixture(scope="module")
def _matrix_world_once(django_db_setup, django_db_blocker, tmp_path_factory):
    """The world of the matrix built once per module, inside a transaction rolled back at
    the end; each test runs in a savepoint inside it (pytest-django's ``db``)."""
    from django.db import transaction
    from django.test.utils import override_settings

    from portal import regulation, tenancy

    media = tmp_path_factory.mktemp("matrix-media")
    with django_db_blocker.unblock(), override_settings(
        MEDIA_ROOT=str(media), EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"
    ):
        atomic = transaction.atomic()
        atomic.__enter__()
        try:
            loaded = regulation.load_pack("alegre")
            with tenancy.activate((loaded.municipality_id, "alegre")):
                personas = _build_personas()
                world = {"pack": regulation.current()}
                for mod in _modules():
                    builder = getattr(mod, "build", None)
                    if builder:
                        builder(world, personas)
            yield world, personas, str(media)
        finally:
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)
            regulation.invalidate()


@pytest.fixture
def any_matrix_world(_matrix_world_once, db, settings):
    from portal import tenancy

    world, personas, media = _matrix_world_once
    tenancy.set_current(world["pack"])  # undone by tests/conftest.py _isolated at the end of the test
    settings.MEDIA_ROOT = media
    for user in personas.values():
        if user is not None and hasattr(user, "_portal_roles"):
            del user._portal_roles
    return world, personas
