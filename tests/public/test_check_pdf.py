"""Conferir um PDF: an uploaded file is the issued document only if its bytes are exactly those
issued (SHA-256 of the stored PDF); judged by content, size-capped, throttled, never stored."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from licensing.grants.documents import authorization_pdf
from portal.issued import sha256_hex
from portal.models import IssuedDocument
from tests.factories import issue_authorization

URL = "/verificar/conferir-pdf/"


def _upload(client, data: bytes, name: str = "ato.pdf"):
    return client.post(URL, {"pdf": SimpleUploadedFile(name, data, content_type="application/pdf")})


@pytest.mark.django_db
def test_the_exact_pdf_is_recognised_with_signer_and_hash(itagiba, client):
    auth, _ = issue_authorization()
    pdf = authorization_pdf(auth)
    r = _upload(client, pdf)
    page = r.content.decode()
    assert r.status_code == 200, page
    assert "idêntico ao documento emitido" in page and auth.number in page
    assert sha256_hex(pdf) in page and IssuedDocument.objects.get(kind="authorization").signer in page
    assert auth.verification_code in page and r["Cache-Control"] == "private, no-store"


@pytest.mark.django_db
def test_one_changed_byte_is_not_the_issued_document(itagiba, client):
    auth, _ = issue_authorization()
    pdf = authorization_pdf(auth)
    pos = len(pdf) // 2
    tampered = pdf[:pos] + bytes([pdf[pos] ^ 0x01]) + pdf[pos + 1:]
    r = _upload(client, tampered)
    page = r.content.decode()
    assert r.status_code == 404
    assert "não é idêntico" in page and sha256_hex(tampered) in page and auth.number not in page
    assert IssuedDocument.objects.count() == 1  # nothing stored


@pytest.mark.django_db
def test_not_a_pdf_or_too_large_is_refused_by_content(itagiba, client, settings):
    r = _upload(client, b"\x89PNG\r\n\x1a\n" + b"0" * 100, name="ato.pdf")
    assert r.status_code == 400 and "PDF" in r.content.decode()
    settings.UPLOAD_MAX_BYTES = 1000
    r = _upload(client, b"%PDF-1.7\n" + b"0" * 2000 + b"\n%%EOF\n")
    assert r.status_code == 400 and "mais de" in r.content.decode()
    assert client.post(URL, {}).status_code == 400


@pytest.mark.django_db
def test_uploads_are_throttled(itagiba, client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "verify_pdf": "2/min"}}
    for _ in range(2):
        assert _upload(client, b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n").status_code in (400, 404)
    assert _upload(client, b"%PDF-1.7\n%%EOF\n").status_code == 429


@pytest.mark.django_db
def test_the_verification_page_offers_the_check(itagiba, client):
    page = client.get("/verificar/").content.decode()
    assert "Conferir um PDF" in page and URL in page
    assert client.get(URL).status_code == 200
