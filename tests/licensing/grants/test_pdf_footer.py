"""The running footer of the grant PDFs as a person and a phone see it: the QR code is a PNG that
a reader decodes from a 150 dpi raster, "Página X de Y" counts the pages, the text stays
selectable and the file still declares PDF/UA."""

import base64
import io
import re
import shutil
import subprocess

import pytest
from pypdf import PdfReader

import licensing.grants.documents as documents
from licensing.grants.documents import _render_alvara, _render_authorization
from portal.pdf import qr_png_data_uri, verification_url
from tests.factories import UserFactory, VehicleFactory, issue_authorization

needs_poppler_zbar = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("pdftoppm", "pdftotext", "zbarimg")), reason="poppler-utils ou zbar ausentes")


def _decoded_qr(pdf: bytes, tmp_path) -> str:
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf)
    subprocess.run(["pdftoppm", "-r", "150", "-png", "-f", "1", "-l", "1", "-singlefile", str(path),
                    str(tmp_path / "page")], check=True)
    out = subprocess.run(["zbarimg", "-q", "--raw", str(tmp_path / "page.png")], capture_output=True, text=True)
    return out.stdout.strip()


def _text(pdf: bytes, tmp_path) -> str:
    path = tmp_path / "doc.pdf"
    path.write_bytes(pdf)
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout


def test_the_qr_is_a_png_with_enough_pixels_per_module():
    uri = qr_png_data_uri("https://exemplo.gov.br/verificar/ABCD-EFGH-JKLM/", module_px=4)
    assert uri.startswith("data:image/png;base64,")
    from PIL import Image

    image = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))
    assert image.format == "PNG" and image.size[0] == image.size[1] and image.size[0] % 4 == 0
    # grey, not 1-bit: WeasyPrint embeds it as /DeviceGray instead of converting it to RGB on every render
    assert image.mode == "L" and set(image.getdata()) == {0, 255}


@needs_poppler_zbar
@pytest.mark.django_db
def test_grant_pdfs_qr_decodes_at_150_dpi_and_count_pages(load_pack, tmp_path):
    load_pack("itagiba")
    holder = UserFactory(name="Maria Rodapé")
    auth, alvaras = issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder))
    for obj, pdf in ((auth, _render_authorization(auth)), (alvaras[0], _render_alvara(alvaras[0]))):
        assert _decoded_qr(pdf, tmp_path) == verification_url(obj.verification_code)
        text = _text(pdf, tmp_path)
        assert "Página 1 de 1" in text and obj.verification_code in text
        root = PdfReader(io.BytesIO(pdf)).trailer["/Root"]
        assert b"pdfuaid:part" in root["/Metadata"].get_object().get_data()  # still declares PDF/UA
        assert root["/MarkInfo"]["/Marked"] and "/StructTreeRoot" in root  # and is tagged


@needs_poppler_zbar
@pytest.mark.django_db
def test_page_count_on_a_grant_act_of_several_pages(load_pack, tmp_path, monkeypatch):
    """An act long enough for more pages (many auxiliary drivers) numbers each page of the total."""
    load_pack("itagiba")
    holder = UserFactory(name="Maria Rodapé")
    auth, _ = issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder))
    render = documents.render_pdf

    def with_many_auxiliaries(template, ctx):
        ctx["auxiliaries"] = [{"person": {"display_name": f"Condutor {i}"}} for i in range(60)]
        return render(template, ctx)

    monkeypatch.setattr(documents, "render_pdf", with_many_auxiliaries)
    pdf = _render_authorization(auth)
    text = _text(pdf, tmp_path)
    total = len(re.findall(r"Página \d+ de", text))
    assert total >= 2
    assert all(f"Página {n} de {total}" in text for n in range(1, total + 1))
    assert _decoded_qr(pdf, tmp_path) == verification_url(auth.verification_code)


@pytest.mark.django_db
def test_freezing_an_alvara_reads_what_it_prints_with_it(load_pack):
    """The worker freezes each alvará of a batch after the commit: the alvará, its person, grant,
    holder and vehicle come in one query, not one query each."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from licensing.grants.tasks import freeze_grant_document

    load_pack("itagiba")
    holder = UserFactory(name="Maria Rodapé")
    auth, alvaras = issue_authorization(holder=holder, vehicle=VehicleFactory(owner=holder))
    from portal.models import IssuedDocument

    # the test's transaction never commits: the on_commit freeze has not run, nothing is stored yet
    assert not IssuedDocument.objects.filter(kind="alvara").exists()
    with CaptureQueriesContext(connection) as queries:
        assert freeze_grant_document("alvara", alvaras[0].pk)
    reads = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    for table in ("portal_user", "fleet_vehicle", "licensing_authorization"):
        assert not any(re.match(rf'SELECT .* FROM "{table}"', sql) for sql in reads), table
    assert IssuedDocument.objects.filter(kind="alvara", object_id=str(alvaras[0].pk)).exists()


def test_render_pauses_the_garbage_collector_only_while_it_renders(monkeypatch):
    import gc

    from weasyprint import HTML

    from portal.pdf import render_pdf

    seen = []
    write_pdf = HTML.write_pdf

    def spy(self, *args, **kwargs):
        seen.append(gc.isenabled())
        return write_pdf(self, *args, **kwargs)

    monkeypatch.setattr(HTML, "write_pdf", spy)
    assert gc.isenabled()
    assert render_pdf("licensing/pdf/one_line.html", {}).startswith(b"%PDF")
    assert seen == [False] and gc.isenabled()
    gc.disable()  # someone else's choice is kept
    try:
        render_pdf("licensing/pdf/one_line.html", {})
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.django_db
def test_act_without_auxiliary_alvaras_names_the_latest_applications_auxiliaries(load_pack, monkeypatch):
    """With no auxiliary alvará yet, the act lists the auxiliary drivers of the grant's latest
    application (by position), read in one query with no other application's names."""
    from datetime import timedelta

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from licensing.models import Application, ApplicationAuxiliary

    load_pack("itagiba")
    holder = UserFactory(name="Maria Rodapé")
    vehicle = VehicleFactory(owner=holder)
    auth, _ = issue_authorization(holder=holder, vehicle=vehicle)
    now = timezone.now()
    older = Application.objects.create(applicant=holder, modality="taxi", status="in_review", protocol="2026/000101",
                                       submitted_at=now - timedelta(days=30), vehicle=vehicle, authorization=auth)
    latest = Application.objects.create(applicant=holder, modality="taxi", status="in_review", protocol="2026/000102",
                                        submitted_at=now, vehicle=vehicle, authorization=auth)
    ApplicationAuxiliary.objects.create(application=older, position=1, cpf="52998224725", name="Antigo", cnh_category="B")
    ApplicationAuxiliary.objects.create(application=latest, position=2, cpf="11144477735", name="Segundo", cnh_category="B")
    ApplicationAuxiliary.objects.create(application=latest, position=1, cpf="52998224725", name="Primeiro", cnh_category="B")
    seen = {}
    monkeypatch.setattr(documents, "render_pdf", lambda template, ctx: seen.update(ctx) or b"%PDF")
    with CaptureQueriesContext(connection) as queries:
        _render_authorization(auth)
    assert [a["person"]["display_name"] for a in seen["auxiliaries"]] == ["Primeiro", "Segundo"]
    reads = [q["sql"] for q in queries.captured_queries]
    assert sum('"licensing_applicationauxiliary"' in sql for sql in reads) == 1  # one query reads the names
    assert not any(sql.startswith('SELECT "licensing_application"."id"') for sql in reads)  # no separate read of the application
