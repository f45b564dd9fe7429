"""``/healthz``: whether this server process can serve, for a proxy, a monitor or systemd.

200 when the database answers a query, the channel layer carries a message
(a message sent to a fresh channel and received back: through Redis when
``REDIS_URL`` is set) and the move clock is alive, 503 when any is not, within
about three seconds (the parts are asked at once, each with its own limit: a
database that is down answered only after the pool's ``DATABASE_POOL_TIMEOUT``,
10 s, and a monitor with a 5 s timeout saw a timeout instead of the 503).  The
clock is this process's own in the default set-up (``games.live.clock``: alive
while the process serves); where a separate ``manage.py gameclock`` plays the
turns, its heartbeat in the shared cache must be recent
(``games.live.heartbeat``), else the clock is "stale" ("unknown" when the cache cannot be read).  The
body is a small JSON object of words that are the same in every language
("ok", "unavailable", "stale", "unknown"): it is read by programs, and it says nothing about the
set-up (no addresses, no errors; what went wrong is logged).  Never cached.

It is exempt from the HTTPS redirect (``SECURE_REDIRECT_EXEMPT``), so a monitor
on the server itself may ask a process directly over plain HTTP, e.g.
``curl -H 'Host: cards.example.com' http://127.0.0.1:8001/healthz``; the
``Host`` must be one of ``ALLOWED_HOSTS``, as for any request.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from games.live import heartbeat
from games.live.clock import enabled as clock_in_server

logger = logging.getLogger(__name__)

#: Seconds the channel layer has to carry the test message back.
CHANNEL_LAYER_TIMEOUT = 3.0
#: Seconds the database's connection pool has to hand out a connection (the pool's own wait is 10 s).
DATABASE_TIMEOUT = 3.0

OK, UNAVAILABLE, STALE, UNKNOWN = "ok", "unavailable", "stale", "unknown"


def database_answers() -> bool:
    """Whether the default database answers ``SELECT 1`` on this process's connection."""
    try:
        pool = getattr(connection, "pool", None)  # PostgreSQL with DATABASE_POOL: psycopg's pool
        if pool is not None and connection.connection is None:
            # Django would wait the pool's whole timeout for a connection to a database that is down: ask
            # the pool for one within the check's own limit first (then Django takes it, at once).
            pool.open()
            pool.putconn(pool.getconn(timeout=DATABASE_TIMEOUT))
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:  # any failure is "unavailable": the check itself must never fail the request
        logger.warning("health check: the database did not answer", exc_info=True)
        return False


async def channel_layer_answers(timeout: float | None = None) -> bool:
    """Whether the channel layer carries a message to a fresh channel and back within ``timeout`` seconds."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        channel = f"healthz.{uuid.uuid4().hex}"
        message = {"type": "healthz.ping", "token": uuid.uuid4().hex}

        async def round_trip() -> bool:
            await layer.send(channel, message)
            return await layer.receive(channel) == message

        return await asyncio.wait_for(round_trip(), timeout or CHANNEL_LAYER_TIMEOUT)
    except Exception:  # a refused connection, a timeout, a bad configuration: all "unavailable"
        logger.warning("health check: the channel layer did not answer", exc_info=True)
        return False


def clock_state() -> str:
    """The clock's part: ok when this process runs the clock itself or the separate clock beat lately, stale when
    it did not, unknown when its heartbeat cannot be read (Redis down: "stale" then sent an operator to restart a
    clock that was playing its turns, a fault tester)."""
    if clock_in_server():
        return OK
    try:
        age = heartbeat.seconds_since_beat(strict=True)
    except heartbeat.Unreadable:
        logger.warning("health check: the move clock's heartbeat cannot be read (the shared cache did not answer)")
        return UNKNOWN
    if age is not None and age <= heartbeat.STALE_AFTER:
        return OK
    logger.warning(
        "health check: the move clock (manage.py gameclock) has recorded no pass %s",
        "at all" if age is None else f"for {age:.0f} s",
    )
    return STALE


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    """200 ``{"status": "ok", ...}`` when the database, the channel layer and the move clock are, else 503."""
    # All three at once: the answer takes the longest one's time, not their sum.  The heartbeat is read from
    # the cache alone, off the thread that holds this process's database connection.
    database, channel_layer, clock = await asyncio.gather(
        sync_to_async(database_answers)(),
        channel_layer_answers(),
        sync_to_async(clock_state, thread_sensitive=False)(),
    )
    healthy = database and channel_layer and clock == OK
    body = {
        "status": OK if healthy else UNAVAILABLE,
        "database": OK if database else UNAVAILABLE,
        "channel_layer": OK if channel_layer else UNAVAILABLE,
        "clock": clock,
    }
    return JsonResponse(body, status=200 if healthy else 503)
