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


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/conta/entrar/", "/legislacao/", "/api/v1/me/"])
def test_security_headers_on_every_response(client, alegre, path):
    response = client.get(path)
    csp = response["Content-Security-Policy"]
    assert "object-src 'none'" in csp and "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"


@pytest.mark.django_db
def test_login_and_signup_refuse_post_without_csrf(alegre):
    client = Client(enforce_csrf_checks=True)
    assert client.post(reverse("login"), {"username": "x", "password": "y"}).status_code == 403
    assert client.post(reverse("signup"), {}).status_code == 403
