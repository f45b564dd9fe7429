"""The machinery every change of a game shares: the locked game and seat, the
move log, the bots' turns, the saved snapshot and the live announcement."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any, NamedTuple

from django.db import DatabaseError, transaction
from django.db.models import OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from games import bots, live, selectors
from games.engine import (
    Action,
    Draw,
    EventKind,
    GameState,
    IllegalAction,
    Rules,
    apply,
    deal_event,
    new_game,
    view,
)
from games.engine import RoundResult as EngineRoundResult
from games.history import ratings
from games.models import BotLevel, ChatMessage, Game, Move, RoundResult, Seat
from threethirteen_site import after_response

from .errors import GameError
from .fairness import shuffle_at_deal

logger = logging.getLogger(__name__)

#: The bot that plays a person's timed-out turn, and the seat of someone who left.
TAKEOVER_BOT_LEVEL = BotLevel.HARD

#: Bot turns in a row after which we stop (only a broken engine gets there).
_MAX_BOT_MOVES = 10_000

#: While the after-answer work's bots think, their game is marked changed at least this often (between two
#: decisions, each at most about 1.5 s), so that the clock, which rescues games left unchanged for
#: ``clock.BOTS_WAITING_AFTER`` (10 s), leaves a long round of thinking to it instead of thinking it too.
THINKING_MARK_EVERY = datetime.timedelta(seconds=3)


def lock_game(game_id: int | str) -> Game:
    """The game with its row locked until the transaction ends (``not_found`` for any bad id).

    ``FOR NO KEY UPDATE`` (PostgreSQL): it still keeps every other locker of the game out, but lets another
    transaction insert a row that refers to the game (a chat message, its foreign key checked with a
    ``KEY SHARE`` lock), which ``FOR UPDATE`` made wait: a chat post and a rematch asking the poster
    deadlocked (a review).
    """
    try:
        return Game.objects.select_for_update(no_key=True).get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such game.")) from None


def move_turn_clock_on(game: Game, by: datetime.timedelta) -> list[str]:
    """The turn's deadline and its start move on by ``by`` together, so that ``deadline = start + time per move``
    still holds: a discard later in the turn computes the deadline again from its start (``save_state``).  The
    fields to save."""
    assert game.turn_deadline is not None and game.turn_started_at is not None
    game.turn_deadline += by
    game.turn_started_at += by
    return ["turn_deadline", "turn_started_at"]


def bot_seat_to_play() -> QuerySet[Seat]:
    """The seat to play of the outer query's game, when a bot plays it (``Exists`` of it: the turn is a bot's)."""
    return Seat.objects.filter(game=OuterRef("pk"), position=OuterRef("current_seat")).exclude(bot_level="")


def lock_game_still(game_id: int, statuses: Iterable[str]) -> Game | None:
    """``lock_game`` for a game listed earlier by its status: None if it has left ``statuses`` since.

    For a path that holds a person's row and then locks their games one by one (a deactivation, time away):
    it has nothing to do at a game that finished after the list was read. Under READ COMMITTED the locking
    statement then sees the game finished and locks nothing. If it began while the move that finished it
    was still running, PostgreSQL waits for that move, locks the row's new version and only then finds it
    finished: None, but the row stays locked until this transaction ends. That wait is for the move alone,
    never for a rematch or an analysis of the game: those lock the people's rows first
    (``playing._lock_the_people_at``, ``analysis.analysis_request``), so they wait for this path's person
    instead of holding the game against it (a review found both orders deadlocking on PostgreSQL).
    """
    return Game.objects.select_for_update(no_key=True).filter(pk=game_id, status__in=list(statuses)).first()


def locked_game(game_id: int | str, user: Any) -> Game:
    """``lock_game`` for a signed-in person (``not_logged_in`` otherwise)."""
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in to play."))
    return lock_game(game_id)


def log_on_commit(log: logging.Logger, message: str, *args: object) -> None:
    """Log at INFO once the transaction commits, so a change that was rolled back leaves no line."""
    transaction.on_commit(lambda: log.info(message, *args))


def seat_of(game: Game, user: Any, seats: Iterable[Seat] | None = None) -> Seat:
    """The user's seat: one of ``seats`` (the game's, read by the caller) when given."""
    if seats is None:
        seats = game.seats.all()
    seat = next((s for s in seats if s.user_id is not None and s.user_id == user.pk), None)
    if seat is None:
        raise GameError("not_seated", _("You have no seat at this table."))
    return seat


def hand_seat_to_bot(
    game: Game, seat: Seat, level: str, *, left: str = "", now: datetime.datetime | None = None
) -> None:
    """From now on a bot of ``level`` plays ``seat``, under the first bot name not yet at the table.

    The one way a seat goes to a bot: the creator starting before every seat
    is taken, a resignation or timeouts (``left`` says why the person left;
    they stay on the seat for the standings), and a moderator.  Saves the
    seat; the caller bumps the version and lets the bots play.
    """
    now = now or timezone.now()
    taken = set(game.seats.exclude(pk=seat.pk).exclude(bot_name="").values_list("bot_name", flat=True))
    seat.bot_level = level
    seat.bot_name = bots.free_bot_name(taken)
    fields = ["bot_level", "bot_name"]
    if seat.reserved_for_id is not None:  # held for someone invited who did not take it before the start
        seat.reserved_for = None
        fields.append("reserved_for")
    if left:
        seat.left, seat.left_at = left, now
        fields += ["left", "left_at"]
    if seat.joined_at is None:
        seat.joined_at = now
        fields.append("joined_at")
    seat.save(update_fields=fields)


def engine_state(game: Game) -> GameState:
    """The engine state of a dealt game (``Game.state`` is empty until the deal).

    Refused as ``game_not_active`` for a game never dealt, instead of the
    engine failing on ``None``.
    """
    if game.state is None:
        raise GameError("game_not_active", _("The game has not started yet."))
    return GameState.from_dict(game.state)


def describe_illegal(error: IllegalAction, action: Action | Mapping[str, Any]) -> str:
    """The engine's refusal in the reader's language (its English text is the fallback)."""
    messages = {
        "not_your_turn": _("It is not your turn."),
        "wrong_phase": (
            _("Not now: you have drawn already; now discard or go out.")
            if isinstance(action, Draw)
            else _("Not now: draw a card first, from the stock or the discard pile.")
        ),
        "card_not_in_hand": _("That card is not in your hand."),
        "discard_just_taken": _("You just took that card from the discard pile: discard another card."),
        "cannot_go_out": _("You cannot go out with that discard: the rest of your hand does not all fit in melds."),
        "empty_pile": (
            _("The stock is empty: take the top of the discard pile.")
            if isinstance(action, Draw) and action.source == "stock"
            else _("The discard pile is empty: draw from the stock.")
        ),
        "game_over": _("The game is over: no more moves."),
    }
    if error.code == "bad_action":
        return _describe_bad_action(error, action)
    return messages.get(error.code, _("That move is not possible."))


def _describe_bad_action(error: IllegalAction, action: Action | Mapping[str, Any]) -> str:
    """What was wrong with a move that could not be read (a hand-made post), by the engine's ``reason``."""
    if error.reason in ("bad_source", "no_source"):
        return _("Draw from the stock or from the discard pile.")
    if error.reason == "unknown_type":
        return _("Unknown move: you can draw, discard or go out.")
    if error.reason == "no_card":
        return _("Say which card you discard.")
    if error.reason == "bad_card":
        code = action.get("card") if isinstance(action, Mapping) else getattr(action, "card", "")
        return _("“%(code)s” is not a card: a card is named by its code, such as TH for the ten of hearts.") % {
            "code": str(code)[:10]
        }
    return _("That move could not be read.")  # not an action, or fields no move has


