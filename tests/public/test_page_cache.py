"""The shared cache of anonymous public answers (portal/page_cache.py): fast, and never wrong
nor personal — fresh within seconds of a change, per host, never for a signed-in person."""

import pytest
from django.http import HttpResponse

from licensing.grants.services import authorization_set_status
from portal import page_cache
from portal.public.http import forget_grants_fingerprint
from tests.factories import UserFactory, issue_authorization


@pytest.fixture
def cached(settings):
    settings.PUBLIC_PAGE_CACHE = True
    settings.ALLOWED_HOSTS = ["testserver", "outra.example"]
    page_cache.clear_local()
    forget_grants_fingerprint()
    yield
    page_cache.clear_local()


@pytest.fixture
def granted(alegre):
    auth, _ = issue_authorization(holder=UserFactory(name="Ana Lima"))
    return auth


def test_second_anonymous_request_is_a_hit_with_the_security_headers(cached, granted, client):
    path = f"/verificar/{granted.verification_code}/"
    first = client.get(path)
    second = client.get(path)
    assert first.status_code == second.status_code == 200
    assert "X-Public-Cache" not in first and second["X-Public-Cache"] == "hit"
    assert second.content == first.content
    for header in ("Permissions-Policy", "Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options"):
        assert second[header] == first[header], header
    assert "public" in second["Cache-Control"] and not second.cookies


def test_a_suspension_shows_at_once(cached, granted, client, clerk):
    path = f"/api/v1/verify/{granted.verification_code}/"
    assert client.get(path).json()["status"] == "active"
    assert client.get(path)["X-Public-Cache"] == "hit"
    authorization_set_status(actor=clerk, authorization=granted, to="suspended", reason="Teste de cache")
    fresh = client.get(path)
    assert fresh.get("X-Public-Cache") != "hit" and fresh.json()["status"] == "suspended"


def test_a_change_in_another_process_shows_within_the_memo(cached, granted, client, clerk, monkeypatch):
    """Another process saved the change: this one sees it once its 2-second memo ends."""
    import portal.public.http

    monkeypatch.setattr(portal.public.http, "GRANTS_MEMO_SECONDS", 3600)  # no clock in the test
    path = f"/api/v1/verify/{granted.verification_code}/"
    client.get(path)
    from django.db.models.signals import post_save

    from portal.models import AuditEntry

    with monkeypatch.context() as m:  # as if saved elsewhere: no signal reaches this process
        m.setattr(post_save, "send", lambda *a, **k: [])
        authorization_set_status(actor=clerk, authorization=granted, to="suspended", reason="Outro processo")
    assert AuditEntry.objects.filter(reason="Outro processo").exists()
    assert client.get(path).json()["status"] == "active"  # within the memo: the cached answer
    forget_grants_fingerprint()  # the memo ended
    assert client.get(path).json()["status"] == "suspended"


def test_the_key_carries_the_host(cached, granted, client):
    path = "/api/v1/quotas/"
    client.get(path)
    assert client.get(path)["X-Public-Cache"] == "hit"
    other = client.get(path, HTTP_HOST="outra.example")
    assert "X-Public-Cache" not in other


def test_signed_in_people_are_never_served_from_the_cache(cached, granted, client, clerk):
    path = f"/verificar/{granted.verification_code}/"
    client.get(path)
    assert client.get(path)["X-Public-Cache"] == "hit"
    client.force_login(clerk)
    mine = client.get(path)
    assert "X-Public-Cache" not in mine and mine["Cache-Control"] == "private, no-store"


def test_api_token_requests_pass_through(cached, granted, client):
    path = "/api/v1/quotas/"
    client.get(path)
    r = client.get(path, HTTP_AUTHORIZATION="Token whatever")
    assert "X-Public-Cache" not in r


def test_the_home_page_is_cached_for_anonymous_visitors(cached, alegre, client):
    client.get("/")
    assert client.get("/")["X-Public-Cache"] == "hit"


def test_accept_is_part_of_the_key(cached, alegre, client):
    json_answer = client.get("/api/v1/quotas/", HTTP_ACCEPT="application/json")
    html_answer = client.get("/api/v1/quotas/", HTTP_ACCEPT="text/html")
    assert json_answer["Content-Type"].startswith("application/json")
    assert "X-Public-Cache" not in html_answer and html_answer["Content-Type"].startswith("text/html")


def test_off_unless_the_cache_is_shared(settings, alegre, client):
    """Local memory per process (no Redis): a change seen by one worker would not reach another's pages."""
    settings.PUBLIC_PAGE_CACHE = None
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    client.get("/api/v1/quotas/")
    assert "X-Public-Cache" not in client.get("/api/v1/quotas/")


@pytest.mark.parametrize(
    "status, headers, cookie, storable",
    [
        (200, {"Cache-Control": "public, max-age=60"}, False, 60),
        (200, {"Cache-Control": "public, max-age=900"}, False, page_cache.MAX_SECONDS),
        (200, {"Cache-Control": "public, max-age=60"}, True, 0),  # sets a cookie (CSRF, session)
        (200, {"Cache-Control": "private, no-cache"}, False, 0),
        (200, {}, False, 0),  # the view did not say it is public
        (200, {"Cache-Control": "public, max-age=60", "Vary": "Authorization"}, False, 0),
        (500, {"Cache-Control": "public, max-age=60"}, False, 0),
    ],
)
def test_what_may_be_stored(status, headers, cookie, storable):
    response = HttpResponse(b"x", status=status)
    for k, v in headers.items():
        response[k] = v
    if cookie:
        response.set_cookie("csrftoken", "abc")
    assert page_cache._storable(response) == storable
