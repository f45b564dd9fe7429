"""Staff actions from the admin: abort a game, hand a seat to a bot, deactivate a user.

Each checks the moderator's permission, runs in one transaction with the
game row locked, and writes an :class:`~games.models.AuditRecord` (who,
what, when, why, target).  A reason is required.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import live
from games.models import AuditRecord, BotLevel, Game, Seat

from . import audit
from .errors import GameError
from .playing import let_go_of_held_seats, vacate_seat
from .text import clean_text, shows_something
from .turns import (
    Recorder,
    announce,
    announce_lobby,
    engine_state,
    hand_seat_to_bot,
    let_go_of_a_called_off_table,
    lock_game,
    lock_game_still,
    log_on_commit,
    play_bots,
)

logger = logging.getLogger(__name__)

#: The games a deactivation hands on: a seat at a table still waiting for players, or in play.
IN_PLAY = (Game.Status.OPEN, Game.Status.ACTIVE)

REASON_MAX_LENGTH = 500


def moderation_reason(reason: Any) -> str:
    """The reason as kept and shown (``clean_text``: one line, nothing invisible), or a refusal if none is left.

    A reason of invisible characters alone (a zero-width space) passed a plain ``strip``, and the player
    whose seat was handed on read "Reason:" and nothing after it.
    """
    text = clean_text(reason)
    if not shows_something(text):
        raise GameError("reason_missing", _("Give a reason: it is kept in the audit log."))
    if len(text) > REASON_MAX_LENGTH:
        raise GameError(
            "reason_too_long",
            ngettext(
                "Keep the reason under %(count)s character.",
                "Keep the reason under %(count)s characters.",
                REASON_MAX_LENGTH,
            )
            % {"count": REASON_MAX_LENGTH},
        )
    return text


def check_moderator(moderator: Any, permission: str) -> None:
    if moderator is None or not moderator.is_authenticated or not moderator.is_active:
        raise GameError("not_logged_in", _("Log in to moderate."))
    if not (moderator.is_staff and moderator.has_perm(permission)):
        raise GameError("not_moderator", _("You may not do that."))


@transaction.atomic
def game_abort(*, game_id: int, moderator: Any, reason: str) -> Game:
    """Stop an open or active game for good: status ``aborted`` (nothing is rated).

    The players see the reason on the game page; no more moves are taken.
    """
    check_moderator(moderator, "games.moderate_game")
    reason = moderation_reason(reason)
    game = lock_game(game_id)
    if game.status not in (Game.Status.OPEN, Game.Status.ACTIVE):
        raise GameError(
            "game_not_abortable",
            _("Game #%(id)s is %(status)s: only open or active games can be aborted.")
            % {"id": game.pk, "status": game.get_status_display()},
        )
    was_open = game.status == Game.Status.OPEN
    changed = game.set_status(Game.Status.ABORTED)
    game.version += 1
    game.save(update_fields=[*changed, "version", "updated_at"])
    if was_open:
        announce_lobby(game)  # the table leaves the lobby's list (and the invitations of those it held seats for)
        let_go_of_a_called_off_table(game)
    audit.record(
        actor=moderator,
        action=AuditRecord.Action.GAME_ABORT,
        reason=reason,
        game=game,
        kind="game",
        parts=audit.game_parts(game),
    )
    log_on_commit(logger, "moderator %s aborted game %s", moderator.pk, game.pk)
    announce(game, turn_moved=True)
    return game


@transaction.atomic
def seat_hand_to_bot(
    *, game_id: int, position: int, moderator: Any, reason: str, bot_level: str = BotLevel.MEDIUM
) -> Game:
    """A bot plays this seat of an active game from now on (the person stays on it for history).

    When it is that seat's turn, the bot plays at once.
    """
    check_moderator(moderator, "games.moderate_game")
    reason = moderation_reason(reason)
    if bot_level not in BotLevel.values:
        raise GameError("bad_bot_level", _("Unknown bot level “%(level)s”.") % {"level": bot_level})
    game = lock_game(game_id)
    if game.status != Game.Status.ACTIVE:
        raise GameError(
            "game_not_active",
            _("Game #%(id)s is not in play: only a seat of an active game can be handed to a bot.") % {"id": game.pk},
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
        )
    _seat_to_bot(game, seat, bot_level)
    audit.record(
        actor=moderator,
        action=AuditRecord.Action.SEAT_TO_BOT,
        reason=reason,
        game=game,
        seat_position=seat.position,
        target_user=seat.user,
        kind="seat",
        parts=audit.seat_parts(game, seat),
    )
    log_on_commit(
        logger,
        "moderator %s handed seat %s of game %s (user %s) to a %s bot",
        moderator.pk,
        seat.position,
        game.pk,
        seat.user_id,
        bot_level,
    )
    return game


@transaction.atomic
def user_deactivate(*, user_id: int, moderator: Any, reason: str) -> Any:
    """Deactivate an account: no more log-in; bots take the seats of their active games.

    In games still waiting for players the seat opens again (the game is
    aborted when no person is left).  One audit record for the user, one
    for each game touched.
    """
    check_moderator(moderator, "games.moderate_user")
    reason = moderation_reason(reason)
    User = get_user_model()
    try:
        # FOR NO KEY UPDATE on PostgreSQL: two deactivations still wait for each other, but a row that names
        # the user (the audit record of a seat another moderator hands to a bot, a game's results) is
        # written meanwhile.  A plain FOR UPDATE blocked that row while this waited for the same game's
        # lock: a deadlock, and one of the two steps failed (a 500).
        user = User.objects.select_for_update(no_key=True).get(pk=user_id)
    except (User.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such user.")) from None
    if user.pk == moderator.pk:
        raise GameError("self_deactivate", _("You cannot deactivate your own account."))
    if user.is_superuser and not moderator.is_superuser:
        raise GameError("not_moderator", _("Only a superuser can deactivate a superuser."))
    if not user.is_active:
        raise GameError("already_inactive", _("%(name)s is already deactivated.") % {"name": user.username})
    user.is_active = False
    user.save(update_fields=["is_active"])
    live.close_sockets_of_account_on_commit(user.pk)
    audit.record(
        actor=moderator,
        action=AuditRecord.Action.USER_DEACTIVATE,
        reason=reason,
        target_user=user,
        kind="user",
        parts=audit.user_parts(user),
    )
    log_on_commit(logger, "moderator %s deactivated user %s", moderator.pk, user.pk)
    game_ids = (
        Seat.objects.filter(user=user, bot_level="", game__status__in=IN_PLAY)
        .order_by("game_id")
        .values_list("game_id", flat=True)
    )
    held = Seat.objects.filter(reserved_for=user, user__isnull=True, game__status=Game.Status.OPEN)
    # Every game in one order (its seats and its holds at once): two deactivations crossing two rematches
    # locked them in opposite orders and deadlocked (a review, on PostgreSQL).
    for game_id in sorted(set(game_ids) | set(held.values_list("game_id", flat=True))):
        game = lock_game_still(game_id, IN_PLAY)
        if game is None:
            continue  # over (or called off) since the list was read: nothing of theirs to hand on
        _deactivated_seat(game, user, moderator, reason)
        _deactivated_hold(game, user)
    return user


def _deactivated_seat(game: Game, user: Any, moderator: Any, reason: str) -> None:
    """The deactivated person's own seat at the locked ``game``: a bot plays it on (in play), or it is let go
    (an open table), audited."""
    # Read again under the game's lock: since the list was read, another moderator (or the clock, or
    # their resignation) may have handed the seat to a bot, whose level and name stay as they are, or
    # they may have left the open table.
    seat = game.seats.select_related("user").filter(user=user, bot_level="").first()
    if seat is None:
        return
    if game.status == Game.Status.ACTIVE:
        _seat_to_bot(game, seat, BotLevel.MEDIUM)
        action = AuditRecord.Action.SEAT_TO_BOT
        parts = audit.seat_parts(game, seat)
    elif game.status == Game.Status.OPEN:
        action = AuditRecord.Action.SEAT_VACATE
        parts = audit.seat_parts(game, seat)  # before the seat is emptied
        vacate_seat(game, seat)
    else:
        return
    audit.record(
        actor=moderator,
        action=action,
        game=game,
        seat_position=seat.position,
        target_user=user,
        reason=reason,
        kind="deactivated_seat",
        parts=parts,
    )
    log_on_commit(logger, "moderator %s: %s in game %s for deactivated user %s", moderator.pk, action, game.pk, user.pk)


def _deactivated_hold(game: Game, user: Any) -> None:
    """A seat held for the deactivated person at the locked open ``game`` is let go: they can no longer take
    it (``let_go_of_held_seats``: open to anyone, or a bot's in a rematch, as when it is asked for after a
    deactivation)."""
    held = game.seats.filter(reserved_for=user, user__isnull=True)
    if game.status == Game.Status.OPEN and held.exists():
        let_go_of_held_seats(game, held)


def _seat_to_bot(game: Game, seat: Seat, bot_level: str) -> None:
    # The person has left the game, and ranks below everyone who stayed, as one who resigned does: before, the
    # bot's play counted as theirs, and a person a moderator removed could finish first.
    hand_seat_to_bot(game, seat, bot_level, left=Seat.Left.REMOVED if seat.user_id is not None else "")
    game.version += 1
    # The bot plays if the turn is its own (and on until a person must move): after the answer, in a request.
    play_bots(game, engine_state(game), Recorder(game))
