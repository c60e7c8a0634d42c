"""Every licensing list answers with the same number of queries for 1 and 30 rows."""

from datetime import date, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from licensing.models import Application, Call, Inspection
from tests.factories import UserFactory, VehicleFactory


def _rows(kind, n, start, personas):
    for i in range(start, start + n):
        if kind == "calls":
            Call.objects.create(modality="taxi", start=date(2000 + i, 1, 1), end=date(2000 + i, 1, 31))
            continue
        owner = personas["requerente"] if kind == "mine" else UserFactory()
        app = Application.objects.create(applicant=owner, modality="taxi", status="submitted",
                                         protocol=f"2026/{i + 1:06d}", vehicle=VehicleFactory(owner=owner),
                                         submitted_at=timezone.now())
        if kind in ("agent", "ranking"):
            Inspection.objects.create(application=app, agent=personas["agente"],
                                      scheduled_for=timezone.now() + timedelta(days=1))


CASES = [("mine", "licensing-my-applications", "requerente", False),
         ("agent", "licensing-agent-inspections", "agente", False),
         ("calls", "licensing-calls", "atendente", False),
         ("ranking", "licensing-ranking", "atendente", False),
         ("queue", "api-applications", "atendente", True),
         ("mine", "api-applications", "requerente", True)]


@pytest.mark.django_db
@pytest.mark.parametrize("kind,url_name,who,is_api", CASES, ids=[f"{c[1]}-{c[2]}" for c in CASES])
def test_constant_queries(kind, url_name, who, is_api, alegre, personas, web, api):
    client = api(personas[who]) if is_api else web(personas[who])
    url = reverse(url_name)
    _rows(kind, 1, 0, personas)
    client.get(url)
    with CaptureQueriesContext(connection) as one:
        assert client.get(url).status_code == 200
    _rows(kind, 29, 1, personas)
    with CaptureQueriesContext(connection) as thirty:
        assert client.get(url).status_code == 200
    assert len(one.captured_queries) == len(thirty.captured_queries), [q["sql"] for q in thirty.captured_queries]


def _desk_rows(n, start, personas):
    from licensing.models import ApplicationDocument

    for i in range(start, start + n):
        owner = UserFactory()
        app = Application.objects.create(applicant=owner, modality="taxi", status="in_review",
                                         protocol=f"2026/{i + 1:06d}", vehicle=VehicleFactory(owner=owner),
                                         submitted_at=timezone.now() - timedelta(days=i))
        ApplicationDocument.objects.create(application=app, type="cnh_ear", code="cnh_ear", file=f"x/{i}.pdf",
                                           mime="application/pdf", size=10, uploaded_by=owner)
        Inspection.objects.create(application=app, agent=personas["agente"], scheduled_for=timezone.now())


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["atendente", "requerente"])
def test_the_panel_counts_at_constant_queries(who, alegre, personas, web):
    """The clerk's desk (a count per queue, the oldest) and the applicant's next steps."""
    client = web(personas[who])
    url = reverse("dashboard")
    _desk_rows(1, 0, personas)
    with CaptureQueriesContext(connection) as one:
        assert client.get(url).status_code == 200
    _desk_rows(20, 1, personas)
    with CaptureQueriesContext(connection) as many:
        body = client.get(url).content.decode()
    assert len(many) == len(one), [q["sql"] for q in many.captured_queries][len(one):]
    if who == "atendente":
        assert "Documentos a conferir" in body and ">21<" in body.replace(" ", "").replace("\n", "")
