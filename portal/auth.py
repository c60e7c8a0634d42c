"""Login by username, CPF or e-mail, and the identity the lockout counts failures against."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from portal.validators import only_digits

# A CPF as people type it: digits with or without dots, hyphen and spaces.
_CPF_SPELLING = re.compile(r"\s*[\d.\-\s/]+\s*")


def find_login_user(identifier: str):
    """The account a login identifier names: exact username, else CPF (any punctuation), else
    e-mail (any case). The same lookup serves the login and the lockout's count."""
    if not identifier:
        return None
    User = get_user_model()
    user = User.objects.filter(username=identifier).first()
    stripped = identifier.strip()
    if user is None and stripped != identifier:
        user = User.objects.filter(username=stripped).first()
    digits = only_digits(identifier)
    if user is None and len(digits) == 11:
        user = User.objects.filter(cpf=digits).first()
    if user is None and "@" in identifier:
        user = User.objects.filter(email__iexact=stripped).order_by("pk").first()
    return user


def normalize_login_identifier(identifier: str) -> str:
    """A spelling-independent form of an identifier that names no account (so that an attacker
    trying spellings of an unknown CPF or e-mail is counted once too)."""
    value = (identifier or "").strip()
    digits = only_digits(value)
    if len(digits) == 11 and _CPF_SPELLING.fullmatch(value):
        return digits
    return value.lower()


def lockout_username(request, credentials=None) -> str:
    """AXES_USERNAME_CALLABLE: failures are counted per account, whatever its spelling.

    "529.982.247-25", "52998224725" and "Alice@Example.org" of the same person are one
    identity (the account's username); an identifier that names no account is counted in a
    normalised form (CPF digits, lower-cased e-mail or username)."""
    from django.conf import settings

    field = getattr(settings, "AXES_USERNAME_FORM_FIELD", "username")
    raw = None
    if credentials:
        raw = credentials.get(field)
    if raw is None and request is not None:
        post = getattr(request, "POST", None)
        if post is not None:
            raw = post.get(field)
        if raw is None and hasattr(request, "data"):  # a DRF request
            try:
                raw = request.data.get(field)
            except Exception:  # noqa: BLE001 - not a mapping: no username
                raw = None
    if not isinstance(raw, str) or not raw:
        return ""
    user = find_login_user(raw)
    if user is not None:
        return user.get_username()
    return normalize_login_identifier(raw)


class UsernameOrCpfBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None or password is None:
            return None
        user = find_login_user(username)
        if user is None:
            get_user_model()().set_password(password)  # same work as a real check (timing)
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None


LOCKOUT_MESSAGE = (
    "Acesso bloqueado temporariamente após muitas tentativas com senha errada. "
    "Tente de novo mais tarde ou recupere sua senha."
)


def lockout_response(request, original_response=None, credentials=None):
    """Axes lockout: JSON (429) for the API, the lockout page (429) for people."""
    from django.http import JsonResponse
    from django.shortcuts import render

    if request.path.startswith("/api/"):
        return JsonResponse({"errors": {"non_field_errors": [LOCKOUT_MESSAGE]}}, status=429)
    return render(request, "registration/lockout.html", status=429)
