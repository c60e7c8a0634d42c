"""Renewal prefilled with still-valid documents: "Renovar" copies into the draft the accepted
documents of the previous application that do not expire or whose validity date is after today
(pack ``[[documents]] validity``), with their origin; only what changed or expired is asked again."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from licensing.applications import rules
from licensing.applications.models import (
    Application,
    ApplicationAuxiliary,
    ApplicationDocument,
    DocumentStatus,
)
from licensing.grants.rules import add_years
from portal.audit_actions import AuditAction
from portal.models import AuditEntry
from tests.licensing.applications.helpers import PDF_BYTES

TODAY = date(2026, 6, 1)


@pytest.mark.parametrize("validity,accepted,valid_until,reusable", [
    ("none", True, None, True),  # no expiry (identity document)
    ("none", False, None, False),  # a rejected or unreviewed copy proves nothing
    ("dated", True, TODAY + timedelta(days=1), True),  # valid after today
    ("dated", True, TODAY, False),  # valid only until today: asked again
    ("dated", True, None, False),  # no date noted: asked again
    ("each_request", True, TODAY + timedelta(days=400), False),
    (None, True, None, False),  # the default: sent anew with every request
])
def test_document_reusable_boundaries(validity, accepted, valid_until, reusable):
    assert rules.document_reusable(validity=validity, accepted=accepted, valid_until=valid_until,
                                   today=TODAY) is reusable


def _doc(app, code, *, status=DocumentStatus.ACCEPTED, valid_until=None, auxiliary=None, reviewer=None):
    type_ = f"{code}:{auxiliary.code_suffix}" if auxiliary else code
    return ApplicationDocument.objects.create(
        application=app, type=type_, code=code, auxiliary=auxiliary, mime="application/pdf", size=len(PDF_BYTES),
        file=SimpleUploadedFile(f"{code}.pdf", PDF_BYTES, content_type="application/pdf"), status=status,
        valid_until=valid_until, reviewed_by=reviewer, original_name=f"{code}.pdf")


@pytest.mark.django_db
def test_renovar_copies_the_still_valid_documents_with_their_origin(load_pack, web, applicant, clerk):
    from validate_docbr import CPF

    from licensing.grants.models import Authorization
    from licensing.requests.models import AuxiliaryDriver
    from tests.conftest import make_user
    from tests.factories import VehicleFactory, backdate_issue, issue_authorization

    pack = load_pack("alegre")
    today = pack.today()
    vehicle = VehicleFactory(owner=applicant, manufacture_year=today.year - 1)
    auth, _ = issue_authorization(holder=applicant, vehicle=vehicle)
    Authorization.objects.filter(pk=auth.pk).update(valid_until=today + timedelta(days=30))
    backdate_issue(auth, add_years(today, -10))
    aux = make_user("aux1", "requerente", cpf=CPF().generate(), name="Bia Auxiliar", birth_date=date(1980, 1, 1))
    AuxiliaryDriver.objects.create(authorization=auth, person=aux, cnh_number="02650306461", cnh_category="B",
                                   cnh_first_issued=date(2005, 1, 1), cnh_ear=True, added_on=today)
    source = Application.objects.create(applicant=applicant, kind="new", modality="taxi", status="approved",
                                        protocol="000123/2016", authorization=auth, vehicle=vehicle)
    source_aux = ApplicationAuxiliary.objects.create(application=source, position=1, cpf=aux.cpf, name=aux.name,
                                                     birth_date=aux.birth_date, cnh_number="02650306461",
                                                     cnh_category="B", cnh_first_issued=date(2005, 1, 1), cnh_ear=True)
    kept_id = _doc(source, "identificacao", reviewer=clerk)  # validity "none"
    kept_cnh = _doc(source, "cnh_ear", valid_until=today + timedelta(days=1), reviewer=clerk)  # dated, after today
    _doc(source, "cert_criminal_estadual", valid_until=today, reviewer=clerk)  # dated, expires today: asked again
    _doc(source, "cert_criminal_federal", reviewer=clerk)  # dated without a date: asked again
    _doc(source, "inss", status=DocumentStatus.REJECTED, reviewer=clerk)  # "none" but rejected
    _doc(source, "apolice_seguro_rc", valid_until=today + timedelta(days=90), status=DocumentStatus.PENDING)
    kept_aux = _doc(source, "identificacao", auxiliary=source_aux, reviewer=clerk)

    r = web(applicant).post(f"/minha-autorizacao/{auth.pk}/renovar/")
    assert r.status_code == 302, r.content.decode()[:500]
    renewal = Application.objects.get(applicant=applicant, kind="renewal")
    copies = {d.type: d for d in renewal.documents.all()}
    new_aux = renewal.auxiliaries.get()
    assert set(copies) == {"identificacao", "cnh_ear", f"identificacao:{new_aux.code_suffix}"}
    for copy, origin in ((copies["identificacao"], kept_id), (copies["cnh_ear"], kept_cnh),
                         (copies[f"identificacao:{new_aux.code_suffix}"], kept_aux)):
        assert copy.status == DocumentStatus.ACCEPTED and copy.carried_from_id == origin.pk
        assert copy.file.name != origin.file.name and copy.file.read() == PDF_BYTES  # a file of its own
    assert copies["cnh_ear"].valid_until == today + timedelta(days=1)
    assert copies[f"identificacao:{new_aux.code_suffix}"].auxiliary_id == new_aux.pk
    entry = AuditEntry.objects.get(action=AuditAction.DOCUMENTS_CARRIED_OVER)
    assert entry.object_id == str(renewal.pk) and len(entry.data["documents"]) == 3
    assert entry.data["from_application"] == source.pk
    # the clerk sees where each copy came from
    page = web(clerk).get(f"/requerimentos/{renewal.pk}/").content.decode()
    assert "aproveitado do requerimento 000123/2016" in page
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(clerk)
    listed = {d["type"]: d for d in api.get(f"/api/v1/applications/{renewal.pk}/").json()["documents"]}
    assert listed["cnh_ear"]["carried_from"] == {"document": kept_cnh.pk, "application": source.pk,
                                                 "protocol": "000123/2016"}
    assert listed["cnh_ear"]["valid_until"] == (today + timedelta(days=1)).isoformat()


@pytest.mark.django_db
def test_clerk_notes_the_validity_date_when_accepting(load_pack, api, applicant, clerk):
    from tests.licensing.applications.helpers import create_and_submit, open_call

    pack = load_pack("alegre")
    open_call("taxi")
    app = create_and_submit(api, applicant)
    docs = {d["type"]: d for d in api(clerk).get(f"/api/v1/applications/{app['id']}/").json()["documents"]}
    url = f"/api/v1/applications/{app['id']}/documents/{docs['cnh_ear']['id']}/review/"
    yesterday = (pack.today() - timedelta(days=1)).isoformat()
    r = api(clerk).post(url, {"accepted": True, "valid_until": yesterday}, format="json")
    assert r.status_code == 400 and "valid_until" in r.json()["errors"]
    until = (pack.today() + timedelta(days=365)).isoformat()
    r = api(clerk).post(url, {"accepted": True, "valid_until": until}, format="json")
    assert r.status_code == 200, r.json()
    assert ApplicationDocument.objects.get(pk=docs["cnh_ear"]["id"]).valid_until.isoformat() == until


@pytest.mark.django_db
def test_the_review_page_offers_the_validity_date_for_dated_items_only(load_pack, api, web, applicant, clerk):
    from tests.licensing.applications.helpers import create_and_submit, open_call

    pack = load_pack("alegre")
    open_call("taxi")
    app = create_and_submit(api, applicant)
    docs = {d["type"]: d for d in api(clerk).get(f"/api/v1/applications/{app['id']}/").json()["documents"]}
    page = web(clerk).get(f"/requerimentos/{app['id']}/").content.decode()
    assert f'name="d{docs["cnh_ear"]["id"]}-valid_until"' in page  # "dated" in the pack
    assert f'name="d{docs["identificacao"]["id"]}-valid_until"' not in page  # "none": no date to note
    until = pack.today() + timedelta(days=30)
    r = web(clerk).post(f"/atendimento/requerimentos/{app['id']}/documentos/{docs['cnh_ear']['id']}/analise/",
                        {f"d{docs['cnh_ear']['id']}-accepted": "1",
                         f"d{docs['cnh_ear']['id']}-valid_until": until.strftime("%d/%m/%Y")})
    assert r.status_code == 302
    assert ApplicationDocument.objects.get(pk=docs["cnh_ear"]["id"]).valid_until == until


def _renewal_world(load_pack, applicant, clerk):
    from licensing.grants.models import Authorization
    from tests.factories import VehicleFactory, backdate_issue, issue_authorization

    pack = load_pack("alegre")
    today = pack.today()
    vehicle = VehicleFactory(owner=applicant, manufacture_year=today.year - 1)
    auth, _ = issue_authorization(holder=applicant, vehicle=vehicle)
    Authorization.objects.filter(pk=auth.pk).update(valid_until=today + timedelta(days=30))
    backdate_issue(auth, add_years(today, -10))
    source = Application.objects.create(applicant=applicant, kind="new", modality="taxi", status="approved",
                                        protocol="000124/2016", authorization=auth, vehicle=vehicle)
    crlv = _doc(source, "crlv_propriedade", valid_until=today + timedelta(days=60), reviewer=clerk)
    ident = _doc(source, "identificacao", reviewer=clerk)
    auth.refresh_from_db()
    return today, auth, crlv, ident


@pytest.mark.django_db
def test_the_vehicle_s_documents_leave_the_renewal_when_its_vehicle_changes(load_pack, web, applicant, clerk,
                                                                            django_capture_on_commit_callbacks):
    """A CRLV proves something of the car it was accepted for (pack ``vehicle = true``)."""
    from licensing.applications import services
    from licensing.applications.renewal import VEHICLE_FIELDS
    from tests.factories import VehicleFactory

    today, auth, crlv, ident = _renewal_world(load_pack, applicant, clerk)
    assert web(applicant).post(f"/minha-autorizacao/{auth.pk}/renovar/").status_code == 302
    renewal = Application.objects.get(applicant=applicant, kind="renewal")
    assert {d.type: d.carried_from_id for d in renewal.documents.all()} == {
        "crlv_propriedade": crlv.pk, "identificacao": ident.pk}
    # the same car saved again (its colour corrected): the copy stays
    same = {f: getattr(auth.vehicle, f) for f in VEHICLE_FIELDS}
    services.application_update(actor=applicant, application=renewal, step="vehicle", vehicle={**same, "color": "Prata"})
    assert renewal.documents.filter(type="crlv_propriedade").exists()
    # another car: its CRLV is asked again; the holder's identity document stays
    other = VehicleFactory.build(manufacture_year=today.year - 1)
    copy = renewal.documents.get(type="crlv_propriedade")
    storage, copy_file = copy.file.storage, copy.file.name
    with django_capture_on_commit_callbacks(execute=True):
        services.application_update(actor=applicant, application=renewal, step="vehicle",
                                    vehicle={f: getattr(other, f) for f in VEHICLE_FIELDS})
    assert list(renewal.documents.values_list("type", flat=True)) == ["identificacao"]
    assert not storage.exists(copy_file)  # the copy's file goes with it
    assert ApplicationDocument.objects.filter(pk=crlv.pk).exists() and storage.exists(crlv.file.name)  # the original stays
    entry = AuditEntry.objects.get(action=AuditAction.DOCUMENTS_CARRIED_DROPPED)
    assert entry.object_id == str(renewal.pk) and entry.data["documents"][0]["from_document"] == crlv.pk


@pytest.mark.django_db
def test_a_grant_whose_vehicle_was_substituted_does_not_carry_the_old_crlv(load_pack, web, applicant, clerk):
    from licensing.grants.models import Authorization
    from tests.factories import VehicleFactory

    today, auth, crlv, ident = _renewal_world(load_pack, applicant, clerk)
    newer = VehicleFactory(owner=applicant, manufacture_year=today.year)
    Authorization.objects.filter(pk=auth.pk).update(vehicle=newer)  # as a substitution leaves it
    assert web(applicant).post(f"/minha-autorizacao/{auth.pk}/renovar/").status_code == 302
    renewal = Application.objects.get(applicant=applicant, kind="renewal")
    assert renewal.vehicle_id == newer.pk
    assert list(renewal.documents.values_list("type", flat=True)) == ["identificacao"]
