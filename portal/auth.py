"""Login by username or CPF."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend

from portal.validators import only_digits


class UsernameOrCpfBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None or password is None:
            return None
        User = get_user_model()
        user = User.objects.filter(username=username).first()
        digits = only_digits(username)
        if user is None and len(digits) == 11:
            user = User.objects.filter(cpf=digits).first()
        if user is None and "@" in username:
            user = User.objects.filter(email__iexact=username).order_by("pk").first()
        if user is None:
            User().set_password(password)  # same work as a real check (timing)
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
