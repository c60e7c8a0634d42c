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

**Direct answers** (``direct_route``): a few public lookups whose requests are mostly new to
the cache — verification by code, where each QR code is asked once or twice and enumerating
codes always misses, and the pages of the transparency list and of its open data — are
answered here on a miss, by a function the route's own view also uses, from the database
directly and without the rest of the stack (sessions, authentication, CSRF, CSP, the URL
resolver, DRF), which cost more than the lookup itself. They stay the stack's answers:

- the headers are the ones the whole stack gave to the same route, status and negotiation
  (Accept, Accept-Language, language cookie) on this host in this process — until it has
  answered one such request, the request goes through the stack;
- the answer function decides what it can answer (a throttled client, an Accept it does not
  render, anything unusual: None, and the stack answers, with the same throttle's 429);
- it is computed from the database on every miss of the cache, under the same key as above
  (so never staler than the stack's pages); this process keeps a copy, and the shared cache
  another for the routes whose answer costs many round trips to build (``shared``: a page of
  the transparency list), so that one process builds it for all.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse

from portal.tenant_hosts import request_host

MAX_SECONDS = 300
MAX_BODY = 512 * 1024
LOCAL_ENTRIES = 256
KEY_VARY = {"cookie", "accept", "accept-language", "accept-encoding"}
_HEADERS_NOT_STORED = {"set-cookie", "content-length", "date", "x-public-cache"}

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


def anonymous(request) -> bool:
    """No session, no messages cookie, no API token: the answer cannot depend on who asks."""
    cookies = request.COOKIES
    return (settings.SESSION_COOKIE_NAME not in cookies and "messages" not in cookies
            and not request.META.get("HTTP_AUTHORIZATION"))


def stamp(request=None) -> str:
    """Municipality, pack version, local date and data stamp (memoised per process); with a
    request, the one this request read first (its page key and its layout agree)."""
    if request is not None:
        found = request.__dict__.get("_page_stamp")
        if found is None:
            found = request.__dict__["_page_stamp"] = stamp()
        return found
    from portal import registry, regulation

    pack = regulation.current(required=False)
    if pack is None:
        return ""
    data = registry.call(registry.GRANTS_FINGERPRINT) if registry.has(registry.GRANTS_FINGERPRINT) else ""
    return f"{pack.municipality_id}|{pack.version}|{pack.today()}|{data}"


def page_key(request) -> str | None:
    try:
        host = request_host(request)
    except Exception:  # noqa: BLE001 - DisallowedHost: let the stack answer it
        return None
    meta = request.META
    raw = "|".join((host, request.get_full_path(), meta.get("HTTP_ACCEPT", ""), meta.get("HTTP_ACCEPT_LANGUAGE", ""),
                    request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, ""), stamp(request)))
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


def _stored_headers(response) -> list[tuple[str, str]]:
    return [(k, v) for k, v in response.items() if k.lower() not in _HEADERS_NOT_STORED]


def _response(status: int, headers: list[tuple[str, str]], content: bytes, marker: str) -> HttpResponse:
    """A response with the headers the stack gave an answer: they passed HttpResponse's checks
    (latin-1, no newline) when the stack's response was built, so they are put into Django's
    ResponseHeaders store ({lower name: (name, value)}) as they are, not checked again (a
    dozen headers, ~10 % of a direct answer's own time)."""
    response = HttpResponse(content, status=status)
    store = response.headers._store
    for name, value in headers:
        store[name.lower()] = (name, value)
    store["content-length"] = ("Content-Length", str(len(content)))  # as the stack's CommonMiddleware
    store["x-public-cache"] = ("X-Public-Cache", marker)
    return response


def _replay(entry: tuple) -> HttpResponse:
    status, headers, content = entry
    return _response(status, headers, content, "hit")


def _remember_locally(key: str, expires: float, entry: tuple) -> None:
    with _local_lock:
        _local[key] = (expires, entry)
        _local.move_to_end(key)
        while len(_local) > LOCAL_ENTRIES:
            _local.popitem(last=False)


# --- direct answers -------------------------------------------------------------------------
DirectAnswer = Callable[..., "tuple[int, bytes] | None"]  # (request, **arguments) → (status, body)
HEADER_TEMPLATES_KEPT = 512
_NUMBER = re.compile(r"[1-9][0-9]{0,5}")


@dataclass
class DirectRoute:
    url_name: str
    answer: DirectAnswer
    kwarg: str | None = None  # the route's one URL argument (a path segment), if it has one
    query: str | None = None  # the one query parameter it may take: a page number
    pattern: re.Pattern | None = None  # from the URLconf, at first use (reverse needs it loaded)
    shared: bool = False  # its answers also go through the shared cache (see direct_route)


_routes: list[DirectRoute] = []
# (route, status, host, negotiation) → the stack's headers and the seconds such an answer is kept
_header_templates: OrderedDict[tuple, tuple[list[tuple[str, str]], int]] = OrderedDict()


def direct_route(url_name: str, answer: DirectAnswer, *, kwarg: str | None = None, query: str | None = None,
                 shared: bool = False) -> None:
    """Answer the anonymous GETs of ``url_name`` when they miss the cache with
    ``answer(request, **arguments)``: its URL argument ``kwarg`` (a path segment) and, when
    given, the query parameter ``query`` as a page number (``?page=12``; any other query string
    goes through the stack). ``answer`` returns the status and the body the route's view would
    give, or None to let the whole stack answer.

    ``shared``: its answers are also read from and written to the shared cache, like the
    stack's. For an answer that costs many times a round trip to build (a page of the
    transparency list: its query and fifty rows of markup), so that one process builds it for
    all of them; a lookup that costs about a round trip (a verification by code, mostly asked
    once) is not, where the shared cache would only add one on every miss."""
    if not any(r.url_name == url_name for r in _routes):
        _routes.append(DirectRoute(url_name, answer, kwarg, query, shared=shared))


def _route_pattern(route: DirectRoute) -> re.Pattern:
    if route.pattern is None:
        from django.urls import reverse

        # the path as the URLconf builds it (with the script prefix, like request.path)
        if route.kwarg is None:
            route.pattern = re.compile(f"^{re.escape(reverse(route.url_name))}$")
        else:
            marker = "__direct__"
            head, _, tail = reverse(route.url_name, kwargs={route.kwarg: marker}).partition(marker)
            route.pattern = re.compile(f"^{re.escape(head)}(?P<value>[^/]+){re.escape(tail)}$")
    return route.pattern


def compile_routes() -> int:
    """Build every direct route's pattern now (portal.warmup, in gunicorn's master): the first
    reverse() of a process fills the URLconf's reverse index, ~190 ms that a new worker's first
    request would otherwise wait for. The number of routes."""
    for route in _routes:
        _route_pattern(route)
    return len(_routes)


def _direct_match(request) -> tuple[DirectRoute, dict] | tuple[None, None]:
    # a NUL byte is the stack's to refuse (portal.middleware.NullCharacterMiddleware: a 400)
    if not _routes or getattr(request, "urlconf", None) is not None or "\x00" in request.path:
        return None, None
    query = request.META.get("QUERY_STRING", "")
    for route in _routes:
        found = _route_pattern(route).match(request.path)
        if not found:
            continue
        arguments = {route.kwarg: found.group("value")} if route.kwarg else {}
        if query:
            name, _, number = query.partition("=")
            if route.query is None or name != route.query or not _NUMBER.fullmatch(number):
                return None, None
            arguments[route.query] = int(number)
        return route, arguments
    return None, None


def _template_key(request, route: DirectRoute, status: int) -> tuple:
    meta = request.META
    return (route.url_name, status, meta.get("HTTP_HOST", ""), meta.get("HTTP_ACCEPT", ""),
            meta.get("HTTP_ACCEPT_LANGUAGE", ""), request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, ""))


