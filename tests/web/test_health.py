"""``/healthz``: 200 when the database, the channel layer and the move clock are well, else 503; never cached.

The database is lost as in ``test_database_faults.py`` (on PostgreSQL its
server process is really ended; on SQLite the query raises what a lost
connection raises).  The channel layer is lost by pointing it at a loopback
port nothing listens on, or stalled by a layer that never delivers.  The
tests run as the deployed servers do, without a clock of their own
(``GAMECLOCK_IN_SERVER=0``): the separate clock's heartbeat is recorded
(``beating``) or made old.  The answer through Redis and the proxy, with a
real clock process stopped, is in ``tests/deploy/test_layout.py``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from channels.layers import InMemoryChannelLayer
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from psycopg_pool import PoolTimeout

from games import services
from games.live import heartbeat
from tests.servers import free_port
from threethirteen_site import health
from threethirteen_site.redis_cache import cache_settings
from threethirteen_site.redis_layer import redis_host

from .test_database_faults import ServerLikeClient, connection_lost_at

pytestmark = pytest.mark.django_db(transaction=True)

ALL_WELL = {"status": "ok", "database": "ok", "channel_layer": "ok", "clock": "ok"}


@pytest.fixture(autouse=True)
def beating() -> Iterator[None]:
    """The separate move clock's heartbeat, just recorded (as ``manage.py gameclock`` does each pass)."""
    heartbeat.beat()
    yield
    cache.delete(heartbeat.KEY)


class SilentLayer(InMemoryChannelLayer):
    """A channel layer that takes every message and never delivers one (a Redis that hangs)."""

    async def receive(self, channel: str) -> dict[str, Any]:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


def body(response: Any) -> dict[str, str]:
    assert response["Content-Type"] == "application/json"
    return json.loads(response.content)


def assert_never_cached(response: Any) -> None:
    assert "no-store" in response["Cache-Control"] and "max-age=0" in response["Cache-Control"]


def test_healthz_is_200_when_the_database_and_the_channel_layer_answer():
    response = ServerLikeClient().get("/healthz")
    assert response.status_code == 200
    assert body(response) == ALL_WELL
    assert_never_cached(response)


def test_healthz_is_503_when_the_database_is_lost_and_200_again_after():
    client = ServerLikeClient()
    with connection_lost_at("SELECT 1") as lost:
        response = client.get("/healthz")
    assert lost and response.status_code == 503
    assert body(response) == {"status": "unavailable", "database": "unavailable", "channel_layer": "ok", "clock": "ok"}
    assert_never_cached(response)
    assert client.get("/healthz").status_code == 200  # the broken connection was replaced


def test_healthz_is_503_when_redis_refuses_and_says_nothing_of_the_set_up():
    port = free_port()  # nothing listens there
    layers = {
        "default": {
            "BACKEND": "threethirteen_site.redis_layer.RedisChannelLayer",
            "CONFIG": {"hosts": [redis_host(f"redis://127.0.0.1:{port}/0")]},
        }
    }
    with override_settings(CHANNEL_LAYERS=layers):
        response = ServerLikeClient().get("/healthz")
    assert response.status_code == 503
    assert body(response) == {"status": "unavailable", "database": "ok", "channel_layer": "unavailable", "clock": "ok"}
    assert str(port) not in response.content.decode() and "redis" not in response.content.decode().lower()
    assert_never_cached(response)


def test_healthz_is_503_when_the_channel_layer_does_not_answer_in_time(monkeypatch):
    monkeypatch.setattr(health, "CHANNEL_LAYER_TIMEOUT", 0.2)
    with override_settings(CHANNEL_LAYERS={"default": {"BACKEND": f"{__name__}.SilentLayer"}}):
        response = ServerLikeClient().get("/healthz")
    assert response.status_code == 503 and body(response)["channel_layer"] == "unavailable"


def test_healthz_takes_get_and_head_only():
    client = ServerLikeClient()
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405


class HeldPool:
    """A connection pool every connection of which is in use (or whose database is down): a connection is
    handed out only after the pool's own timeout, 10 s (DATABASE_POOL_TIMEOUT), unless asked with a shorter one."""

    timeout = 10.0

    def __init__(self) -> None:
        self.waits: list[float] = []

    def open(self) -> None:
        pass

    def getconn(self, timeout: float | None = None) -> Any:
        wait = self.timeout if timeout is None else timeout
        self.waits.append(wait)
        raise TimeoutError(f"no connection within {wait} s")  # psycopg_pool's PoolTimeout, without the wait

    def putconn(self, connection: Any) -> None:
        raise AssertionError("nothing was handed out")


