"""Second factor (TOTP, django-otp) for staff roles and the admin.

With STAFF_2FA_REQUIRED on (the default outside DEBUG and the tests) a member of staff
(atendente, agente, julgador, admin, or a Django staff/superuser) who signed in with the
password is sent to enrol an authenticator app (a QR code of the otpauth URI) or to type its
6-digit code before any other page, the admin included; the API's token endpoint asks the
same code in the field ``otp``. Enrolments and verifications are recorded in the audit.
"""

from __future__ import annotations

import contextvars

from django import forms
from django.conf import settings
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import View

# Who is acting in this request (for audit entries written by signals, e.g. role grants).
current_actor: contextvars.ContextVar = contextvars.ContextVar("portal_current_actor", default=None)

REQUIRED_MESSAGE = "Confirme o segundo fator (código do aplicativo autenticador) para continuar."
OTP_MISSING = "Informe o código de 6 dígitos do aplicativo autenticador no campo otp."
OTP_NOT_ENROLLED = "Cadastre o segundo fator (aplicativo autenticador) no portal antes de usar a API."
WRONG_CODE = "Código incorreto ou expirado. Confira o relógio do celular e digite o código atual."


def needs_second_factor(user) -> bool:
    """Is a second factor required of this person (setting on, staff role)?"""
    if not getattr(settings, "STAFF_2FA_REQUIRED", False) or not getattr(user, "is_authenticated", False):
        return False
    from portal.roles import is_staff_member

    return bool(user.is_staff or user.is_superuser or is_staff_member(user))


def confirmed_device(user):
    from django_otp.plugins.otp_totp.models import TOTPDevice

    return TOTPDevice.objects.filter(user=user, confirmed=True).order_by("pk").first()


def check_code(user, code: str):
    """The confirmed device that accepts ``code`` (throttled by django-otp), or None."""
    code = (code or "").strip().replace(" ", "")
    if not code.isdigit():
        return None
    from django_otp import match_token

    return match_token(user, code)


def _exempt_paths() -> tuple[str, ...]:
    return (
        reverse("second-factor-setup"), reverse("second-factor-verify"), reverse("logout"),
        reverse("api-token"),  # asks the code itself (field otp)
        settings.STATIC_URL, "/healthz/", "/favicon.ico", "/robots.txt",
    )


class StaffSecondFactorMiddleware:
    """After django_otp.middleware.OTPMiddleware: staff signed in with only the password go to
    the enrolment or the verification page (the API answers 403)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        token = current_actor.set(user)
        try:
            if user is not None and needs_second_factor(user) and not user.is_verified():
                if not request.path.startswith(_exempt_paths()):
                    if request.path.startswith("/api/"):
                        return JsonResponse({"errors": {"detail": [REQUIRED_MESSAGE]}, "detail": REQUIRED_MESSAGE},
                                            status=403)
                    target = "second-factor-verify" if confirmed_device(user) else "second-factor-setup"
                    from urllib.parse import urlencode

                    return redirect(f"{reverse(target)}?{urlencode({'next': request.get_full_path()})}")
            return self.get_response(request)
        finally:
            current_actor.reset(token)


class CodeForm(forms.Form):
    code = forms.CharField(
        label="Código do aplicativo", max_length=10,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "one-time-code", "autofocus": True, "class": "form-control"}),
        error_messages={"required": "Informe o código de 6 dígitos do aplicativo autenticador."},
    )


def _next(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                  require_https=request.is_secure()):
        return target
    return reverse("dashboard")


class SecondFactorSetupView(LoginRequiredMixin, View):
    """Enrol an authenticator app: QR code of the otpauth URI (and the key for typing), then a code."""

    template_name = "registration/second_factor_setup.html"

    def _device(self, request):
        from django_otp.plugins.otp_totp.models import TOTPDevice

        device = TOTPDevice.objects.filter(user=request.user, confirmed=False).order_by("pk").first()
        if device is None:
            device = TOTPDevice.objects.create(user=request.user, name="Aplicativo autenticador", confirmed=False)
        return device

    def _render(self, request, device, form, status=200):
        import base64

        from portal.pdf import qr_svg_data_uri

        secret = base64.b32encode(device.bin_key).decode()
        return render(request, self.template_name, {
            "form": form, "qr": qr_svg_data_uri(device.config_url),
            "secret": " ".join(secret[i:i + 4] for i in range(0, len(secret), 4)),
            "next": _next(request), "enrolled": confirmed_device(request.user) is not None,
        }, status=status)

    def get(self, request):
        return self._render(request, self._device(request), CodeForm())

    def post(self, request):
        from django_otp import login as otp_login

        from portal.audit import audit_log

        device = self._device(request)
        form = CodeForm(request.POST)
        if form.is_valid():
            code = form.cleaned_data["code"].strip().replace(" ", "")
            if code.isdigit() and device.verify_token(code):
                device.confirmed = True
                device.save(update_fields=["confirmed"])
                otp_login(request, device)
                audit_log(actor=request.user, obj=request.user, action="second_factor_enrolled",
                          reason="Aplicativo autenticador cadastrado")
                return redirect(_next(request))
            form.add_error("code", WRONG_CODE)
        return self._render(request, device, form, status=400)


class SecondFactorVerifyView(LoginRequiredMixin, View):
    template_name = "registration/second_factor_verify.html"

    def get(self, request):
        if confirmed_device(request.user) is None:
            return redirect(f"{reverse('second-factor-setup')}?next={_next(request)}")
        return render(request, self.template_name, {"form": CodeForm(), "next": _next(request)})

    def post(self, request):
        from django_otp import login as otp_login

        from portal.audit import audit_log

        form = CodeForm(request.POST)
        if form.is_valid():
            device = check_code(request.user, form.cleaned_data["code"])
            if device is not None:
                otp_login(request, device)
                audit_log(actor=request.user, obj=request.user, action="second_factor_verified",
                          reason="Entrada confirmada com o segundo fator")
                return redirect(_next(request))
            form.add_error("code", WRONG_CODE)
        return render(request, self.template_name, {"form": form, "next": _next(request)}, status=400)
