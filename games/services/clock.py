"""The move clock: a turn that runs out of time is played by the bot; bot turns a stopped (or busy) server
left waiting are played; the due turn notices go out; what has run out is deleted (``manage.py gameclock`` calls
:func:`clock_tick`)."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable

from django.db import transaction
from django.db.models import Exists
from django.utils import timezone
from django.utils.translation import gettext as _

from games import bots
from games.engine import view
from games.models import Game, Seat
from games.models.play import PERSON_PLAYS
from threethirteen_site import after_response
from threethirteen_site.errors import LOST_CONNECTION

from . import away, notices, outage, tidy
from .errors import GameError
from .turns import (
    TAKEOVER_BOT_LEVEL,
    Recorder,
    announce,
    announce_lobby,
    bot_seat_to_play,
    engine_state,
    extend_history,
    hand_seat_to_bot,
    let_go_of_a_called_off_table,
    lock_game,
    log_on_commit,
    play_bots,
    play_waiting_bots,
    round_history,
)

logger = logging.getLogger(__name__)

#: How long a table with a live time limit waits, unchanged, for its players: then the clock calls it off. One
#: played over days waits as long as it takes. Before, a live table waited for ever, and a seat taken hours
#: later dealt it to people long gone, whose 30-second turns the clock then played and rated (a review saw it
#: with a rematch: its asker walked away, the other took the seat six hours later).
LIVE_TABLE_WAITS = datetime.timedelta(minutes=30)

#: A game whose turn has been a bot's this long since it last changed was left by a server that stopped
#: before it ran the work after its answer (``after_response``), or whose after-answer thread is busy with
#: other tables: the clock plays a round of it (``play_waiting_bots``; a game whose moves another thread is
#: logging, its row locked, is skipped on PostgreSQL).  The work marks the game changed as it starts to
#: think and again between its bots' decisions (``turns.THINKING_MARK_EVERY``; the expert's slowest
#: decision takes about 1.5 s), so the clock leaves it alone while it thinks, however long the round.  Were
#: a mark missed, the clock might think the same round too; whichever logs it second finds it played and
#: logs nothing.
BOTS_WAITING_AFTER = datetime.timedelta(seconds=10)


@transaction.atomic
def game_timeout(*, game_id: int, turn_number: int, now: datetime.datetime | None = None) -> Game:
    """The turn ``turn_number`` of the game ran out of time: the bot plays it.

    Checked under the game's row lock, like a move: refused (``not_due``,
    nothing changed) unless the game is still at that turn and its deadline
    has passed, so two clock workers never play one turn twice.  After
    ``Seat.TIMEOUTS_BEFORE_TAKEOVER`` timeouts in a row the bot keeps the seat and
    the person is marked as having left.

    The bot plays the turn from where it stands: all of it, or, when the
    person drew before the deadline, the rest (the discard or going out).
    A move of the person made once ``now >= turn_deadline`` (reaching the
    server then: ``game_play``'s ``received_at``) is refused (``out_of_time``),
    the same instant from which this plays the turn, so a turn is never split
    between a late person and the bot.

    ``now`` (a test's moment, else the time once the game is locked) decides whether the turn is due;
    the next turn starts when it is written, after the bot's thinking (``save_state`` reads the time
    then), unless a moment was given.
    """
    given = now
    game = lock_game(game_id)
    now = given or timezone.now()  # after waiting for the lock: a move in flight may have played the turn
    if (
        game.status != Game.Status.ACTIVE
        or game.turn_number != turn_number
        or game.turn_deadline is None
        or game.turn_deadline > now
    ):
        raise GameError("not_due", _("That turn has been played or is not out of time."))
    state = engine_state(game)
    position = state.current_seat
    if position is None:  # a round or game over: no turn to play
        raise GameError("not_due", _("That turn has been played or is not out of time."))
    seat = game.seats.get(position=position)
    if seat.bot_level:  # a bot's turn runs out of no time: it is played after the answer, or rescued (below)
        raise GameError("not_due", _("That turn has been played or is not out of time."))
    if game.is_async and seat.person_plays and away.holds_clock(seat.user_id, now):
        # Away (or back a moment ago): the clock worker moves the deadline on first (away.settle_due).
        raise GameError("not_due", _("That turn has been played or is not out of time."))
    recorder = Recorder(game)
    history = round_history(game, state)
    while not state.is_over and state.current_seat == position and game.turn_number == turn_number:
        action = bots.choose_action(view(state, position), TAKEOVER_BOT_LEVEL, history)
        state = recorder.play(state, position, action, by_bot=True)
        history = extend_history(history, recorder.last_events)
    seat.timeouts_in_row += 1
    seat.save(update_fields=["timeouts_in_row"])
    log_on_commit(
        logger,
        "game %s: turn %s of seat %s (user %s) timed out (%s in a row); the bot played it",
        game.pk,
        turn_number,
        position,
        seat.user_id,
        seat.timeouts_in_row,
    )
    if seat.timeouts_in_row >= Seat.TIMEOUTS_BEFORE_TAKEOVER and not seat.bot_level:
        hand_seat_to_bot(game, seat, TAKEOVER_BOT_LEVEL, left=Seat.Left.TIMED_OUT, now=now)
        log_on_commit(
            logger, "game %s: a bot keeps seat %s; user %s has left after timeouts", game.pk, position, seat.user_id
        )
    play_bots(game, state, recorder, now=given)
    return game


def clock_tick(*, now: datetime.datetime | None = None) -> dict[str, int]:
    """One pass of the clock worker: after an outage of the database, give the turns it ran out their time back
    (``outage``, counted as ``paused``); settle time away that began or ended, play the timed-out turns and a
    round of each game whose bots were left waiting (``BOTS_WAITING_AFTER``), send the due e-mails.

    Safe to run in several processes at once: each timeout goes through
    :func:`game_timeout` (row lock and turn check) and each e-mail is
    recorded once per game, turn and kind before it is sent.  Time away is
    settled first, so a deadline that a return moves on is moved before it
    could be found out of time; turns of a player who holds their clock
    (``away.clock_stopped``) are left alone.

    Each step reads the time afresh (unless ``now`` is given, as tests do): a pass after the worker was
    stopped may play many turns, each with a bot's thinking, and the turn each of them hands on starts
    when it is written, not when the pass began (its person would find part of their time, or all of
    a live game's, gone before their turn was theirs).
    """

    began = now or timezone.now()
    try:
        outage.note_a_hung_database(began)
        paused = outage.pause_turns_run_out_while_down(now)  # first: before any of those turns is played
        done = _pass(now)
    except LOST_CONNECTION as error:
        if outage.lost_the_database(error):  # nobody can move either: the turns' clocks stop (``outage``)
            outage.memory.lost_database(began)
        raise
    outage.memory.passed(began)
    return {**done, "paused": paused}


def pass_summary(done: dict[str, int]) -> str:
    """A clock pass's counts (``clock_tick``'s) as a line for its log, or "" when it played, sent and gave back
    nothing (the tables called off and the time away settled are logged where they happen)."""
    if not any(done[kind] for kind in ("timeouts", "emails", "pushes", "bots", "paused")):
        return ""
    return (
        f"{done['timeouts']} timed-out turn(s) played, {done['emails']} e-mail(s) sent, {done['pushes']} push"
        f" notice(s) sent, {done['bots']} table(s) of bots left waiting played, {done['paused']} turn(s) given back"
        " the time an outage took"
    )


def _pass(now: datetime.datetime | None) -> dict[str, int]:
    def moment() -> datetime.datetime:
        return now or timezone.now()

    settled = away.settle_due(now=moment())
    now_at_start = moment()
    played = 0
    due = list(
        outage.timed_turns(now_at_start)
        .filter(turn_deadline__lte=now_at_start)
        .order_by("turn_deadline")
        .values_list("pk", "turn_number")
    )
    for game_id, turn_number in due:
        try:
            with after_response.collecting() as work:  # the bots after the timed-out turn: not under its lock
                game_timeout(game_id=game_id, turn_number=turn_number, now=now)  # None: its own time
            played += 1
            _play_left_bots(work, game_id)
        except GameError:
            pass  # another worker (or the player) got there first
        except Exception:  # one broken game must not stop the clock of all the others
            logger.exception("the bot could not play the timed-out turn %s of game %s", turn_number, game_id)
    rescued = 0
    waited = moment() - BOTS_WAITING_AFTER
    for game_id in bots_left_waiting(waited):
        try:
            rescued += play_waiting_bots(game_id, skip_locked=True, unchanged_since=waited, now=now).moves > 0
        except Exception:  # nor one broken game the others' bots
            logger.exception("the bots of game %s could not play their waiting turns", game_id)
            # Tried again once it has waited BOTS_WAITING_AFTER anew, not at every pass.
            Game.objects.filter(pk=game_id).update(updated_at=moment())
    called_off = call_off_live_tables_left_waiting(now=moment())
    sent = notices.send_due_notices(now=moment())
    tidy.tidy_if_due()  # expired sessions and old invitation notices, once an hour
    return {
        "called_off": called_off,
        "timeouts": played,
        "emails": sent["emails"],
        "pushes": sent["pushes"],
        "away": settled,
        "bots": rescued,
    }


def call_off_live_tables_left_waiting(*, now: datetime.datetime) -> int:
    """Call off the open tables with a live time limit that nobody joined, left or started for
    ``LIVE_TABLE_WAITS``; how many. Each under its row lock, checked again there (a seat taken meanwhile
    keeps it)."""
    waited = now - LIVE_TABLE_WAITS
    stale = Game.objects.filter(
        status=Game.Status.OPEN, time_limit_seconds__lt=Game.ASYNC_MIN_SECONDS, updated_at__lte=waited
    )
    called_off = 0
    for game_id in stale.order_by("updated_at").values_list("pk", flat=True):
        try:
            with transaction.atomic():
                game = lock_game(game_id)
                if game.status != Game.Status.OPEN or game.is_async or game.updated_at > waited:
                    continue  # a seat taken (or the table started) since the list was read
                announce_lobby(game)  # (before the seats held are let go: those invited hear of it too)
                changed = game.set_status(Game.Status.ABORTED)
                game.version += 1
                game.save(update_fields=[*changed, "version", "updated_at"])
                announce(game)
                let_go_of_a_called_off_table(game)
                log_on_commit(logger, "live table %s called off: nobody came for %s", game.pk, LIVE_TABLE_WAITS)
            called_off += 1
        except Exception:  # one broken table must not stop the clock's pass
            logger.exception("the open live table %s could not be called off", game_id)
    return called_off


def _play_left_bots(work: list[Callable[[], object]], game_id: int) -> None:
    """The bots' turns a timeout left after its transaction (``bots_after_answer``), each a round at a time
    (thinking with nothing locked, logging with the game locked), until no bot's turn waits, or, once no person
    plays at the table any more, for the round in play alone: the game's other rounds are played a round a pass
    by the bots left waiting (``BOTS_WAITING_AFTER``).  The one clock played a game of expert bots whose last
    person timed out for good to its end in one pass, and every other table's timed-out turn waited half a
    minute for it (a fault tester)."""
    for task in work:
        more = task()
        while callable(more) and Seat.objects.filter(PERSON_PLAYS, game_id=game_id).exists():
            more = more()


def bots_left_waiting(since: datetime.datetime) -> list[int]:
    """The games in play whose turn is a bot's and that have not changed since ``since``."""
    return list(
        Game.objects.filter(status=Game.Status.ACTIVE, updated_at__lte=since)
        .filter(Exists(bot_seat_to_play()))
        .order_by("updated_at")
        .values_list("pk", flat=True)
    )
