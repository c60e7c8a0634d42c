"""Changes are new acts: every change to what a grant act certifies issues an act of amendment
(the pack's apostila or portaria de alteração) with its own number and code, citing the act it
amends; the act it amends is never reprinted and still verifies as what it certified."""

from __future__ import annotations

import re

import pytest

from licensing.grants.documents import amendment_pdf
from licensing.grants.services import authorization_set_status, authorization_set_suspension_end
from licensing.models import Amendment, AuthorizationStatus
from portal.issued import sha256_hex
from portal.models import AuditEntry, IssuedNumber
from portal.signing import validate_pdf
from tests.licensing.grants.test_issued_documents import _substitute, pdf_text
from tests.licensing.requests.helpers import aux_data, decide, file, grant


@pytest.mark.django_db
def test_substitution_issues_an_amendment_with_its_own_number_and_code(itagiba, applicant, clerk, agent, api):
    auth, (old_alvara,) = grant(applicant, manufacture_year=2020)
    old_plate = auth.vehicle.display_plate
    act = api(applicant).get(f"/api/v1/authorizations/{auth.pk}/act.pdf").content
    _substitute(api, applicant, clerk, agent, auth)
    amendment = Amendment.objects.get(authorization=auth)
    assert amendment.kind == "substitution" and amendment.act_name == "Apostila"
    # its own series of numbers (the act's series is untouched), and its own code
    year = itagiba.today().year
    assert amendment.number == f"001/{year}"
    assert list(IssuedNumber.objects.filter(kind="amendment", year=year).values_list("number", flat=True)) == [1]
    assert list(IssuedNumber.objects.filter(kind="authorization", year=year).values_list("number", flat=True)) == [1]
    assert amendment.verification_code not in (auth.verification_code, old_alvara.verification_code)
    assert "art. 5" in amendment.legal_basis and "art. 15" in amendment.legal_basis  # the act's and the rule's
    old_alvara.refresh_from_db()
    assert amendment.alvara == old_alvara.superseded_by
    pdf = api(applicant).get(f"/api/v1/amendments/{amendment.pk}/pdf")
    assert pdf.status_code == 200
    text = pdf_text(pdf.content).replace("-", "")
    assert f"nº {auth.number}" in text and amendment.verification_code.replace("-", "") in text
    assert old_plate.replace("-", "") in text and "QWE1R23" in text  # what it changed, from and to
    check = validate_pdf(pdf.content)
    assert check.signed and check.intact, check.message
    assert api(applicant).get(f"/api/v1/authorizations/{auth.pk}/act.pdf").content == act  # never reprinted
    assert AuditEntry.objects.filter(action="amendment_issued", object_id=str(amendment.pk)).exists()


@pytest.mark.django_db
def test_verification_of_the_amendment_shows_what_it_changed_and_the_act_still_what_it_certified(
        itagiba, applicant, clerk, agent, api):
    auth, _ = grant(applicant, manufacture_year=2020)
    old_plate, old_make = auth.vehicle.display_plate, auth.vehicle.make
    _substitute(api, applicant, clerk, agent, auth)
    amendment = Amendment.objects.get(authorization=auth)
    issued = amendment_pdf(amendment)  # what the worker does once the decision commits
    body = api().get(f"/api/v1/verify/{amendment.verification_code}/").json()
    assert body["kind"] == "amendment" and body["valid"] is True
    assert body["amends"] == {"document": auth.act_name, "number": auth.number, "code": auth.verification_code}
    assert body["changes"][0]["label"] == "Veículo"
    assert old_plate in body["changes"][0]["before"] and "QWE1R23" in body["changes"][0]["after"]
    assert body["sha256"] == sha256_hex(issued)
    act = api().get(f"/api/v1/verify/{auth.verification_code}/").json()
    assert act["plate"] == old_plate and act["vehicle"]["make"] == old_make  # as it certified
    assert act["amended_by"][0]["number"] == amendment.number
    page = api().get(f"/verificar/{amendment.verification_code}/").content.decode()
    assert "Ato de alteração autêntico" in page and auth.number in page and "Assinado digitalmente por" in page
    assert applicant.cpf not in re.sub(r"\D", "", str(body) + page)


@pytest.mark.django_db
@pytest.mark.parametrize("slug,act_name", [("itagiba", "Apostila"), ("arapora", "Apostila ao Termo de Permissão"),
                                           ("alegre", "Portaria de Alteração")])