class BotStep(NamedTuple):
    """A move worked out before it is logged: who plays what, the state after it and its public events."""

    position: int
    action: Action
    state: GameState
    events: list[dict[str, Any]]


class Recorder:
    """Applies actions to the engine state and appends them to the move log.

    The moves are written together, in one query, by :meth:`flush` (``save_state``
    calls it before it saves the game).  A move's number in the log (``seq``) is
    the engine's count of the moves played (``GameState.move_count``): the log
    and the snapshot move on together, and the unique (game, seq) constraint
    refuses a log that would not.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.turn_changed = False
        self.last_events: list[dict[str, Any]] = []
        self.pending: list[Move] = []

    def play(self, state: GameState, position: int, action: Action, *, by_bot: bool) -> GameState:
        new_state, events = apply(state, position, action)  # raises IllegalAction, nothing stored
        return self.record(BotStep(position, action, new_state, [event.to_dict() for event in events]), state, by_bot)

    def record(self, step: BotStep, state: GameState, by_bot: bool) -> GameState:
        """Log a move worked out already (``step``, from ``state``): the state after it."""
        if step.state.move_count != state.move_count + 1:
            raise ValueError(f"move {step.state.move_count} does not follow move {state.move_count}")
        self.last_events = step.events
        self.pending.append(
            Move(
                game=self.game,
                seq=step.state.move_count,
                seat=step.position,
                action=step.action.to_dict(),
                by_bot=by_bot,
                round_number=state.round_number,
                events=step.events,
            )
        )
        self.game.version += 1
        if not isinstance(step.action, Draw):  # a discard or a go-out ends the turn
            self.game.turn_number += 1
            self.turn_changed = True
        for result in step.state.results[len(state.results) :]:
            store_round_result(self.game, result)
        return step.state

    def pending_events(self) -> list[dict[str, Any]]:
        """The public events of the moves played and not written yet, in order."""
        return [event for move in self.pending for event in move.events]

    def flush(self) -> None:
        """Write the moves played since the last flush (one INSERT)."""
        if self.pending:
            Move.objects.bulk_create(self.pending)
            self.pending = []


def store_round_result(game: Game, result: EngineRoundResult) -> None:
    """One ``RoundResult`` row per seat, in the JSON shapes of the engine's ``to_dict``."""
    data = result.to_dict()
    RoundResult.objects.bulk_create(
        [
            RoundResult(
                game=game,
                round_number=data["round"],
                seat=position,
                hand_size=data["hand_size"],
                points=seat["points"],
                went_out=seat["went_out"],
                melds=[m["cards"] for m in seat["melds"]],
                deadwood=seat["deadwood"],
                went_out_first=data["went_out"] == position,
                penalty=seat["penalty"],
                laid_off=seat["laid_off"],
            )
            for position, seat in enumerate(data["seats"])
        ]
    )


