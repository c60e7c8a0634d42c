"""The public address of the municipality in scope (links in e-mails, QR codes of documents).

One installation serves many municipalities, each on its own host: ``<slug>.<TENANT_BASE_DOMAIN>``
(``alegre.localhost:8000`` in ``make run``). A QR printed on an Itagibá alvará must open Itagibá's verification page, so the
address follows the municipality, not the machine. The scheme and port come from ``SITE_URL``;
with no base domain (a one-city installation) ``SITE_URL`` is the address.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def site_url(slug: str | None = None) -> str:
    """``scheme://host[:port]`` of the municipality ``slug`` (default: the one in scope)."""
    base = settings.SITE_URL.rstrip("/")
    if slug is None:
        from portal import regulation

        pack = regulation.current(required=False)
        slug = pack.slug if pack is not None else None
    if not slug:
        return base
    parts = urlsplit(base)
    domain = (getattr(settings, "TENANT_BASE_DOMAIN", "") or "").strip(".")
    if not domain:
        return base
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{slug}.{domain}{port}"

