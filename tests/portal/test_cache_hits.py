"""Fixed-window hits (portal.cache): one Redis command, sent and read later by the direct lane,
counted once per request, and counted locally when Redis is down."""

import pytest
from django.core.cache import caches
from django.test import RequestFactory

from portal import cache as portal_cache

LIVE = {"default": {"BACKEND": "portal.cache.ResilientRedisCache", "LOCATION": "redis://127.0.0.1:6379/14"}}
DEAD = {"default": {"BACKEND": "portal.cache.ResilientRedisCache", "LOCATION": "redis://127.0.0.1:6390/0"}}


@pytest.fixture
def live_redis(settings):
    import redis

    try:
        redis.Redis.from_url(LIVE["default"]["LOCATION"], socket_connect_timeout=0.5).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("Redis ausente em 127.0.0.1:6379")
    settings.CACHES = LIVE
    redis.Redis.from_url(LIVE["default"]["LOCATION"]).flushdb()
    return caches["default"]


def _in_use(cache) -> int:
    client = cache._cache.get_client("k", write=True)
    return len(client.connection_pool._in_use_connections)


def test_a_hit_read_later_counts_as_a_hit_and_gives_its_connection_back(live_redis):
    pending = [portal_cache.window_hit_later("w", 60) for _ in range(3)]
    assert [read() for read in pending] == [1, 2, 3]
    assert portal_cache.window_hit("w", 60) == 4
    assert _in_use(live_redis) == 0
    client = live_redis._cache.get_client("k", write=True)
    assert 0 < client.ttl(live_redis.make_and_validate_key("w")) <= 60  # the window expires


def test_a_redis_that_forgot_the_script_still_counts(live_redis):
    assert portal_cache.window_hit_later("s", 60)() == 1
    live_redis._cache.get_client("k", write=True).script_flush()
    read = portal_cache.window_hit_later("s", 60)
    assert read() == 2 and read() == 2  # read once, remembered
    assert portal_cache.window_hit("s", 60) == 3 and _in_use(live_redis) == 0


def test_with_redis_down_hits_are_counted_in_the_process(settings, caplog):
    settings.CACHES = DEAD
    assert portal_cache.window_hit_later("d", 60)() == 1
    assert portal_cache.window_hit_later("d", 60)() == 2
    assert any("Redis indisponível" in r.getMessage() for r in caplog.records)


def test_a_request_is_counted_once_per_key(live_redis):
    request = RequestFactory().get("/")
    read = portal_cache.request_window_hit_later(request, "r", 60)
    assert read() == 1
    assert portal_cache.request_window_hit(request, "r", 60) == 1  # the stack after the direct lane
    assert portal_cache.request_window_hit(RequestFactory().get("/"), "r", 60) == 2  # another request


def test_any_key_goes_to_redis_without_memcached_s_warnings(live_redis):
    """Redis takes any key: the check for memcached's limits (which walked every character of
    every key on every call) is not run, and such a key is stored and read back."""
    import warnings

    key = "chave com espaços e " + "x" * 300
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a CacheKeyWarning would fail here
        live_redis.set(key, "valor", 30)
        assert live_redis.get(key) == "valor"
        assert portal_cache.window_hit(key + " janela", 60) == 1


def test_replies_are_parsed_by_hiredis():
    """redis-py reads replies with hiredis (C) when it is installed (pyproject): every cache
    read and throttle hit parses one."""
    import redis.utils

    assert redis.utils.HIREDIS_AVAILABLE
