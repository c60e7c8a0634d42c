"""Fees: Itagibá TFF in UFP, the DAM PDF with the Pix BR Code, payment marked by the clerk."""

from decimal import Decimal

import pytest

from licensing.fees.documents import fee_pix
from licensing.fees.models import Fee, FeeStatus
from licensing.fees.selectors import tff_outstanding, tff_paid
from licensing.fees.services import fee_issue, fee_mark_paid, tff_issue
from portal.models import AuditEntry
from portal.pix import parse_tlv, payload_is_valid
from tests.licensing.requests.helpers import grant

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("modality,units,amount", [("taxi", 19, "95.00"), ("mototaxi", 2, "10.00")])
def test_itagiba_tff_in_fiscal_units(itagiba, clerk, api, modality, units, amount):
    auth, _ = grant(modality=modality)
    r = api(clerk).post(f"/api/v1/authorizations/{auth.pk}/fees/tff/", {}, format="json")
    assert r.status_code == 201, r.json()
    body = r.json()
    assert body["units"] == f"{units}.00" and body["unit_name"] == "UFP" and body["amount"] == amount
    assert body["legal_basis"] == f"PL 015/2025 (Itagibá/BA), art. {6 if modality == 'taxi' else 7}"
    assert body["due_date"] and body["status"] == "issued"
    again = api(clerk).post(f"/api/v1/authorizations/{auth.pk}/fees/tff/", {}, format="json")
    assert again.status_code == 409 and again.json()["rule"]["code"] == "tff_already_issued"


def test_no_tff_where_the_law_has_none(alegre, clerk, api):
    auth, _ = grant()
    r = api(clerk).post(f"/api/v1/authorizations/{auth.pk}/fees/tff/", {}, format="json")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "tff_not_provided"


def test_clerk_marks_paid_with_audit_and_only_once(itagiba, applicant, outsider, clerk, api):
    auth, _ = grant(applicant)
    fee = tff_issue(actor=clerk, authorization=auth)
    assert tff_outstanding(auth) == fee and not tff_paid(auth, fee.reference_year)
    assert api(applicant).post(f"/api/v1/fees/{fee.pk}/pay/", {}, format="json").status_code == 403
    r = api(clerk).post(f"/api/v1/fees/{fee.pk}/pay/", {"reference": "AUT123"}, format="json")
    assert r.status_code == 200 and r.json()["status"] == "paid" and r.json()["paid_on"]
    fee.refresh_from_db()
    assert fee.paid_marked_by == clerk and fee.payment_reference == "AUT123"
    assert AuditEntry.objects.filter(action="fee_paid", object_id=str(fee.pk), from_state="issued", to_state="paid").exists()
    assert tff_paid(auth, fee.reference_year) and tff_outstanding(auth) is None
    assert api(clerk).post(f"/api/v1/fees/{fee.pk}/pay/", {}, format="json").status_code == 409
    assert api(applicant).get("/api/v1/fees/").json()["count"] == 1
    assert api(outsider).get("/api/v1/fees/").json()["count"] == 0
    assert api(outsider).get(f"/api/v1/fees/{fee.pk}/").status_code == 404


def test_payment_date_cannot_be_in_the_future(itagiba, clerk, api):
    auth, _ = grant()
    fee = tff_issue(actor=clerk, authorization=auth)
    future = itagiba.today().replace(year=itagiba.today().year + 1).isoformat()
    r = api(clerk).post(f"/api/v1/fees/{fee.pk}/pay/", {"paid_on": future}, format="json")
    assert r.status_code == 400 and "paid_on" in r.json()["errors"]


def test_fine_in_reais_for_the_enforcement_app(arapora, clerk):
    auth, _ = grant()
    fine = fee_issue(actor=clerk, kind="fine", holder=auth.holder, authorization=auth, description="Multa B-1",
                     legal_basis="Lei 724/2008 (Araporã/MG), art. 22", units=2, source="Auto nº 001/2026")
    assert fine.amount == Decimal("20.00") and fine.unit_name == "UMT"


