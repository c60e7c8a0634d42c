"""Shared cache of anonymous public answers, in front of the whole middleware stack.

A GET from someone with no session, no messages cookie and no API token, whose answer the view
itself declared public (``Cache-Control: public, max-age=N``: portal.public.http.public_cache
and api_cache), is kept for N seconds (at most ``MAX_SECONDS``) and answered again without
running sessions, authentication, CSRF, CSP, the URL resolver or the view. What keeps it
correct and safe:

- the key carries the host, the full path with its query, the negotiated headers (Accept,
  Accept-Language, the language cookie), the municipality and the version of its pack, the
  municipality's date and the **data stamp** — the newest audit entry and grant
  (``grants_fingerprint``): every change of a grant, alvará, auto, tariff or call writes an
  audit entry, so an answer changes within ``GRANTS_MEMO_SECONDS`` (2 s, another process) of
  the change, at once in the process that made it;
- nothing personal is stored: a response that sets a cookie (a CSRF token in a form, a
  session), that is private, no-store or no-cache, streaming (the CSV export) or that varies
  on a header the key does not carry is passed through untouched;
- the headers stored are the ones the stack produced (CSP, X-Frame-Options, Vary, Cache-Control);
  the middleware above this one (SecurityMiddleware, PrivateResponseMiddleware with the
  Permissions-Policy) still runs on every answer, cached or not;
- only with a cache shared by every process (Redis, and not while it is down and each process
  falls back to its own memory): otherwise a change seen by one worker would not reach the
  pages kept by another. ``PUBLIC_PAGE_CACHE`` forces it on (tests) or off.

A small per-process copy (``LOCAL_ENTRIES``) of the hottest answers saves the Redis round trip;
its entries carry the same key, so they go stale with the data stamp like the shared ones.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse

MAX_SECONDS = 300
MAX_BODY = 512 * 1024
LOCAL_ENTRIES = 256
KEY_VARY = {"cookie", "accept", "accept-language", "accept-encoding"}
_HEADERS_NOT_STORED = {"set-cookie", "content-length", "date"}

_local: OrderedDict[str, tuple[float, tuple]] = OrderedDict()
_local_lock = threading.Lock()  # runserver and threaded workers share the module


def _enabled() -> bool:
    forced = getattr(settings, "PUBLIC_PAGE_CACHE", None)
    if forced is not None:
        return bool(forced)
    from django.core.cache import caches

    from portal.cache import ResilientRedisCache

    default = caches["default"]  # the instance: django.core.cache.cache is a proxy
    return isinstance(default, ResilientRedisCache) and not default.in_fallback()


def _anonymous(request) -> bool:
    cookies = request.COOKIES
    return (settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies
            and not request.META.get("HTTP_AUTHORIZATION"))


def _stamp() -> str:
    """Municipality, pack version, local date and data stamp (memoised per process)."""
    from portal import registry, regulation

    pack = regulation.current(required=False)
    if pack is None:
        return ""
    data = registry.call(registry.GRANTS_FINGERPRINT) if registry.has(registry.GRANTS_FINGERPRINT) else ""
    return f"{pack.municipality_id}|{pack.version}|{pack.today()}|{data}"


def page_key(request) -> str | None:
    try:
        host = request.get_host()
    except Exception:  # noqa: BLE001 - DisallowedHost: let the stack answer it
        return None
    meta = request.META
    raw = "|".join((host, request.get_full_path(), meta.get("HTTP_ACCEPT", ""), meta.get("HTTP_ACCEPT_LANGUAGE", ""),
                    request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, ""), _stamp()))
    return "pubpage:" + hashlib.sha256(raw.encode()).hexdigest()


def _storable(response) -> int:
    """Seconds the response may be kept, 0 when it must not be."""
    if response.status_code not in (200, 404) or response.streaming or response.cookies:
        return 0
    if len(response.content) > MAX_BODY:
        return 0
    control = {part.strip().split("=")[0]: part.strip() for part in response.get("Cache-Control", "").split(",")}
    if "public" not in control or {"private", "no-store", "no-cache"} & control.keys():
        return 0
    vary = {v.strip().lower() for v in response.get("Vary", "").split(",") if v.strip()}
    if not vary <= KEY_VARY:
        return 0
    try:
        max_age = int(control.get("max-age", "max-age=0").split("=")[1])
    except (IndexError, ValueError):
        return 0
    return min(max_age, MAX_SECONDS)


def _replay(entry: tuple) -> HttpResponse:
    status, headers, content = entry
    response = HttpResponse(content, status=status)
    for name, value in headers:
        response[name] = value
    response["X-Public-Cache"] = "hit"
    return response


def _remember_locally(key: str, expires: float, entry: tuple) -> None:
    with _local_lock:
        _local[key] = (expires, entry)
        _local.move_to_end(key)
        while len(_local) > LOCAL_ENTRIES:
            _local.popitem(last=False)


class PublicPageCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (request.method != "GET" or request.path.startswith(settings.STATIC_URL)
                or not _anonymous(request) or not _enabled()):
            return self.get_response(request)
        key = page_key(request)
        if key is None:
            return self.get_response(request)
        now = time.time()
        local = _local.get(key)
        if local is not None and local[0] > now:
            return _replay(local[1])
        stored = cache.get(key)
        if stored is not None:
            expires, entry = stored
            _remember_locally(key, expires, entry)
            return _replay(entry)
        # this layer stores the answer: the views' own cached_page() need not read and write
        # a second copy of it (two more round trips on every miss)
        request.public_page_cache = True
        response = self.get_response(request)
        seconds = _storable(response)
        if seconds:
            headers = [(k, v) for k, v in response.items() if k.lower() not in _HEADERS_NOT_STORED]
            entry = (response.status_code, headers, response.content)
            cache.set(key, (now + seconds, entry), seconds)
            _remember_locally(key, now + seconds, entry)
        return response


def clear_local() -> None:
    """Tests: forget this process's copies."""
    _local.clear()
