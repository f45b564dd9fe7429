"""The move clock inside the server process (the default, in-memory set-up).

With the in-memory channel layer only the process that holds the sockets can
reach the open pages, so a clock in another process (``manage.py gameclock``)
would play timed-out turns that no page hears of.  Unless told otherwise
(``GAMECLOCK_IN_SERVER``, below), the ASGI application starts this clock on
the server's event loop when it is first used (a request, a socket, or the
ASGI lifespan start-up of servers that send one): every ``interval`` seconds
it runs ``services.clock_tick`` on a worker thread, whose announcements then
go through this process's channel layer to its own sockets.  The analyses
players asked for are worked on by a loop of their own, on another thread
(:func:`analysis_pass`): one decision of an analysis can take half a minute,
and a timed-out turn of a live game must not wait behind it.

Running it beside ``manage.py gameclock`` (or in several processes) is safe:
every timeout is checked under the game's row lock and turn number, every
e-mail is recorded once before it is sent, and the time an outage of the
database took is given back once per game (``services.outage``).
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
    """One clock pass on a worker thread, with fresh database connections like a request: the timeouts,
    the bots left waiting, the tables called off and the notices (``services.clock_tick``)."""
    from games import services
    from threethirteen_site import errors

    close_old_connections()
    try:
        return services.clock_tick()
    except Exception as error:  # a bad game must not stop the clock for every other game
        errors.log_failure(logger, "the in-server move clock's pass failed", error)
        return None
    finally:
        close_old_connections()


def analysis_pass(seconds: float) -> int:
    """A bounded slice of the analyses asked for, on a worker thread of its own: decisions analysed.

    Not part of :func:`one_pass`: a pass always finishes the decision it began, and one decision can take
    half a minute of CPU (``bench/analysis.py``), which the timeouts of live games must not wait for.
    """
    from games import services
    from threethirteen_site import errors

    close_old_connections()
    try:
        return services.analysis_tick(seconds=seconds)
    except Exception as error:  # a bad analysis must not stop the worker for the others
        errors.log_failure(logger, "the in-server analysis worker's pass failed", error)
        return 0
    finally:
        close_old_connections()


class ServerClock:
    """Runs :func:`one_pass` every ``interval`` seconds on the event loop it is started on, and beside it
    :func:`analysis_pass` (``ANALYSIS_SECONDS_PER_PASS`` of analysis, then the same pause)."""

    def __init__(self, interval: float = INTERVAL) -> None:
        self.interval = interval
        self.tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Start on the running event loop, once (later calls do nothing while it runs)."""
        if any(not task.done() for task in self.tasks):
            return
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self.run(), name="gameclock")]
        seconds = analysis_seconds(ANALYSIS_SECONDS)
        if seconds > 0:
            self.tasks.append(loop.create_task(self.analyse(seconds), name="gameclock-analysis"))
        logger.info("move clock: running in the server process, a pass every %g s", self.interval)

    async def stop(self) -> None:
        tasks, self.tasks = self.tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass

    async def run(self) -> None:
        # Not thread-sensitive: a pass must never wait behind (or hold up) a request's sync code.
        from games import services

        tick = sync_to_async(one_pass, thread_sensitive=False)
        while True:
            done = await tick()
            if done and (summary := services.pass_summary(done)):
                logger.info("move clock: %s", summary)
            await asyncio.sleep(self.interval)

    async def analyse(self, seconds: float) -> None:
        # A thread of its own (not thread-sensitive), so the clock's passes go on while a decision runs.
        work = sync_to_async(analysis_pass, thread_sensitive=False)
        while True:
            await work(seconds)
            await asyncio.sleep(self.interval)


server_clock = ServerClock()
