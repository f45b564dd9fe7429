"""The shared cache on Redis (``REDIS_URL``): one connection pool per server process.

Django makes its cache objects per request (each request runs in a context of
its own under ASGI), and its Redis cache gives each of them a connection pool of
its own: every request that touched the cache opened a new connection to Redis
(and left it to the garbage collector).  Sessions are read from the cache on
every signed-in request (``threethirteen_site/sessions.py``), so here every
cache object of a process takes its connections from one pool, made once per
address and options.

The pool's connections give up after ``REDIS_CACHE_TIMEOUT`` seconds (2 by
default) to connect or to answer: a Redis that cannot be reached costs a
session read from the database, not a page that waits.  The pool holds at
most ``REDIS_MAX_CONNECTIONS`` connections (as the channel layer's); a request
that finds them all in use waits for one (at most the same timeout) instead of
failing: under ASGI every request runs on a thread of its own, so a burst of a
few hundred requests in one process would otherwise meet redis-py's "Too many
connections" and read its session from the database.

The client object in front of the pool is shared too (``SharedRedisCache``):
Django's Redis cache builds a new ``redis.Redis`` for every command, which
redis-py 8 makes slowly (an eighth of a table partial's server time went to
reading its session, half of that to building the client).  A ``redis.Redis``
takes a connection from its pool for each command, so threads may share one.
"""

from __future__ import annotations

import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis import BlockingConnectionPool, Redis

_pools: dict[tuple[str, str], BlockingConnectionPool] = {}
_clients: dict[BlockingConnectionPool, Redis] = {}
_lock = threading.Lock()


class SharedConnectionPool(BlockingConnectionPool):
    """``ConnectionPool.from_url`` that hands out one pool per address and options in this process
    (redis-py's pools are thread-safe, and start afresh in a forked child)."""

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> Any:
        key = (url, repr(sorted(kwargs.items())))
        with _lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _pools[key] = super().from_url(url, **kwargs)
        return pool


class SharedClientRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, with one ``redis.Redis`` per connection pool in this process."""

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = _clients.get(pool)
        if client is None:
            with _lock:
                client = _clients.setdefault(pool, self._client(connection_pool=pool))  # type: ignore[attr-defined]
        return client


class SharedRedisCache(RedisCache):
    """``RedisCache`` whose client objects are shared by every cache object of the process (see the module)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient


def cache_settings(url: str, *, timeout: float = 2, max_connections: int = 100) -> dict[str, Any]:
    """``CACHES["default"]`` on Redis at ``url``, its connections from the process's shared pool
    (at most ``max_connections``; a request waits ``timeout`` seconds at most for a free one)."""
    return {
        "BACKEND": "threethirteen_site.redis_cache.SharedRedisCache",
        "LOCATION": url,
        "OPTIONS": {
            "pool_class": "threethirteen_site.redis_cache.SharedConnectionPool",
            "max_connections": max_connections,
            "timeout": timeout,
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
        },
    }
