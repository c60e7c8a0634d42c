"""Security of the portal (#16): headers, CSRF, lockout by account, client IP behind proxies, API
tokens, sessions, Redis as a cache, smaller leaks, staff second factor (uploads: test_security_uploads)."""

import pytest
from django.test import Client
from django.urls import reverse


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


def test_an_address_is_parsed_once_and_a_long_forwarded_for_is_not_kept(rf, settings):
    """The parsed addresses are remembered (every throttled request parses its own); a header
    the client filled with a long string is refused as an address and never remembered."""
    from portal.client_ip import _parsed_ip, client_ip

    settings.TRUSTED_PROXY_COUNT = 1
    _parsed_ip.cache_clear()
    assert client_ip(_request(rf, xff="203.0.113.7:5123")) == "203.0.113.7"
    assert client_ip(_request(rf, xff="203.0.113.7:5123")) == "203.0.113.7"
    assert _parsed_ip.cache_info().hits >= 1
    kept = _parsed_ip.cache_info().currsize
    assert client_ip(_request(rf, xff="1" * 5000)) == "10.0.0.2"  # not an address: the peer
    assert client_ip(_request(rf, xff="[2001:db8::1]:443")) == "2001:db8::1"
    assert _parsed_ip.cache_info().currsize == kept + 1  # the IPv6 one, not the 5.000 characters


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


# --- #16.6 Redis is a cache, not a dependency of login ------------------------------------------

DEAD_REDIS = {"default": {"BACKEND": "portal.cache.ResilientRedisCache", "LOCATION": "redis://127.0.0.1:6390/0"}}


@pytest.mark.django_db
def test_with_redis_down_login_signup_verification_and_quote_keep_working(api, alegre, clerk, settings, caplog):
    from tests.portal.test_accounts import SIGNUP

    settings.CACHES = DEAD_REDIS
    from django.core.cache import cache

    assert cache.get("x") is None and cache.add("k", 1, 10) and cache.incr("k") == 2  # falls back
    c = Client()
    response = c.post(reverse("login"), {"username": "atendente1", "password": "senha-forte-123"})
    assert response.status_code == 302 and "_auth_user_id" in c.session
    assert api().post("/api/v1/auth/token/", {"username": "atendente1", "password": "senha-forte-123"},
                      format="json").status_code == 200
    assert api().post("/api/v1/auth/token/", {"username": "atendente1", "password": "errada"},
                      format="json").status_code == 401
    assert api().post("/api/v1/accounts/", SIGNUP, format="json").status_code == 201
    assert Client().get("/api/v1/verify/ZZZZ-ZZZZ-ZZZZ/").status_code == 404
    assert Client().get(reverse("public-verify")).status_code == 200
    assert Client().get("/api/v1/fares/quote/", {"modality": "taxi", "km": "10"}).status_code == 200
    assert any("Redis indisponível" in r.getMessage() for r in caplog.records)


@pytest.mark.django_db
def test_healthz_shows_redis(client, alegre, settings):
    # without Redis configured (CI sets REDIS_URL: state the local-memory cache explicitly)
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    body = client.get(reverse("healthz")).json()
    assert body["status"] == "ok" and body["redis"] == "not_configured" and body["database"] == "ok"
    settings.CACHES = DEAD_REDIS
    response = client.get(reverse("healthz"))
    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "database": "ok", "redis": "down"}


@pytest.mark.django_db
def test_healthz_with_redis_up(client, alegre, settings):
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url("redis://127.0.0.1:6379/15", socket_connect_timeout=0.5).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("Redis ausente em 127.0.0.1:6379")
    settings.CACHES = {"default": {"BACKEND": "portal.cache.ResilientRedisCache", "LOCATION": "redis://127.0.0.1:6379/15"}}
    assert client.get(reverse("healthz")).json()["redis"] == "ok"


# --- #16.7 smaller leaks --------------------------------------------------------------------------


@pytest.mark.django_db
def test_password_reset_answers_the_same_for_known_and_unknown_emails_and_sends_in_background(
    alegre, clerk, monkeypatch, mailoutbox
):
    from portal import tasks

    queued = []
    monkeypatch.setattr(tasks.send_password_reset, "delay", lambda *a: queued.append(a))
    answers = []
    for email in ("atendente1@example.org", "ninguem@example.org"):
        response = Client().post(reverse("password_reset"), {"email": email})
        answers.append((response.status_code, response["Location"]))
    assert answers[0] == answers[1] == (302, reverse("password_reset_done"))
    assert [q[0] for q in queued] == ["atendente1@example.org", "ninguem@example.org"]
    assert mailoutbox == []  # nothing sent (nor looked up) during the request
    assert tasks.send_password_reset(*queued[1]) == 0 and mailoutbox == []
    assert tasks.send_password_reset(*queued[0]) == 1
    assert len(mailoutbox) == 1 and "/conta/recuperar/" in mailoutbox[0].body


