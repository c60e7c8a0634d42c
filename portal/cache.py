"""Redis as a cache, not a dependency: when Redis is unreachable the portal keeps working.

``ResilientRedisCache`` is Django's RedisCache whose operations fall back to a per-process
local-memory cache when the connection fails, with a warning in the log (at most once per
``RETRY_SECONDS``); Redis is tried again after that many seconds. Throttles (DRF and the
public pages) keep counting per process instead of answering 500; login, sign-up, the public
verification and the fare quote never needed Redis for their data. ``/healthz/`` reports it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

logger = logging.getLogger(__name__)

RETRY_SECONDS = 30

# One hit in a fixed window, as one command: INCR, and the window's expiry set by the hit that
# created the key (atomic in Redis, so a key never lives without its expiry).
HIT_SCRIPT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


def _connection_errors() -> tuple[type[BaseException], ...]:
    import redis

    return (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError)


class PooledRedisCacheClient(RedisCacheClient):
    """Django's client builds a ``redis.Redis`` object on every cache call (around its shared
    connection pool); this one keeps one per pool. redis-py's pool resets itself in a forked
    process, so a client made before gunicorn forks is still safe in the worker."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client


class ResilientRedisCache(RedisCache):
    def __init__(self, server, params):
        params = dict(params)
        options = dict(params.get("OPTIONS") or {})
        # a dead Redis must cost half a second, not the kernel's TCP timeout
        options.setdefault("socket_connect_timeout", 0.5)
        options.setdefault("socket_timeout", 0.5)
        params["OPTIONS"] = options
        super().__init__(server, params)
        self._class = PooledRedisCacheClient
        self._fallback = LocMemCache(f"portal-fallback-{id(self)}", {"TIMEOUT": params.get("TIMEOUT", 300)})
        self._down_until = 0.0
        self._errors = _connection_errors()
        self._hit_scripts: dict[int, object] = {}

    def validate_key(self, key: str) -> None:
        """Redis takes any key (binary-safe, up to 512 MB): Django's check for memcached's
        limits (250 characters, no spaces or control characters) walks every character of
        every key, on every call, for a server this cache never talks to. The local fallback
        (LocMemCache) still runs it on the keys it is given."""

    def in_fallback(self) -> bool:
        """Is this process answering from its own memory (Redis found down a moment ago)?"""
        return time.monotonic() < self._down_until

    def _call(self, name, *args, **kwargs):
        if time.monotonic() < self._down_until:
            return getattr(self._fallback, name)(*args, **kwargs)
        try:
            return getattr(super(), name)(*args, **kwargs)
        except self._errors as exc:
            self._down_until = time.monotonic() + RETRY_SECONDS
            logger.warning("Redis indisponível (%s): cache em memória local por %ss.", exc, RETRY_SECONDS)
            return getattr(self._fallback, name)(*args, **kwargs)

    def hit(self, key: str, seconds: int) -> int:
        """One more hit in the fixed window ``key`` (expires after ``seconds``): one round trip
        and one command (HIT_SCRIPT, by its SHA once Redis has it), where Django's incr costs
        EXISTS + INCR and add a third, and a pipeline costs as much Python as the round trip."""
        return self.hit_later(key, seconds)()

    def hit_later(self, key: str, seconds: int) -> Callable[[], int]:
        """hit(), sent now and read when the returned function is called: the caller does its
        own round trip (the database) meanwhile, so that one request waits for the two at once.
        The function must be called (it reads the reply and gives the connection back)."""
        if self.in_fallback():
            count = _local_hit(self._fallback, key, seconds)
            return lambda: count
        try:
            redis_key = self.make_and_validate_key(key)
            client = self._cache.get_client(redis_key, write=True)
            script = self._hit_scripts.get(id(client))
            if script is None:
                script = self._hit_scripts[id(client)] = client.register_script(HIT_SCRIPT)
            pool = client.connection_pool
            conn = pool.get_connection()
        except self._errors as exc:
            return self._hit_down(exc, key, seconds)
        try:
            conn.send_command("EVALSHA", script.sha, 1, redis_key, seconds)
        except self._errors as exc:
            pool.release(conn)
            return self._hit_down(exc, key, seconds)
        done: list[int] = []

        def read() -> int:
            if done:
                return done[0]
            import redis

            try:
                try:
                    count = int(conn.read_response())
                except redis.exceptions.NoScriptError:  # a Redis restarted since the script was loaded
                    conn.send_command("EVAL", HIT_SCRIPT, 1, redis_key, seconds)
                    count = int(conn.read_response())
            except self._errors as exc:
                conn.disconnect()  # a reply may still be on its way: never hand this socket out again
                count = self._hit_down(exc, key, seconds)()
            finally:
                pool.release(conn)
            done.append(count)
            return count

        return read

    def _hit_down(self, exc: BaseException, key: str, seconds: int) -> Callable[[], int]:
        self._down_until = time.monotonic() + RETRY_SECONDS
        logger.warning("Redis indisponível (%s): cache em memória local por %ss.", exc, RETRY_SECONDS)
        count = _local_hit(self._fallback, key, seconds)
        return lambda: count

    def add(self, *a, **k):
        return self._call("add", *a, **k)

    def get(self, *a, **k):
        return self._call("get", *a, **k)

    def set(self, *a, **k):
        return self._call("set", *a, **k)

    def touch(self, *a, **k):
        return self._call("touch", *a, **k)

    def delete(self, *a, **k):
        return self._call("delete", *a, **k)

    def get_many(self, *a, **k):
        return self._call("get_many", *a, **k)

    def has_key(self, *a, **k):
        return self._call("has_key", *a, **k)

    def incr(self, *a, **k):
        return self._call("incr", *a, **k)

    def set_many(self, *a, **k):
        return self._call("set_many", *a, **k)

    def delete_many(self, *a, **k):
        return self._call("delete_many", *a, **k)

    def clear(self):
        self._fallback.clear()
        return self._call("clear")

    def ping(self) -> bool:
        """Is Redis reachable now (ignores the retry pause)?"""
        try:
            self._cache.get_client().ping()
        except self._errors:
            return False
        self._down_until = 0.0
        return True


