"""Without [collective_transport] in the pack the whole module is hidden: menu, pages, API."""

import pytest
from django.urls import reverse

from tests.licensing.transit.matrix import ROWS
from tests.test_permission_matrix import all_rows

pytestmark = pytest.mark.django_db

TRANSIT_ROWS = {(r.name, r.method, r.api): r for r in ROWS}.values()


@pytest.mark.parametrize("slug", ["itagiba", "arapora"])
def test_every_transit_url_answers_404_without_collective_transport(slug, load_pack, personas, api, web):
    pack = load_pack(slug)
    assert pack.collective_transport is None
    for row in TRANSIT_ROWS:
        url = reverse(row.name, kwargs={"pk": 1} if row.kwargs else None) + row.query
        for persona in ("anonymous", "atendente", "julgador", "admin"):
            user = personas[persona]
            if row.api:
                client = api(user)
                response = getattr(client, row.method)(url, {}, format="json") if row.method == "post" else client.get(url)
            else:
                response = getattr(web(user), row.method)(url)
            assert response.status_code == 404, f"{slug} {row.name} {row.method} {persona}: {response.status_code}"


@pytest.mark.parametrize("slug", ["itagiba", "arapora"])
def test_menu_has_no_transit_entries_without_collective_transport(slug, load_pack, personas, web):
    load_pack(slug)
    for persona in ("anonymous", "atendente", "julgador"):
        body = web(personas[persona]).get(reverse("home")).content.decode()
        assert reverse("transit-lines") not in body and reverse("transit-concessions") not in body


def test_menu_shows_transit_entries_with_collective_transport(alegre, personas, web):
    assert reverse("transit-lines") in web(None).get(reverse("home")).content.decode()
    body = web(personas["atendente"]).get(reverse("home")).content.decode()
    assert reverse("transit-concessions") in body and reverse("transit-complaints") in body
    assert reverse("transit-concessions") not in web(personas["requerente"]).get(reverse("home")).content.decode()


def test_transit_rows_are_in_the_matrix():
    names = {r.name for r in all_rows()}
    assert {"transit-lines", "api-transit-line-fare", "transit-complaint"} <= names
