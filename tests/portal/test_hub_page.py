"""The address that serves no municipality lists them (``make run``: http://127.0.0.1:8000)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_hub_lists_every_municipality_in_service_with_a_link_to_its_host(client, settings, load_pack):
    for slug in ("alegre", "itagiba", "arapora"):
        load_pack(slug)
    settings.DEFAULT_MUNICIPALITY = ""
    settings.TENANT_BASE_DOMAIN = "localhost"
    page = client.get("/", HTTP_HOST="127.0.0.1:8000", SERVER_PORT="8000")
    body = page.content.decode()
    assert page.status_code == 200
    for link in ("http://alegre.localhost:8000/", "http://itagiba.localhost:8000/", "http://arapora.localhost:8000/"):
        assert f'href="{link}"' in body
    assert "Araporã/MG" in body and "Lei nº 724" in body and "Serviços: Táxi</p>" in body
    assert 'lang="pt-BR"' in body and 'href="#conteudo"' in body and body.count("<h1") == 1
