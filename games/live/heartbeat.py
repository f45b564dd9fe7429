"""The move clock's heartbeat: when its last pass played what was due, for ``/healthz``.

With Redis the move clock is a process of its own (``manage.py gameclock``);
if it stops, timed-out turns are simply never played, and nothing else said
so: ``/healthz`` answered 200 while a 30-second turn stood unplayed.  Each
pass that played what was due (``services.clock_tick`` returned) records the
time in the shared cache (Redis, which every server process reads), and the
health check of a server process that does not run the clock itself reports
it "stale" when the last record is older than ``STALE_AFTER`` seconds, or
missing.  A failing pass (e.g. the database gone) records nothing: the clock
is not doing its work then either.
"""

from __future__ import annotations

import logging
import time

from django.core.cache import cache

logger = logging.getLogger(__name__)

KEY = "gameclock:heartbeat"
#: Seconds without a pass after which the clock counts as stopped: a pass every 2 s, each of a few seconds
#: at most (the analyses run beside the passes, not in them), so this is several passes missed; a restart of
#: the clock takes less.
STALE_AFTER = 30.0
#: How long the cache keeps a record: long after it went stale, so that "stale" is told from "never ran"
#: only by its age, and a cache that lost it (a Redis restart) reads as stale until the next pass.
KEEP_SECONDS = 24 * 3600


def beat() -> None:
    """Record that the clock's pass ended now (a cache that cannot be reached is logged, not raised)."""
    try:
        cache.set(KEY, time.time(), timeout=KEEP_SECONDS)
    except Exception as error:  # the clock must go on playing turns even if its heartbeat cannot be written
        # One line a pass while Redis is down, not a traceback every 2 s (a review).
        logger.warning("move clock: could not record its heartbeat in the cache: %s: %s", type(error).__name__, error)


class Unreadable(Exception):
    """The cache that keeps the heartbeat did not answer: whether the clock runs is not known."""


def seconds_since_beat(*, strict: bool = False) -> float | None:
    """Seconds since the clock last recorded a pass; None if there is no record (or the cache did not answer;
    ``strict``: :class:`Unreadable` then)."""
    try:
        last = cache.get(KEY)
    except Exception as error:
        if strict:
            raise Unreadable from error
        logger.warning("health check: could not read the move clock's heartbeat", exc_info=True)
        return None
    if not isinstance(last, int | float):
        return None
    return max(0.0, time.time() - last)


def clock_alive() -> bool:
    """Whether the clock recorded a pass within ``STALE_AFTER`` seconds."""
    age = seconds_since_beat()
    return age is not None and age <= STALE_AFTER
