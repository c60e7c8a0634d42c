"""Fines are paid the same way: a fine made final issues a DAM of the fees room (kind fine,
barcode, Pix, due date per pack); the holder sees it next to the auto; paid by the bank file,
the fine of the auto is paid; recorded on the auto, the DAM is settled."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from enforcement.models import Infraction
from licensing.fees.documents import fee_barcode, fee_pix
from licensing.fees.models import FeeStatus
from portal.febraban import barcode_is_valid
from portal.febraban_return import detail_record, header_record, trailer_record
from portal.models import AuditEntry, Notification
from portal.pix import parse_tlv
from tests.enforcement.helpers import at  # noqa: F401  (helpers used by the chain fixture)

pytestmark = pytest.mark.django_db


def _final(api, alegre, applicant, grant, issue, chain) -> Infraction:
    chain.regulate()
    today = alegre.today()
    body = issue(grant.vehicle.plate, "19-I", today - timedelta(days=2))
    chain.notify(body["id"], today - timedelta(days=1))
    chain.judge(body["id"])
    api(applicant).post(f"/api/v1/infractions/{body['id']}/appeal/", {"text": "Reconsiderem."}, format="json")
    assert chain.judge_appeal(body["id"], granted=False)["status"] == "final"
    return Infraction.objects.select_related("fine__fee").get(pk=body["id"])


def test_final_fine_has_a_fee_dam_with_barcode_and_pix(api, web, alegre, applicant, grant, issue, chain):
    inf = _final(api, alegre, applicant, grant, issue, chain)
    fine, today = inf.fine, alegre.today()
    fee = fine.fee
    assert fee is not None and fee.kind == "fine" and fee.number == fine.number and fee.holder == applicant
    assert fee.amount == Decimal("150.00") and fee.due_date == today + timedelta(days=30) == fine.due_date
    assert fee.source == f"Auto de infração nº {inf.number}" and "art. 19" in fee.legal_basis
    assert barcode_is_valid(fee_barcode(fee)["barcode"])
    assert parse_tlv(parse_tlv(fee_pix(fee)["payload"])["62"])["05"] == "DAM" + fee.number.replace("/", "")
    body = api(applicant).get(f"/api/v1/fees/{fee.pk}/").json()
    assert body["kind"] == "fine" and body["barcode"] and body["digitable_line"] and body["pix_payload"]
    assert api(applicant).get(f"/api/v1/infractions/{inf.pk}/").json()["fine"]["fee"] == fee.pk
    page = web(applicant).get(reverse("enforcement:detail", args=[inf.pk])).content.decode()
    assert f'value="{fee_pix(fee)["payload"]}"' in page and f'data-copy-target="pix-{fee.pk}"' in page
    assert "R$ 150,00" in page
    pdf = web(applicant).get(reverse("enforcement:pdf", args=[inf.pk, "dam"]))
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    note = Notification.objects.filter(recipient=applicant, subject__startswith="Decisão definitiva").get()
    assert note.pix_payload == fee_pix(fee)["payload"] and "Multa de R$ 150,00" in note.body


def test_bank_file_pays_the_fine_of_the_auto(api, alegre, applicant, clerk, grant, issue, chain):
    inf = _final(api, alegre, applicant, grant, issue, chain)
    fee, today = inf.fine.fee, alegre.today()
    g = detail_record(account="0011234500000123456", paid_on=today, credited_on=today,
                      barcode=fee_barcode(fee)["barcode"], amount=fee.amount, nsr=1, authentication="AUT")
    content = "\r\n".join([
        header_record(convenio="C", company="PREFEITURA", bank_code="104", bank_name="CAIXA", file_date=today, sequence=1),
        g, trailer_record(total_records=3, total_amount=fee.amount)]).encode()
    r = api(clerk).post("/api/v1/fees/bank-return/", {"file": SimpleUploadedFile("r.ret", content)}, format="multipart")
    assert r.status_code == 201 and r.json()["settled"] == [fee.number]
    inf.fine.refresh_from_db()
    assert inf.fine.paid and inf.fine.paid_on == today and inf.fine.paid_recorded_by == clerk
    assert AuditEntry.objects.filter(action="fine_paid", object_id=str(inf.fine.pk)).count() == 1


def test_payment_recorded_on_the_auto_settles_the_dam_once(api, web, alegre, applicant, clerk, grant, issue, chain):
    inf = _final(api, alegre, applicant, grant, issue, chain)
    r = web(clerk).post(reverse("enforcement:fine-paid", args=[inf.pk]), {"paid_on": alegre.today().isoformat()})
    assert r.status_code == 302
    inf.fine.refresh_from_db()
    inf.fine.fee.refresh_from_db()
    assert inf.fine.paid and inf.fine.fee.status == FeeStatus.PAID
    assert "Registrado no auto" in inf.fine.fee.payment_reference
    assert AuditEntry.objects.filter(action="fee_paid", object_id=str(inf.fine.fee.pk)).count() == 1
    again = web(clerk).post(reverse("enforcement:fine-paid", args=[inf.pk]), {"paid_on": alegre.today().isoformat()})
    assert AuditEntry.objects.filter(action="fine_paid").count() == 1 and again.status_code in (302, 409)


def test_overdue_fine_goes_to_the_dívida_ativa_list(api, web, alegre, applicant, clerk, grant, issue, chain):
    from licensing.fees.models import Fee

    inf = _final(api, alegre, applicant, grant, issue, chain)
    Fee.objects.filter(pk=inf.fine.fee_id).update(due_date=alegre.today() - timedelta(days=1))
    html = web(clerk).get(reverse("lifecycle-fee-overdue")).content.decode()
    assert inf.fine.number in html and f"Auto de infração nº {inf.number}" in html


def test_a_recomputed_fine_cancels_its_dam_and_issues_a_new_one(api, alegre, applicant, clerk, grant, issue, chain):
    from enforcement.services.fine_dam import fine_reissue

    inf = _final(api, alegre, applicant, grant, issue, chain)
    old = inf.fine.fee
    fine = fine_reissue(actor=clerk, fine=inf.fine, amount=Decimal("75.00"), reason="reincidência recalculada")
    old.refresh_from_db()
    assert old.status == FeeStatus.CANCELLED and old.amount == Decimal("150.00")  # the issued DAM is not edited
    assert fine.fee.pk != old.pk and fine.fee.amount == Decimal("75.00") and fine.number == fine.fee.number
    assert fine.fee.due_date == old.due_date and fine.amount == Decimal("75.00")


def test_a_fine_without_a_fees_dam_is_listed_for_the_treasury_too(api, web, alegre, applicant, clerk, grant, issue,
                                                                   chain):
    """A fine issued before its DAM moved to the fees room (or of an auto without a holder
    account) reaches the dívida ativa list through portal.registry.OVERDUE_FINES."""
    from enforcement.models import Fine
    from licensing.fees.models import Fee

    inf = _final(api, alegre, applicant, grant, issue, chain)
    yesterday = alegre.today() - timedelta(days=1)
    Fee.objects.filter(pk=inf.fine.fee_id).update(status="cancelled")
    Fine.objects.filter(pk=inf.fine.pk).update(fee=None, due_date=yesterday)
    html = web(clerk).get(reverse("lifecycle-fee-overdue")).content.decode()
    assert inf.fine.number in html and reverse("enforcement:detail", args=[inf.pk]) in html
    csv_text = web(clerk).get(reverse("lifecycle-fee-overdue-csv")).content.decode("utf-8-sig")
    assert f"{inf.fine.number},fine," in csv_text and ",150.00," in csv_text
