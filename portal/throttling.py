"""DRF throttles that identify the client as the lockout does (portal.client_ip).

DRF's own ``get_ident`` trusts ``X-Forwarded-For`` when ``NUM_PROXIES`` is unset, so a client
could pick a fresh identity per request; REST_FRAMEWORK["NUM_PROXIES"] is set from
TRUSTED_PROXY_COUNT for the throttles of every app, and these classes read the setting at
request time (overridable in tests).
"""

from __future__ import annotations

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
