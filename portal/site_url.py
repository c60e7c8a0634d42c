"""The public address of the municipality in scope (links in e-mails, QR codes of documents).

One installation serves many municipalities, each on its own host (``portal.tenant_hosts``):
``<slug>.<TENANT_BASE_DOMAIN>`` (``<slug>.localhost:8000`` in ``make run``) or a domain of its
own (``MunicipalityHost``). A QR printed on one municipality's alvará must open that one's verification
page, so the address follows the municipality, not the machine:

1. the municipality's own domain (its first ``MunicipalityHost``), with the scheme of SITE_URL;
2. ``SITE_URL`` itself for the ``DEFAULT_MUNICIPALITY`` of a one-city installation, or when
   SITE_URL is not under the base domain (a one-city installation on its own domain);
3. ``<slug>.<base domain>`` with the scheme and port of ``SITE_URL`` — when SITE_URL is the
   base domain or under it, or a loopback address while the base domain is ``localhost``.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def site_url(slug: str | None = None) -> str:
    """``scheme://host[:port]`` of the municipality ``slug`` (default: the one in scope)."""
    base_url = settings.SITE_URL.rstrip("/")
    if slug is None:
        from portal import tenancy

        scope = tenancy.current()
        slug = scope.slug if scope is not None else None
    if not slug:
        return base_url
    parts = urlsplit(base_url)
    own = _own_domain(slug)
    if own:
        return f"{parts.scheme}://{own}"
    if slug == (getattr(settings, "DEFAULT_MUNICIPALITY", "") or ""):
        return base_url
    domain = (getattr(settings, "TENANT_BASE_DOMAIN", "") or "").strip(".").lower()
    host = (parts.hostname or "").lower()
    under_base = bool(domain) and (host == domain or host.endswith(f".{domain}")
                                   or (domain == "localhost" and host in _LOOPBACK))
    if not under_base:
        return base_url
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{slug}.{domain}{port}"


def _own_domain(slug: str) -> str:
    from portal.models import MunicipalityHost

    return MunicipalityHost.objects.filter(municipality__slug=slug).order_by("pk").values_list(
        "hostname", flat=True).first() or ""
