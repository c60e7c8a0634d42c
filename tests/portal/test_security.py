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


# --- #16.1 the lockout counts an account, not a spelling ------------------------------------

ALICE_SPELLINGS = ["529.982.247-25", "52998224725", "52998224725@EXAMPLE.org"]


@pytest.mark.django_db
def test_html_login_lockout_is_not_defeated_by_spelling_the_cpf_differently(alegre, applicant, settings):
    settings.AXES_FAILURE_LIMIT = 3
    client = Client()
    for spelling in ALICE_SPELLINGS:
        client.post(reverse("login"), {"username": spelling, "password": "errada"})
    response = client.post(reverse("login"), {"username": "529 982 247 25", "password": "senha-forte-123"})
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_token_lockout_is_not_defeated_by_spelling_the_cpf_or_email_differently(api, alegre, applicant, settings):
    settings.AXES_FAILURE_LIMIT = 3
    for spelling in ALICE_SPELLINGS:
        api().post("/api/v1/auth/token/", {"username": spelling, "password": "errada"}, format="json")
    locked = api().post(
        "/api/v1/auth/token/", {"username": "52998224725@example.org", "password": "senha-forte-123"}, format="json"
    )
    assert locked.status_code == 429 and "token" not in locked.json()


@pytest.mark.django_db
def test_admin_login_lockout_is_not_defeated_by_case_or_spaces(alegre, admin_user, settings):
    settings.AXES_FAILURE_LIMIT = 3
    client = Client()
    for spelling in ["admin1", " admin1", "ADMIN1"]:
        client.post("/admin/login/", {"username": spelling, "password": "errada"})
    response = client.post("/admin/login/", {"username": "admin1", "password": "senha-forte-123"})
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_unknown_identifiers_are_counted_in_a_normalised_form(rf):
    from portal.auth import lockout_username

    request = rf.post("/conta/entrar/")
    assert lockout_username(request, {"username": "390.533.447-05"}) == "39053344705"
    assert lockout_username(request, {"username": " Carol@Example.ORG "}) == "carol@example.org"
    assert lockout_username(request, {"username": "Fulano"}) == "fulano"


# --- #16.2 the client IP behind a proxy ---------------------------------------------------------


def _request(rf, xff=None, remote="10.0.0.2"):
    extra = {"REMOTE_ADDR": remote}
    if xff is not None:
        extra["HTTP_X_FORWARDED_FOR"] = xff
    return rf.get("/api/v1/fares/quote/", **extra)


def test_spoofed_forwarded_for_is_ignored_without_a_trusted_proxy(rf, settings):
    from portal.client_ip import client_ip
    from portal.throttling import PortalScopedRateThrottle

    settings.TRUSTED_PROXY_COUNT = 0
    request = _request(rf, xff="1.2.3.4")
    assert client_ip(request) == "10.0.0.2"
    assert PortalScopedRateThrottle().get_ident(request) == "10.0.0.2"


def test_with_one_trusted_proxy_the_right_most_address_is_the_client(rf, settings):
    from portal.client_ip import client_ip
    from portal.throttling import PortalScopedRateThrottle

    settings.TRUSTED_PROXY_COUNT = 1
    spoofed = _request(rf, xff="1.2.3.4, 203.0.113.7")  # the client wrote 1.2.3.4; the proxy added .7
    assert client_ip(spoofed) == "203.0.113.7"
    assert PortalScopedRateThrottle().get_ident(spoofed) == "203.0.113.7"
    assert client_ip(_request(rf)) == "10.0.0.2"  # no header: the peer
    assert client_ip(_request(rf, xff="lixo")) == "10.0.0.2"  # garbage: the peer


def test_drf_throttles_of_other_apps_do_not_trust_forwarded_for_by_default(rf):
    from rest_framework.settings import api_settings
    from rest_framework.throttling import BaseThrottle

    assert api_settings.NUM_PROXIES == 0
    assert BaseThrottle().get_ident(_request(rf, xff="1.2.3.4")) == "10.0.0.2"


