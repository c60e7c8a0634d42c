"""Uploads are judged by their content: type sniffed, size and pixel limits, PDFs with scripts,
launch actions or embedded files refused, previews sandboxed (#16.5)."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from portal.uploads import sniff_upload


def _png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buf, format="PNG")
    return buf.getvalue()


def _jpeg() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (4, 4), "white").save(buf, format="JPEG")
    return buf.getvalue()


PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def test_accepts_pdf_png_jpeg():
    assert sniff_upload(PDF) == "application/pdf"
    assert sniff_upload(_png()) == "image/png"
    assert sniff_upload(_jpeg()) == "image/jpeg"


@pytest.mark.parametrize(
    "payload,code",
    [
        (b"", "empty"),
        (_png.__call__()[:16] + b"<html><script>alert(1)</script></html>", None),
        (b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', "type"),
        (b"<html><body>oi</body></html>", "type"),
        (b"MZ\x90\x00" + b"\x00" * 200, "type"),
        (PDF[:-7], "pdf"),
    ],
    ids=["empty", "png-header-then-html", "svg", "html-renamed-pdf", "executable", "truncated-pdf"],
)
def test_rejects_bad_uploads(payload, code):
    with pytest.raises(ValidationError) as exc:
        sniff_upload(payload)
    if code:
        assert exc.value.code == code
    assert exc.value.messages[0]


def test_size_limit_plus_one_byte(settings):
    settings.UPLOAD_MAX_BYTES = 1000
    at_limit = PDF + b" " * (1000 - len(PDF) - 7) + b"\n%%EOF\n"
    assert len(at_limit) == 1000
    assert sniff_upload(at_limit) == "application/pdf"
    with pytest.raises(ValidationError) as exc:
        sniff_upload(at_limit + b" ")
    assert exc.value.code == "too_large"


# --- #16.5 uploads ------------------------------------------------------------------------------


def _pdf(build=None) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    if build:
        build(writer)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def _open_action(action):
    from pypdf.generic import NameObject

    def build(writer):
        writer._root_object[NameObject("/OpenAction")] = writer._add_object(action())

    return build


def _launch():
    from pypdf.generic import DictionaryObject, NameObject, TextStringObject

    return DictionaryObject({NameObject("/S"): NameObject("/Launch"), NameObject("/F"): TextStringObject("calc.exe")})


def _bare_js():  # an action with /JS but no "/JavaScript" token anywhere in the file
    from pypdf.generic import DictionaryObject, NameObject, TextStringObject

    return DictionaryObject({NameObject("/S"): NameObject("/X"), NameObject("/JS"): TextStringObject("app.alert(1)")})


def _annotation_js(writer):
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        NameObject,
        NumberObject,
        TextStringObject,
    )

    action = DictionaryObject({NameObject("/S"): NameObject("/X"), NameObject("/JS"): TextStringObject("x()")})
    annot = DictionaryObject({
        NameObject("/Type"): NameObject("/Annot"), NameObject("/Subtype"): NameObject("/Link"),
        NameObject("/Rect"): ArrayObject([NumberObject(0), NumberObject(0), NumberObject(10), NumberObject(10)]),
        NameObject("/A"): action,
    })
    writer.pages[0][NameObject("/Annots")] = ArrayObject([writer._add_object(annot)])


def test_a_clean_pdf_is_accepted():
    assert sniff_upload(_pdf()) == "application/pdf"


@pytest.mark.parametrize(
    "build,words",
    [
        (lambda w: w.add_js("app.alert(1)"), "JavaScript"),
        (lambda w: w.add_attachment("virus.exe", b"MZ" + b"\0" * 100), "arquivos embutidos"),
        (_open_action(_launch), "abrem programas"),
        (_open_action(_bare_js), "JavaScript"),
        (_annotation_js, "JavaScript"),
    ],
    ids=["names-javascript", "embedded-file", "open-action-launch", "open-action-js", "annotation-js"],
)
def test_pdfs_with_scripts_launch_actions_or_embedded_files_are_refused_naming_the_field(build, words):
    with pytest.raises(ValidationError) as exc:
        sniff_upload(_pdf(build), label="CNH do condutor")
    assert exc.value.code == "pdf_active"
    message = exc.value.messages[0]
    assert "“CNH do condutor”" in message and words in message


def test_validate_upload_names_the_file_when_no_label_is_given():
    from django.core.files.uploadedfile import SimpleUploadedFile

    from portal.uploads import validate_upload

    with pytest.raises(ValidationError) as exc:
        validate_upload(SimpleUploadedFile("contrato.pdf", _pdf(lambda w: w.add_js("x()"))))
    assert "contrato.pdf" in exc.value.messages[0]


def test_images_over_the_pixel_limit_are_refused_before_decoding(settings, monkeypatch):
    from PIL import Image

    settings.UPLOAD_MAX_PIXELS = 10
    data = _png()  # 4 × 4 = 16 pixels

    def no_decoding(self, *a, **k):
        raise AssertionError("pixels decoded")

    monkeypatch.setattr(Image.Image, "load", no_decoding)
    with pytest.raises(ValidationError) as exc:
        sniff_upload(data, label="foto do veículo")
    assert exc.value.code == "pixels" and "foto do veículo" in exc.value.messages[0]
    settings.UPLOAD_MAX_PIXELS = 16
    monkeypatch.undo()
    assert sniff_upload(data) == "image/png"


@pytest.mark.django_db
def test_the_stored_name_follows_the_sniffed_type_not_the_clients_extension():
    from types import SimpleNamespace

    from django.core.files.uploadedfile import SimpleUploadedFile

    from licensing.models import ApplicationDocument
    from portal import tenancy
    from portal.uploads import private_upload_path

    with tenancy.activate((1, "m")):  # the stored name is under the municipality's folder
        name = private_upload_path("x")(SimpleNamespace(mime="application/pdf", municipality_id=1), "foto.png")
    assert name.startswith("m/x/") and name.endswith(".pdf")
    with tenancy.activate((1, "m")):
        doc = ApplicationDocument(file=SimpleUploadedFile("foto.png", PDF))
        assert doc.file.field.generate_filename(doc, "foto.png").endswith(".pdf")
        doc = ApplicationDocument(file=SimpleUploadedFile("documento.pdf", _png()))
        assert doc.file.field.generate_filename(doc, "documento.pdf").endswith(".png")


@pytest.mark.django_db
def test_a_body_over_the_limit_is_refused_before_it_is_read(alegre, settings):
    settings.REQUEST_MAX_BYTES = 100
    response = Client().post("/api/v1/accounts/", data="x" * 200, content_type="application/json")
    assert response.status_code == 413 and "grande demais" in response.json()["errors"]["non_field_errors"][0]
    assert Client().post(reverse("login"), {"username": "x" * 200}).status_code == 413


@pytest.mark.django_db
def test_sandboxed_preview_of_an_image_and_a_pdf(tmp_path, settings):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from portal.uploads import sandboxed_file_response

    class F:
        def __init__(self, name):
            self.name = name

        def open(self, mode):
            return default_storage.open(self.name, mode)

    name = default_storage.save("t/preview.png", ContentFile(_png()))
    response = sandboxed_file_response(F(name), "foto.png")
    assert "sandbox" in response["Content-Security-Policy"] and response["Content-Type"] == "image/png"
    name = default_storage.save("t/preview.pdf", ContentFile(PDF))
    pdf = sandboxed_file_response(F(name), "doc.pdf")
    assert "frame-ancestors 'self'" in pdf["Content-Security-Policy"] and pdf["X-Content-Type-Options"] == "nosniff"
