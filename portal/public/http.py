"""Cache headers of public pages and a small per-IP throttle for HTML pages."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.utils.cache import patch_cache_control, patch_vary_headers

from portal.client_ip import client_ip


def public_cache(request, response, max_age: int):
    """Public pages may be cached by anyone when nobody is signed in (the header shows the user)."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        patch_cache_control(response, private=True, no_cache=True)
    else:
        patch_cache_control(response, public=True, max_age=max_age)
    patch_vary_headers(response, ("Cookie",))
    return response


def api_cache(response, max_age: int):
    patch_cache_control(response, public=True, max_age=max_age)
    return response


def _rate(scope: str) -> tuple[int, int]:
    rate = settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {}).get(scope) or "120/min"
    count, _, period = rate.partition("/")
    seconds = {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]
    return int(count), seconds


def throttled(request, scope: str) -> bool:
    """True when this IP exceeded the scope's rate (same rates as the API's ScopedRateThrottle)."""
    return throttled_later(request, scope)()


def throttled_later(request, scope: str) -> Callable[[], bool]:
    """throttled() with the hit sent now and the answer read when the returned function is
    called (which the caller must do): the caller's own round trip runs meanwhile."""
    from portal.cache import request_window_hit_later

    limit, window = _rate(scope)
    bucket = int(time.time() // window)
    count = request_window_hit_later(request, f"html-throttle:{scope}:{client_ip(request)}:{bucket}", window + 1)
    return lambda: count() > limit


def _anonymous(request) -> bool:
    """No session nor message cookie: the page cannot depend on who asks."""
    cookies = request.COOKIES
    return settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies


def cached_page(request, build, *, timeout: int, vary: str = ""):
    """Serve a public page from the cache for anonymous visitors (same URL, same data generation).

    Pages for signed-in people (their name is in the header) are always rendered. When the
    shared page cache (portal.page_cache) is in front of this request it keeps the answer, and
    this one steps aside.
    """
    from django.http import HttpResponse

    if request.method != "GET" or not _anonymous(request) or getattr(request, "public_page_cache", False):
        return build()  # signed in; or portal.page_cache keeps this very answer in front of the stack
    raw = f"{request.get_full_path()}|{vary}"
    key = "page:" + hashlib.sha256(raw.encode()).hexdigest()
    hit = cache.get(key)
    if hit is not None:
        status, content, content_type, disposition = hit
        response = HttpResponse(content, status=status, content_type=content_type)
        if disposition:
            response["Content-Disposition"] = disposition
        return response
    response = build()
    if response.status_code in (200, 404) and not response.streaming:
        cache.set(
            key,
            (
                response.status_code,
                response.content,
                response["Content-Type"],
                response.get("Content-Disposition", ""),
            ),
            timeout,
        )
    return response


# The grants fingerprint (portal.public.selectors.grants_fingerprint) is remembered briefly per
# process, per municipality (under row-level security each municipality reads its own rows);
# a saved grant, alvará or audit entry in this process forgets it at once.
_GRANTS_MEMO: dict[int | None, tuple[float, str]] = {}
GRANTS_MEMO_SECONDS = 2.0


def forget_grants_fingerprint(*args, **kwargs) -> None:
    """post_save receiver (connected in tariffs.apps): this process sees the change at once."""
    _GRANTS_MEMO.clear()
