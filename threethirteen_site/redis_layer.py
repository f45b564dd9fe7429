"""The Redis channel layer (``REDIS_URL``), set so that sockets stay open and bursts connect.

channels_redis waits for messages with a blocking read on the server
(``BZPOPMIN`` with a 5 s timeout, ``RedisChannelLayer.brpop_timeout``).  Since
redis-py 8 a connection gives up reading after 5 s (``socket_timeout``) and a
connection pool refuses its 101st connection at once ("Too many connections").
Left at that, an idle page's read times out just as Redis's empty answer is
due, the consumer fails and the page's socket is closed with 1011 every few
seconds; and a burst of pages connecting at once (a server restart, a Redis
restart) fails.  So:

- the socket timeout is longer than the blocking read (``REDIS_SOCKET_TIMEOUT``,
  15 s by default), yet finite: a Redis that went away without closing the
  connection is noticed, the consumers close and the pages reconnect;
- the pool waits for a free connection instead of failing
  (``BlockingConnectionPool``, ``REDIS_MAX_CONNECTIONS`` per server process,
  100 by default; a request waits up to 20 s), so a thousand sockets
  connecting at once queue for a moment instead of being refused;
- a pooled connection that Redis closed (a restart) is noticed when it is
  taken from the pool and replaced, instead of failing the command: redis-py 8
  skips that check while "maintenance notifications" (a feature of Redis's
  managed services) are on, so they are off; idle pooled connections are
  also checked (``PING``) after 30 s, and TCP keepalive is on.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.maint_notifications import MaintNotificationsConfig

#: The layer's blocking read, which the socket timeout must outlast.
BLOCKING_READ_SECONDS = BaseRedisChannelLayer.brpop_timeout


def redis_host(
    url: str, *, socket_timeout: float = 15, max_connections: int = 100, pool_timeout: float = 20
) -> dict[str, Any]:
    """One entry of the layer's ``hosts``: the Redis URL and the connection options of the pool."""
    return {
        "address": url,
        "socket_timeout": socket_timeout,
        "socket_connect_timeout": 5,
        "socket_keepalive": True,
        "health_check_interval": 30,
        "max_connections": max_connections,
        "timeout": pool_timeout,  # how long a command waits for a free connection of the pool
        "maint_notifications_config": MaintNotificationsConfig(enabled=False),
    }


class RedisChannelLayer(BaseRedisChannelLayer):
    """channels_redis's layer with a pool that waits for a free connection instead of refusing one."""

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host = dict(self.hosts[index])
        address = host.pop("address")
        return BlockingConnectionPool.from_url(address, **host)