def _local_hit(cache, key: str, seconds: int) -> int:
    if cache.add(key, 1, seconds):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.add(key, 1, seconds)
        return 1


def window_hit(key: str, seconds: int) -> int:
    """Count a hit in a fixed window of the default cache; the count so far, this one included."""
    return window_hit_later(key, seconds)()


def window_hit_later(key: str, seconds: int) -> Callable[[], int]:
    """window_hit() sent now, its count read when the returned function is called (which the
    caller must do, in a ``finally``)."""
    from django.core.cache import caches

    cache = caches["default"]  # the instance (django.core.cache.cache is a proxy)
    if isinstance(cache, ResilientRedisCache):
        return cache.hit_later(key, seconds)
    count = _local_hit(cache, key, seconds)
    return lambda: count


def request_window_hit(request, key: str, seconds: int) -> int:
    """window_hit() once per request and key: a request that portal.page_cache's direct lane
    counted and then handed to the stack (the first of its kind in a process) is not counted
    again by the view's own throttle."""
    return request_window_hit_later(request, key, seconds)()


def request_window_hit_later(request, key: str, seconds: int) -> Callable[[], int]:
    """request_window_hit() sent now and read later (window_hit_later)."""
    request = getattr(request, "_request", request)  # DRF's Request: the Django request under it
    counted = request.__dict__.setdefault("_window_hits", {})
    if key in counted:
        count = counted[key]
        return lambda: count
    pending = window_hit_later(key, seconds)

    def read() -> int:
        counted[key] = pending()
        return counted[key]

    return read


def redis_status() -> str:
    """"ok", "down" or "not_configured" (the default cache is not Redis)."""
    from django.core.cache import caches

    cache = caches["default"]
    if isinstance(cache, ResilientRedisCache):
        return "ok" if cache.ping() else "down"
    if isinstance(cache, RedisCache):
        try:
            cache._cache.get_client().ping()
        except _connection_errors():
            return "down"
        return "ok"
    return "not_configured"
