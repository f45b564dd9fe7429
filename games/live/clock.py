"""The move clock inside the server process (the default, in-memory set-up).

With the in-memory channel layer only the process that holds the sockets can
reach the open pages, so a clock in another process (``manage.py gameclock``)
would play timed-out turns that no page hears of.  Unless told otherwise
(``GAMECLOCK_IN_SERVER``, below), the ASGI application starts this clock on
the server's event loop when it is first used (a request, a socket, or the
ASGI lifespan start-up of servers that send one): every ``interval`` seconds
it runs ``services.clock_tick`` on a worker thread, whose announcements then
go through this process's channel layer to its own sockets.

Running it beside ``manage.py gameclock`` (or in several processes) is safe:
every timeout is checked under the game's row lock and turn number, and
every e-mail is recorded once before it is sent.
"""

from __future__ import annotations

import asyncio
import logging
import os

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections

logger = logging.getLogger(__name__)

#: Seconds between passes (live games have 30-second turns).
INTERVAL = 2.0
#: Seconds of game analysis per pass in the server process (its requests share the interpreter).
ANALYSIS_SECONDS = 0.5


def analysis_seconds(default: float) -> float:
    """Seconds of game analysis per clock pass: ``ANALYSIS_SECONDS_PER_PASS``, or ``default`` when unset or bad."""
    value = getattr(settings, "ANALYSIS_SECONDS_PER_PASS", "")
    try:
        seconds = float(value) if value not in ("", None) else default
    except (TypeError, ValueError):
        return default
    return max(0.0, seconds) if seconds == seconds else default  # NaN: the default


def enabled() -> bool:
    """Whether this server process runs the move clock itself.

    ``GAMECLOCK_IN_SERVER`` ("1"/"0"); by default on with the in-memory
    channel layer (no ``REDIS_URL``: one process serves everything) and off
    with Redis, where ``manage.py gameclock`` runs once beside the servers.
    """
    value = os.environ.get("GAMECLOCK_IN_SERVER", "").strip().lower()
    if value:
        return value not in ("0", "false", "no", "off")
    return not getattr(settings, "REDIS_URL", "")


def running() -> bool:
    """Whether the clock worker is doing its work: this process runs it (``enabled``), or the separate
    ``manage.py gameclock`` recorded a pass lately (``heartbeat.clock_alive``, read from the shared cache)."""
    from games.live import heartbeat

    return enabled() or heartbeat.clock_alive()


def one_pass() -> dict[str, int] | None:
    """One clock pass on a worker thread, with fresh database connections like a request: the timeouts and
    notices, then a bounded slice of the analyses asked for (``analysed`` counts its decisions)."""
    from games import services

    close_old_connections()
    try:
        try:
            done = services.clock_tick()
        except Exception:  # a bad game must not stop the clock for every other game
            logger.exception("the in-server move clock's pass failed")
            return None
        try:
            seconds = analysis_seconds(ANALYSIS_SECONDS)
            done["analysed"] = services.analysis_tick(seconds=seconds) if seconds > 0 else 0
        except Exception:  # nor a bad analysis the timeouts
            logger.exception("the in-server move clock's analysis failed")
            done["analysed"] = 0
        return done
    finally:
        close_old_connections()


class ServerClock:
    """Runs :func:`one_pass` every ``interval`` seconds on the event loop it is started on."""

    def __init__(self, interval: float = INTERVAL) -> None:
        self.interval = interval
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start on the running event loop, once (later calls do nothing while it runs)."""
        if self.task is not None and not self.task.done():
            return
        self.task = asyncio.get_running_loop().create_task(self.run(), name="gameclock")
        logger.info("move clock: running in the server process, a pass every %g s", self.interval)

    async def stop(self) -> None:
        task, self.task = self.task, None
        if task is not None and not task.done():
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    async def run(self) -> None:
        # Not thread-sensitive: a pass must never wait behind (or hold up) a request's sync code.
        tick = sync_to_async(one_pass, thread_sensitive=False)
        while True:
            done = await tick()
            if done and (done["timeouts"] or done["emails"] or done["pushes"] or done["bots"]):
                logger.info(
                    "move clock: %s timed-out turn(s) played, %s e-mail(s) and %s push notice(s) sent,"
                    " %s table(s) of bots left waiting played",
                    done["timeouts"],
                    done["emails"],
                    done["pushes"],
                    done["bots"],
                )
            await asyncio.sleep(self.interval)


server_clock = ServerClock()
