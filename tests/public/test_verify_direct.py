"""Verification by code on the page cache's direct lane (portal.page_cache, direct answers):
a code new to the cache is answered without the rest of the stack, and the answer is the
stack's own — the same status, body and headers, the same throttle, the same municipality."""

import types

import pytest
from django.template.loader import render_to_string

from licensing.grants.services import authorization_set_status
from portal import page_cache
from tests.factories import UserFactory, issue_authorization
from tests.public.direct_lane import compared_headers, through_the_stack


@pytest.fixture
def grants(alegre):
    return [issue_authorization(holder=UserFactory(name=f"Titular {i}"))[0] for i in range(4)]


@pytest.mark.parametrize("prefix", ["/api/v1/verify/", "/verificar/"])
def test_a_new_code_is_answered_directly_as_the_stack_answers_it(cached, grants, client, settings, prefix):
    first = client.get(f"{prefix}{grants[0].verification_code}/")
    missing = client.get(f"{prefix}AAAA-BBBB-CCCC/")
    # until this process has seen the stack answer such a request, the stack answers
    assert "X-Public-Cache" not in first and "X-Public-Cache" not in missing
    for path in (f"{prefix}{grants[1].verification_code}/", f"{prefix}ZZZZ-YYYY-XXXX/"):
        direct = client.get(path)
        assert direct["X-Public-Cache"] == "direct", path
        stack = through_the_stack(client, settings, path)
        assert "X-Public-Cache" not in stack
        assert direct.status_code == stack.status_code
        assert direct.content == stack.content
        assert compared_headers(direct) == compared_headers(stack)
    assert client.get(f"{prefix}{grants[1].verification_code}/")["X-Public-Cache"] == "hit"


def test_the_page_is_the_whole_template(cached, grants, client):
    """The page put together from its layout and its results is the template rendered whole."""
    from portal import regulation
    from portal.public import selectors

    stack = client.get(f"/verificar/{grants[0].verification_code}/")
    code = grants[2].verification_code
    direct = client.get(f"/verificar/{code}/")
    assert direct["X-Public-Cache"] == "direct"
    pack = regulation.current()
    # rendered whole for a visitor as the stack sees one (its request: anonymous, same route)
    whole = render_to_string("public/verify.html", {
        "q": code, "results": [selectors.verify_by_code(code, pack)], "searched": True, "direct": True,
    }, request=stack.wsgi_request)
    assert direct.content.decode() == whole
    assert "Titular 2" in whole and code in whole


def test_a_code_is_escaped_in_the_page(cached, grants, client):
    client.get(f"/verificar/{grants[0].verification_code}/")
    client.get("/verificar/AAAA-BBBB-CCCC/")
    r = client.get('/verificar/"><img src=x onerror=alert(1)>/')
    body = r.content.decode()
    assert r["X-Public-Cache"] == "direct" and r.status_code == 404
    assert "<img src=x" not in body and body.count("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;") == 2


def test_a_suspension_shows_at_once_on_the_direct_lane(cached, grants, client, clerk):
    client.get(f"/api/v1/verify/{grants[0].verification_code}/")
    path = f"/api/v1/verify/{grants[3].verification_code}/"
    assert client.get(path).json()["status"] == "active"
    authorization_set_status(actor=clerk, authorization=grants[3], to="suspended", reason="Teste")
    fresh = client.get(path)
    assert fresh["X-Public-Cache"] == "direct" and fresh.json()["status"] == "suspended"


@pytest.mark.parametrize("prefix", ["/api/v1/verify/", "/verificar/"])
def test_the_direct_lane_counts_in_the_same_throttle(cached, grants, client, settings, monkeypatch, prefix):
    from rest_framework.throttling import ScopedRateThrottle

    import portal.public.http
    import portal.throttling

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"verify": "3/min"})
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "verify": "3/min"}}
    still = types.SimpleNamespace(time=lambda: 1_800_000_030.0)  # one fixed window for the test
    monkeypatch.setattr(portal.throttling, "time", still)
    monkeypatch.setattr(portal.public.http, "time", still)
    answers = [client.get(f"{prefix}{g.verification_code}/") for g in grants]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert answers[1]["X-Public-Cache"] == "direct"
    # a code already answered to this process is not counted again (the same QR scanned twice)
    assert client.get(f"{prefix}{grants[1].verification_code}/").status_code == 200


def test_a_query_string_or_another_accept_goes_through_thethrough_the_stack(cached, grants, client):
    client.get(f"/api/v1/verify/{grants[0].verification_code}/")
    code = grants[1].verification_code
    assert "X-Public-Cache" not in client.get(f"/api/v1/verify/{code}/?format=json")
    browsable = client.get(f"/api/v1/verify/{grants[2].verification_code}/", HTTP_ACCEPT="text/html")
    assert "X-Public-Cache" not in browsable and browsable["Content-Type"].startswith("text/html")


def test_a_signed_in_person_never_takes_the_direct_lane(cached, grants, client, clerk):
    client.get(f"/verificar/{grants[0].verification_code}/")
    client.force_login(clerk)
    mine = client.get(f"/verificar/{grants[1].verification_code}/")
    assert "X-Public-Cache" not in mine and mine["Cache-Control"] == "private, no-store"


def test_one_municipality_never_answers_for_another(cached, two_municipalities):
    town = two_municipalities
    from portal import tenancy

    with tenancy.activate(town.a):
        code_a = issue_authorization(holder=UserFactory(name="De Alegre"))[0].verification_code
        code_a2 = issue_authorization(holder=UserFactory(name="Outro de Alegre"))[0].verification_code
    with tenancy.activate(town.b):
        code_b = issue_authorization(holder=UserFactory(name="De Itagibá"))[0].verification_code
    for prefix in ("/api/v1/verify/", "/verificar/"):
        town.client_b.get(f"{prefix}{code_b}/")
        town.client_b.get(f"{prefix}AAAA-BBBB-CCCC/")
        foreign = town.client_b.get(f"{prefix}{code_a}/")
        assert foreign["X-Public-Cache"] == "direct" and foreign.status_code == 404
        assert "Alegre" not in foreign.content.decode()
        town.client_a.get(f"{prefix}{code_a}/")
        own = town.client_a.get(f"{prefix}{code_a2}/")
        assert own["X-Public-Cache"] == "direct" and own.status_code == 200
        assert "Outro de Alegre" in own.content.decode()


@pytest.mark.parametrize("prefix", ["/api/v1/verify/", "/verificar/"])
def test_a_nul_byte_is_the_stacks_400(cached, grants, client, prefix):
    client.get(f"{prefix}{grants[0].verification_code}/")
    client.get(f"{prefix}AAAA-BBBB-CCCC/")
    response = client.get(f"{prefix}AB%00CD/")
    assert response.status_code == 400 and "X-Public-Cache" not in response


def test_a_verification_is_not_kept_in_the_shared_cache(cached, grants, client):
    """A lookup by code costs about a round trip and each code is mostly asked once: the
    direct lane keeps its answer in this process only, and another process looks it up again."""
    client.get(f"/api/v1/verify/{grants[0].verification_code}/")
    path = f"/api/v1/verify/{grants[1].verification_code}/"
    assert client.get(path)["X-Public-Cache"] == "direct"
    assert client.get(path)["X-Public-Cache"] == "hit"  # this process's copy
    page_cache._local.clear()  # another worker: none of this one's copies
    assert client.get(path)["X-Public-Cache"] == "direct"  # from the database, not a shared copy