def test_healthz_asks_the_pool_for_a_connection_within_its_own_limit(monkeypatch):
    """A database that is down kept /healthz for the pool's whole 10 s: a monitor with a 5 s timeout saw no 503."""
    if connection.vendor == "postgresql":  # the real pool, every connection of it held
        connection.close()
        pool = connection.pool
        assert pool is not None, "the PostgreSQL tests run with the pool (DATABASE_POOL)"
        pool.open()
        held: list[Any] = []
        try:
            # Every connection the pool will hand out (another thread of the suite may hold one already: asking
            # for max_size of them then waited the pool's timeout, failed, and left those taken for good).
            while len(held) <= pool.max_size:
                try:
                    held.append(pool.getconn(timeout=0.5))
                except PoolTimeout:
                    break
            started = time.monotonic()
            response = ServerLikeClient().get("/healthz")
            took = time.monotonic() - started
        finally:
            for each in held:
                pool.putconn(each)
            connection.close_pool()  # the next tests get a pool of the usual size, not one grown to its most
        assert took < health.DATABASE_TIMEOUT + 2 < pool.timeout, took
    else:  # SQLite has no pool: one that holds every connection stands in for it
        held_pool = HeldPool()
        monkeypatch.setattr(type(connection), "pool", held_pool, raising=False)
        connection.close()
        response = ServerLikeClient().get("/healthz")
        assert held_pool.waits == [health.DATABASE_TIMEOUT]
    assert response.status_code == 503 and body(response)["database"] == "unavailable"


def test_healthz_is_503_when_the_separate_clock_has_not_beaten_for_a_while():
    """The clock process stopped: turns went unplayed while /healthz said 200."""
    cache.set(heartbeat.KEY, time.time() - heartbeat.STALE_AFTER - 1)
    response = ServerLikeClient().get("/healthz")
    assert response.status_code == 503
    assert body(response) == {"status": "unavailable", "database": "ok", "channel_layer": "ok", "clock": "stale"}


def test_healthz_is_503_when_the_separate_clock_never_beat():
    cache.delete(heartbeat.KEY)
    response = ServerLikeClient().get("/healthz")
    assert response.status_code == 503 and body(response)["clock"] == "stale"


def test_the_clock_is_unknown_not_stale_when_its_heartbeat_cannot_be_read():
    """A fault tester: with Redis down the clock was reported "stale" at once, though it was playing its turns
    (its heartbeat lives in Redis): an operator reading it would have restarted a healthy clock."""
    redis_down = {"default": cache_settings(f"redis://127.0.0.1:{free_port()}/0")}
    with override_settings(CACHES=redis_down):
        response = ServerLikeClient().get("/healthz")
    assert response.status_code == 503
    assert body(response) == {"status": "unavailable", "database": "ok", "channel_layer": "ok", "clock": "unknown"}


def test_a_process_that_runs_the_clock_itself_needs_no_heartbeat(monkeypatch):
    cache.delete(heartbeat.KEY)
    monkeypatch.setenv("GAMECLOCK_IN_SERVER", "1")  # the default set-up: no Redis, the clock in the server
    response = ServerLikeClient().get("/healthz")
    assert response.status_code == 200 and body(response) == ALL_WELL


def test_each_pass_of_the_gameclock_command_records_its_heartbeat():
    cache.delete(heartbeat.KEY)
    call_command("gameclock", "--once", "--analysis-seconds", "0", stdout=open("/dev/null", "w"))
    age = heartbeat.seconds_since_beat()
    assert age is not None and age < 5
    assert ServerLikeClient().get("/healthz").status_code == 200


def test_a_failing_pass_records_no_heartbeat(monkeypatch):
    cache.set(heartbeat.KEY, time.time() - heartbeat.STALE_AFTER - 1)

    def broken_tick() -> dict[str, int]:
        raise RuntimeError("the database is gone")

    monkeypatch.setattr(services, "clock_tick", broken_tick)
    with pytest.raises(RuntimeError):
        call_command("gameclock", "--once", stdout=open("/dev/null", "w"))
    assert not heartbeat.clock_alive()
