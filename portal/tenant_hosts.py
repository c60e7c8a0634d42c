"""Which municipality a request is for: from its host.

In order: ``<slug>.<TENANT_BASE_DOMAIN>`` (``<slug>.localhost``), an extra hostname of the
``MunicipalityHost`` table (a municipality's own domain), the ``DEFAULT_MUNICIPALITY`` setting
(a one-city installation), and, if exactly one municipality is in service, that one. Otherwise
the root ``/`` lists the municipalities (the hub) and every other path is a 404: no page, API
call or file is ever answered without knowing whose law and data it is about.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from django.conf import settings

from portal import tenancy

_lock = threading.Lock()

# Paths answered without a municipality: static files, the probes and what browsers ask for.
GLOBAL_PATHS = ("/healthz", "/healthz/", "/favicon.ico", "/robots.txt")


@dataclass(frozen=True)
class Directory:
    """Every municipality in service by slug and by extra hostname, as of one generation of
    ``portal.tenant_revisions`` (a host added or removed bumps its municipality's revision)."""

    generation: int
    by_slug: dict[str, tenancy.Scope]
    by_hostname: dict[str, tenancy.Scope]


_directory: Directory | None = None


def invalidate() -> None:
    global _directory
    with _lock:
        _directory = None


def directory() -> Directory:
    """The host table of the installation: rebuilt (one query for every hostname) only when
    a municipality's revision changed, checked with the packs' revisions."""
    global _directory
    from portal import tenant_revisions
    from portal.models import MunicipalityHost

    snapshot = tenant_revisions.current()
    found = _directory
    if found is not None and found.generation == snapshot.generation:
        return found
    by_slug = {row.slug: tenancy.Scope(row.id, row.slug) for row in snapshot.rows.values() if row.is_active}
    by_hostname = {
        hostname: by_slug[slug]
        for hostname, slug in MunicipalityHost.objects.filter(municipality__is_active=True).values_list(
            "hostname", "municipality__slug"
        )
        if slug in by_slug
    }
    found = Directory(snapshot.generation, by_slug, by_hostname)
    with _lock:
        _directory = found
    return found


def request_host(request) -> str:
    """``request.get_host()`` (checked against ALLOWED_HOSTS; DisallowedHost otherwise), checked
    once per request: this middleware and portal.page_cache's key both need it on every public
    request, and each check splits the port and walks ALLOWED_HOSTS again."""
    host = request.__dict__.get("_checked_host")
    if host is None:
        host = request.__dict__["_checked_host"] = request.get_host()
    return host


def _hostname(request) -> str:
    host = request_host(request).lower()
    if host.startswith("["):  # [::1]:8000
        return host.split("]")[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def resolve_host(hostname: str) -> tenancy.Scope | None:
    """The municipality in service answering at ``hostname`` (from the host table in memory;
    the settings are read on every call)."""
    table = directory()
    base = str(getattr(settings, "TENANT_BASE_DOMAIN", "localhost") or "").lower().strip(".")
    if base and hostname.endswith(f".{base}"):
        slug = hostname[: -len(base) - 1]
        if slug and "." not in slug and slug in table.by_slug:
            return table.by_slug[slug]
    if hostname in table.by_hostname:
        return table.by_hostname[hostname]
    default = getattr(settings, "DEFAULT_MUNICIPALITY", "")
    if default and default in table.by_slug:
        return table.by_slug[default]
    if len(table.by_slug) == 1:
        return next(iter(table.by_slug.values()))
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
