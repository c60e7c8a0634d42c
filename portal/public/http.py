"""Cache headers of public pages and a small per-IP throttle for HTML pages."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache
from django.utils.cache import patch_cache_control, patch_vary_headers


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


def client_ip(request) -> str:
    return request.META.get("REMOTE_ADDR", "")


def throttled(request, scope: str) -> bool:
    """True when this IP exceeded the scope's rate (same rates as the API's ScopedRateThrottle)."""
    limit, window = _rate(scope)
    bucket = int(time.time() // window)
    key = f"html-throttle:{scope}:{client_ip(request)}:{bucket}"
    if cache.add(key, 1, window + 1):
        return False
    try:
        count = cache.incr(key)
    except ValueError:
        cache.set(key, 1, window + 1)
        return False
    return count > limit