def play_bots(
    game: Game,
    state: GameState,
    recorder: Recorder,
    *,
    seats: list[Seat] | None = None,
    now: datetime.datetime | None = None,
) -> None:
    """Bot seats play while the turn is theirs; then the moves and the game row are saved.

    In a request the moves so far are saved and the bots' turns are left until after the answer
    (``after_response.later``: :func:`bots_after_answer`), so the person does not wait for them to think.
    Elsewhere (the clock, a command, the test client) they are played here and now.

    ``seats``: the game's seats as the caller read (and changed) them; read here otherwise.
    """
    if seats is None:
        seats = list(game.seats.all())
    if bot_to_play(state, seats) and after_response.later(partial(bots_after_answer, game.pk)):
        save_state(game, state, recorder, seats, now=now)
        return
    save_state(game, bot_turns(game, state, recorder, seats), recorder, seats, now=now)


def bot_to_play(state: GameState, seats: Iterable[Seat]) -> bool:
    return not state.is_over and Seat.bot_plays(seats, state.current_seat)


def bot_turns(
    game: Game, state: GameState, recorder: Recorder, seats: Iterable[Seat], *, one_round: bool = False
) -> GameState:
    """The state after the bots' turns, played while the turn is a bot's (``one_round``: not past the end of
    the round in play)."""
    for step in plan_bot_turns(game, state, seats, one_round=one_round, unwritten=recorder.pending_events()):
        state = recorder.record(step, state, by_bot=True)
    return state


