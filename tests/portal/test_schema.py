import pytest


@pytest.mark.django_db
def test_openapi_schema_lists_the_contract(client, alegre):
    response = client.get("/api/v1/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in [
        "/api/v1/auth/token/", "/api/v1/accounts/", "/api/v1/applications/",
        "/api/v1/applications/{id}/approve/", "/api/v1/applications/{id}/documents/",
        "/api/v1/infractions/", "/api/v1/infractions/{id}/judge/", "/api/v1/fares/quote/",
        "/api/v1/quotas/", "/api/v1/verify/{code}/", "/api/v1/authorizations/",
    ]:
        assert path in paths, path
    operation_ids = [op["operationId"] for item in paths.values() for op in item.values() if isinstance(op, dict)]
    assert len(operation_ids) == len(set(operation_ids))
