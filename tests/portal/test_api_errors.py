"""Errors of the API in Portuguese, without internals (issue #21): a missing or hidden object is
``{"detail": "Não encontrado."}`` whatever the model; 405, 415 and 429 speak Portuguese."""

from __future__ import annotations

import pytest

from tests.conftest import make_persona

ENGLISH = ("matches the given query", "Not found", "not allowed", "Unsupported media", "throttled", "Expected")


def _portuguese(body: dict) -> str:
    detail = body["detail"]
    assert not any(word in detail for word in ENGLISH), detail
    assert body["errors"] == {"detail": [detail]}
    return detail


@pytest.mark.django_db
@pytest.mark.parametrize("url", [
    "/api/v1/applications/999999/",          # get_object_or_404 over a queryset (names the model)
    "/api/v1/infractions/999999/",           # a selector's Http404
    "/api/v1/fees/999999/",
    "/api/v1/infractions/?page=999",         # a page past the end
])
def test_missing_objects_answer_not_found_without_the_model(alegre, api, url):
    response = api(make_persona("atendente")).get(url)
    assert response.status_code == 404
    assert _portuguese(response.json()) == "Não encontrado."


@pytest.mark.django_db
def test_unknown_api_address_is_json_in_portuguese(alegre, client):
    response = client.get("/api/v1/nada-aqui/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert _portuguese(response.json()) == "Endereço não encontrado na API."


@pytest.mark.django_db
def test_method_and_media_type_refusals_speak_portuguese(alegre, api):
    wrong_method = api().put("/api/v1/quotas/")
    assert wrong_method.status_code == 405
    assert _portuguese(wrong_method.json()) == 'Método "PUT" não é permitido.'
    wrong_media = api().post("/api/v1/accounts/", data="cpf=1", content_type="text/plain")
    assert wrong_media.status_code == 415
    assert _portuguese(wrong_media.json()) == 'Tipo de mídia "text/plain" não é suportado.'


@pytest.mark.django_db
def test_throttled_answer_speaks_portuguese_and_says_when(alegre, client, monkeypatch):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {"verify": "1/min"})
    client.get("/api/v1/verify/AAAA-AAAA-AAA1/")
    response = client.get("/api/v1/verify/AAAA-AAAA-AAA2/")
    assert response.status_code == 429
    detail = _portuguese(response.json())
    assert detail.startswith("Muitas requisições. Tente de novo em ") and detail.endswith("segundos.")
    assert int(response["Retry-After"]) > 0
