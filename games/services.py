"""Every change of a game goes through here.

Keyword-only, typed functions named ``game_<action>``.  Each runs in one
transaction that locks the game row (``select_for_update``), checks what it
must, and raises :class:`GameError` (a code, a message for people and an
HTTP status) without changing anything when the request cannot be honoured.

Every change bumps ``Game.version`` by one per stored change (each move, a
bot's included, and each join, leave or start), so a client that posts the
version it saw is refused when anything happened in between.
"""

from __future__ import annotations

import datetime
import logging
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from games import bots, live, ratings
from games.engine import (
    Action,
    Discard,
    Draw,
    GameState,
    GoOut,
    IllegalAction,
    Rules,
    RulesError,
    action_from_dict,
    apply,
    new_game,
    view,
)

from .models import AuditRecord, BotLevel, Game, Move, RoundResult, Seat, Variant

__all__ = [
    "GameError",
    "game_create",
    "game_join",
    "game_leave",
    "game_start",
    "game_play",
    "game_timeout",
    "game_resign",
    "game_rematch",
    "clock_tick",
    "TIMEOUTS_BEFORE_TAKEOVER",
    "TAKEOVER_BOT_LEVEL",
    "game_abort",
    "seat_hand_to_bot",
    "user_deactivate",
    "moderation_reason",
]

logger = logging.getLogger(__name__)

#: HTTP status for each refusal code (anything else: 400).
_STATUS = {
    "not_logged_in": 403,
    "not_seated": 403,
    "not_creator": 403,
    "not_found": 404,
    "stale_version": 409,
    "game_not_open": 409,
    "game_not_active": 409,
    "game_full": 409,
    "already_seated": 409,
    "not_your_turn": 409,
    "wrong_phase": 409,
    "game_over": 409,
    "seats_open": 409,
    "not_due": 409,
    "seat_left": 409,
    "private_game": 403,
    "game_not_finished": 409,
    "game_aborted": 409,
    "seat_played_by_bot": 409,
}

#: Timeouts in a row after which the bot keeps the seat and the person has left.
TIMEOUTS_BEFORE_TAKEOVER = 3
#: The bot that plays a person's timed-out turn, and the seat of someone who left.
TAKEOVER_BOT_LEVEL = BotLevel.HARD
#: Every time limit a game may have, in seconds.
TIME_LIMITS = tuple(seconds for seconds, _label in (*Game.LIVE_TIME_LIMITS, *Game.ASYNC_TIME_LIMITS))

#: Bot turns in a row after which we stop (only a broken engine gets there).
_MAX_BOT_MOVES = 10_000


