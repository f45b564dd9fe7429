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

import secrets
from typing import Any, Iterable, Mapping

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from games import bots, live, ratings
from games.engine import (Action, Discard, Draw, GameState, GoOut, IllegalAction, Rules, RulesError,
                          action_from_dict, apply, new_game, view)

from .models import AuditRecord, BotLevel, Game, Move, RoundResult, Seat, Variant

__all__ = ["GameError", "game_create", "game_join", "game_leave", "game_start", "game_play",
           "game_abort", "seat_hand_to_bot", "user_deactivate", "moderation_reason"]

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
    "game_aborted": 409,
    "seat_played_by_bot": 409,
}

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
    spectators_allowed: bool = True,
    options: Mapping[str, Any] | None = None,
    seed: int | None = None,
) -> Game:
    """Create a game: the creator in seat 0, then invitees, bots, and open seats.

    ``options`` override the variant's rule options (e.g. ``{"rounds": [3, 4]}``).
    A game whose seats are all taken starts (deals) at once.
    """
    if creator is None or not creator.is_authenticated:
        raise GameError("not_logged_in", _("Log in to create a game."))
    invitees = [u for u in dict.fromkeys(invitees) if u.pk != creator.pk]
    if bot_level not in BotLevel.values:
        raise GameError("bad_bot_level", _("Unknown bot level “%(level)s”.") % {"level": bot_level})
    try:
        rules = Rules.from_dict({**variant.options, **(options or {})})
        rules.check_seats(seat_count)
    except RulesError as error:
        raise GameError("bad_rules", str(error)) from None
    if bot_count < 0 or 1 + len(invitees) + bot_count > seat_count:
        raise GameError("too_many_players", _("%(seats)s seats cannot hold you, %(bots)s bot(s) and "
                                              "%(invited)s invited player(s).")
                        % {"seats": seat_count, "bots": bot_count, "invited": len(invitees)})
    now = timezone.now()
    game = Game.objects.create(
        variant=variant, variant_name=variant.name, rules=rules.to_dict(),
        seed=seed if seed is not None else secrets.randbits(62), seat_count=seat_count,
        created_by=creator, time_limit_seconds=time_limit_seconds, coach=coach, version=1,
        spectators_allowed=spectators_allowed,
    )
    people = [creator, *invitees]
    seats = []
    for position in range(seat_count):
        if position < len(people):
            seats.append(Seat(game=game, position=position, user=people[position], joined_at=now))
        elif position < len(people) + bot_count:
            seats.append(Seat(game=game, position=position, bot_level=bot_level,
                              bot_name=bots.BOT_NAMES[(position - len(people)) % len(bots.BOT_NAMES)],
                              joined_at=now))
        else:
            seats.append(Seat(game=game, position=position))
    Seat.objects.bulk_create(seats)
    if len(people) + bot_count == seat_count:
        _deal(game)
    return game


@transaction.atomic
def game_join(*, game_id: int, user: Any) -> Game:
    """Take the first open seat; the game starts when that was the last one."""
    game = _locked_game(game_id, user)
    if game.status != Game.Status.OPEN:
        raise GameError("game_not_open", _("This game is not taking players any more."))
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
        raise GameError("stale_version", _(
            "The table changed since your page was loaded (version %(seen)s, now %(now)s): "
            "nothing was played. Look at the table again and choose your move.")
            % {"seen": expected_version, "now": game.version})
    try:
        if not isinstance(action, (Draw, Discard, GoOut)):
            action = action_from_dict(action)
        state = GameState.from_dict(game.state)
        recorder = _Recorder(game)
        state = recorder.play(state, seat.position, action, by_bot=False)
    except IllegalAction as error:
        raise GameError(error.code, _describe_illegal(error, action)) from None
    _play_bots(game, state, recorder)
    return game


def _describe_illegal(error: IllegalAction, action: Any) -> str:
    """The engine's refusal in the reader's language (its English text is the fallback)."""
    messages = {
        "not_your_turn": _("It is not your turn."),
        "wrong_phase": (_("Not now: you have drawn already; now discard or go out.") if isinstance(action, Draw)
                        else _("Not now: draw a card first, from the stock or the discard pile.")),
        "card_not_in_hand": _("That card is not in your hand."),
        "discard_just_taken": _("You just took that card from the discard pile: discard another card."),
        "cannot_go_out": _("You cannot go out with that discard: the rest of your hand does not all fit in melds."),
        "empty_pile": (_("The stock is empty: take the top of the discard pile.")
                       if isinstance(action, Draw) and action.source == "stock"
                       else _("The discard pile is empty: draw from the stock.")),
        "game_over": _("The game is over: no more moves."),
    }
    message = messages.get(error.code)
    if message is None:
        message = _("That move is not possible: %(reason)s") % {"reason": str(error)}
    return message


