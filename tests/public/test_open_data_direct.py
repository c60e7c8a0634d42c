"""The open-data list (GET /api/v1/authorizations/) on the page cache's direct lane: a page of
the whole list is the view's own answer (its paginator, links and renderer), kept in the shared
cache for every process, and only that; anything else is the stack's."""

import json

import pytest
from django.core.cache import cache

from portal import page_cache
from tests.factories import UserFactory, issue_authorization
from tests.public.direct_lane import compared_headers, through_the_stack

API = "/api/v1/authorizations/"


@pytest.mark.parametrize("accept", [None, "*/*", "application/json"])
def test_a_page_of_the_list_is_answered_directly_as_the_stack_answers_it(cached, listed, client, settings, accept):
    headers = {"HTTP_ACCEPT": accept} if accept is not None else {}
    first = client.get(f"{API}?page=2", **headers)
    assert "X-Public-Cache" not in first  # the stack, whose headers the lane learns
    for path in (f"{API}?page=3", f"{API}?page=1", API, f"{API}?page=2"):
        page_cache._local.clear()
        cache.clear()  # built again: the direct answer, not a copy of the stack's
        direct = client.get(path, **headers)
        assert direct["X-Public-Cache"] == "direct", path
        stack = through_the_stack(client, settings, path, **headers)
        assert direct.status_code == stack.status_code == 200
        assert direct.content == stack.content, path
        assert compared_headers(direct) == compared_headers(stack)
    data = json.loads(client.get(f"{API}?page=2", **headers).content)
    assert data["count"] == 110 and len(data["results"]) == 50
    assert data["next"] == f"http://testserver{API}?page=3" and data["previous"] == f"http://testserver{API}"


def test_a_page_past_the_end_and_anything_else_are_the_stacks(cached, listed, client):
    client.get(f"{API}?page=2")
    past = client.get(f"{API}?page=9")
    assert past.status_code == 404 and "X-Public-Cache" not in past
    for query in ("page=abc", "page=0", "page=2&page_size=10", "q=Titular", "modality=taxi", "page_size=5"):
        response = client.get(f"{API}?{query}")
        assert "X-Public-Cache" not in response, query
    browsable = client.get(f"{API}?page=3", HTTP_ACCEPT="text/html")
    assert "X-Public-Cache" not in browsable and browsable["Content-Type"].startswith("text/html")


def test_a_page_built_by_one_process_is_answered_by_the_others_from_the_shared_cache(cached, listed, client):
    client.get(f"{API}?page=2")
    built = client.get(f"{API}?page=3")
    assert built["X-Public-Cache"] == "direct"
    page_cache._local.clear()  # another worker: none of this one's copies
    shared = client.get(f"{API}?page=3")
    assert shared["X-Public-Cache"] == "hit" and shared.content == built.content


def test_a_new_grant_is_listed_at_once(cached, listed, client):
    client.get(f"{API}?page=2")
    assert json.loads(client.get(API).content)["count"] == 110
    issue_authorization(holder=UserFactory(name="Recém Outorgada"))
    fresh = client.get(API)
    assert fresh["X-Public-Cache"] == "direct"
    data = json.loads(fresh.content)
    assert data["count"] == 111 and "Recém Outorgada" in fresh.content.decode()
