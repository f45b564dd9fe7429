"""The shared cache's connections (``threethirteen_site/redis_cache.py``), against a real redis-server.

Under ASGI each request runs on a thread of its own, so one server process
may read many sessions from the cache at once: more than its pool holds.
They wait for a free connection; a plain pool of the same size refuses them
("Too many connections"), which cost a session read from the database each.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError

from threethirteen_site.redis_cache import SharedRedisCache, cache_settings

#: Cache reads at once from threads, against a pool of two connections.
THREADS, READS, POOL = 16, 400, 2


def burst(cache: RedisCache) -> list:
    def read(i: int):
        try:
            return cache.get_or_set(f"burst-{i % 10}", i % 10)
        except RedisConnectionError as error:
            return error

    with ThreadPoolExecutor(THREADS) as threads:
        return list(threads.map(read, range(READS)))


def test_a_burst_of_reads_larger_than_the_pool_waits_for_connections(redis_url):
    params = cache_settings(redis_url, max_connections=POOL, timeout=10)
    assert burst(RedisCache(params["LOCATION"], params)) == [i % 10 for i in range(READS)]


def test_a_plain_pool_of_that_size_refuses_that_burst(redis_url):
    """The control: the same burst through redis-py's own pool fails (what the shared pool's waiting is for)."""
    params = cache_settings(redis_url, max_connections=POOL)
    params["OPTIONS"] = {k: v for k, v in params["OPTIONS"].items() if k not in ("pool_class", "timeout")}
    failures = [r for r in burst(RedisCache(params["LOCATION"], params)) if isinstance(r, Exception)]
    assert failures and "Too many connections" in str(failures[0])


def test_the_cache_objects_of_a_process_share_one_client_and_still_read_and_write(redis_url):
    """Each request has a cache object of its own: they share one pool and one client in front of it."""
    params = cache_settings(redis_url)
    first, second = SharedRedisCache(params["LOCATION"], params), SharedRedisCache(params["LOCATION"], params)
    assert first._cache.get_client() is second._cache.get_client(write=True)
    first.set("shared-client", {"seen": 1})
    assert second.get("shared-client") == {"seen": 1}
    second.delete("shared-client")
    assert first.get("shared-client", "gone") == "gone"