def test_auxiliary_included_and_removed_are_amendments_named_by_the_pack(load_pack, slug, act_name, applicant,
                                                                          clerk, api):
    load_pack(slug)
    auth, _ = grant(applicant, manufacture_year=2024)
    r = file(api, applicant, auth, "auxiliary_add", aux_data())
    assert r.status_code == 201, r.json()
    assert decide(api, clerk, r.json()["id"]).status_code == 200
    added = Amendment.objects.get(authorization=auth, kind="auxiliary_add")
    assert added.act_name == act_name and added.changes[0]["after"] == "Bruno Auxiliar"
    if slug != "alegre":  # Alegre's law has no alvará: the portaria is the only document
        assert added.alvara is not None
    from licensing.requests.models import AuxiliaryDriver

    aux_id = AuxiliaryDriver.objects.get(authorization=auth).pk
    r = file(api, applicant, auth, "auxiliary_remove", {"auxiliary": aux_id, "left_on": str(itagiba_today()),
                                                         "reason": "Desligamento"})
    assert r.status_code == 201, r.json()
    assert decide(api, clerk, r.json()["id"]).status_code == 200
    removed = Amendment.objects.get(authorization=auth, kind="auxiliary_remove")
    assert removed.changes[0]["before"] == "Bruno Auxiliar"
    assert removed.number != added.number and removed.verification_code != added.verification_code


def itagiba_today():
    from portal import regulation

    return regulation.current().today()


@pytest.mark.django_db
def test_suspension_and_cassation_are_amendments_and_the_act_keeps_saying_what_it_said(itagiba, applicant, clerk):
    auth, _ = grant(applicant)
    until = itagiba.today().replace(day=1).replace(year=itagiba.today().year + 1)
    authorization_set_status(actor=clerk, authorization=auth, to=AuthorizationStatus.SUSPENDED,
                             suspended_until=until, reason="Suspensão decorrente do auto nº 001/2026",
                             data={"infraction": "001/2026"})
    suspension = Amendment.objects.get(authorization=auth, kind="suspension")
    assert suspension.changes == [{"label": "Situação", "before": "ativa", "after": f"suspensa até {until:%d/%m/%Y}"}]
    assert suspension.source == "auto de infração nº 001/2026"
    authorization_set_suspension_end(actor=clerk, authorization=auth, until=None, reason="Até a regularização")
    authorization_set_status(actor=clerk, authorization=auth, to=AuthorizationStatus.CASSADA, reason="Cassação")
    kinds = list(Amendment.objects.filter(authorization=auth).values_list("kind", flat=True))
    assert kinds == ["suspension", "suspension", "cassation"]
    from licensing.grants.documents import authorization_pdf

    text = pdf_text(authorization_pdf(auth))
    assert "cassada" not in text.lower() and "suspensa" not in text.lower()  # the act as it was issued
    assert "cassada" in pdf_text(amendment_pdf(Amendment.objects.get(kind="cassation"))).lower()


@pytest.mark.django_db
def test_the_grant_page_shows_the_chain_of_acts(itagiba, applicant, clerk, agent, api, client):
    auth, (old_alvara,) = grant(applicant, manufacture_year=2020)
    _substitute(api, applicant, clerk, agent, auth)
    amendment = Amendment.objects.get(authorization=auth)
    old_alvara.refresh_from_db()
    new_alvara = old_alvara.superseded_by
    from licensing.grants.selectors import act_chain

    chain = act_chain(auth)
    assert [(link.kind, link.number) for link in chain] == [  # oldest first
        ("authorization", auth.number), ("alvara", old_alvara.number), ("alvara", new_alvara.number),
        ("amendment", amendment.number)]
    by_number = {(link.kind, link.number): link for link in chain}
    assert by_number[("alvara", old_alvara.number)].status == "substituído"
    assert by_number[("alvara", new_alvara.number)].status == "em vigor"
    assert "QWE1R23" in by_number[("amendment", amendment.number)].what
    client.force_login(applicant)
    page = client.get("/minha-autorizacao/").content.decode()
    assert "Atos da autorização" in page and f"/api/v1/amendments/{amendment.pk}/pdf" in page
    assert f"Apostila nº {amendment.number}" in page and "substituído" in page