def test_dam_pix_payload_is_valid_and_carries_amount_and_number(itagiba, applicant, clerk, api):
    auth, _ = grant(applicant)
    fee = tff_issue(actor=clerk, authorization=auth)
    pix = fee_pix(fee)
    assert payload_is_valid(pix["payload"]) and pix["is_example"]
    fields = parse_tlv(pix["payload"])
    assert fields["54"] == "95.00" and parse_tlv(fields["62"])["05"] == "DAM" + fee.number.replace("/", "")
    assert api(applicant).get(f"/api/v1/fees/{fee.pk}/").json()["pix"] == pix["payload"]
    fee.status = FeeStatus.PAID  # a paid DAM shows no Pix to pay again
    assert fee_pix(fee) == {}


def test_dam_pdf_for_the_holder_and_the_clerk_only(itagiba, applicant, outsider, clerk, api, web):
    auth, _ = grant(applicant)
    fee = tff_issue(actor=clerk, authorization=auth)
    r = web(applicant).get(f"/taxas/{fee.pk}/dam.pdf")
    assert r.status_code == 200 and r["Content-Type"] == "application/pdf" and r.content.startswith(b"%PDF")
    assert web(clerk).get(f"/taxas/{fee.pk}/dam.pdf").status_code == 200
    assert web(outsider).get(f"/taxas/{fee.pk}/dam.pdf").status_code == 404
    assert api(applicant).get(f"/api/v1/fees/{fee.pk}/dam.pdf").status_code == 200
    assert api(outsider).get(f"/api/v1/fees/{fee.pk}/dam.pdf").status_code == 404
    assert Fee.objects.count() == 1


def _application(api, user, modality, *, skip=()):
    """A draft with every required document sent except the codes in ``skip``."""
    from tests.licensing.applications.helpers import open_call, payload, pdf_file

    open_call(modality)
    client = api(user)
    r = client.post("/api/v1/applications/", payload(modality), format="json")
    assert r.status_code == 201, r.json()
    app = r.json()
    for item in app["required_documents"]:
        if item["code"] not in skip:
            up = client.post(f"/api/v1/applications/{app['id']}/documents/", {"type": item["code"], "file": pdf_file()},
                             format="multipart")
            assert up.status_code == 201, up.json()
    return app


def _accept_and_inspect(api, clerk, agent, app_id, *, leave_pending=()):
    c = api(clerk)
    for doc in c.get(f"/api/v1/applications/{app_id}/").json()["documents"]:
        if doc["type"] not in leave_pending:
            assert c.post(f"/api/v1/applications/{app_id}/documents/{doc['id']}/review/", {"accepted": True},
                          format="json").status_code == 200
    assert c.post(f"/api/v1/applications/{app_id}/inspection/",
                  {"scheduled_for": "2030-01-10T09:00:00-03:00", "agent": agent.pk}, format="json").status_code == 201
    items = api(agent).get(f"/api/v1/applications/{app_id}/inspection/").json()["checklist_items"]
    assert api(agent).post(f"/api/v1/applications/{app_id}/inspection/result/",
                           {"approved": True, "checklist": {i["code"]: True for i in items}}, format="json"
                           ).status_code == 200


@pytest.mark.parametrize("modality,amount", [("taxi", "95.00"), ("mototaxi", "10.00")])
def test_receipt_accepted_by_the_clerk_settles_the_tff_and_is_never_charged_again(
        itagiba, api, applicant, clerk, agent, modality, amount):
    app = _application(api, applicant, modality)
    assert api(applicant).post(f"/api/v1/applications/{app['id']}/submit/").status_code == 200
    detail = api(clerk).get(f"/api/v1/applications/{app['id']}/").json()
    assert detail["tff"]["settled"] is False and detail["tff"]["fee"] is None
    assert detail["tff"]["amount"] == amount and detail["tff"]["receipt_document"] == "comprovante_tff"
    _accept_and_inspect(api, clerk, agent, app["id"])
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 200, r.json()
    fees = list(Fee.objects.filter(holder=applicant, kind="tff"))
    assert len(fees) == 1 and fees[0].status == FeeStatus.PAID and fees[0].amount == Decimal(amount)
    assert fees[0].authorization_id == r.json()["authorization"]["id"]
    assert "Comprovante conferido" in fees[0].payment_reference
    again = api(clerk).post(f"/api/v1/authorizations/{fees[0].authorization_id}/fees/tff/", {}, format="json")
    assert again.status_code == 409 and again.json()["rule"]["code"] == "tff_already_issued"


