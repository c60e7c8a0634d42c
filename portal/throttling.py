"""DRF throttles that identify the client as the lockout does (portal.client_ip).

DRF's own ``get_ident`` trusts ``X-Forwarded-For`` when ``NUM_PROXIES`` is unset, so a client
could pick a fresh identity per request; REST_FRAMEWORK["NUM_PROXIES"] is set from
TRUSTED_PROXY_COUNT for the throttles of every app, and these classes read the setting at
request time (overridable in tests).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rest_framework.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

from portal.client_ip import client_ip


class ClientIpIdentMixin:
    def get_ident(self, request):
        return client_ip(request) or "unknown"


class PortalScopedRateThrottle(ClientIpIdentMixin, ScopedRateThrottle):
    pass


class PortalAnonRateThrottle(ClientIpIdentMixin, AnonRateThrottle):
    pass


class PortalUserRateThrottle(ClientIpIdentMixin, UserRateThrottle):
    pass


class WindowScopedRateThrottle(ClientIpIdentMixin, ScopedRateThrottle):
    """The view's scope and rate in fixed windows: one cache round trip per request
    (portal.cache.window_hit), where DRF's sliding window reads and rewrites the whole list of
    the client's request times (two round trips, and a pickled list as long as the rate).
    For the public lookups under heavy traffic (verification by code)."""

    def allow_request(self, request, view):
        return self.allow_request_later(request, view)()

    def allow_request_later(self, request, view) -> Callable[[], bool]:
        """allow_request() with the hit sent now and the answer read when the returned function
        is called (which the caller must do): the caller's own round trip runs meanwhile."""
        from portal.cache import request_window_hit_later

        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return lambda: True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        if self.num_requests is None:
            return lambda: True
        bucket = int(time.time() // self.duration)
        self.window_end = (bucket + 1) * self.duration
        key = f"throttle-window:{self.scope}:{self.get_ident(request)}:{bucket}"
        count = request_window_hit_later(request, key, self.duration + 1)
        limit = self.num_requests
        return lambda: count() <= limit

    def wait(self):
        return max(self.window_end - time.time(), 1)
