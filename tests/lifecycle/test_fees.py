"""Fees: Itagibá TFF in UFP, the DAM PDF with the Pix BR Code, payment marked by the clerk."""

from decimal import Decimal

import pytest

from licensing.dam_lifecycle import fee_pix
from licensing.models_lifecycle import Fee, FeeStatus
from licensing.selectors_lifecycle import tff_outstanding, tff_paid
from licensing.services_lifecycle import fee_issue, tff_issue
from portal.exceptions import RuleViolation
from portal.models import AuditEntry
from portal.pix import parse_tlv, payload_is_valid
from tests.lifecycle.helpers import grant

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


def test_bank_return_file_records_matching_payments_and_reports_the_rest(itagiba, clerk, web, api):
    from django.core.files.uploadedfile import SimpleUploadedFile

    a, b, c = (tff_issue(actor=clerk, authorization=grant()[0]) for _ in range(3))
    today = itagiba.today()
    content = "\n".join([
        "dam;data;valor;autenticacao",
        f"{a.number};{today:%d/%m/%Y};95,00;AUT-A",
        f"{b.number};{today.isoformat()};90.00;AUT-B",
        f"999/2099;{today.isoformat()};95.00;X",
    ]).encode()
    r = api(clerk).post("/api/v1/fees/bank-return/", {"file": SimpleUploadedFile("ret.csv", content)}, format="multipart")
    assert r.status_code == 200
    assert r.json()["paid"] == [a.number]
    assert [e["line"] for e in r.json()["errors"]] == [3, 4]
    a.refresh_from_db()
    b.refresh_from_db()
    assert a.status == "paid" and a.payment_reference == "AUT-A" and b.status == "issued"
    again = web(clerk).post("/atendimento/taxas/retorno/",
                            {"file": SimpleUploadedFile("ret.csv", f"{a.number};{today.isoformat()};95.00".encode())})
    assert again.status_code == 302
    assert Fee.objects.get(pk=c.pk).status == "issued"


def test_grant_requires_the_tff_paid_where_the_law_sets_it(itagiba, applicant, clerk):
    from licensing.services_lifecycle import (
        fee_mark_paid,
        tff_issue_for_application,
        tff_unpaid_violation,
    )

    violation = tff_unpaid_violation(holder=applicant, modality="mototaxi")
    assert violation.code == "tff_unpaid" and violation.conflict and violation.legal_basis.endswith("art. 7")
    fee = tff_issue_for_application(actor=clerk, holder=applicant, modality="mototaxi", source="Requerimento 2026/000001")
    assert fee.amount == Decimal("10.00") and fee.authorization is None
    assert tff_unpaid_violation(holder=applicant, modality="mototaxi") is not None
    fee_mark_paid(actor=clerk, fee=fee)
    assert tff_unpaid_violation(holder=applicant, modality="mototaxi") is None
    auth, _ = grant(applicant, modality="mototaxi")
    with pytest.raises(RuleViolation) as exc:
        tff_issue(actor=clerk, authorization=auth)  # the year's TFF was already paid at the grant
    assert exc.value.code == "tff_already_issued"


def test_no_tff_requirement_where_the_law_has_none(arapora, applicant):
    from licensing.services_lifecycle import tff_unpaid_violation

    assert tff_unpaid_violation(holder=applicant, modality="taxi") is None


@pytest.mark.django_db
@pytest.mark.parametrize("slug,units", [("itagiba", 19), ("alegre", None)])
def test_a_grant_comes_with_its_tff_where_the_law_sets_one(load_pack, api, applicant, clerk, agent, slug, units):
    """Itagibá art. 6: the taxi TFF (19 UFP) is issued with the grant; Alegre has no TFF."""
    from licensing.models import Fee
    from tests.licensing.helpers import create_and_submit, open_call, review_all_and_inspect

    load_pack(slug)
    open_call("taxi")
    app = create_and_submit(api, applicant)
    review_all_and_inspect(api, clerk, agent, app["id"])
    assert api(clerk).post(f"/api/v1/applications/{app['id']}/approve/").status_code == 200
    fees = list(Fee.objects.filter(holder=applicant, kind="tff"))
    assert [int(f.units) for f in fees] == ([units] if units else [])