class GameError(Exception):
    """A request the game refuses: ``code`` for programs, ``message`` for people."""

    def __init__(self, code: str, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status if status is not None else _STATUS.get(code, 400)

    def __str__(self) -> str:
        return self.message


# -- creating and filling a game ----------------------------------------------


@transaction.atomic
def game_create(
    *,
    creator: Any,
    variant: Variant,
    seat_count: int,
    bot_count: int = 0,
    bot_level: str = BotLevel.MEDIUM,
    invitees: Iterable[Any] = (),
    time_limit_seconds: int = 24 * 3600,
    coach: bool = False,
    is_private: bool = False,
    spectators_allowed: bool = True,
    options: Mapping[str, Any] | None = None,
    round_count: int | None = None,
    seed: int | None = None,
) -> Game:
    """Create a game: the creator in seat 0, then invitees, bots, and open seats.

    ``options`` override the variant's rule options (e.g. ``{"rounds": [3, 4]}``);
    ``round_count`` plays only the first rounds of the variant.  A game whose
    seats are all taken starts (deals) at once.
    """
    if creator is None or not creator.is_authenticated:
        raise GameError("not_logged_in", _("Log in to create a game."))
    invitees = [u for u in dict.fromkeys(invitees) if u.pk != creator.pk]
    if bot_level not in BotLevel.values:
        raise GameError("bad_bot_level", _("Unknown bot level “%(level)s”.") % {"level": bot_level})
    if time_limit_seconds not in TIME_LIMITS:
        raise GameError("bad_time_limit", _("Choose one of the offered time limits per move."))
    try:
        rules = Rules.from_dict({**variant.options, **(options or {})})
        if round_count:
            rules = Rules.from_dict({**rules.to_dict(), "rounds": list(rules.rounds)[:round_count]})
        rules.check_seats(seat_count)
    except RulesError as error:
        raise GameError("bad_rules", str(error)) from None
    if bot_count < 0 or 1 + len(invitees) + bot_count > seat_count:
        raise GameError(
            "too_many_players",
            _("%(seats)s seats cannot hold you, %(bots)s bot(s) and %(invited)s invited player(s).")
            % {"seats": seat_count, "bots": bot_count, "invited": len(invitees)},
        )
    now = timezone.now()
    game = Game.objects.create(
        variant=variant,
        variant_name=variant.name,
        rules=rules.to_dict(),
        seed=seed if seed is not None else secrets.randbits(62),
        seat_count=seat_count,
        created_by=creator,
        time_limit_seconds=time_limit_seconds,
        coach=coach,
        version=1,
        is_private=is_private,
        invite_token=secrets.token_urlsafe(16),
        spectators_allowed=spectators_allowed,
    )
    people = [creator, *invitees]
    seats = []
    for position in range(seat_count):
        if position < len(people):
            seats.append(Seat(game=game, position=position, user=people[position], joined_at=now))
        elif position < len(people) + bot_count:
            seats.append(
                Seat(
                    game=game,
                    position=position,
                    bot_level=bot_level,
                    bot_name=bots.BOT_NAMES[(position - len(people)) % len(bots.BOT_NAMES)],
                    joined_at=now,
                )
            )
        else:
            seats.append(Seat(game=game, position=position))
    Seat.objects.bulk_create(seats)
    if len(people) + bot_count == seat_count:
        _deal(game)
    return game


@transaction.atomic
def game_join(*, game_id: int, user: Any, invite_token: str | None = None) -> Game:
    """Take the first open seat; the game starts when that was the last one.

    A private game takes only people who bring its invite token.
    """
    game = _locked_game(game_id, user)
    if game.status != Game.Status.OPEN:
        raise GameError("game_not_open", _("This game is not taking players any more."))
    if game.is_private and not (invite_token and secrets.compare_digest(str(invite_token), game.invite_token)):
        raise GameError("private_game", _("This game is private: join it through the invite link you were sent."))
    if game.seats.filter(user=user).exists():
        raise GameError("already_seated", _("You already have a seat at this table."))
    seat = game.seats.filter(user__isnull=True, bot_level="").order_by("position").first()
    if seat is None:
        raise GameError("game_full", _("Every seat at this table is taken."))
    seat.user = user
    seat.joined_at = timezone.now()
    seat.save(update_fields=["user", "joined_at"])
    game.version += 1
    if not game.seats.filter(user__isnull=True, bot_level="").exists():
        _deal(game)
    else:
        game.save(update_fields=["version", "updated_at"])
        _announce(game)
    return game


@transaction.atomic
def game_leave(*, game_id: int, user: Any) -> Game:
    """Leave a game before it starts; the seat opens again.

    When the creator leaves, the next person at the table may start the game;
    when the last person leaves, the game is aborted.
    """
    game = _locked_game(game_id, user)
    if game.status != Game.Status.OPEN:
        raise GameError("game_not_open", _("You can only leave a game before it starts."))
    _vacate_seat(game, _seat_of(game, user))
    return game


def _vacate_seat(game: Game, seat: Seat) -> None:
    """The person on ``seat`` leaves the open ``game`` (by leaving, or deactivated by a moderator)."""
    user_id = seat.user_id
    seat.user = None
    seat.joined_at = None
    seat.save(update_fields=["user", "joined_at"])
    game.version += 1
    remaining = game.seats.filter(user__isnull=False).order_by("position").first()
    if remaining is None:
        game.status = Game.Status.ABORTED
        game.finished_at = timezone.now()
    elif game.created_by_id == user_id:
        game.created_by_id = remaining.user_id  # someone must be able to start the game
    game.save(update_fields=["version", "status", "finished_at", "created_by", "updated_at"])
    _announce(game)


@transaction.atomic
def game_start(*, game_id: int, user: Any, bot_level: str = BotLevel.MEDIUM) -> Game:
    """The creator starts at once: bots of ``bot_level`` take the open seats."""
    game = _locked_game(game_id, user)
    if game.status != Game.Status.OPEN:
        raise GameError("game_not_open", _("This game has already started or ended."))
    if game.created_by_id != user.pk:
        raise GameError("not_creator", _("Only the player who created the game can start it."))
    if bot_level not in BotLevel.values:
        raise GameError("bad_bot_level", _("Unknown bot level “%(level)s”.") % {"level": bot_level})
    open_seats = list(game.seats.filter(user__isnull=True, bot_level="").order_by("position"))
    taken = {s.bot_name for s in game.seats.exclude(bot_name="")}
    names = [name for name in bots.BOT_NAMES if name not in taken] or list(bots.BOT_NAMES)
    for index, seat in enumerate(open_seats):
        seat.bot_level = bot_level
        seat.bot_name = names[index % len(names)]
        seat.joined_at = timezone.now()
        seat.save(update_fields=["bot_level", "bot_name", "joined_at"])
    game.version += 1
    _deal(game)
    return game


# -- playing ------------------------------------------------------------------


@transaction.atomic
def game_play(*, game_id: int, user: Any, action: Action | Mapping[str, Any], expected_version: int) -> Game:
    """Play ``action`` for the user's seat, then every bot turn that follows.

    Refused, changing nothing, when the user has no seat, the version is not
    the one the user saw (a stale page or a repeated submission), or the
    engine finds the action illegal (its code and message are passed on).
    """
    game = _locked_game(game_id, user)
    seat = _seat_of(game, user)
    if game.status != Game.Status.ACTIVE:
        if game.status == Game.Status.FINISHED:
            raise GameError("game_over", _("The game is over: no more moves."))
        if game.status == Game.Status.ABORTED:
            raise GameError("game_aborted", _("This game was called off: no more moves."))
        raise GameError("game_not_active", _("The game has not started yet."))
    if seat.is_bot:
        raise GameError("seat_played_by_bot", _("A bot plays your seat in this game now: you cannot move."))
    if expected_version != game.version:
        raise GameError(
            "stale_version",
            _(
                "The table changed since your page was loaded (version %(seen)s, now %(now)s): "
                "nothing was played. Look at the table again and choose your move."
            )
            % {"seen": expected_version, "now": game.version},
        )
    try:
        if not isinstance(action, (Draw, Discard, GoOut)):
            action = action_from_dict(action)
        state = GameState.from_dict(game.state)
        recorder = _Recorder(game)
        state = recorder.play(state, seat.position, action, by_bot=False)
    except IllegalAction as error:
        raise GameError(error.code, _describe_illegal(error, action)) from None
    if seat.timeouts_in_row:
        seat.timeouts_in_row = 0
        seat.save(update_fields=["timeouts_in_row"])
    _play_bots(game, state, recorder)
    return game


# -- the move clock, resigning and rematches ------------------------------------


@transaction.atomic
def game_timeout(*, game_id: int, turn_number: int, now: datetime.datetime | None = None) -> Game:
    """The turn ``turn_number`` of the game ran out of time: the bot plays it.

    Checked under the game's row lock, like a move: refused (``not_due``,
    nothing changed) unless the game is still at that turn and its deadline
    has passed, so two clock workers never play one turn twice.  After
    ``TIMEOUTS_BEFORE_TAKEOVER`` timeouts in a row the bot keeps the seat and
    the person is marked as having left.
    """
    now = now or timezone.now()
    try:
        game = Game.objects.select_for_update().get(pk=game_id)
    except Game.DoesNotExist:
        raise GameError("not_found", _("There is no such game.")) from None
    if (
        game.status != Game.Status.ACTIVE
        or game.turn_number != turn_number
        or game.turn_deadline is None
        or game.turn_deadline > now
    ):
        raise GameError("not_due", _("That turn has been played or is not out of time."))
    state = GameState.from_dict(game.state)
    position = state.current_seat
    seat = game.seats.get(position=position)
    recorder = _Recorder(game)
    history = _round_history(game, state)
    while not state.is_over and state.current_seat == position and game.turn_number == turn_number:
        action = bots.choose_action(view(state, position), TAKEOVER_BOT_LEVEL, history)
        state = recorder.play(state, position, action, by_bot=True)
        history = _extend_history(history, recorder.last_events)
    seat.timeouts_in_row += 1
    fields = ["timeouts_in_row"]
    if seat.timeouts_in_row >= TIMEOUTS_BEFORE_TAKEOVER and not seat.bot_level:
        _hand_to_bot(game, seat, Seat.Left.TIMED_OUT, now)
        fields += ["bot_level", "bot_name", "left", "left_at"]
    seat.save(update_fields=fields)
    _play_bots(game, state, recorder, now=now)
    return game


@transaction.atomic
def game_resign(*, game_id: int, user: Any) -> Game:
    """The person gives up: a bot plays the seat to the end, and the person ranks last."""
    game = _locked_game(game_id, user)
    seat = _seat_of(game, user)
    if game.status != Game.Status.ACTIVE:
        raise GameError("game_not_active", _("You can only resign from a game in play."))
    if seat.bot_level:
        raise GameError("seat_left", _("You have left this game already."))
    _hand_to_bot(game, seat, Seat.Left.RESIGNED, timezone.now())
    seat.save(update_fields=["bot_level", "bot_name", "left", "left_at"])
    game.version += 1
    state = GameState.from_dict(game.state)
    _play_bots(game, state, _Recorder(game))
    return game


@transaction.atomic
def game_rematch(*, game_id: int, user: Any) -> Game:
    """A new game with the same people, bots, seats and options, once per finished game.

    The first player to ask creates it; everyone else who asks is sent to it.
    People who left the first game come back as people (they are invited again).
    """
    game = _locked_game(game_id, user)
    _seat_of(game, user)
    if game.status != Game.Status.FINISHED:
        raise GameError("game_not_finished", _("A rematch can only follow a finished game."))
    existing = Game.objects.filter(rematch_of=game).first()
    if existing is not None:
        return existing
    now = timezone.now()
    new = Game.objects.create(
        variant=game.variant,
        variant_name=game.variant_name,
        rules=game.rules,
        seed=secrets.randbits(62),
        seat_count=game.seat_count,
        created_by=user,
        time_limit_seconds=game.time_limit_seconds,
        coach=game.coach,
        version=1,
        is_private=game.is_private,
        invite_token=secrets.token_urlsafe(16),
        spectators_allowed=game.spectators_allowed,
        rematch_of=game,
    )
    seats = []
    for old in game.seats.order_by("position"):
        if old.user_id is not None:
            seats.append(Seat(game=new, position=old.position, user_id=old.user_id, joined_at=now))
        else:
            seats.append(
                Seat(
                    game=new,
                    position=old.position,
                    bot_level=old.bot_level or BotLevel.MEDIUM,
                    bot_name=old.bot_name,
                    joined_at=now,
                )
            )
    Seat.objects.bulk_create(seats)
    _deal(new)
    return new


def clock_tick(*, now: datetime.datetime | None = None) -> dict[str, int]:
    """One pass of the clock worker: play the timed-out turns, send the due e-mails.

    Safe to run in several processes at once: each timeout goes through
    :func:`game_timeout` (row lock and turn check) and each e-mail is
    recorded once per game, turn and kind before it is sent.
    """
    from . import notices

    now = now or timezone.now()
    played = 0
    due = list(
        Game.objects.filter(status=Game.Status.ACTIVE, turn_deadline__lte=now)
        .order_by("turn_deadline")
        .values_list("pk", "turn_number")
    )
    for game_id, turn_number in due:
        try:
            game_timeout(game_id=game_id, turn_number=turn_number, now=now)
            played += 1
        except GameError:
            pass  # another worker (or the player) got there first
        except Exception:  # one broken game must not stop the clock of all the others
            logger.exception("the bot could not play the timed-out turn %s of game %s", turn_number, game_id)
    sent = notices.send_due_notices(now=now)
    return {"timeouts": played, "emails": sent}


def _hand_to_bot(game: Game, seat: Seat, why: str, now: datetime.datetime) -> None:
    """The bot takes ``seat`` for good; the person stays on it for the standings."""
    taken = {s.bot_name for s in game.seats.exclude(bot_name="")}
    seat.bot_level = TAKEOVER_BOT_LEVEL
    seat.bot_name = next((n for n in bots.BOT_NAMES if n not in taken), bots.BOT_NAMES[0])
    seat.left = why
    seat.left_at = now


def _describe_illegal(error: IllegalAction, action: Any) -> str:
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
    message = messages.get(error.code)
    if message is None:  # the engine's own sentence names what was wrong (a field, a card code)
        message = _("That move is not possible: %(reason)s") % {"reason": str(error)}
    return message


class _Recorder:
    """Applies actions to the engine state and appends them to the move log."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.next_seq = (game.moves.aggregate(m=Max("seq"))["m"] or 0) + 1
        self.turn_changed = False
        self.last_events: list[dict[str, Any]] = []

    def play(self, state: GameState, position: int, action: Action, *, by_bot: bool) -> GameState:
        round_number = state.round_number
        results_before = len(state.results)
        new_state, events = apply(state, position, action)  # raises IllegalAction, nothing stored
        self.last_events = [event.to_dict() for event in events]
        Move.objects.create(
            game=self.game,
            seq=self.next_seq,
            seat=position,
            action=action.to_dict(),
            by_bot=by_bot,
            round_number=round_number,
            events=self.last_events,
        )
        self.next_seq += 1
        self.game.version += 1
        if not isinstance(action, Draw):  # a discard or a go-out ends the turn
            self.game.turn_number += 1
            self.turn_changed = True
        for result in new_state.results[results_before:]:
            _store_round_result(self.game, result)
        return new_state


def _store_round_result(game: Game, result: Any) -> None:
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


def _play_bots(game: Game, state: GameState, recorder: _Recorder, *, now: datetime.datetime | None = None) -> None:
    """Bot seats play while the turn is theirs; then the game row is saved."""
    bot_levels = {s.position: s.bot_level for s in game.seats.all() if s.bot_level}
    history: list[dict[str, Any]] | None = None
    for _turn in range(_MAX_BOT_MOVES):
        if state.is_over or state.current_seat not in bot_levels:
            break
        position = state.current_seat
        if history is None:
            history = _round_history(game, state)
        action = bots.choose_action(view(state, position), bot_levels[position], history)
        state = recorder.play(state, position, action, by_bot=True)
        history = _extend_history(history, recorder.last_events)
    _save_state(game, state, turn_changed=recorder.turn_changed, now=now)


def _round_history(game: Game, state: GameState) -> list[dict[str, Any]]:
    """The public events of the round in play, from its deal on (what a bot may remember)."""
    events: list[dict[str, Any]] = []
    for move_events in (
        Move.objects.filter(game=game, round_number__gte=state.round_number - 1)
        .order_by("seq")
        .values_list("events", flat=True)
    ):
        events = _extend_history(events, move_events)
    return events


def _extend_history(history: list[dict[str, Any]], events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    for event in events:
        if event.get("kind") == "round_dealt":
            history = []
        history = [*history, event]
    return history


def _save_state(game: Game, state: GameState, *, turn_changed: bool, now: datetime.datetime | None = None) -> None:
    now = now or timezone.now()
    new_turn = turn_changed or game.turn_started_at is None
    if new_turn:
        game.turn_started_at = now
    game.state = state.to_dict()
    game.current_seat = state.current_seat
    scores = list(state.scores)
    for seat in game.seats.all():
        if seat.total_score != scores[seat.position]:
            seat.total_score = scores[seat.position]
            seat.save(update_fields=["total_score"])
    if state.is_over:
        game.status = Game.Status.FINISHED
        game.finished_at = now
        game.current_seat = None
        game.turn_deadline = None
    else:
        game.turn_deadline = game.turn_started_at + datetime.timedelta(seconds=game.time_limit_seconds)
    game.save()
    if state.is_over:
        ratings.rate_finished_game(game)  # once: same transaction, game row locked
    _announce(game, turn_moved=new_turn or state.is_over)


def _announce(game: Game, *, turn_moved: bool = False) -> None:
    """Once the transaction commits, the game's live group hears the new version (and nothing else);
    when the turn moved on (or the game ended), every person at the table hears their "games waiting" count."""
    live.announce_game_version_on_commit(game.pk, game.version)
    if turn_moved:
        live.announce_turn_counts_on_commit([s.user_id for s in game.seats.all() if s.user_id])


def _deal(game: Game) -> None:
    rules = Rules.from_dict(game.rules)
    state = new_game(rules, game.seat_count, game.seed)
    game.status = Game.Status.ACTIVE
    game.started_at = timezone.now()
    _play_bots(game, state, _Recorder(game))


# -- helpers ------------------------------------------------------------------


def _locked_game(game_id: int, user: Any) -> Game:
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in to play."))
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such game.")) from None


def _seat_of(game: Game, user: Any) -> Seat:
    seat = game.seats.filter(user=user).first()
    if seat is None:
        raise GameError("not_seated", _("You have no seat at this table."))
    return seat


# -- moderation ---------------------------------------------------------------
#
# Staff actions from the admin.  Each checks the moderator's permission, runs
# in one transaction with the game row locked, and writes an AuditRecord
# (who, what, when, why, target).  A reason is required.

REASON_MAX_LENGTH = 500


def moderation_reason(reason: Any) -> str:
    text = reason.strip() if isinstance(reason, str) else ""
    if not text:
        raise GameError("reason_missing", _("Give a reason: it is kept in the audit log."))
    if len(text) > REASON_MAX_LENGTH:
        raise GameError(
            "reason_too_long", _("Keep the reason under %(count)s characters.") % {"count": REASON_MAX_LENGTH}
        )
    return text


def _check_moderator(moderator: Any, permission: str) -> None:
    if moderator is None or not moderator.is_authenticated or not moderator.is_active:
        raise GameError("not_logged_in", _("Log in to moderate."), status=403)
    if not (moderator.is_staff and moderator.has_perm(permission)):
        raise GameError("not_moderator", _("You may not do that."), status=403)


def _locked_game_for(moderator: Any, game_id: int) -> Game:
    try:
        return Game.objects.select_for_update().get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such game.")) from None


@transaction.atomic
def game_abort(*, game_id: int, moderator: Any, reason: str) -> Game:
    """Stop an open or active game for good: status ``aborted`` (nothing is rated).

    The players see the reason on the game page; no more moves are taken.
    """
    _check_moderator(moderator, "games.moderate_game")
    reason = moderation_reason(reason)
    game = _locked_game_for(moderator, game_id)
    if game.status not in (Game.Status.OPEN, Game.Status.ACTIVE):
        raise GameError(
            "game_not_abortable",
            _("Game #%(id)s is %(status)s: only open or active games can be aborted.")
            % {"id": game.pk, "status": game.get_status_display()},
            status=409,
        )
    game.status = Game.Status.ABORTED
    game.finished_at = timezone.now()
    game.current_seat = None
    game.version += 1
    game.save(update_fields=["status", "finished_at", "current_seat", "version", "updated_at"])
    AuditRecord.objects.create(
        actor=moderator,
        action=AuditRecord.Action.GAME_ABORT,
        reason=reason,
        game=game,
        target=str(_("game #%(id)s (%(variant)s)") % {"id": game.pk, "variant": game.variant_name}),
    )
    _announce(game, turn_moved=True)
    return game


@transaction.atomic
def seat_hand_to_bot(
    *, game_id: int, position: int, moderator: Any, reason: str, bot_level: str = BotLevel.MEDIUM
) -> Game:
    """A bot plays this seat of an active game from now on (the person stays on it for history).

    When it is that seat's turn, the bot plays at once.
    """
    _check_moderator(moderator, "games.moderate_game")
    reason = moderation_reason(reason)
    if bot_level not in BotLevel.values:
        raise GameError("bad_bot_level", _("Unknown bot level “%(level)s”.") % {"level": bot_level})
    game = _locked_game_for(moderator, game_id)
    if game.status != Game.Status.ACTIVE:
        raise GameError(
            "game_not_active",
            _("Game #%(id)s is not in play: only a seat of an active game can be handed to a bot.") % {"id": game.pk},
            status=409,
        )
    seat = game.seats.select_related("user").filter(position=position).first()
    if seat is None:
        raise GameError(
            "not_found", _("Game #%(id)s has no seat %(position)s.") % {"id": game.pk, "position": position}
        )
    if seat.is_bot:
        raise GameError(
            "already_bot",
            _("A bot already plays seat %(position)s of game #%(id)s.") % {"position": position, "id": game.pk},
            status=409,
        )
    _hand_seat_to_bot(game, seat, bot_level)
    AuditRecord.objects.create(
        actor=moderator,
        action=AuditRecord.Action.SEAT_TO_BOT,
        reason=reason,
        game=game,
        seat_position=seat.position,
        target_user=seat.user,
        target=_seat_label(game, seat),
    )
    return game


@transaction.atomic
def user_deactivate(*, user_id: int, moderator: Any, reason: str) -> Any:
    """Deactivate an account: no more log-in; bots take the seats of their active games.

    In games still waiting for players the seat opens again (the game is
    aborted when no person is left).  One audit record for the user, one
    for each game touched.
    """
    from django.contrib.auth import get_user_model

    _check_moderator(moderator, "games.moderate_user")
    reason = moderation_reason(reason)
    User = get_user_model()
    try:
        user = User.objects.select_for_update().get(pk=user_id)
    except (User.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such user.")) from None
    if user.pk == moderator.pk:
        raise GameError("self_deactivate", _("You cannot deactivate your own account."), status=409)
    if user.is_superuser and not moderator.is_superuser:
        raise GameError("not_moderator", _("Only a superuser can deactivate a superuser."), status=403)
    if not user.is_active:
        raise GameError("already_inactive", _("%(name)s is already deactivated.") % {"name": user.username}, status=409)
    user.is_active = False
    user.save(update_fields=["is_active"])
    AuditRecord.objects.create(
        actor=moderator,
        action=AuditRecord.Action.USER_DEACTIVATE,
        reason=reason,
        target_user=user,
        target=str(_("user %(name)s") % {"name": user.username}),
    )
    game_ids = (
        Seat.objects.filter(user=user, bot_level="", game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE])
        .order_by("game_id")
        .values_list("game_id", flat=True)
    )
    for game_id in list(game_ids):
        game = _locked_game_for(moderator, game_id)
        seat = game.seats.select_related("user").get(user=user)
        if game.status == Game.Status.ACTIVE:
            _hand_seat_to_bot(game, seat, BotLevel.MEDIUM)
            action = AuditRecord.Action.SEAT_TO_BOT
        elif game.status == Game.Status.OPEN:
            action = AuditRecord.Action.SEAT_VACATE
            label = _seat_label(game, seat)
            _vacate_seat(game, seat)
        else:
            continue
        AuditRecord.objects.create(
            actor=moderator,
            action=action,
            game=game,
            seat_position=seat.position,
            target_user=user,
            reason=_("%(name)s was deactivated: %(reason)s") % {"name": user.username, "reason": reason},
            target=label if action == AuditRecord.Action.SEAT_VACATE else _seat_label(game, seat),
        )
    return user


def _hand_seat_to_bot(game: Game, seat: Seat, bot_level: str) -> None:
    taken = {s.bot_name for s in game.seats.exclude(bot_name="")}
    names = [name for name in bots.BOT_NAMES if name not in taken] or list(bots.BOT_NAMES)
    seat.bot_level = bot_level
    seat.bot_name = names[0]
    seat.save(update_fields=["bot_level", "bot_name"])
    game.version += 1
    # The bot plays now if the turn is its own (and on until a person must move).
    _play_bots(game, GameState.from_dict(game.state), _Recorder(game))


def _seat_label(game: Game, seat: Seat) -> str:
    return str(
        _("seat %(position)s of game #%(id)s (%(name)s)")
        % {"position": seat.position, "id": game.pk, "name": seat.user.username if seat.user_id else seat.name}
    )
