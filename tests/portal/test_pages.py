"""Every GET page of every role renders (200) with the portal layout."""

import pytest
from django.urls import reverse

from tests.matrix import LOGIN, PERSONAS
from tests.test_permission_matrix import all_rows

GET_PAGES = [r for r in all_rows() if r.method == "get" and not r.api]


@pytest.mark.parametrize("row", GET_PAGES, ids=[r.name for r in GET_PAGES])
def test_page_renders_for_each_allowed_role(row, any_matrix_world, web):
    world, personas = any_matrix_world
    url = reverse(row.name, kwargs=row.kwargs(world) if row.kwargs else None) + row.query
    rendered = 0
    for persona in PERSONAS:
        if row.expected(persona) != 200:
            continue
        response = web(personas[persona]).get(url)
        assert response.status_code == 200
        if response.get("Content-Type", "").startswith("text/html"):
            body = response.content.decode()
            assert 'lang="pt-BR"' in body and 'href="#conteudo"' in body and "<main" in body
        rendered += 1
    assert rendered or all(row.expected(p) in (LOGIN, 302, 403, 404, 405) for p in PERSONAS)


@pytest.mark.django_db
def test_home_shows_municipality_and_entry_points(client, alegre):
    body = client.get("/").content.decode()
    assert alegre.name in body
    assert reverse("signup") in body and reverse("login") in body and reverse("legislation") in body


@pytest.mark.django_db
def test_law_page_has_linkable_articles(client, alegre):
    body = client.get(reverse("law", kwargs={"key": alegre.laws[0]["key"]})).content.decode()
    assert 'id="art-1"' in body and 'id="art-27"' in body


def test_favicon_is_an_svg_linked_from_every_page_and_favicon_ico_does_not_404(client, alegre):
    from django.templatetags.static import static

    icon = static("img/favicon.svg")
    assert f'<link rel="icon" href="{icon}" type="image/svg+xml">' in client.get("/").content.decode()
    assert f'href="{icon}"' in client.get("/pagina-que-nao-existe/").content.decode()  # error pages too
    r = client.get("/favicon.ico")
    assert r.status_code == 302 and r["Location"] == icon
    svg = b"".join(client.get(icon).streaming_content)
    assert svg.startswith(b"<svg") and b"<script" not in svg.lower()  # the CSP allows no inline script
