"""Reconciliation of the bank's files: FEBRABAN collection return (A/G/Z, 150 positions) and
Pix statement. One paid, one partial, one unknown and one repeated line settle exactly one DAM
and report the other three; the same file again changes nothing."""

import json
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from licensing.fees.documents import fee_barcode
from licensing.fees.models import Fee, FeeStatus, PaymentImport, PaymentLine
from licensing.fees.reconciliation import payments_import
from licensing.fees.rules import dam_number_from_reference
from licensing.fees.services import fee_cancel, tff_issue
from portal.febraban_return import (
    ReturnFileError,
    detail_record,
    header_record,
    parse_return_file,
    trailer_record,
)
from portal.models import AuditEntry
from tests.licensing.requests.helpers import grant

# Worked by hand, position by position (FEBRABAN "Layout Padrão de Arrecadação/Recebimento com
# Utilização do Código de Barras", retorno, layout version 05):
#   A | 2 | convênio (20) | empresa (20) | banco 001 | nome do banco (20) | 20260320 | NSA 000042 | 05 |
#   CODIGO DE BARRAS (17) | filler (52)
HEADER = ("A2" + "CONV123".ljust(20) + "PREFEITURA".ljust(20) + "001" + "BANCO DO BRASIL".ljust(20)
          + "20260320" + "000042" + "05" + "CODIGO DE BARRAS ") + " " * 52
# The barcode of R$ 95,00, company 0000, free field due date 15/03/2026 + DAM 001/2026:
#   8 1 8 [DAC] 00000009500 0000 20260315 00000000000012026
#   modulo 11 over the other 43 digits, weights 2..9 from the right: sum 244, 244 mod 11 = 2,
#   DAC = 11 − 2 = 9.
BARCODE = "81890000000950000002026031500000000000012026"
#   G | conta (20) | pago 20260318 | crédito 20260319 | barcode (44) | 000000009500 | 0000000 |
#   NSR 00000001 | agência 1234 (8) | canal 1 | autenticação (23) | forma 1 | filler (9)
DETAIL = ("G" + "00112345000001234567" + "20260318" + "20260319" + BARCODE + "000000009500" + "0000000"
          + "00000001" + "1234    " + "1" + "AUT0001".ljust(23) + "1" + " " * 9)
#   Z | 000003 records | 00000000000009500 | filler (126)
TRAILER = "Z" + "000003" + "00000000000009500" + " " * 126


def test_hand_worked_records_are_150_positions_and_read_field_by_field():
    assert len(HEADER) == len(DETAIL) == len(TRAILER) == 150
    parsed = parse_return_file("\r\n".join([HEADER, DETAIL, TRAILER]) + "\r\n")
    assert parsed.header.bank_code == "001" and parsed.header.sequence == "000042"
    assert parsed.header.version == "05" and parsed.header.file_date == date(2026, 3, 20)
    [g] = parsed.details
    assert g.barcode == BARCODE and g.amount == Decimal("95.00") and g.bank_fee == Decimal("0.00")
    assert g.paid_on == date(2026, 3, 18) and g.credited_on == date(2026, 3, 19)
    assert g.nsr == "00000001" and g.agency == "1234" and g.channel == "1" and g.authentication == "AUT0001"
    assert parsed.total_records == 3 and parsed.total_amount == Decimal("95.00")
    # the writer used by the bank simulator gives the same records
    assert header_record(convenio="CONV123", company="PREFEITURA", bank_code="001", bank_name="BANCO DO BRASIL",
                         file_date=date(2026, 3, 20), sequence=42) == HEADER
    assert detail_record(account="00112345000001234567", paid_on=date(2026, 3, 18), credited_on=date(2026, 3, 19),
                         barcode=BARCODE, amount=Decimal("95.00"), nsr=1, agency="1234",
                         authentication="AUT0001") == DETAIL
    assert trailer_record(total_records=3, total_amount=Decimal("95.00")) == TRAILER


def test_barcode_dac_worked_by_hand():
    from portal.febraban import barcode_is_valid, free_field_reference

    assert barcode_is_valid(BARCODE) and not barcode_is_valid(BARCODE[:3] + "8" + BARCODE[4:])
    assert free_field_reference(BARCODE) == "12026" and dam_number_from_reference("12026") == "001/2026"


@pytest.mark.parametrize("ref,number", [("DAM0022026", "002/2026"), ("dam12342026", "1234/2026"),
                                        ("22026", "002/2026"), ("2026", None), ("DAM00002026", None),
                                        ("002/2026", None), ("", None)])
def test_dam_number_from_reference(ref, number):
    assert dam_number_from_reference(ref) == number