@pytest.mark.django_db
def test_lockout_ip_ignores_a_spoofed_forwarded_for(alegre, clerk, settings):
    """With no trusted proxy a client rotating X-Forwarded-For is still one address for axes."""
    from axes.models import AccessAttempt

    settings.AXES_FAILURE_LIMIT = 3
    settings.TRUSTED_PROXY_COUNT = 0
    client = Client()
    for i in range(3):
        client.post(reverse("login"), {"username": "atendente1", "password": "errada"},
                    HTTP_X_FORWARDED_FOR=f"198.51.100.{i}")
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.1"}
    response = client.post(reverse("login"), {"username": "atendente1", "password": "senha-forte-123"},
                           HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert response.status_code == 429


# --- #16.3 API tokens expire and can be revoked --------------------------------------------------


def _token(api, username="atendente1", password="senha-forte-123"):  # noqa: S107
    response = api().post("/api/v1/auth/token/", {"username": username, "password": password}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def _me(api, key):
    return api().get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {key}")


@pytest.mark.django_db
def test_token_expires_by_role_and_an_expired_token_is_a_portuguese_401(api, alegre, clerk, applicant, settings):
    from datetime import timedelta

    from django.utils import timezone

    from portal.models import ApiToken

    settings.API_TOKEN_TTL_STAFF_HOURS = 8
    settings.API_TOKEN_TTL_APPLICANT_DAYS = 30
    staff = _token(api)
    assert set(staff) == {"token", "expires_at"}
    person = _token(api, "52998224725")
    now = timezone.now()
    staff_row = ApiToken.objects.get(user=clerk)
    assert abs((staff_row.expires_at - now) - timedelta(hours=8)) < timedelta(minutes=1)
    assert abs((ApiToken.objects.get(user=applicant).expires_at - now) - timedelta(days=30)) < timedelta(minutes=1)
    assert staff_row.key_digest != staff["token"] and staff["token"] not in str(ApiToken.objects.values_list())
    assert _me(api, staff["token"]).status_code == 200
    assert _me(api, person["token"]).status_code == 200
    ApiToken.objects.filter(pk=staff_row.pk).update(expires_at=now - timedelta(seconds=1))
    expired = _me(api, staff["token"])
    assert expired.status_code == 401
    assert "expirado" in expired.json()["errors"]["detail"][0]


@pytest.mark.django_db
def test_delete_revokes_the_callers_token_only(api, alegre, clerk):
    first, second = _token(api)["token"], _token(api)["token"]
    response = api().delete("/api/v1/auth/token/", HTTP_AUTHORIZATION=f"Token {first}")
    assert response.status_code == 204
    assert _me(api, first).status_code == 401
    assert _me(api, second).status_code == 200
    assert api().delete("/api/v1/auth/token/").status_code == 401
    assert api().delete("/api/v1/auth/token/", HTTP_AUTHORIZATION=f"Token {first}").status_code == 401


@pytest.mark.django_db
def test_a_password_change_revokes_tokens_and_is_audited(api, web, alegre, clerk):
    from portal.models import AuditEntry

    key = _token(api)["token"]
    c = web(clerk)
    response = c.post(reverse("password_change"), {
        "old_password": "senha-forte-123", "new_password1": "outra-senha-2026", "new_password2": "outra-senha-2026",
    })
    assert response.status_code == 302
    assert _me(api, key).status_code == 401
    assert AuditEntry.objects.filter(action="password_changed", object_id=str(clerk.pk)).exists()


@pytest.mark.django_db
def test_a_password_reset_revokes_tokens(api, alegre, clerk):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    key = _token(api)["token"]
    clerk.refresh_from_db()  # signing in for the token set last_login, part of the reset token
    uid = urlsafe_base64_encode(force_bytes(clerk.pk))
    c = Client()
    r = c.get(reverse("password_reset_confirm", args=[uid, default_token_generator.make_token(clerk)]))
    assert r.status_code == 302
    r = c.post(r["Location"], {"new_password1": "outra-senha-2026", "new_password2": "outra-senha-2026"})
    assert r.status_code == 302, r.content
    assert _me(api, key).status_code == 401


@pytest.mark.django_db
def test_logout_revokes_tokens(api, alegre, clerk):
    key = _token(api)["token"]
    c = Client()
    c.post(reverse("login"), {"username": "atendente1", "password": "senha-forte-123"})
    assert c.post(reverse("logout")).status_code == 302
    assert _me(api, key).status_code == 401


@pytest.mark.django_db
def test_access_page_lists_active_tokens_and_revokes_one(api, web, alegre, clerk, applicant):
    key = _token(api)["token"]
    _me(api, key)
    c = web(clerk)
    page = c.get(reverse("api-tokens"))
    assert page.status_code == 200
    body = page.content.decode()
    assert key[:8] in body and key not in body and "Revogar" in body
    from portal.models import ApiToken

    token = ApiToken.objects.get(user=clerk)
    assert token.last_used_at is not None
    assert web(applicant).post(reverse("api-token-revoke", args=[token.pk])).status_code == 404
    assert _me(api, key).status_code == 200
    assert c.post(reverse("api-token-revoke", args=[token.pk])).status_code == 302
    assert _me(api, key).status_code == 401
    assert key[:8] not in c.get(reverse("api-tokens")).content.decode()


# --- #16.4 sessions and caching headers -----------------------------------------------------------


@pytest.mark.django_db
def test_a_busy_session_still_ends_after_its_absolute_lifetime(alegre, clerk, settings):
    settings.SESSION_ABSOLUTE_HOURS = 12
    settings.SESSION_IDLE_TIMEOUT = 1800
    c = Client()
    c.post(reverse("login"), {"username": "atendente1", "password": "senha-forte-123"})
    assert c.get(reverse("dashboard")).status_code == 200
    session = c.session
    session["auth_started"] -= 12 * 3600 + 60  # logged in 12 h ago, active a moment ago
    session.save()
    response = c.get(reverse("dashboard"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert "tempo máximo" in c.get(reverse("login")).content.decode()


@pytest.mark.django_db
def test_no_store_for_signed_in_pages_and_token_api_calls(api, web, alegre, clerk):
    assert "no-store" in web(clerk).get(reverse("dashboard"))["Cache-Control"]
    assert "no-store" in web(clerk).get(reverse("home"))["Cache-Control"]
    key = _token(api)["token"]
    assert "no-store" in _me(api, key)["Cache-Control"]
    assert "no-store" in Client().get(reverse("password_reset"))["Cache-Control"]
    anonymous = Client().get(reverse("legislation"))
    assert "no-store" not in anonymous.get("Cache-Control", "")


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/conta/entrar/", "/api/v1/me/"])
def test_permissions_policy_on_every_response(client, alegre, path):
    policy = client.get(path)["Permissions-Policy"]
    assert "camera=()" in policy and "microphone=()" in policy and "geolocation=()" in policy
