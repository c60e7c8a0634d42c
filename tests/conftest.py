"""Shared fixtures: a loaded pack, one user per role plus an outsider applicant, API clients."""

from __future__ import annotations

import os
import shutil
import tempfile
from datetime import date

import pytest
from rest_framework.test import APIClient

from portal import regulation, tenancy
from portal.roles import Role
from tests.factories import FIXTURE_STAFF, give_role, grant_fixture_role

CPF_ALICE = "52998224725"
CPF_BOB = "11144477735"
CPF_CAROL = "39053344705"


@pytest.fixture(autouse=True)
def _isolated(settings, tmp_path, monkeypatch):
    """Fresh pack cache, private media folder and in-memory e-mail for every test; the
    municipality of the last pack a test loads is in scope for the rest of the test."""
    regulation.invalidate()
    _in_scope_after_load(monkeypatch, settings)
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.CELERY_TASK_ALWAYS_EAGER = True
    # The public page cache is on whenever the cache is shared (REDIS_URL, as in CI): tests of a
    # view measure the view (its queries, its throttle), so it is off unless a test turns it on
    # (tests/public/test_page_cache.py).
    settings.PUBLIC_PAGE_CACHE = False
    from portal.celery import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    from django.core.cache import cache

    cache.clear()
    from portal.public.selectors import CountedIds
    from tariffs.selectors import forget_all

    forget_all()  # in-process memos keyed by data stamps that a rolled-back test may repeat
    CountedIds._indexes.clear()
    FIXTURE_STAFF.clear()
    from django.db.models.signals import post_save

    from portal.models import Municipality

    post_save.connect(_fixture_staff_follow, sender=Municipality, dispatch_uid="tests_fixture_staff")
    token = tenancy.set_current(tenancy.current())  # a module's world may have one in scope
    yield
    tenancy.reset(token)
    post_save.disconnect(sender=Municipality, dispatch_uid="tests_fixture_staff")
    FIXTURE_STAFF.clear()
    regulation.invalidate()


def _fixture_staff_follow(sender, instance, created, **kwargs):
    """The staff of the test's fixtures hold their role in every municipality the test loads."""
    if created:
        for user, role in FIXTURE_STAFF:
            grant_fixture_role(user, role, instance)


def _in_scope_after_load(monkeypatch, settings) -> None:
    """A test that loads a pack works as that municipality: its code runs in the pack's scope
    (portal.tenancy) and the test client's host (testserver) resolves to it: by the one-in-service
    fallback while it is the only municipality, by DEFAULT_MUNICIPALITY once there are more."""
    original = regulation.load_pack

    def load_and_activate(slug, *args, **kwargs):
        result = original(slug, *args, **kwargs)
        from portal.models import Municipality

        tenancy.set_current((result.municipality_id, slug))
        if Municipality.objects.count() > 1:
            settings.DEFAULT_MUNICIPALITY = slug
            regulation.invalidate()
        # the test client's host resolved once here, as a running server resolves it once per
        # few seconds: a test counting the queries of its first request counts the page's only
        from portal.tenant_hosts import resolve_host

        resolve_host("testserver")
        return result

    monkeypatch.setattr(regulation, "load_pack", load_and_activate)


