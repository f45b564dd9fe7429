"""The turns' clocks stop while the database is out of reach.

While PostgreSQL is down (or restarting) nobody can move: a move is answered "try again" (503) and the page
sends it again until it is saved.  The clock cannot play the turns that run out meanwhile either, and when the
database came back it found them all out of time and played them with the bot, each counted as one of the
person's timeouts in a row (three of them hand the seat to the bot for good): a fault tester saw people lose
their turns, and nearly their seats, to an outage of the site.

So the clock notes an outage: a pass that failed for a lost connection (``errors.LOST_CONNECTION``) whose
connection was refused, closed or not to be had, or whose database, asked again, answered late or not at all
(:func:`lost_the_database`: a deadlock, a statement timeout or a lock refused is no outage, people move through
those); or a pass whose first query, once it had its connection, took more than ``HUNG_AFTER`` (a database that
hung: no error comes).  It then remembers since when nothing has been played: the start of its last whole pass,
in its process and, for ``SHARED_FOR`` after its last failed pass, in the shared cache, where another clock, or
this one restarted, finds it, and where the servers look before they refuse a move as late
(:func:`ran_out_while_down`).  At the first pass after, before any timed-out turn is played, every turn whose
time ran out since then, or runs out within ``GRACE``, gets back the time it had left then (never more than its
time per move): ``GRACE`` at least after an outage, for its page to come back, and after a hang the time it took
and no more.  Once per game and outage (``Game.time_given_back_at``), however many clocks saw it.  A clock that
simply did not run (a stopped process) is no outage: people could still move, and the turns it finds out of time
are played as ever.
"""

from __future__ import annotations

import datetime
import logging
import time

import psycopg
import psycopg_pool
from django.core.cache import cache
from django.db import InterfaceError, connection, transaction
from django.db.models import Exists, QuerySet
from django.utils import timezone

from games.models import Game
from threethirteen_site.errors import LOST_CONNECTION

from . import away
from .turns import announce, bot_seat_to_play, lock_game_still, log_on_commit, move_turn_clock_on

logger = logging.getLogger(__name__)

#: The least time a turn that ran out during an outage gets back (its whole time per move, when shorter).
GRACE = datetime.timedelta(seconds=15)
#: The shared cache's key of the outage: since when no clock has played the turns out of time.
SHARED_KEY = "clock:down-since"
#: How long the shared outage is kept after the last pass that could not reach the database: a clock restarted
#: within it learns of the outage, and moves made within it are not late.  After it, no clock is running (or none
#: has failed lately): people could move, and the turns out of time are played as ever (a review found a clock
#: started hours later giving every overdue turn a whole turn).
SHARED_FOR = 120
#: A database that took longer than this to answer one query once the pass had its connection hung (a stopped
#: server, a stalled disk): nobody could move meanwhile either, as in an outage (a fault tester froze PostgreSQL
#: for 40 s: no error came, and the pass then played every turn that had run out).  The wait for a pooled
#: connection is not counted: at a busy moment requests wait for one too, and are judged by when they came.
HUNG_AFTER = 5.0


class Memory:
    """What this process's clock knows of its own passes."""

    def __init__(self) -> None:
        self.last_pass_at: datetime.datetime | None = None  # the start of the last whole pass
        self.down_since: datetime.datetime | None = None  # the start of the last whole pass before an outage
        self.grace = GRACE  # the least time given back: none after a hang, when the pages stayed connected

    def forget(self) -> None:
        self.last_pass_at = self.down_since = None
        self.grace = GRACE

    def passed(self, began: datetime.datetime) -> None:
        """A whole pass that began at ``began``: every turn out of time then has been played.  Never moved back:
        a give-back in the pass moved it on to its own moment (``time_given_back_at`` of the games), and a second
        outage begins there, not before it (a review: the games given back were then skipped as paid)."""
        if self.last_pass_at is None or began > self.last_pass_at:
            self.last_pass_at = began

    def lost_database(self, at: datetime.datetime, *, hung: bool = False) -> None:
        """A pass that began at ``at`` could not reach the database (or, ``hung``, reached it only late): nothing
        has been played since the last whole pass (this process's, or, after a restart, the one another clock
        shared).  A hang gives back the time it took and no more: a database slow every few passes would
        otherwise keep a turn alive for ever with ``GRACE`` each time (a review)."""
        grace = datetime.timedelta(0) if hung else GRACE
        if self.down_since is None:
            shared = _shared_down_since()
            known = [moment for moment in (self.last_pass_at, shared) if moment is not None]
            self.down_since = min(known) if known else at
            self.grace = grace
        else:
            self.grace = max(self.grace, grace)
        _share(self.down_since)


memory = Memory()


def timed_turns(now: datetime.datetime) -> QuerySet[Game]:
    """The games in play whose turn runs on a clock now: a person's (a bot's turn has no time limit: it is played
    after the answer), not held by their time away (``away.clock_stopped``)."""
    return (
        Game.objects.filter(status=Game.Status.ACTIVE)
        .exclude(away.clock_stopped(now))
        .exclude(Exists(bot_seat_to_play()))
    )


def ran_out_while_down(deadline: datetime.datetime) -> bool:
    """Whether a turn whose time ran out at ``deadline`` ran out during an outage the clock has still to give back
    (this process's, or one shared in the cache): a move made in it is not late."""
    down_since = memory.down_since or _shared_down_since()
    return down_since is not None and deadline > down_since


