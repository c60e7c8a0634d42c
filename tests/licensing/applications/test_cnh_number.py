"""The API takes the CNH registro as the forms do (fleet.forms.cnh_fields, portal.validators):
typed with or without punctuation, kept as its 11 digits, refused (400 naming the field) otherwise."""

import pytest

from licensing.models import Application
from tests.licensing.applications.helpers import open_call, payload


@pytest.mark.django_db
def test_the_api_keeps_the_eleven_digits_and_refuses_another_count(alegre, api, applicant):
    open_call("taxi")
    client = api(applicant)
    for wrong in ("026503064", "0265030646", "026503064612"):  # 9, 10 and 12 digits
        r = client.post("/api/v1/applications/", payload("taxi", driver={"cnh_number": wrong}), format="json")
        assert r.status_code == 400, (wrong, r.json())
        assert "11 dígitos" in str(r.json()["errors"]), r.json()
    r = client.post("/api/v1/applications/", payload("taxi", driver={"cnh_number": "026.503.064-61"}), format="json")
    assert r.status_code == 201, r.json()
    assert Application.objects.get(pk=r.json()["id"]).cnh_number == "02650306461"
