"""The transparency list on the page cache's direct lane: a page of the whole list is the
stack's own page (its layout rendered once, its rows and pagination put in), and only that."""


import pytest
from django.template.loader import render_to_string

from portal import page_cache
from portal.public.http import forget_grants_fingerprint
from tests.factories import UserFactory, issue_authorization
from tests.public.direct_lane import compared_headers, through_the_stack


def test_a_page_of_the_list_is_answered_directly_as_the_stack_answers_it(cached, listed, client, settings):
    first = client.get("/transparencia/?page=2")
    assert "X-Public-Cache" not in first  # the stack, which renders the layout
    for path in ("/transparencia/?page=3", "/transparencia/?page=1", "/transparencia/", "/transparencia/?page=99"):
        direct = client.get(path)
        assert direct["X-Public-Cache"] == "direct", path
        stack = through_the_stack(client, settings, path)
        assert direct.status_code == stack.status_code == 200
        assert direct.content == stack.content, path
        assert compared_headers(direct) == compared_headers(stack)
    body = client.get("/transparencia/?page=3").content.decode()
    assert "Página 3 de 3" in body and "&lt;0&gt; &amp; Cia" in body and "<0>" not in body


def test_the_page_is_the_whole_template(cached, listed, client):
    """Put together from its layout, its rows and its pagination, the page is the template
    rendered whole with the view's context."""
    from django.core.paginator import Paginator

    from portal import regulation
    from portal.public import selectors
    from portal.public.views import _transparency_context, _transparency_rows

    stack = client.get("/transparencia/?page=3")
    direct = client.get("/transparencia/?page=2")
    assert direct["X-Public-Cache"] == "direct"
    pack = regulation.current()
    page_obj = Paginator(selectors.CountedRows(), 50).get_page(2)
    whole = render_to_string("public/transparency.html", {
        **_transparency_context(pack, page_obj.paginator.count), "page_obj": page_obj,
        "rows": _transparency_rows(page_obj, pack)}, request=stack.wsgi_request)
    assert direct.content.decode() == whole


@pytest.mark.parametrize("query", ["page=abc", "page=0", "page=2&x=1", "q=Titular", "modality=taxi", "format=csv"])
def test_anything_but_a_page_number_goes_through_thethrough_the_stack(cached, listed, client, query):
    client.get("/transparencia/?page=2")
    response = client.get(f"/transparencia/?{query}")
    assert response.status_code == 200 and "X-Public-Cache" not in response


def test_a_new_grant_is_listed_at_once(cached, listed, client):
    client.get("/transparencia/?page=2")
    assert client.get("/transparencia/")["X-Public-Cache"] == "direct"
    issue_authorization(holder=UserFactory(name="Recém Outorgada"))
    fresh = client.get("/transparencia/")
    assert "Recém Outorgada" in fresh.content.decode()  # a new layout (its total), by the stack
    assert "<strong>111</strong>" in fresh.content.decode()  # 110 current before, one more
    assert client.get("/transparencia/?page=3")["X-Public-Cache"] == "direct"


def test_a_signed_in_person_never_takes_the_direct_lane(cached, listed, client, clerk):
    client.get("/transparencia/?page=2")
    client.force_login(clerk)
    mine = client.get("/transparencia/?page=3")
    assert "X-Public-Cache" not in mine and mine["Cache-Control"] == "private, no-store"


def test_a_page_built_by_one_process_is_answered_from_the_shared_cache_by_the_others(cached, listed, client):
    """A page of the list costs many times a round trip to build: the shared cache keeps it for
    every process (portal.page_cache.direct_route(shared=True)), under the same key as the
    stack's pages (its data stamp)."""
    client.get("/transparencia/?page=2")
    built = client.get("/transparencia/?page=3")
    assert built["X-Public-Cache"] == "direct"
    page_cache._local.clear()  # another worker: none of this one's copies
    shared = client.get("/transparencia/?page=3")
    assert shared["X-Public-Cache"] == "hit" and shared.content == built.content
    issue_authorization(holder=UserFactory(name="Recém Outorgada"))
    forget_grants_fingerprint()
    page_cache._local.clear()
    assert "X-Public-Cache" not in client.get("/transparencia/")  # a new total: the stack's new layout
    fresh = client.get("/transparencia/?page=3")
    assert fresh["X-Public-Cache"] == "direct" and fresh.content != built.content  # not the old copy


def test_the_rows_badges_are_the_status_badges(cached, listed, client):
    """Each row's badge is the status badge of its status (formatted once per status on a page)."""
    from portal.templatetags.portal_tags import status_badge

    client.get("/transparencia/?page=2")
    body = client.get("/transparencia/?page=1").content.decode()
    assert body.count(str(status_badge("active", "ativa"))) == 50