def plan_bot_turns(
    game: Game,
    state: GameState,
    seats: Iterable[Seat],
    *,
    one_round: bool = False,
    unwritten: Iterable[dict[str, Any]] = (),
    thinking: Callable[[], object] | None = None,
) -> list[BotStep]:
    """The bots' moves from ``state`` while the turn is a bot's (``one_round``: not past the end of the
    round in play), worked out and not logged: the bots think here, and write nothing.

    ``unwritten``: the public events of the moves before ``state`` that are not in the move log yet;
    ``thinking``: called before each bot's decision.
    """
    bot_levels = {s.position: s.bot_level for s in seats if s.bot_level}
    round_number = state.round_number
    history: list[dict[str, Any]] | None = None
    steps: list[BotStep] = []
    for _turn in range(_MAX_BOT_MOVES):
        if state.is_over or state.current_seat not in bot_levels:
            break
        if one_round and state.round_number != round_number:
            break
        position = state.current_seat
        level = bot_levels[position]
        if thinking is not None:
            thinking()
        if history is None and bots.reads_history(level):  # read from the log once, and only for a bot that reads it
            history = extend_history(
                round_history(game, state), [*unwritten, *(event for step in steps for event in step.events)]
            )
        action = bots.choose_action(view(state, position), level, history or ())
        state, events = apply(state, position, action)
        steps.append(BotStep(position, action, state, [event.to_dict() for event in events]))
        if history is not None:
            history = extend_history(history, steps[-1].events)
    return steps


class BotSlice(NamedTuple):
    """What :func:`play_waiting_bots` did: the moves it played, and whether a bot's turn still waits."""

    moves: int
    waiting: bool


def play_waiting_bots(
    game_id: int,
    *,
    skip_locked: bool = False,
    unchanged_since: datetime.datetime | None = None,
    now: datetime.datetime | None = None,
) -> BotSlice:
    """The bots' turns of a game whose turn is a bot's, to the end of the round in play at most (so a game
    whose people all left is played a round at a time, and one table never holds up the bots of the others).

    The bots think first, with nothing locked (on SQLite the one write lock would hold up every other
    table's moves meanwhile); then their moves are logged with the game locked, if its version has not
    moved since.  If it has, nothing is logged and a bot's turn still waits (``waiting``): the caller asks
    again, and they think again from the game as it is.  Nothing is played when it is no bot's turn (they
    were played, or the game ended or was called off); nor, for the clock, when someone else holds the
    game's row (``skip_locked``: they are logging its moves; PostgreSQL only, SQLite's one write lock is
    waited for) or the game changed after ``unchanged_since`` (they just played a round of it).
    """
    waiting = _bots_waiting(Game.objects.filter(pk=game_id).first(), unchanged_since)
    if waiting is None:
        return BotSlice(0, False)
    game, state, seats = waiting
    # The after-answer work marks its game changed as its bots think (THINKING_MARK_EVERY): the clock leaves
    # a game that changed this recently to it (BOTS_WAITING_AFTER), when the work was queued long after its
    # answer or its round of thinking lasts long.  Not the clock's own pass, which checks the game did not
    # change after ``unchanged_since`` before it logs.
    thinking = None if unchanged_since is not None else _ThinkingMark(game_id)
    plan = plan_bot_turns(game, state, seats, one_round=True, thinking=thinking)
    return _log_bot_turns(
        game_id, game.version, plan, skip_locked=skip_locked, unchanged_since=unchanged_since, now=now
    )


