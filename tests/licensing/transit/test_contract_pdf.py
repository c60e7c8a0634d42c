"""The concession contract PDF: who may read it and what it says."""

from __future__ import annotations

import shutil
import subprocess
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse

from licensing.transit import services as svc
from licensing.transit.documents import contract_context

from .conftest import make_concession, make_line

needs_pdftotext = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler) ausente")


def _text(pdf: bytes) -> str:
    return subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()


@pytest.fixture
def contracted(running, alegre):
    c, line = running
    svc.fare_set(actor=None, line=line, zone="urban", amount=Decimal("4.50"), decree="Decreto 3/2026",
                 announced_on=alegre.today(), effective_from=alegre.today())
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
    text = " ".join(_text(r.content).split())
    company = c.concessionaire
    for expected in ("Prefeitura Municipal de Alegre", "Contrato de concessão", f"nº {c.contract_number}",
                     company.legal_name, company.display_cnpj, company.representative_name,
                     "Linhas do município", line.code, "R$ 4,50", "Ônibus", "10 anos", "1 renovação por igual período",
                     "art. 25", "CP 1/2026", "Objeto, itinerário, prazo da delegação", "Não conferida",
                     "Página 1 de"):
        assert expected in text, expected


def test_contract_context_marks_the_recorded_clauses(contracted):
    c, _ = contracted
    ctx = contract_context(c)
    present = {cl["code"] for cl in ctx["clauses"] if cl["present"]}
    assert present == {"I", "II", "IV"} and len(ctx["missing_clauses"]) == len(ctx["clauses"]) - 3


def test_no_contract_before_signature(alegre, web, judge):
    c = make_concession(alegre, closed_days_ago=2)
    make_line(c, code="L09")
    assert web(judge).get(reverse("transit-contract-pdf", args=[c.pk])).status_code == 404
    assert "transit-contract-pdf" not in web(judge).get(reverse("transit-concession", args=[c.pk])).content.decode()
    assert web(judge).get(reverse("transit-contract-pdf", args=[999999])).status_code == 404


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