class _Recorder:
    """Applies actions to the engine state and appends them to the move log."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.next_seq = (game.moves.aggregate(m=Max("seq"))["m"] or 0) + 1

    def play(self, state: GameState, position: int, action: Action, *, by_bot: bool) -> GameState:
        round_number = state.round_number
        results_before = len(state.results)
        new_state, events = apply(state, position, action)  # raises IllegalAction, nothing stored
        Move.objects.create(game=self.game, seq=self.next_seq, seat=position, action=action.to_dict(),
                            by_bot=by_bot, round_number=round_number,
                            events=[event.to_dict() for event in events])
        self.next_seq += 1
        self.game.version += 1
        for result in new_state.results[results_before:]:
            _store_round_result(self.game, result)
        return new_state


def _store_round_result(game: Game, result: Any) -> None:
    data = result.to_dict()
    RoundResult.objects.bulk_create([
        RoundResult(game=game, round_number=data["round"], seat=position, hand_size=data["hand_size"],
                    points=seat["points"], went_out=seat["went_out"],
                    melds=[m["cards"] for m in seat["melds"]], deadwood=seat["deadwood"],
                    went_out_first=data["went_out"] == position, penalty=seat["penalty"],
                    laid_off=seat["laid_off"])
        for position, seat in enumerate(data["seats"])
    ])


def _play_bots(game: Game, state: GameState, recorder: _Recorder) -> None:
    """Bot seats play while the turn is theirs; then the game row is saved."""
    bot_levels = {s.position: s.bot_level for s in game.seats.all() if s.bot_level}
    for _turn in range(_MAX_BOT_MOVES):
        if state.is_over or state.current_seat not in bot_levels:
            break
        position = state.current_seat
        action = bots.choose_action(view(state, position), bot_levels[position])
        state = recorder.play(state, position, action, by_bot=True)
    _save_state(game, state)


def _save_state(game: Game, state: GameState) -> None:
    now = timezone.now()
    if game.current_seat != state.current_seat or game.turn_started_at is None:
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
    game.save()
    if state.is_over:
        ratings.rate_finished_game(game)  # once: same transaction, game row locked
    _announce(game)


def _announce(game: Game) -> None:
    """Once the transaction commits, the game's live group hears the new version (and nothing else)."""
    live.announce_game_version_on_commit(game.pk, game.version)


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
        raise GameError("reason_too_long", _("Keep the reason under %(count)s characters.")
                        % {"count": REASON_MAX_LENGTH})
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
        raise GameError("game_not_abortable", _("Game #%(id)s is %(status)s: only open or active games can be "
                                                "aborted.") % {"id": game.pk, "status": game.get_status_display()},
                        status=409)
    game.status = Game.Status.ABORTED
    game.finished_at = timezone.now()
    game.current_seat = None
    game.version += 1
    game.save(update_fields=["status", "finished_at", "current_seat", "version", "updated_at"])
    AuditRecord.objects.create(actor=moderator, action=AuditRecord.Action.GAME_ABORT, reason=reason, game=game,
                               target=str(_("game #%(id)s (%(variant)s)") % {"id": game.pk,
                                                                          "variant": game.variant_name}))
    _announce(game)
    return game


@transaction.atomic
def seat_hand_to_bot(*, game_id: int, position: int, moderator: Any, reason: str,
                     bot_level: str = BotLevel.MEDIUM) -> Game:
    """A bot plays this seat of an active game from now on (the person stays on it for history).

    When it is that seat's turn, the bot plays at once.
    """
    _check_moderator(moderator, "games.moderate_game")
    reason = moderation_reason(reason)
    if bot_level not in BotLevel.values:
        raise GameError("bad_bot_level", _("Unknown bot level “%(level)s”.") % {"level": bot_level})
    game = _locked_game_for(moderator, game_id)
    if game.status != Game.Status.ACTIVE:
        raise GameError("game_not_active", _("Game #%(id)s is not in play: only a seat of an active game can "
                                             "be handed to a bot.") % {"id": game.pk}, status=409)
    seat = game.seats.select_related("user").filter(position=position).first()
    if seat is None:
        raise GameError("not_found", _("Game #%(id)s has no seat %(position)s.") % {"id": game.pk,
                                                                                  "position": position})
    if seat.is_bot:
        raise GameError("already_bot", _("A bot already plays seat %(position)s of game #%(id)s.")
                        % {"position": position, "id": game.pk}, status=409)
    _hand_seat_to_bot(game, seat, bot_level)
    AuditRecord.objects.create(actor=moderator, action=AuditRecord.Action.SEAT_TO_BOT, reason=reason, game=game,
                               seat_position=seat.position, target_user=seat.user,
                               target=_seat_label(game, seat))
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
        raise GameError("already_inactive", _("%(name)s is already deactivated.") % {"name": user.username},
                        status=409)
    user.is_active = False
    user.save(update_fields=["is_active"])
    AuditRecord.objects.create(actor=moderator, action=AuditRecord.Action.USER_DEACTIVATE, reason=reason,
                               target_user=user, target=str(_("user %(name)s") % {"name": user.username}))
    game_ids = (Seat.objects.filter(user=user, bot_level="",
                                    game__status__in=[Game.Status.OPEN, Game.Status.ACTIVE])
                .order_by("game_id").values_list("game_id", flat=True))
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
            actor=moderator, action=action, game=game, seat_position=seat.position, target_user=user,
            reason=_("%(name)s was deactivated: %(reason)s") % {"name": user.username, "reason": reason},
            target=label if action == AuditRecord.Action.SEAT_VACATE else _seat_label(game, seat))
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
    return str(_("seat %(position)s of game #%(id)s (%(name)s)")
               % {"position": seat.position, "id": game.pk,
                  "name": seat.user.username if seat.user_id else seat.name})
