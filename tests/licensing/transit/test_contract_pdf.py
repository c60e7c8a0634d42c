"""The concession contract PDF: who may read it, what it says, and that it is frozen at signing."""

from __future__ import annotations

import shutil
import subprocess
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse

from licensing.transit import services as svc
from licensing.transit.documents import contract_context
from licensing.transit.models import ContractClauseReview
from licensing.transit.rules import Segment
from portal.issued import sha256_hex, stored_document
from portal.models import AuditEntry

from .conftest import make_concession, make_line

needs_pdftotext = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler) ausente")


def _text(pdf: bytes) -> str:
    return " ".join(subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True,
                                   check=True).stdout.decode().split())


@pytest.fixture
def contracted(alegre, django_capture_on_commit_callbacks):
    """Lines and the initial fare registered from the bidding, then the contract signed (3 days ago)
    and the service started; the staff's check of the clauses comes after the signature."""
    c = make_concession(alegre, closed_days_ago=5)
    line = make_line(c)
    svc.fare_set(actor=None, line=line, zone="urban", amount=Decimal("4.50"), decree="Decreto 3/2026",
                 announced_on=alegre.today() - timedelta(days=5), effective_from=alegre.today() - timedelta(days=5))
    with django_capture_on_commit_callbacks(execute=True):  # the worker freezes the contract as signed
        svc.concession_contract_sign(actor=None, concession=c, signed_on=alegre.today() - timedelta(days=3),
                                     contract_number="CT-1")
    svc.concession_service_start(actor=None, concession=c, started_on=alegre.today() - timedelta(days=1))
    svc.concession_clauses_record(actor=None, concession=c, checked=["I", "II", "IV"])
    c.refresh_from_db()
    return c, line


@needs_pdftotext
def test_contract_pdf_for_staff_with_parties_lines_term_and_clauses(contracted, web, clerk):
    c, line = contracted
    page = web(clerk).get(reverse("transit-concession", args=[c.pk]))
    url = reverse("transit-contract-pdf", args=[c.pk])
    assert url in page.content.decode()
    r = web(clerk).get(url)
    assert r.status_code == 200 and r["Content-Type"] == "application/pdf" and r.content.startswith(b"%PDF")
    text = _text(r.content)
    company = c.concessionaire
    for expected in ("Prefeitura Municipal de Alegre", "Contrato de concessão", f"nº {c.contract_number}",
                     company.legal_name, company.display_cnpj, company.representative_name,
                     "Linhas do município", line.code, "R$ 4,50", "Ônibus", "10 anos", "1 renovação por igual período",
                     "art. 25", "art. 9", "CP 1/2026", "Objeto, itinerário, prazo da delegação", "Página 1 de"):
        assert expected in text, expected


@needs_pdftotext
def test_the_clause_check_is_not_in_the_contract_but_on_the_staff_page(contracted, web, clerk):
    c, _ = contracted
    text = _text(web(clerk).get(reverse("transit-contract-pdf", args=[c.pk])).content)
    for annotation in ("Não conferida", "Consta do contrato", "não conferida", "Registro", "conferida(s)"):
        assert annotation not in text, annotation
    page = web(clerk).get(reverse("transit-concession", args=[c.pk])).content.decode()
    assert "Última conferência em" in page and "não conferida" in page
    review = ContractClauseReview.objects.get(concession=c)
    assert review.present == ["I", "II", "IV"]


def test_contract_frozen_at_signing_and_byte_identical_after_later_changes(contracted, web, clerk, judge, alegre):
    c, line = contracted
    # frozen when the signature committed (eager worker in the tests), before anyone downloaded it
    doc = stored_document(c, "contract")
    assert doc is not None and doc.number == "CT-1" and doc.signed
    assert AuditEntry.objects.filter(object_id=str(c.pk), action="document_frozen").exists()
    url = reverse("transit-contract-pdf", args=[c.pk])
    before = web(clerk).get(url).content
    assert sha256_hex(before) == doc.sha256
    # later: the clauses checked again, a new fare decree, an itinerary change by aditivo, a renewal
    svc.concession_clauses_record(actor=clerk, concession=c, checked=["I", "II", "III", "IV", "V"])
    svc.fare_set(actor=None, line=line, zone="urban", amount=Decimal("5.10"), decree="Decreto 9/2026",
                 announced_on=alegre.today(), effective_from=alegre.today() + timedelta(days=40))
    changed = svc.itinerary_change_propose(
        actor=clerk, line=line, reason="Novo bairro",
        segments=[Segment("A", "B", Decimal("40"), "urban"), Segment("B", "C", Decimal("60"), "urban"),
                  Segment("C", "D", Decimal("10"), "urban")])
    svc.itinerary_change_approve(actor=judge, itinerary=changed, amendment_reference="Termo aditivo 1/2026",
                                 announced_on=alegre.today(), effective_from=alegre.today() + timedelta(days=10))
    svc.concession_renew(actor=judge, concession=c)
    c.refresh_from_db()
    assert c.renewals == 1 and ContractClauseReview.objects.filter(concession=c).count() == 2
    after = web(judge).get(url).content
    assert after == before
    assert ContractClauseReview.objects.filter(concession=c).first().present == ["I", "II", "III", "IV", "V"]


def test_contract_context_holds_the_clauses_and_the_signing_day(contracted):
    c, _ = contracted
    ctx = contract_context(c)
    assert [cl["code"] for cl in ctx["clauses"]][:3] == ["I", "II", "III"] and "present" not in ctx["clauses"][0]
    assert ctx["term_start"] == c.contract_signed_on and ctx["term_end"] == c.term_end


def test_no_contract_before_signature(alegre, web, judge):
    c = make_concession(alegre, closed_days_ago=2)
    make_line(c, code="L09")
    assert web(judge).get(reverse("transit-contract-pdf", args=[c.pk])).status_code == 404
    assert "transit-contract-pdf" not in web(judge).get(reverse("transit-concession", args=[c.pk])).content.decode()
    assert web(judge).get(reverse("transit-contract-pdf", args=[999999])).status_code == 404
    assert stored_document(c, "contract") is None


@pytest.mark.parametrize("persona", ["agent", "applicant"])
def test_contract_pdf_refused_to_other_roles(contracted, web, request, persona):
    c, _ = contracted
    user = request.getfixturevalue(persona)
    assert web(user).get(reverse("transit-contract-pdf", args=[c.pk])).status_code == 403


def test_contract_starts_within_term(contracted, alegre):
    c, _ = contracted
    ctx = contract_context(c)
    assert ctx["term_years"] == 10 and ctx["start_days"] == 30
    assert c.term_end and c.term_end > alegre.today() + timedelta(days=3000)


def test_clause_review_is_a_new_record_each_time(contracted, clerk):
    c, _ = contracted
    first = ContractClauseReview.objects.get(concession=c)
    svc.concession_clauses_record(actor=clerk, concession=c, checked=[])
    assert ContractClauseReview.objects.filter(concession=c).count() == 2
    first.refresh_from_db()
    assert first.present == ["I", "II", "IV"] and svc.current_clauses(c) == {}
    assert len(svc.missing_clauses(alegre_pack := svc.transit_pack(), c)) == len(svc.pack_list(alegre_pack, "clauses"))