@pytest.mark.parametrize("broken,message", [
    (lambda lines: lines[:-1], "Z"),                                         # trailer missing: truncated
    (lambda lines: [lines[0][:1] + "1" + lines[0][2:]] + lines[1:], "retorno"),  # a remessa, not a retorno
    (lambda lines: lines[:1] + lines[2:], "registros"),                      # Z counts one record more
    (lambda lines: [lines[0][:79] + "03" + lines[0][81:]] + lines[1:], "versão"),
    (lambda lines: [lines[0]] + [lines[1] + "X"] + lines[2:], "posições"),
])
def test_unreadable_files_are_refused_whole(broken, message):
    with pytest.raises(ReturnFileError, match=message):
        parse_return_file("\n".join(broken([HEADER, DETAIL, TRAILER])))


def _return_file(lines: list[str]) -> bytes:
    total = sum((Decimal(line[81:93]) / 100 for line in lines), Decimal("0"))
    head = header_record(convenio="CONV123", company="PREFEITURA", bank_code="001", bank_name="BANCO DO BRASIL",
                         file_date=date.today(), sequence=7)
    return "\r\n".join([head, *lines, trailer_record(total_records=len(lines) + 2, total_amount=total)]).encode()


def _g(fee_or_code, amount: str, nsr: int, paid_on: date, auth: str) -> str:
    code = fee_or_code if isinstance(fee_or_code, str) else fee_barcode(fee_or_code)["barcode"]
    return detail_record(account="00112345000001234567", paid_on=paid_on, credited_on=paid_on, barcode=code,
                         amount=Decimal(amount), nsr=nsr, agency="1234", authentication=auth)


def test_one_paid_one_partial_one_unknown_one_repeated_settles_one(itagiba, clerk, api, web):
    paid, partial = (tff_issue(actor=clerk, authorization=grant()[0]) for _ in range(2))
    today = itagiba.today()
    from portal.febraban import dam_code

    # a valid barcode of the Prefeitura for a DAM that does not exist
    unknown = dam_code(amount="95.00", company_code="0000", due_date=today, reference="DAM9992099").barcode
    first = _g(paid, "95.00", 1, today, "AUT-1")
    content = _return_file([first, _g(partial, "90.00", 2, today, "AUT-2"), _g(unknown, "95.00", 3, today, "AUT-3"),
                            first[:100] + "00000004" + first[108:]])  # the same payment again, another NSR
    audits_before = AuditEntry.objects.count()
    r = api(clerk).post("/api/v1/fees/bank-return/", {"file": SimpleUploadedFile("ret.txt", content)},
                        format="multipart")
    assert r.status_code == 201, r.json()
    body = r.json()
    assert body["settled"] == [paid.number]
    assert [(x["line"], x["outcome"]) for x in body["lines"]] == [
        (2, "settled"), (3, "partial"), (4, "unknown"), (5, "duplicate")]
    assert "pago R$ 90,00 de R$ 95,00" in body["lines"][1]["message"]
    paid.refresh_from_db()
    partial.refresh_from_db()
    assert paid.status == FeeStatus.PAID and paid.paid_on == today and "NSR 1 aut. AUT-1" in paid.payment_reference
    assert partial.status == FeeStatus.ISSUED
    assert AuditEntry.objects.filter(action="fee_paid", object_id=str(paid.pk)).count() == 1
    assert AuditEntry.objects.filter(action="payment_flagged", object_id=str(partial.pk)).count() == 1
    assert AuditEntry.objects.filter(action="payments_imported").count() == 1

    # the same file again: nothing changes, the same report is answered
    audits = AuditEntry.objects.count()
    assert audits > audits_before
    again = api(clerk).post("/api/v1/fees/bank-return/", {"file": SimpleUploadedFile("ret.txt", content)},
                            format="multipart")
    assert again.status_code == 200 and again.json()["already_imported"] and again.json()["id"] == body["id"]
    assert AuditEntry.objects.count() == audits and PaymentImport.objects.count() == 1 and PaymentLine.objects.count() == 4
    page = web(clerk).post("/atendimento/taxas/retorno/", {"file": SimpleUploadedFile("ret.txt", content)})
    assert page.status_code == 302 and page["Location"] == f"/atendimento/taxas/retornos/{body['id']}/"
    report = web(clerk).get(page["Location"])
    assert report.status_code == 200 and "pagamento parcial" in report.content.decode()
    assert "linha repetida no arquivo" in report.content.decode()


