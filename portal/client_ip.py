"""The client's IP address, the same for the login lockout, the API throttles and the logs.

Behind ``TRUSTED_PROXY_COUNT`` reverse proxies each proxy appends the address it received the
request from to ``X-Forwarded-For``; the entry added by the outermost trusted proxy (counting
from the right) is the client. Anything to its left was written by the client and is ignored,
so a spoofed header cannot change the address. With no trusted proxy (the default) the header
is ignored and ``REMOTE_ADDR`` is the client.
"""

from __future__ import annotations

import functools
import ipaddress

from django.conf import settings


def _valid_ip(value: str) -> str | None:
    value = (value or "").strip()
    # an address is under 80 characters ([IPv6%zone]:port); anything longer is not one, and is
    # not kept in the memo below (the X-Forwarded-For header is the client's to fill)
    return _parsed_ip(value) if len(value) <= 128 else None


# Every throttled request parses its address (and the lockout, the logs): the same few strings
# again and again, and the answer is a function of the string alone.
@functools.lru_cache(maxsize=4096)
def _parsed_ip(value: str) -> str | None:
    if value.startswith("[") and "]" in value:  # [2001:db8::1]:443
        value = value[1 : value.index("]")]
    elif value.count(":") == 1:  # 203.0.113.9:5123
        value = value.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        return None


def client_ip(request) -> str:
    """The client address of a Django (or DRF) request; "" when none can be told."""
    meta = getattr(request, "META", None) or {}
    remote = _valid_ip(meta.get("REMOTE_ADDR", "")) or ""
    proxies = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0)
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in (meta.get("HTTP_X_FORWARDED_FOR") or "").split(",") if part.strip()]
    if not forwarded:
        return remote
    candidate = forwarded[-min(proxies, len(forwarded))]
    return _valid_ip(candidate) or remote


def axes_client_ip(request) -> str | None:
    """AXES_CLIENT_IP_CALLABLE."""
    return client_ip(request) or None
