"""Session idle timeout and the municipality's time zone."""

from __future__ import annotations

import time

from django.conf import settings
from django.contrib.auth import logout
from django.utils import timezone

from portal import regulation


class SessionIdleTimeoutMiddleware:
    """Logs out a session left idle longer than SESSION_IDLE_TIMEOUT seconds."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if getattr(request, "user", None) is not None and request.user.is_authenticated and hasattr(request, "session"):
            now = int(time.time())
            last = request.session.get("last_activity")
            if last is not None and now - int(last) > settings.SESSION_IDLE_TIMEOUT:
                logout(request)
                request.session["idle_logout"] = True
            else:
                request.session["last_activity"] = now
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