def _learn_headers(request, route: DirectRoute, response, seconds: int) -> None:
    """Keep the headers the stack gave to this route, status and negotiation, and how long
    such an answer is kept (``_storable``: its Cache-Control and Vary, the same for the route)."""
    key = _template_key(request, route, response.status_code)
    headers = _stored_headers(response)
    with _local_lock:
        _header_templates[key] = (headers, seconds)
        _header_templates.move_to_end(key)
        while len(_header_templates) > HEADER_TEMPLATES_KEPT:
            _header_templates.popitem(last=False)


def _direct(request, route: DirectRoute, arguments: dict) -> tuple[HttpResponse, list, int] | None:
    """The direct answer, the headers to keep with it and for how many seconds (0: not kept)."""
    answered = route.answer(request, **arguments)
    if answered is None:
        return None
    status, body = answered
    learned = _header_templates.get(_template_key(request, route, status))
    if learned is None:
        return None  # this process has not seen the stack answer such a request yet
    headers, seconds = learned
    return _response(status, headers, body, "direct"), headers, (seconds if len(body) <= MAX_BODY else 0)


class PublicPageCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (request.method != "GET" or request.path.startswith(settings.STATIC_URL)
                or not anonymous(request) or not _enabled()):
            return self.get_response(request)
        key = page_key(request)
        if key is None:
            return self.get_response(request)
        now = time.time()
        local = _local.get(key)
        if local is not None and local[0] > now:
            return _replay(local[1])
        route, arguments = _direct_match(request)
        shared = route is None or route.shared
        if shared:
            stored = cache.get(key)
            if stored is not None:
                expires, entry = stored
                _remember_locally(key, expires, entry)
                return _replay(entry)
        if route is not None:
            direct = _direct(request, route, arguments)
            if direct is not None:
                response, headers, seconds = direct
                if seconds:
                    entry = (response.status_code, headers, response.content)
                    if shared:
                        cache.set(key, (now + seconds, entry), seconds)
                    _remember_locally(key, now + seconds, entry)
                return response
        # this layer stores the answer: the views' own cached_page() need not read and write
        # a second copy of it (two more round trips on every miss)
        request.public_page_cache = True
        response = self.get_response(request)
        seconds = _storable(response)
        if seconds:
            entry = (response.status_code, _stored_headers(response), response.content)
            if route is not None:
                _learn_headers(request, route, response, seconds)
            if shared:
                cache.set(key, (now + seconds, entry), seconds)
            _remember_locally(key, now + seconds, entry)
        return response


def clear_local() -> None:
    """Tests: forget this process's copies (answers and learned headers)."""
    _local.clear()
    _header_templates.clear()