@pytest.mark.django_db
def test_password_reset_without_a_broker_still_answers_and_sends(alegre, clerk, monkeypatch, mailoutbox):
    import threading

    from portal import tasks

    def broken(*a):
        raise ConnectionError("broker down")

    started = []
    monkeypatch.setattr(tasks.send_password_reset, "delay", broken)
    monkeypatch.setattr(threading, "Thread", lambda target, args, daemon: started.append((target, args)) or
                        type("T", (), {"start": lambda self: None})())
    response = Client().post(reverse("password_reset"), {"email": "atendente1@example.org"})
    assert response.status_code == 302 and len(started) == 1


@pytest.mark.django_db
def test_signup_does_not_confirm_that_a_cpf_or_email_is_registered_and_warns_the_owner(
    api, alegre, applicant, mailoutbox, django_capture_on_commit_callbacks
):
    from tests.portal.test_accounts import SIGNUP

    with django_capture_on_commit_callbacks(execute=True):
        taken_cpf = api().post("/api/v1/accounts/", {**SIGNUP, "cpf": applicant.cpf}, format="json")
        taken_email = api().post("/api/v1/accounts/", {**SIGNUP, "email": applicant.email.upper()}, format="json")
    for response in (taken_cpf, taken_email):
        assert response.status_code == 400
        text = str(response.json())
        assert "Já existe" not in text and "Não foi possível concluir o cadastro" in text
    assert "cpf" in taken_cpf.json()["errors"]
    with django_capture_on_commit_callbacks(execute=True):
        again = api().post("/api/v1/accounts/", {**SIGNUP, "cpf": applicant.cpf}, format="json")
    assert again.status_code == 400
    warned = [m for m in mailoutbox if applicant.email in m.to]
    assert len(warned) == 1 and "Tentativa de cadastro" in warned[0].subject  # once a day


@pytest.mark.django_db
def test_html_signup_with_a_taken_cpf_shows_the_generic_message(client, alegre, applicant):
    data = {"name": "Carol", "cpf": "529.982.247-25", "birth_date": "01/05/1990", "email": "c@example.org",
            "password": "taxi-seguro-2026", "password2": "taxi-seguro-2026"}
    body = client.post(reverse("signup"), data).content.decode()
    assert "Não foi possível concluir o cadastro" in body and "Já existe" not in body


# --- #16.8 staff second factor ---------------------------------------------------------------------


def _totp(device) -> str:
    from django_otp.oath import totp

    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits, drift=device.drift):06d}"


def _password_login(client, username):
    response = client.post(reverse("login"), {"username": username, "password": "senha-forte-123"})
    assert response.status_code == 302
    return response