def note_a_hung_database(began: datetime.datetime) -> None:
    """The pass's first query, timed once the pass has its connection: a database that answered only after
    ``HUNG_AFTER`` seconds was out of reach since the last whole pass (``Memory.lost_database``)."""
    connection.ensure_connection()
    start = time.monotonic()
    _ask()
    waited = time.monotonic() - start
    if waited > HUNG_AFTER:
        logger.warning("the database took %.0f s to answer the clock: the turns it held up get their time", waited)
        memory.lost_database(began, hung=True)


def lost_the_database(error: BaseException) -> bool:
    """Whether a pass that failed with ``error`` (a lost connection's kind) could not reach the database: a
    connection refused, closed or not to be had (no SQLSTATE, or class 08 or 57P0), or a database that answered
    only after ``HUNG_AFTER`` seconds, or not at all, when asked again.  A deadlock, a statement timeout or a lock
    refused is no outage: people move through those."""
    if _connection_failed(error):
        return True
    start = time.monotonic()
    reachable = database_reachable()
    return not reachable or time.monotonic() - start > HUNG_AFTER


def _connection_failed(error: BaseException | None) -> bool:
    seen = 0
    while error is not None and seen < 5:  # Django's error, caused by psycopg's (or its pool's)
        if isinstance(error, (InterfaceError, psycopg.InterfaceError, psycopg_pool.PoolTimeout)):
            return True
        if isinstance(error, psycopg.OperationalError):
            state = error.sqlstate
            return state is None or state.startswith("08") or state.startswith("57P0")
        error, seen = error.__cause__, seen + 1
    return False


def database_reachable() -> bool:
    """Whether the database answers a fresh connection (a lost one is not reused; inside a transaction, as a
    test runs, the connection in use)."""
    try:
        if not connection.in_atomic_block:
            connection.close()
        _ask()
    except LOST_CONNECTION:
        return False
    return True


def pause_turns_run_out_while_down(given: datetime.datetime | None = None) -> int:
    """After an outage (this clock's memory, or the shared cache's): give the turns it ran out their time back;
    how many.  Then the outage is forgotten, here and in the cache.  A lost connection on the way leaves it
    remembered (the games done are marked: they are not given time twice); any other failure of one game is
    logged, and the others get theirs.

    The time is read once the database answers (unless ``given``, as tests do): a pass may have waited seconds
    for a connection, and the time given back is counted from the return (a fault tester got 5 s of 15)."""
    down_since, grace = (memory.down_since, memory.grace) if memory.down_since else (_shared_down_since(), GRACE)
    if down_since is None:
        return 0
    connection.ensure_connection()
    now = given or timezone.now()
    threatened = (
        timed_turns(now)
        .filter(turn_deadline__gt=down_since, turn_deadline__lte=now + GRACE)
        .order_by("turn_deadline")
        .values_list("pk", flat=True)
    )
    turned = 0
    for game_id in threatened:
        try:
            turned += _give_back(game_id, down_since=down_since, now=now, grace=grace)
        except LOST_CONNECTION:
            raise
        except Exception:  # one broken game must not keep the clock from the others, nor from its pass
            logger.exception("game %s: the time an outage took could not be given back", game_id)
    memory.down_since, memory.last_pass_at, memory.grace = None, now, GRACE  # every turn out of time until now: done
    _share(None)
    if turned:
        logger.warning(
            "the clock played no turn from %s (the database out of reach) to %s: %s turn(s) got their time back",
            down_since.isoformat(timespec="seconds"),
            now.isoformat(timespec="seconds"),
            turned,
        )
    return turned


def _give_back(
    game_id: int, *, down_since: datetime.datetime, now: datetime.datetime, grace: datetime.timedelta = GRACE
) -> int:
    with transaction.atomic():
        game = lock_game_still(game_id, [Game.Status.ACTIVE])
        if game is None or game.turn_deadline is None or game.turn_started_at is None:
            return 0  # played to its end since the list was read
        deadline = game.turn_deadline
        if not down_since < deadline <= now + GRACE:
            return 0  # its turn was played since the list was read
        if game.time_given_back_at is not None and game.time_given_back_at > down_since:
            return 0  # given back already since the outage began: by another clock, or a pass cut short
        per_move = datetime.timedelta(seconds=game.time_limit_seconds)
        left = min(max(deadline - down_since, grace), per_move)
        if now + left <= deadline:
            return 0  # it has that much left already
        game.time_given_back_at = now
        fields = [*game.bump_for_notice(), "time_given_back_at"]
        fields += move_turn_clock_on(game, now + left - deadline)
        game.save(update_fields=fields)
        announce(game)
        log_on_commit(logger, "game %s: turn %s gets %s back after an outage", game.pk, game.turn_number, left)
    return 1


def _ask() -> None:
    """The least question the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _shared_down_since() -> datetime.datetime | None:
    try:
        value = cache.get(SHARED_KEY)
    except LOST_CONNECTION:  # Redis down too: this clock's own memory is all there is
        return None
    return datetime.datetime.fromisoformat(value) if isinstance(value, str) else None


def _share(down_since: datetime.datetime | None) -> None:
    """Keep the outage in the shared cache for ``SHARED_FOR`` seconds more (the earliest, when another clock put
    one there first), or forget it."""
    try:
        if down_since is None:
            cache.delete(SHARED_KEY)
        else:
            shared = _shared_down_since()
            earliest = down_since if shared is None else min(shared, down_since)
            cache.set(SHARED_KEY, earliest.isoformat(), timeout=SHARED_FOR)
    except LOST_CONNECTION:
        logger.warning("the clock could not share the outage in the cache: a restarted clock will not know of it")