@pytest.fixture(scope="session", autouse=True)
def _flush_may_truncate():
    """Transactional tests end with a flush (TRUNCATE of every table); the permanent tables
    refuse TRUNCATE unless the statement's own transaction says so (portal.models
    TRUNCATE_GUARD). Only the test runner's flush says so."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    original = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        statements = original(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return ["SET LOCAL portal.allow_truncate = 'on'", *statements] if statements else statements

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = original


def _load(slug: str, population: int | None = None):
    regulation.load_pack(slug, population=population)
    return regulation.current()


@pytest.fixture
def load_pack(db):
    return _load


@pytest.fixture
def alegre(db):
    return _load("alegre")


@pytest.fixture
def itagiba(db):
    return _load("itagiba")


@pytest.fixture
def arapora(db):
    return _load("arapora")


@pytest.fixture
def two_municipalities(db, settings):
    """Alegre and Itagibá side by side in one installation, answering at ``a.localhost`` and
    ``b.localhost`` (extra hostnames) besides their slug hosts; no DEFAULT_MUNICIPALITY, so
    that any other host is the hub. Alegre is in scope; ``town.a``/``town.b`` are the scopes
    and ``town.client_a``/``town.client_b`` test clients on each host."""
    from django.test import Client

    from portal.models import Municipality, MunicipalityHost

    a = _load("alegre")
    b = _load("itagiba")
    MunicipalityHost.objects.create(municipality=Municipality.objects.get(pk=a.municipality_id), hostname="a.localhost")
    MunicipalityHost.objects.create(municipality=Municipality.objects.get(pk=b.municipality_id), hostname="b.localhost")
    settings.DEFAULT_MUNICIPALITY = ""
    regulation.invalidate()
    tenancy.set_current(a)

    class Towns:
        pass

    town = Towns()
    town.a, town.b = tenancy.Scope(a.municipality_id, a.slug), tenancy.Scope(b.municipality_id, b.slug)
    town.pack_a, town.pack_b = a, b
    town.client_a, town.client_b = Client(HTTP_HOST="a.localhost"), Client(HTTP_HOST="b.localhost")
    return town


@pytest.fixture(params=["alegre", "itagiba", "arapora"])
def any_pack(request, db):
    return _load(request.param)


def make_user(username: str, role: str | None, *, cpf: str | None = None, name: str | None = None, **extra):
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(
        username=username, password="senha-forte-123", email=f"{username}@example.org", cpf=cpf,
        name=name or username.title(), **extra,
    )
    if role:
        give_role(user, role)
    return user


# The people of the permission matrix and of most tests: persona -> (username, role, fields).
PERSONA_USERS = {
    "requerente": (CPF_ALICE, Role.APPLICANT, {"cpf": CPF_ALICE, "name": "Alice Requerente",
                                               "birth_date": date(1985, 3, 10)}),
    "outsider": (CPF_BOB, Role.APPLICANT, {"cpf": CPF_BOB, "name": "Bob Outro", "birth_date": date(1980, 1, 1)}),
    "atendente": ("atendente1", Role.CLERK, {"name": "Ana Atendente"}),
    "agente": ("agente1", Role.AGENT, {"name": "Carlos Agente", "registration_number": "AG-1"}),
    "julgador": ("julgador1", Role.JUDGE, {"name": "Júlia Julgadora"}),
    "admin": ("admin1", Role.ADMIN, {"name": "Admin", "is_staff": True}),
}


def make_persona(persona: str):
    username, role, fields = PERSONA_USERS[persona]
    return make_user(username, role, **fields)


@pytest.fixture
def applicant(db):
    return make_persona("requerente")


@pytest.fixture
def outsider(db):
    """Another applicant, who must never see Alice's records."""
    return make_persona("outsider")


@pytest.fixture
def clerk(db):
    return make_persona("atendente")


@pytest.fixture
def agent(db):
    return make_persona("agente")


@pytest.fixture
def judge(db):
    return make_persona("julgador")


@pytest.fixture
def admin_user(db):
    return make_persona("admin")


@pytest.fixture
def personas(db, applicant, outsider, clerk, agent, judge, admin_user):
    return {
        "anonymous": None,
        "requerente": applicant,
        "outsider": outsider,
        "atendente": clerk,
        "agente": agent,
        "julgador": judge,
        "admin": admin_user,
    }


@pytest.fixture
def api():
    """api(user) -> an APIClient authenticated as ``user`` (None = anonymous)."""

    def _client(user=None):
        client = APIClient()
        if user is not None:
            client.force_authenticate(user=user)
        return client

    return _client


@pytest.fixture
def web(client):
    """web(user) -> a Django test client logged in as ``user`` (None = anonymous)."""
    from django.test import Client

    def _client(user=None):
        c = Client()
        if user is not None:
            c.force_login(user, backend="portal.auth.UsernameOrCpfBackend")
        return c

    return _client


@pytest.fixture(scope="session")
def chromium_path():
    path = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or shutil.which("chromium-browser")
    return path


@pytest.fixture
def private_tmp():
    d = tempfile.mkdtemp()
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(autouse=True)
def held_memos(monkeypatch):
    """The per-process memos with a lifetime (the municipalities' revisions, the public data
    stamp: 2 s each) held for every test, as if no time passed: a test that compares the
    queries of two requests measures the requests, not the clock — on a loaded machine (the
    suite runs on every core) the two seconds ran out between them (10 queries, then 9). A
    change made in this process still forgets them at once; tests of their expiry move the
    check back past ``CHECK_SECONDS`` themselves (tests/portal/test_tenant_caches.py)."""
    from portal import tenant_revisions
    from portal.public import http

    monkeypatch.setattr(tenant_revisions, "CHECK_SECONDS", 3600.0)
    monkeypatch.setattr(http, "GRANTS_MEMO_SECONDS", 3600.0)
