"""The desk's HTML actions answer a refusal like the API (portal.refusals): 400 for invalid
input, 409 for a conflict with the state of the application (API.md conventions)."""

import pytest
from django.urls import reverse

from licensing.models import Application, ApplicationStatus
from tests.licensing.applications.helpers import create_and_submit, open_call


@pytest.mark.django_db
def test_reject_twice_is_a_conflict_and_an_empty_reason_is_bad_input(alegre, api, web, applicant, clerk):
    open_call("taxi")
    app = Application.objects.get(pk=create_and_submit(api, applicant)["id"])
    desk = web(clerk)
    url = reverse("licensing-reject", kwargs={"pk": app.pk})

    empty = desk.post(url, {"reason": ""})
    assert empty.status_code == 400
    app.refresh_from_db()
    assert app.status == ApplicationStatus.SUBMITTED

    assert desk.post(url, {"reason": "Documentação incompleta"}).status_code == 302
    app.refresh_from_db()
    assert app.status == ApplicationStatus.REFUSED

    again = desk.post(url, {"reason": "De novo"})
    assert again.status_code == 409
    assert "não pode passar a" in again.content.decode()
    app.refresh_from_db()
    assert app.status == ApplicationStatus.REFUSED and app.decision_reason == "Documentação incompleta"
