"""The turns' clocks stop while the database is out of reach.

While PostgreSQL is down (or restarting) nobody can move: a move is answered "try again" (503) and the page
sends it again until it is saved.  The clock cannot play the turns that run out meanwhile either, and when the
database comes back it used to find them all out of time and play them with the bot, each counted as one of
the person's timeouts in a row (three of them hand the seat to the bot for good): a fault tester saw people
lose their turns, and nearly their seats, to an outage of the site.

So the clock remembers, in its own process, a pass that lost the database (``errors.LOST_CONNECTION``).  At
its first whole pass after that, before it plays any timed-out turn, every turn whose time ran out while it
was down, or runs out within ``GRACE`` of its return, gets back the time it had left when the clock last
passed, and ``GRACE`` at least (the whole time per move, when that is shorter): its page has reconnected by
then.  A clock that simply did not run (a stopped process) is no outage: people could still move, and the
turns it finds out of time are played as ever.
"""

from __future__ import annotations

import datetime
import logging

from django.db import transaction
from django.db.models import Exists

from games.models import Game

from . import away
from .turns import announce, bot_seat_to_play, lock_game_still, log_on_commit

logger = logging.getLogger(__name__)

#: The least time a turn that ran out during an outage gets back (its whole time per move, when shorter).
GRACE = datetime.timedelta(seconds=15)


class Memory:
    """What this process's clock knows of its own passes; nothing of it is shared with other processes (each
    clock pauses the turns at its own first pass after an outage; a second one finds them paused already)."""

    def __init__(self) -> None:
        self.last_pass_at: datetime.datetime | None = None  # the start of the last whole pass
        self.down_since: datetime.datetime | None = None  # from when the database was out of reach, if it was

    def forget(self) -> None:
        self.last_pass_at = self.down_since = None

    def passed(self, began: datetime.datetime) -> None:
        """A whole pass that began at ``began``: every turn out of time then has been played."""
        self.last_pass_at = began

    def lost_database(self, at: datetime.datetime) -> None:
        """A pass that began at ``at`` lost the database: nothing has been played since the last whole pass."""
        if self.down_since is None:
            self.down_since = self.last_pass_at or at


memory = Memory()


def pause_turns_run_out_while_down(now: datetime.datetime) -> int:
    """After an outage (``memory.down_since``): give the turns it ran out back their time; how many.  Then this
    process's clock remembers no outage (should it lose the database again before its pass is whole, those turns
    get back the time of that outage too, from ``now``)."""
    down_since = memory.down_since
    if down_since is None:
        return 0
    threatened = (
        Game.objects.filter(status=Game.Status.ACTIVE, turn_deadline__gt=down_since, turn_deadline__lte=now + GRACE)
        .exclude(away.clock_stopped(now))  # their time away moves their deadlines on
        .exclude(Exists(bot_seat_to_play()))
        .order_by("turn_deadline")
        .values_list("pk", flat=True)
    )
    paused = 0
    for game_id in threatened:
        paused += _give_back(game_id, down_since=down_since, now=now)
    memory.down_since, memory.last_pass_at = None, now  # every deadline until now is dealt with: given back or not due
    if paused:
        logger.warning(
            "the clock lost the database from %s to %s: %s turn(s) that ran out meanwhile got their time back",
            down_since.isoformat(timespec="seconds"),
            now.isoformat(timespec="seconds"),
            paused,
        )
    return paused


def _give_back(game_id: int, *, down_since: datetime.datetime, now: datetime.datetime) -> int:
    with transaction.atomic():
        game = lock_game_still(game_id, [Game.Status.ACTIVE])
        deadline, started = (None, None) if game is None else (game.turn_deadline, game.turn_started_at)
        if game is None or deadline is None or started is None or not down_since < deadline <= now + GRACE:
            return 0  # moved, or played, since the list was read
        per_move = datetime.timedelta(seconds=game.time_limit_seconds)
        left = min(max(deadline - down_since, min(GRACE, per_move)), per_move)
        shift = now + left - deadline
        if shift <= datetime.timedelta(0):
            return 0
        # The turn's start moves with its deadline: a discard after the draw computes the deadline from it.
        game.turn_deadline, game.turn_started_at = deadline + shift, started + shift
        game.save(update_fields=[*game.bump_for_notice(), "turn_deadline", "turn_started_at"])
        announce(game)
        log_on_commit(logger, "game %s: turn %s gets %s back after the outage", game.pk, game.turn_number, shift)
    return 1