@pytest.mark.django_db
def test_staff_enrol_a_totp_app_after_the_password_and_then_reach_their_pages(alegre, clerk, settings):
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from portal.models import AuditEntry

    settings.STAFF_2FA_REQUIRED = True
    c = Client()
    _password_login(c, "atendente1")
    response = c.get(reverse("dashboard"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("second-factor-setup"))
    page = c.get(response["Location"])
    assert page.status_code == 200 and "data:image/svg+xml;base64," in page.content.decode()
    device = TOTPDevice.objects.get(user=clerk, confirmed=False)
    assert "otpauth://totp/" in device.config_url
    assert c.post(reverse("second-factor-setup"), {"code": "000000"}).status_code == 400
    device.refresh_from_db()
    device.throttle_reset()  # django-otp slows down guesses after a wrong code
    done = c.post(reverse("second-factor-setup"), {"code": _totp(device), "next": reverse("dashboard")})
    assert done.status_code == 302 and done["Location"] == reverse("dashboard")
    assert c.get(reverse("dashboard")).status_code == 200
    assert AuditEntry.objects.filter(action="second_factor_enrolled", object_id=str(clerk.pk)).exists()


@pytest.mark.django_db
def test_enrolled_staff_type_the_code_after_the_password_admin_included(alegre, admin_user, settings):
    from django_otp.plugins.otp_totp.models import TOTPDevice

    settings.STAFF_2FA_REQUIRED = True
    device = TOTPDevice.objects.create(user=admin_user, name="app", confirmed=True)
    c = Client()
    c.post("/admin/login/?next=/admin/", {"username": "admin1", "password": "senha-forte-123"})
    response = c.get("/admin/")
    assert response.status_code == 302 and response["Location"].startswith(reverse("second-factor-verify"))
    assert c.get(reverse("dashboard"))["Location"].startswith(reverse("second-factor-verify"))
    assert c.get("/api/v1/me/").status_code == 403
    wrong = c.post(reverse("second-factor-verify"), {"code": "123456", "next": "/admin/"})
    assert wrong.status_code == 400 and "Código incorreto" in wrong.content.decode()
    device.throttle_reset()
    ok = c.post(reverse("second-factor-verify"), {"code": _totp(device), "next": "/admin/"})
    assert ok.status_code == 302 and ok["Location"] == "/admin/"
    assert c.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_applicants_need_no_second_factor_and_it_is_off_by_default_in_tests(alegre, applicant, clerk, settings):
    assert settings.STAFF_2FA_REQUIRED is False
    c = Client()
    _password_login(c, "atendente1")
    assert c.get(reverse("dashboard")).status_code == 200
    settings.STAFF_2FA_REQUIRED = True
    c = Client()
    _password_login(c, "52998224725")
    assert c.get(reverse("dashboard")).status_code == 200


@pytest.mark.django_db
def test_token_endpoint_asks_staff_for_the_code(api, alegre, clerk, applicant, settings):
    from django_otp.plugins.otp_totp.models import TOTPDevice

    settings.STAFF_2FA_REQUIRED = True
    creds = {"username": "atendente1", "password": "senha-forte-123"}
    not_enrolled = api().post("/api/v1/auth/token/", creds, format="json")
    assert not_enrolled.status_code == 403 and "otp" in not_enrolled.json()["errors"]
    device = TOTPDevice.objects.create(user=clerk, name="app", confirmed=True)
    missing = api().post("/api/v1/auth/token/", creds, format="json")
    assert missing.status_code == 401 and "otp" in missing.json()["errors"]
    wrong = api().post("/api/v1/auth/token/", {**creds, "otp": "000000"}, format="json")
    assert wrong.status_code == 401
    device.refresh_from_db()
    device.throttle_reset()
    ok = api().post("/api/v1/auth/token/", {**creds, "otp": _totp(device)}, format="json")
    assert ok.status_code == 200 and "token" in ok.json()
    person = api().post("/api/v1/auth/token/", {"username": "52998224725", "password": "senha-forte-123"}, format="json")
    assert person.status_code == 200


@pytest.mark.django_db
def test_role_grants_logins_and_password_changes_are_audited(web, alegre, clerk, admin_user):
    from portal.models import AuditEntry, Municipality, StaffAssignment

    assert AuditEntry.objects.filter(action="role_granted", object_id=str(clerk.pk), to_state="atendente").exists()
    c = Client()
    _password_login(c, "atendente1")
    assert AuditEntry.objects.filter(action="login", object_id=str(clerk.pk)).exists()
    admin = web(admin_user)
    municipality = Municipality.objects.get(slug="alegre")
    response = admin.post("/admin/portal/staffassignment/add/", {
        "user": clerk.pk, "municipality": municipality.pk, "role": "julgador", "reason": "Portaria 12/2026",
    })
    assert response.status_code == 302, response.context["adminform"].errors if response.context else response
    grant = AuditEntry.objects.filter(action="role_granted", object_id=str(clerk.pk), to_state="julgador").first()
    assert grant is not None and grant.actor_id == admin_user.pk and grant.data["municipality"] == "alegre"
    assignment = StaffAssignment.objects.get(user=clerk, role="atendente", revoked_at__isnull=True)
    response = admin.post(f"/admin/portal/staffassignment/{assignment.pk}/change/", {"revoked_reason": "Exonerada"})
    assert response.status_code == 302
    revoked = AuditEntry.objects.get(action="role_revoked", object_id=str(clerk.pk), from_state="atendente")
    assert revoked.actor_id == admin_user.pk and revoked.reason == "Exonerada"
    assignment.refresh_from_db()
    assert assignment.revoked_at is not None and assignment.revoked_by_id == admin_user.pk  # kept, not deleted


def test_admin_path_is_a_setting():
    from django.conf import settings

    assert settings.ADMIN_URL == "admin/"
    assert reverse("admin:index") == "/" + settings.ADMIN_URL


@pytest.mark.django_db
def test_the_token_endpoint_is_not_blocked_for_a_password_only_staff_session(alegre, clerk, settings):
    settings.STAFF_2FA_REQUIRED = True
    c = Client()
    _password_login(c, "atendente1")
    response = c.post("/api/v1/auth/token/", {"username": "atendente1", "password": "senha-forte-123"},
                      content_type="application/json")
    assert response.status_code == 403 and "otp" in response.json()["errors"]  # not enrolled: the endpoint's answer
