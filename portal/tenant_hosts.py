"""Which municipality a request is for: from its host.

In order: ``<slug>.<TENANT_BASE_DOMAIN>`` (``<slug>.localhost``), an extra hostname of the
``MunicipalityHost`` table (a municipality's own domain), the ``DEFAULT_MUNICIPALITY`` setting
(a one-city installation), and, if exactly one municipality is in service, that one. Otherwise
the root ``/`` lists the municipalities (the hub) and every other path is a 404: no page, API
call or file is ever answered without knowing whose law and data it is about.
"""

from __future__ import annotations

import threading
import time

from django.conf import settings

from portal import tenancy

_CACHE_SECONDS = 5.0
_lock = threading.Lock()
_by_host: dict[str, tuple[float, tenancy.Scope | None]] = {}

# Paths answered without a municipality: static files, the probes and what browsers ask for.
GLOBAL_PATHS = ("/healthz", "/healthz/", "/favicon.ico", "/robots.txt")


def invalidate() -> None:
    with _lock:
        _by_host.clear()


def _hostname(request) -> str:
    host = request.get_host().lower()
    if host.startswith("["):  # [::1]:8000
        return host.split("]")[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def resolve_host(hostname: str) -> tenancy.Scope | None:
    """The municipality in service answering at ``hostname`` (cached a few seconds)."""
    now = time.monotonic()
    hit = _by_host.get(hostname)
    if hit is not None and now - hit[0] < _CACHE_SECONDS:
        return hit[1]
    found = _lookup(hostname)
    with _lock:
        _by_host[hostname] = (now, found)
    return found


def _lookup(hostname: str) -> tenancy.Scope | None:
    from portal.models import Municipality, MunicipalityHost

    in_service = Municipality.objects.filter(is_active=True)
    base = str(getattr(settings, "TENANT_BASE_DOMAIN", "localhost") or "").lower().strip(".")
    if base and hostname.endswith(f".{base}"):
        slug = hostname[: -len(base) - 1]
        if slug and "." not in slug:
            row = in_service.filter(slug=slug).values_list("pk", "slug").first()
            if row:
                return tenancy.Scope(*row)
    row = (
        MunicipalityHost.objects.filter(hostname=hostname, municipality__is_active=True)
        .values_list("municipality_id", "municipality__slug")
        .first()
    )
    if row:
        return tenancy.Scope(*row)
    default = getattr(settings, "DEFAULT_MUNICIPALITY", "")
    if default:
        row = in_service.filter(slug=default).values_list("pk", "slug").first()
        if row:
            return tenancy.Scope(*row)
    rows = list(in_service.values_list("pk", "slug")[:2])
    if len(rows) == 1:
        return tenancy.Scope(*rows[0])
    return None


def host_of(slug: str, request=None) -> str:
    """The address of a municipality's portal, for the hub's links: its first extra hostname,
    else ``<slug>.<base domain>``, with the port of the request."""
    from portal.models import MunicipalityHost

    extra = MunicipalityHost.objects.filter(municipality__slug=slug).values_list("hostname", flat=True).first()
    host = extra or f"{slug}.{getattr(settings, 'TENANT_BASE_DOMAIN', 'localhost')}"
    if request is not None:
        port = request.get_port()
        if port and port not in ("80", "443"):
            host = f"{host}:{port}"
    scheme = request.scheme if request is not None else "https"
    return f"{scheme}://{host}/"


def _scoped_stream(content, scope: tenancy.Scope):
    """A streamed body (CSV exports, files) is produced after the middleware returned: keep the
    municipality in scope while it is read."""
    with tenancy.activate(scope):
        yield from content


class TenantMiddleware:
    """Puts the municipality of the request's host in scope for the whole request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith(settings.STATIC_URL) or request.path in GLOBAL_PATHS:
            request.tenant = None
            return self.get_response(request)
        scope = resolve_host(_hostname(request))
        request.tenant = scope
        if scope is None:
            return self._no_municipality(request)
        token = tenancy.set_current(scope)
        try:
            response = self.get_response(request)
        finally:
            tenancy.reset(token)
        if getattr(response, "streaming", False):
            response.streaming_content = _scoped_stream(response.streaming_content, scope)
        return response

    def _no_municipality(self, request):
        from portal.hub import hub, not_served

        return hub(request) if request.path == "/" else not_served(request)
