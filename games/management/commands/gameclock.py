"""The move clock: plays timed-out turns with the bot (and bot turns a stopped server left waiting) and
sends the turn e-mails; beside it, on a thread of its own, it works through the analyses of finished games
that players asked for, a bounded slice each pass.

    python manage.py gameclock [--interval 2] [--once] [--analysis-seconds 2]

Safe to run in several processes at once and to stop and restart at any
moment: every timeout goes through ``services.game_timeout`` (the game row
is locked and the turn checked, as for a move) and every e-mail is recorded
once per game and turn before it is sent.  All it keeps between passes is
whether the database was out of reach (``services.outage``: the turns an
outage ran out get their time back, once, by whichever clock passes first;
the outage is also kept in the shared cache, for a clock restarted during
it).  Each pass that played what was due records a heartbeat in
the shared cache (``games.live.heartbeat``): ``/healthz`` reports the clock
stale when it stops.

With the in-memory channel layer (no ``REDIS_URL``) the server process runs
this clock itself (``games.live.clock``): a separate ``gameclock`` then
cannot reach the open pages (they only see its moves when they re-check the
table, e.g. when their countdown runs out), so it is for set-ups with Redis.
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import close_old_connections, connections

from games import services
from games.live import clock, heartbeat
from threethirteen_site import errors

#: Seconds of game analysis per pass, unless ANALYSIS_SECONDS_PER_PASS says otherwise.
ANALYSIS_SECONDS = 2.0
#: Seconds a stop waits for the analysis's decision in hand to be written (systemd waits 90 s by default).
STOP_WAIT = 60.0
#: Seconds this process waits for a pooled database connection (the servers wait ``DATABASE_POOL_TIMEOUT``, 10 s
#: by default): the clock answers nobody, and each pass that waited the servers' 10 s while the database was down
#: left no record of the outage for that long (a fault tester restarted a clock in it; ``services.outage``).
POOL_WAIT = 3.0

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = "Apply the move deadlines (the bot plays timed-out turns) and send the turn e-mails."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--interval",
            type=float,
            default=2.0,
            help="seconds to sleep between passes (default 2: live games have 30-second turns)",
        )
        parser.add_argument("--once", action="store_true", help="make one pass and exit")
        parser.add_argument(
            "--analysis-seconds",
            type=float,
            default=None,
            help="seconds of game analysis per pass (default: ANALYSIS_SECONDS_PER_PASS, or 2; 0: none)",
        )

    def handle(
        self, *args: Any, interval: float, once: bool, analysis_seconds: float | None = None, **options: Any
    ) -> None:
        if interval <= 0:
            interval = 2.0
        wait_less_for_a_connection(connections["default"].settings_dict)
        if analysis_seconds is None or not analysis_seconds >= 0:
            analysis_seconds = clock.analysis_seconds(ANALYSIS_SECONDS)
        if once:
            self.clock_pass(once=True)
            if analysis_seconds > 0:
                self.analysis_pass(analysis_seconds, once=True)
            return
        stopping = threading.Event()
        signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set())
        self.stdout.write(f"gameclock: a pass every {interval:g} s (Ctrl-C to stop)")
        if not settings.REDIS_URL:
            self.stdout.write(
                "gameclock: no REDIS_URL, so open pages do not hear this process's moves at once;"
                " the server runs its own clock (GAMECLOCK_IN_SERVER)"
            )
        try:
            self.serve(interval=interval, analysis_seconds=analysis_seconds, stopping=stopping)
        except KeyboardInterrupt:
            pass

    def serve(self, *, interval: float, analysis_seconds: float, stopping: threading.Event) -> None:
        """The clock's passes every ``interval`` seconds until ``stopping`` is set, and the analyses on a
        thread of their own beside them: one decision of an analysis can take half a minute of CPU
        (``bench/analysis.py``), and neither a live game's timed-out turn nor the clock's heartbeat
        (``/healthz``) may wait for it."""
        worker = None
        if analysis_seconds > 0:
            worker = threading.Thread(
                target=self.analyse, args=(analysis_seconds, interval, stopping), name="gameclock-analysis", daemon=True
            )
            worker.start()
        try:
            while True:
                self.clock_pass(once=False)
                if stopping.wait(interval):
                    return
                close_old_connections()  # a long-running worker must not keep a broken connection
        finally:
            stopping.set()
            if worker is not None:
                worker.join(STOP_WAIT)  # its decision written, so a restart goes on from there

    def analyse(self, seconds: float, interval: float, stopping: threading.Event) -> None:
        try:
            while not stopping.is_set():
                self.analysis_pass(seconds, once=False)
                if stopping.wait(interval):
                    return
                close_old_connections()
        finally:
            connections.close_all()  # this thread's own

    def clock_pass(self, *, once: bool) -> None:
        try:
            done = services.clock_tick()
            heartbeat.beat()  # /healthz of the server processes: the clock is alive and working
        except Exception as error:  # a bad game must not stop the clock for every other game
            if once:
                raise
            errors.log_failure(logger, "gameclock pass failed", error)
            return
        summary = services.pass_summary(done)
        if summary or once:
            self.stdout.write(f"gameclock: {summary or 'nothing was due'}")

    def analysis_pass(self, seconds: float, *, once: bool) -> None:
        try:
            analysed = services.analysis_tick(seconds=seconds)
        except Exception as error:  # a bad analysis must not stop the worker
            if once:
                raise
            errors.log_failure(logger, "gameclock analysis failed", error)
            return
        if analysed or once:
            self.stdout.write(f"gameclock: {analysed} decision(s) of finished games analysed")


def wait_less_for_a_connection(database: dict[str, Any]) -> None:
    """At most ``POOL_WAIT`` seconds for a connection of ``database``'s pool (its settings, before its pool is made)."""
    pool = database.get("OPTIONS", {}).get("pool")
    if isinstance(pool, dict):
        pool["timeout"] = min(float(pool.get("timeout", POOL_WAIT)), POOL_WAIT)