def test_a_payment_seen_in_another_file_is_not_settled_twice(itagiba, clerk):
    fee = tff_issue(actor=clerk, authorization=grant()[0])
    today = itagiba.today()
    line = _g(fee, "95.00", 1, today, "AUT-9")
    imp1, new1 = payments_import(actor=clerk, content=_return_file([line]))
    # the next day's cumulative file repeats the payment with another NSR and credit date
    repeated = line[:29] + (today + timedelta(days=1)).strftime("%Y%m%d") + line[37:100] + "00000008" + line[108:]
    imp2, new2 = payments_import(actor=clerk, content=_return_file([repeated]))
    assert new1 and new2 and imp1.settled_count == 1 and imp2.settled_count == 0
    assert imp2.lines.get().outcome == "already_imported"
    # a second, different payment of the paid DAM is flagged for refund, not settled
    imp3, _ = payments_import(actor=clerk, content=_return_file([_g(fee, "95.00", 1, today, "AUT-10")]))
    assert imp3.lines.get().outcome == "already_paid" and "duplicidade" in imp3.lines.get().message
    assert AuditEntry.objects.filter(action="fee_paid", object_id=str(fee.pk)).count() == 1


def test_excess_cancelled_and_foreign_barcode_are_flagged(itagiba, clerk, settings):
    over, cancelled = (tff_issue(actor=clerk, authorization=grant()[0]) for _ in range(2))
    fee_cancel(actor=clerk, fee=cancelled, reason="emitido por engano")
    today = itagiba.today()
    from portal.febraban import collection_barcode

    foreign = collection_barcode(amount="95.00", company_code="1234", free=BARCODE[19:])  # another agency's
    lines = [_g(over, "100.00", 1, today, "A1"), _g(foreign, "95.00", 2, today, "A2")]
    imp, _ = payments_import(actor=clerk, content=_return_file(lines))
    outcomes = list(imp.lines.values_list("outcome", flat=True))
    assert outcomes == ["excess", "unknown"] and Fee.objects.filter(status="paid").count() == 0
    assert "outro órgão" in imp.lines.get(line_no=3).message
    # a cancelled DAM shows no barcode nor Pix any more, but someone paid its old Pix
    stmt = json.dumps({"pix": [{"endToEndId": "E00000000202603181200abc", "txid": "DAM" + cancelled.number.replace("/", ""),
                                "valor": "95.00", "horario": f"{today.isoformat()}T12:00:00-03:00"}]}).encode()
    imp2, _ = payments_import(actor=clerk, content=stmt, file_name="pix.json")
    assert imp2.source == "pix" and imp2.lines.get().outcome == "not_payable"


def test_pix_statement_csv_and_json_settle_by_txid(itagiba, clerk):
    a, b, c = (tff_issue(actor=clerk, authorization=grant()[0]) for _ in range(3))
    today = itagiba.today()
    txid = {f: "DAM" + f.number.replace("/", "") for f in (a, b, c)}
    csv_text = "\n".join([
        "endToEndId;txid;valor;data",
        f"E1;{txid[a]};95,00;{today:%d/%m/%Y}",
        f"E2;{txid[b]};1.095,00;{today.isoformat()}",
        f"E1;{txid[a]};95,00;{today:%d/%m/%Y}",
        f"E3;DAM9992099;95.00;{today.isoformat()}",
        f"E4;{txid[c]};noventa;{today.isoformat()}",
    ]).encode()
    imp, new = payments_import(actor=clerk, content=csv_text, file_name="pix.csv")
    assert new and imp.source == "pix"
    assert list(imp.lines.values_list("line_no", "outcome")) == [
        (2, "settled"), (3, "excess"), (4, "duplicate"), (5, "unknown"), (6, "invalid")]
    a.refresh_from_db()
    assert a.status == "paid" and a.payment_reference == "Pix E1"
    same, new_again = payments_import(actor=clerk, content=csv_text)
    assert same.pk == imp.pk and not new_again
    # the JSON statement of the bank's Pix API: E1 already imported, c paid now
    stmt = json.dumps({"pix": [{"endToEndId": "E1", "txid": txid[a], "valor": "95.00", "horario": today.isoformat()},
                               {"endToEndId": "E5", "txid": txid[c], "valor": "95.00", "horario": today.isoformat()}]})
    imp2, _ = payments_import(actor=clerk, content=stmt.encode())
    assert list(imp2.lines.values_list("outcome", flat=True)) == ["already_imported", "settled"]


def test_bad_files_are_refused_naming_the_field(itagiba, clerk, api):
    for content in (b"", b"A2 short header\nno trailer", b"txid;nada\nDAM1;1"):
        r = api(clerk).post("/api/v1/fees/bank-return/", {"file": SimpleUploadedFile("x.txt", content)},
                            format="multipart")
        assert r.status_code == 400 and "file" in r.json()["errors"], content
    assert PaymentImport.objects.count() == 0