def test_grant_refused_while_the_tff_is_neither_paid_nor_proven(itagiba, api, applicant, clerk, agent):
    app = _application(api, applicant, "mototaxi")
    assert api(applicant).post(f"/api/v1/applications/{app['id']}/submit/").status_code == 200
    _accept_and_inspect(api, clerk, agent, app["id"], leave_pending=("comprovante_tff",))
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 409
    message = " ".join(sum(r.json()["errors"].values(), []))
    assert "TFF" in message and "art. 17, III" in message
    assert r.json()["rule"] == {"code": "tff_unpaid", "legal_basis": "PL 015/2025 (Itagibá/BA), art. 17, III e §3"}
    assert not Fee.objects.filter(holder=applicant).exists()


def test_dam_paid_in_the_portal_waives_the_receipt(itagiba, api, web, applicant, clerk, agent):
    app = _application(api, applicant, "taxi", skip=("comprovante_tff",))
    blocked = api(applicant).post(f"/api/v1/applications/{app['id']}/submit/")
    assert blocked.status_code == 400 and "Comprovante de recolhimento da TFF" in str(blocked.json())
    first = api(applicant).post(f"/api/v1/applications/{app['id']}/tff/")
    assert first.status_code == 201, first.json()
    fee = first.json()["fee"]
    assert fee["amount"] == "95.00" and fee["status"] == "issued" and first.json()["settled"] is False
    same = api(applicant).post(f"/api/v1/applications/{app['id']}/tff/")
    assert same.status_code == 200 and same.json()["fee"]["id"] == fee["id"]  # a double click issues nothing new
    assert api(applicant).get(fee["dam_pdf"]).content.startswith(b"%PDF")
    assert api(clerk).post(f"/api/v1/fees/{fee['id']}/pay/", {"reference": "AUT-1"}, format="json").status_code == 200
    r = api(applicant).post(f"/api/v1/applications/{app['id']}/submit/")
    assert r.status_code == 200, r.json()
    detail = api(applicant).get(f"/api/v1/applications/{app['id']}/").json()
    assert detail["tff"]["settled"] and detail["tff"]["receipt_waived"]
    _accept_and_inspect(api, clerk, agent, app["id"])
    r = api(clerk).post(f"/api/v1/applications/{app['id']}/approve/")
    assert r.status_code == 200, r.json()
    assert list(Fee.objects.filter(holder=applicant).values_list("pk", "status")) == [(fee["id"], "paid")]
    assert f"{fee['number']}" in web(applicant).get("/minha-autorizacao/").content.decode()  # the holder's page


def test_unpaid_dam_is_settled_by_the_accepted_receipt(itagiba, api, applicant, clerk, agent):
    app = _application(api, applicant, "mototaxi")
    fee_id = api(applicant).post(f"/api/v1/applications/{app['id']}/tff/").json()["fee"]["id"]
    assert api(applicant).post(f"/api/v1/applications/{app['id']}/submit/").status_code == 200
    _accept_and_inspect(api, clerk, agent, app["id"])
    assert api(clerk).post(f"/api/v1/applications/{app['id']}/approve/").status_code == 200
    fee = Fee.objects.get(holder=applicant)
    assert fee.pk == fee_id and fee.status == FeeStatus.PAID and fee.paid_marked_by == clerk


def test_others_cannot_issue_an_applicants_tff(itagiba, api, applicant, outsider, clerk):
    app = _application(api, applicant, "taxi", skip=("comprovante_tff",))
    assert api(outsider).post(f"/api/v1/applications/{app['id']}/tff/").status_code == 404
    assert api(clerk).post(f"/api/v1/applications/{app['id']}/tff/").status_code == 403
    assert api(None).post(f"/api/v1/applications/{app['id']}/tff/").status_code == 401


def test_no_tff_requirement_where_the_law_has_none(alegre, api, applicant, clerk, agent):
    app = _application(api, applicant, "taxi")
    r = api(applicant).post(f"/api/v1/applications/{app['id']}/tff/")
    assert r.status_code == 400 and r.json()["rule"]["code"] == "tff_not_provided"
    assert api(applicant).get(f"/api/v1/applications/{app['id']}/").json()["tff"] is None
    assert api(applicant).post(f"/api/v1/applications/{app['id']}/submit/").status_code == 200
    _accept_and_inspect(api, clerk, agent, app["id"])
    assert api(clerk).post(f"/api/v1/applications/{app['id']}/approve/").status_code == 200
    assert not Fee.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("slug,units", [("itagiba", 19), ("alegre", None)])
