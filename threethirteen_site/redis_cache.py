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
"""

from __future__ import annotations

import threading
from typing import Any

from redis import BlockingConnectionPool

_pools: dict[tuple[str, str], BlockingConnectionPool] = {}
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


def cache_settings(url: str, *, timeout: float = 2, max_connections: int = 100) -> dict[str, Any]:
    """``CACHES["default"]`` on Redis at ``url``, its connections from the process's shared pool
    (at most ``max_connections``; a request waits ``timeout`` seconds at most for a free one)."""
    return {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": url,
        "OPTIONS": {
            "pool_class": "threethirteen_site.redis_cache.SharedConnectionPool",
            "max_connections": max_connections,
            "timeout": timeout,
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
        },
    }
