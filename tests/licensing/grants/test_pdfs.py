"""Every licensing PDF for every pack: the act's name and number, the law, the verification code; user
values escaped. Set PDF_DUMP_DIR to keep the files (to look at them as PNG)."""

import os
import shutil
import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone

from licensing.applications.documents import declaration_pdf, inspection_pdf, receipt_pdf
from licensing.grants.documents import alvara_pdf, authorization_pdf
from licensing.models import Application, ApplicationAuxiliary, Inspection
from tests.factories import UserFactory, VehicleFactory, issue_authorization

needs_pdftotext = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler) ausente")


def text_of(pdf: bytes, tmp_path, name: str) -> str:
    path = tmp_path / f"{name}.pdf"
    path.write_bytes(pdf)
    dump = os.environ.get("PDF_DUMP_DIR")
    if dump:
        os.makedirs(dump, exist_ok=True)
        shutil.copy(path, os.path.join(dump, path.name))
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


@needs_pdftotext
@pytest.mark.django_db
@pytest.mark.parametrize("slug", ["alegre", "itagiba", "arapora"])
def test_all_pdfs(slug, load_pack, agent, tmp_path):
    pack = load_pack(slug)
    holder = UserFactory(name="Zé <b>Negrito</b> & Cia")
    modality = "taxi"
    vehicle = VehicleFactory(owner=holder)
    aux = UserFactory(name="Paula Auxiliar")
    auth, alvaras = issue_authorization(holder=holder, vehicle=vehicle, modality=modality, auxiliaries=[aux])
    app = Application.objects.create(applicant=holder, modality=modality, status="in_review", protocol="2026/000123",
                                     submitted_at=timezone.now(), vehicle=vehicle, authorization=auth)
    ApplicationAuxiliary.objects.create(application=app, position=1, cpf=aux.cpf, name=aux.name, cnh_category="D")
    Inspection.objects.create(application=app, agent=agent, scheduled_for=timezone.now() + timedelta(days=1))
    law = pack.main_law["short"]

    text = text_of(authorization_pdf(auth), tmp_path, f"{slug}-ato")
    assert pack.act("authorization")["name"].upper()[:20] in text.upper() and auth.number in text
    assert auth.verification_code in text and pack.municipality["authority"] in text and law.split(" (")[0] in text
    assert "<b>" in text  # shown as typed: escaped, never interpreted
    for alvara in alvaras:
        text = text_of(alvara_pdf(alvara), tmp_path, f"{slug}-alvara-{alvara.pk}")
        assert alvara.number in text and alvara.verification_code in text
    text = text_of(receipt_pdf(app), tmp_path, f"{slug}-protocolo")
    assert "2026/000123" in text and vehicle.display_plate in text
    text = text_of(inspection_pdf(app), tmp_path, f"{slug}-vistoria")
    first_item = pack.inspection_items(modality)[0]["label"]
    assert first_item[:25] in " ".join(text.split())
    if any(d["code"].startswith("declaracao_anexo") for d in pack.documents(modality)):
        text = text_of(declaration_pdf(app), tmp_path, f"{slug}-declaracao")
        assert "DECLARO" in text
    else:
        with pytest.raises(LookupError):
            declaration_pdf(app)


def test_the_parsed_stylesheet_is_kept_and_the_cascade_is_the_same():
    """portal.pdf keeps each template's <style> parsed once (with the fonts it loads); the PDF
    drawn with the kept stylesheet says the same as one drawn with the <style> in place."""
    from pypdf import PdfReader

    from portal import pdf

    html = ('<!DOCTYPE html><html lang="pt-BR"><head><meta charset="utf-8"><title>T</title><style>'
            'p { color: #123456; } p.x { font-weight: bold; }</style></head><body><p class="x">Ação ótima</p></body></html>')
    stripped, sheet = pdf._split_styles(html)
    assert "<style" not in stripped and "Ação" in stripped
    assert pdf._split_styles(html)[1] is sheet  # parsed once
    assert pdf._split_styles("<html><body>sem estilo</body></html>") == ("<html><body>sem estilo</body></html>", None)
    from weasyprint import HTML

    kept = HTML(string=stripped).write_pdf(stylesheets=[sheet], font_config=pdf._font_config())
    inline = HTML(string=html).write_pdf()
    import io

    text = [PdfReader(io.BytesIO(b)).pages[0].extract_text() for b in (kept, inline)]
    assert text[0] == text[1] and "Ação ótima" in text[0]
