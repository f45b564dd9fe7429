"""The Redis channel layer's client settings (``threethirteen_site/redis_layer.py``), against a real redis-server.

channels_redis as it comes, with redis-py 8, refuses a burst of commands
larger than its pool ("Too many connections"); the site's layer makes them
wait for a free connection, and survives a Redis restart without failing the
first command after it.
"""

from __future__ import annotations

import asyncio

from channels_redis.core import RedisChannelLayer as PlainRedisChannelLayer
from django.conf import settings
from redis.exceptions import ConnectionError as RedisConnectionError

from threethirteen_site.redis_layer import RedisChannelLayer, redis_host

#: Group joins at once: ten times the pool of one server process.
BURST = 1000


async def join_all(layer) -> list:
    channels = [f"specific.burst!{i}" for i in range(BURST)]
    try:
        return await asyncio.gather(*(layer.group_add("game-1", c) for c in channels), return_exceptions=True)
    finally:
        await layer.flush()


def test_a_burst_larger_than_the_pool_waits_for_connections(redis_url):
    layer = RedisChannelLayer(hosts=[redis_host(redis_url)])
    assert asyncio.run(join_all(layer)) == [None] * BURST


def test_channels_redis_as_it_comes_refuses_that_burst(redis_url):
    """The control: without the site's pool, the same burst fails (what the site's layer is for)."""
    failures = [r for r in asyncio.run(join_all(PlainRedisChannelLayer(hosts=[redis_url]))) if r is not None]
    assert failures and all(isinstance(f, RedisConnectionError) for f in failures)
    assert "Too many connections" in str(failures[0])


def test_the_first_command_after_a_redis_restart_works(redis_server):
    layer = RedisChannelLayer(hosts=[redis_host(redis_server.url)])

    async def scenario() -> None:
        await layer.group_add("game-1", "specific.a!1")  # a pooled connection, which the restart will close
        redis_server.stop()
        for _ in range(3):  # let the event loop read the closed connection's end (already in the kernel)
            await asyncio.sleep(0)
        redis_server.start()
        await layer.group_add("game-1", "specific.a!2")  # replaced when taken from the pool, not failed
        await layer.flush()

    asyncio.run(scenario())


def test_the_site_uses_this_layer_when_redis_is_configured():
    """``settings.py`` builds the layer from REDIS_URL (the tests themselves run without it)."""
    import importlib
    import os

    from threethirteen_site import settings as site_settings

    previous = os.environ.get("REDIS_URL")
    os.environ["REDIS_URL"] = "redis://127.0.0.1:6390/0"
    try:
        layers = importlib.reload(site_settings).CHANNEL_LAYERS
    finally:
        if previous is None:
            os.environ.pop("REDIS_URL")
        else:
            os.environ["REDIS_URL"] = previous
        importlib.reload(site_settings)
    assert layers["default"]["BACKEND"] == "threethirteen_site.redis_layer.RedisChannelLayer"
    host = layers["default"]["CONFIG"]["hosts"][0]
    assert host["socket_timeout"] > RedisChannelLayer.brpop_timeout and host["max_connections"] == 100
    assert settings.CHANNEL_LAYERS  # the running settings are untouched
