"""Session idle timeout and the municipality's time zone."""

from __future__ import annotations

import time

from django.conf import settings
from django.contrib.auth import logout
from django.utils import timezone

from portal import regulation


class SessionIdleTimeoutMiddleware:
    """Logs out a session left idle longer than SESSION_IDLE_TIMEOUT seconds, and any session
    older than SESSION_ABSOLUTE_HOURS since its login, however busy (the idle timeout alone
    lets a session that is used every few minutes live forever)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if getattr(request, "user", None) is not None and request.user.is_authenticated and hasattr(request, "session"):
            now = int(time.time())
            last = request.session.get("last_activity")
            started = request.session.get(SESSION_STARTED_KEY)
            absolute = int(getattr(settings, "SESSION_ABSOLUTE_HOURS", 12) * 3600)
            if started is not None and now - int(started) > absolute:
                logout(request)
                request.session["absolute_logout"] = True
            elif last is not None and now - int(last) > settings.SESSION_IDLE_TIMEOUT:
                logout(request)
                request.session["idle_logout"] = True
            else:
                request.session["last_activity"] = now
                if started is None:
                    request.session[SESSION_STARTED_KEY] = now
        return self.get_response(request)


SESSION_STARTED_KEY = "auth_started"


class PrivateResponseMiddleware:
    """Response headers that do not depend on the page.

    - ``Cache-Control: private, no-store`` on every response to a signed-in person (session or
      API token) and on the account pages (reset links carry a secret): no shared cache or
      browser history keeps a page with personal data. Public anonymous pages stay cacheable.
    - ``Permissions-Policy`` (PERMISSIONS_POLICY): no page uses the camera, the microphone or
      the location through the browser's APIs.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if (
            (user is not None and user.is_authenticated)
            or request.META.get("HTTP_AUTHORIZATION")
            or request.path.startswith(PRIVATE_PREFIXES)
        ):
            response["Cache-Control"] = "private, no-store"
            if response.has_header("Expires"):
                del response["Expires"]
        policy = getattr(settings, "PERMISSIONS_POLICY", None)
        if policy and not response.has_header("Permissions-Policy"):
            response["Permissions-Policy"] = ", ".join(
                f"{feature}=({' '.join(origins)})" for feature, origins in policy.items()
            )
        return response


PRIVATE_PREFIXES = ("/conta/",)

TOO_LARGE_MESSAGE = "A requisição é grande demais ({size} MB; limite {limit} MB). Envie arquivos menores."


class RequestSizeLimitMiddleware:
    """A body larger than REQUEST_MAX_BYTES (by its Content-Length) is a 413 before a byte of it
    is read. Django's DATA_UPLOAD_MAX_MEMORY_SIZE does not count uploaded files, which would
    otherwise stream to a temporary file whatever their size."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = int(settings.REQUEST_MAX_BYTES)
        if length > limit:
            from django.http import HttpResponse, JsonResponse

            message = TOO_LARGE_MESSAGE.format(size=-(-length // (1024 * 1024)), limit=limit // (1024 * 1024))
            if request.path.startswith("/api/"):
                return JsonResponse({"errors": {"non_field_errors": [message]}}, status=413)
            return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


class MunicipalityTimezoneMiddleware:
    """Dates and times are shown in the municipality's zone."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        pack = regulation.current(required=False)
        if pack is not None:
            timezone.activate(pack.tz)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


NUL_MESSAGE = "Caracteres nulos (\\u0000) não são permitidos."


class NullCharacterMiddleware:
    """A NUL byte in the path, the query string or a form field is a 400, never a 500.

    PostgreSQL refuses NUL in any text ("A string literal cannot contain NUL"), so a
    ``?status=%00`` reaching a filter, or a form value read straight from request.POST,
    would end in a server error. Forms and serializers refuse NUL with the field's name;
    this catches what reaches the database without one.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        field = self._offending(request)
        if field is not None:
            from django.http import JsonResponse
            from django.shortcuts import render

            if request.path.startswith("/api/"):
                return JsonResponse({"errors": {field: [NUL_MESSAGE]}}, status=400)
            return render(request, "errors/400.html", {"message": f"{field}: {NUL_MESSAGE}"}, status=400)
        return self.get_response(request)

    @staticmethod
    def _offending(request) -> str | None:
        if "\x00" in request.path:
            return "path"
        for key, values in request.GET.lists():
            if "\x00" in key or any("\x00" in v for v in values):
                return key.replace("\x00", "") or "query"
        if request.method in ("POST", "PUT", "PATCH") and request.content_type in (
            "application/x-www-form-urlencoded", "multipart/form-data"
        ):
            for key, values in request.POST.lists():
                if "\x00" in key or any("\x00" in v for v in values):
                    return key.replace("\x00", "") or "form"
        return None
