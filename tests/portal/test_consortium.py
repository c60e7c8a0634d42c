"""The consortium's administrator (issue 17): aggregate figures of every municipality in
service and the consolidated open data; never a person's data, never a municipality's desk."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group

from portal import tenancy
from portal.models import Municipality
from tests.conftest import make_user
from tests.factories import UserFactory, VehicleFactory, issue_authorization

pytestmark = pytest.mark.django_db


@pytest.fixture
def consortium(db):
    user = make_user("consorcio1", None, name="Gestora do Consórcio")
    user.groups.add(Group.objects.get_or_create(name="consorcio")[0])
    return user


@pytest.fixture
def two(load_pack):
    """Alegre with two taxi grants and one mototáxi, Itagibá with one taxi grant."""
    load_pack("itagiba")
    with tenancy.activate(Municipality.objects.get(slug="itagiba")):
        issue_authorization(holder=UserFactory(name="Holder Itagibá"))
    load_pack("alegre")
    with tenancy.activate(Municipality.objects.get(slug="alegre")):
        for _ in range(2):
            issue_authorization(holder=UserFactory(name="=HYPERLINK(1)"))
        holder = UserFactory(name="Moto Alegre")
        issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder, registration_category="aluguel"),
                            modality="mototaxi")
    return Municipality.objects.get(slug="alegre"), Municipality.objects.get(slug="itagiba")


def test_the_consortium_sees_each_municipality_counted_within_itself(web, two, consortium):
    from portal.consortium import consortium_figures

    alegre, itagiba = two
    figures, rows = consortium_figures()
    by = {r.municipality.slug: r.values for r in rows}
    assert by["alegre"]["grants_in_force"] == {"Táxi": 2, "Mototáxi": 1}
    assert by["itagiba"]["grants_in_force"] == {"Táxi": 1}
    assert by["alegre"]["autos_this_year"] in (None, 0)
    assert [f.key for f in figures][:2] == ["grants_in_force", "applications_pending"]
    page = web(consortium).get("/consorcio/", HTTP_HOST="alegre.localhost")
    body = page.content.decode()
    assert page.status_code == 200
    assert "Alegre/ES" in body and "Itagibá/BA" in body and "Outorgas vigentes: Táxi" in body
    assert "HYPERLINK" not in body and "Moto Alegre" not in body  # no person's name


def test_fees_collected_are_summed_per_municipality_in_its_year(two):
    from licensing.consortium_figures import fees_collected
    from licensing.fees.models import Fee

    alegre, itagiba = two
    with tenancy.activate(alegre):
        holder = UserFactory()
        for i, (paid_on, amount) in enumerate([(date(2026, 3, 1), "10.50"), (date(2025, 12, 31), "99.00")]):
            Fee.objects.create(number=f"90{i}/2026", kind="tff", holder=holder, description="TFF", amount=Decimal(amount),
                               reference_year=paid_on.year, legal_basis="teste", due_date=paid_on, status="paid",
                               paid_on=paid_on)
    totals = fees_collected([(alegre.pk, 2026), (itagiba.pk, 2026)])
    assert totals == {alegre.pk: Decimal("10.50")}


def test_the_consolidated_open_data_names_each_municipality_and_defuses_formulas(web, two, consortium):
    response = web(consortium).get("/consorcio/dados-abertos.csv?sep=;", HTTP_HOST="itagiba.localhost")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode("utf-8")
    assert text.startswith("\ufeffmunicipality;uf;ibge_code;number;")
    lines = text.strip().splitlines()[1:]
    assert sorted(line.split(";")[0] for line in lines) == ["Alegre", "Alegre", "Alegre", "Itagibá"]
    assert all(";=" not in line for line in lines)  # defusedcsv: a formula is data
    assert tenancy.current_id_or_none() is not None  # the test's own scope came back


def test_nobody_else_opens_the_consortium_pages(web, two, personas):
    for persona, user in personas.items():
        for url in ("/consorcio/", "/consorcio/dados-abertos.csv"):
            status = web(user).get(url, HTTP_HOST="alegre.localhost").status_code
            assert status == (302 if user is None else 403), (persona, url, status)


def test_the_consortium_role_holds_no_desk_of_any_municipality(web, two, consortium):
    assert web(consortium).get("/atendimento/requerimentos/", HTTP_HOST="alegre.localhost").status_code == 403
    assert web(consortium).get("/equipe/", HTTP_HOST="itagiba.localhost").status_code == 403