def test_a_grant_comes_with_its_tff_where_the_law_sets_one(load_pack, api, applicant, clerk, agent, slug, units):
    """Itagibá art. 6: the taxi TFF (19 UFP) is issued with the grant; Alegre has no TFF."""
    from licensing.models import Fee
    from tests.licensing.applications.helpers import (
        create_and_submit,
        open_call,
        review_all_and_inspect,
    )

    load_pack(slug)
    open_call("taxi")
    app = create_and_submit(api, applicant)
    review_all_and_inspect(api, clerk, agent, app["id"])
    assert api(clerk).post(f"/api/v1/applications/{app['id']}/approve/").status_code == 200
    fees = list(Fee.objects.filter(holder=applicant, kind="tff"))
    assert [int(f.units) for f in fees] == ([units] if units else [])


def test_applicant_issues_and_sees_the_tff_in_the_wizard_and_the_clerk_sees_it(itagiba, api, web, applicant, clerk):
    app = _application(api, applicant, "mototaxi", skip=("comprovante_tff",))
    step = f"/requerimentos/{app['id']}/etapa/documents/"
    page = web(applicant).get(step).content.decode()
    assert "Emitir o DAM da TFF" in page and "R$ 10,00" in page
    r = web(applicant).post(f"/requerimentos/{app['id']}/tff/", follow=True)
    fee = Fee.objects.get(holder=applicant)
    assert r.redirect_chain[-1][0] == step and f"DAM nº {fee.number} emitido" in r.content.decode()
    page = web(applicant).get(step).content.decode()
    assert f"/taxas/{fee.pk}/dam.pdf" in page and "Emitir o DAM" not in page
    web(applicant).post(f"/requerimentos/{app['id']}/tff/")  # a second click issues nothing new
    assert Fee.objects.filter(holder=applicant).count() == 1
    fee_mark_paid(actor=clerk, fee=fee)
    page = web(applicant).get(step).content.decode()
    assert "Dispensado: a TFF foi paga" in page and "não precisa ser enviado" in page
    assert api(applicant).post(f"/api/v1/applications/{app['id']}/submit/").status_code == 200
    desk = web(clerk).get(f"/requerimentos/{app['id']}/").content.decode()
    assert f"DAM nº {fee.number}" in desk and "Dispensado: a TFF foi paga" in desk


def test_dam_carries_a_febraban_barcode_and_linha_digitavel(itagiba, applicant, clerk, api, settings):
    from portal.febraban import barcode_is_valid, modulo11

    auth, _ = grant(applicant)
    fee = tff_issue(actor=clerk, authorization=auth)
    body = api(applicant).get(f"/api/v1/fees/{fee.pk}/").json()
    bc, line = body["barcode"], body["digitable_line"]
    assert len(bc) == 44 and barcode_is_valid(bc) and bc[:3] == "818"  # arrecadação, prefeituras, mod 11
    assert bc[4:15] == "00000009500"  # R$ 95,00 in cents
    assert bc[19:27] == fee.due_date.strftime("%Y%m%d") and bc.endswith(fee.number.replace("/", ""))
    assert len(line) == 48 and all(int(line[i * 12 + 11]) == modulo11(line[i * 12:i * 12 + 11]) for i in range(4))
    assert body["pix_payload"] == body["pix"] and body["barcode_is_example"] is True
    settings.FEBRABAN_CODE = "1234"  # the collecting bank's code, configured
    body = api(applicant).get(f"/api/v1/fees/{fee.pk}/").json()
    assert body["barcode"][15:19] == "1234" and body["barcode_is_example"] is False
    line = body["digitable_line"]
    pypdf = pytest.importorskip("pypdf")
    import io

    pdf = api(applicant).get(f"/api/v1/fees/{fee.pk}/dam.pdf").content
    text = "".join(p.extract_text() or "" for p in pypdf.PdfReader(io.BytesIO(pdf)).pages)
    assert f"{line[:11]}-{line[11]}" in text and "FEBRABAN" in text
    fee.status = FeeStatus.PAID
    fee.save()
    assert api(applicant).get(f"/api/v1/fees/{fee.pk}/").json()["barcode"] is None