@transaction.atomic
def _log_bot_turns(
    game_id: int,
    version: int,
    plan: list[BotStep],
    *,
    skip_locked: bool,
    unchanged_since: datetime.datetime | None,
    now: datetime.datetime | None,
) -> BotSlice:
    """Log ``plan``, the bots' moves worked out at ``version`` of the game, with the game locked."""
    waiting = _bots_waiting(
        Game.objects.select_for_update(skip_locked=skip_locked).filter(pk=game_id).first(), unchanged_since
    )
    if waiting is None:
        return BotSlice(0, False)
    game, state, seats = waiting
    if game.version != version and not game.only_notices_since(version):
        # Changed while the bots thought (a person left, a move): they think again, but not here, holding the
        # lock (on SQLite the one write lock): still waiting, the work is queued again.  A notice of time away
        # changed nothing they saw.
        return BotSlice(0, True)
    if not plan:
        return BotSlice(0, False)
    recorder = Recorder(game)
    for step in plan:
        state = recorder.record(step, state, by_bot=True)
    save_state(game, state, recorder, seats, now=now)
    return BotSlice(len(plan), bot_to_play(state, seats))


class _ThinkingMark:
    """Marks a game changed (``updated_at``) when called, at most once every ``THINKING_MARK_EVERY``."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.marked: datetime.datetime | None = None

    def __call__(self) -> None:
        now = timezone.now()
        if self.marked is None or now - self.marked >= THINKING_MARK_EVERY:
            self.marked = now
            try:
                Game.objects.filter(pk=self.game_id).update(updated_at=now)
            except DatabaseError:
                # Only a hint to the clock (SQLite's write lock held past its timeout, say): the round's
                # thinking goes on; at worst the clock thinks it too, and the second to log finds it played.
                logger.warning("could not mark game %s as its bots think", self.game_id, exc_info=True)


def _bots_waiting(
    game: Game | None, unchanged_since: datetime.datetime | None
) -> tuple[Game, GameState, list[Seat]] | None:
    """The game, its state and its seats when a bot's turn waits in it (and it has not changed after
    ``unchanged_since``, when given); ``None`` otherwise."""
    if game is None or game.status != Game.Status.ACTIVE or game.state is None:
        return None
    if unchanged_since is not None and game.updated_at > unchanged_since:
        return None
    seats = list(game.seats.all())
    state = engine_state(game)
    return (game, state, seats) if bot_to_play(state, seats) else None


def bots_after_answer(game_id: int) -> Callable[[], object] | None:
    """The work a request leaves until after its answer: a round of the bots' turns, and the next round's
    (handed back, to be queued behind the other tables' work) while a bot's turn still waits."""
    if play_waiting_bots(game_id).waiting:
        return partial(bots_after_answer, game_id)
    return None


def round_history(game: Game, state: GameState) -> list[dict[str, Any]]:
    """The public events of the round in play, from its deal on (what a bot may remember), as
    written in the move log (a recorder's moves not written yet are not in it).  The first round
    was dealt when the game started, with no move to log its deal: its event is worked out."""
    events: list[dict[str, Any]] = [deal_event(state).to_dict()] if state.round_index == 0 else []
    for move_events in (
        Move.objects.filter(game=game, round_number__gte=state.round_number - 1)
        .order_by("seq")
        .values_list("events", flat=True)
    ):
        events = extend_history(events, move_events)
    return events


def extend_history(history: list[dict[str, Any]], events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    for event in events:
        if event.get("kind") == EventKind.ROUND_DEALT:
            history = []
        history = [*history, event]
    return history


def save_state(
    game: Game, state: GameState, recorder: Recorder, seats: list[Seat], *, now: datetime.datetime | None = None
) -> None:
    """Write the moves played, the seats' new totals, then the game: only the fields that changed."""
    now = now or timezone.now()
    recorder.flush()
    turn_started_at = game.turn_started_at
    new_turn = recorder.turn_changed or turn_started_at is None
    if new_turn or turn_started_at is None:
        turn_started_at = game.turn_started_at = now
    game.state = state.to_dict()
    game.current_seat = state.current_seat
    scores = list(state.scores)
    for seat in seats:
        if seat.total_score != scores[seat.position]:
            seat.total_score = scores[seat.position]
            seat.save(update_fields=["total_score"])
    if state.is_over:
        game.set_status(Game.Status.FINISHED, now=now)
    else:
        game.turn_deadline = turn_started_at + datetime.timedelta(seconds=game.time_limit_seconds)
    game.save_changes()
    if state.is_over:
        ratings.rate_finished_game(game)  # once: same transaction, game row locked
        log_on_commit(logger, "game %s finished: total scores by seat %s", game.pk, scores)
        # The players may read the watchers' chat from now on: their open pages fetch it now, not on a reload.
        live.announce_chat_on_commit(game.pk, ChatMessage.Channel.WATCHERS)
    announce(game, turn_moved=new_turn or state.is_over, seats=seats)


def announce(game: Game, *, turn_moved: bool = False, seats: Iterable[Seat] | None = None) -> None:
    """Once the transaction commits, the game's live group hears the new version (and nothing else);
    when the turn moved on (or the game ended), the pages of every person at the table are told to
    count their "games waiting" again (``seats``: the game's, when the caller has them)."""
    seats = list(game.seats.all() if seats is None else seats)
    watch = selectors.watch_facts(game, seats)  # each socket decides from it, with no read of its own
    if not turn_moved:
        live.announce_game_version_on_commit(game.pk, game.version, watch)
        return
    people = [s.user_id for s in seats if s.user_id]
    live.announce_change_on_commit(game.pk, game.version, people, watch)


def announce_lobby(game: Game) -> None:
    """Once the transaction commits, the lobby's open pages fetch their lists again: a table listed there
    (public, open) was created, or a seat of it was taken or left, or it started or was called off.

    A private game is never listed: only its own people hear of it (those seated, and those a seat is held
    for, as the seats are when this is called: call it before a held seat is let go), whose lobbies list it
    among their games or invitations.
    """
    if not game.is_private:
        live.announce_lobby_on_commit()
        return
    people = {person for pair in game.seats.values_list("user_id", "reserved_for_id") for person in pair if person}
    live.announce_lobby_to_users_on_commit(people)


def let_go_of_a_called_off_table(game: Game) -> None:
    """A game that will never be dealt (called off while open) holds no seat for anyone any more: the people
    invited no longer see it among their invitations, nor may open its table; and, a rematch, it no longer
    stands for its finished game (:func:`tell_of_a_called_off_rematch`)."""
    game.seats.filter(reserved_for__isnull=False).update(reserved_for=None)
    tell_of_a_called_off_rematch(game)


def tell_of_a_called_off_rematch(game: Game) -> None:
    """``game``, an open rematch, is called off: once that commits, its finished game's tables are told (a new
    version), and offer "Rematch" again (the table no longer leads to a rematch called off, and
    ``game_rematch`` makes a new one). Before, the finished game kept pointing at the called-off rematch.

    After the commit, in a transaction of its own: the finished game is locked before its rematch on every
    path that locks both (``game_rematch``), never after.
    """
    finished_id = game.rematch_of_id
    if finished_id is None:
        return

    def tell() -> None:
        with transaction.atomic():
            finished = lock_game(finished_id)
            finished.version += 1
            finished.save(update_fields=["version", "updated_at"])
            announce(finished)

    # Robust: the called-off table is saved; failing to tell its finished game must not make the answer a 503,
    # nor stop a clock's pass (the finished game's pages learn at their next fetch).
    transaction.on_commit(tell, robust=True)


def deal(game: Game) -> None:
    rules = Rules.from_dict(game.rules)
    state = new_game(rules, game.seat_count, shuffle_at_deal(game))
    game.set_status(Game.Status.ACTIVE)
    play_bots(game, state, Recorder(game))
