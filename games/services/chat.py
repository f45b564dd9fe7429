"""Table talk: what people at a table do with its chat, and what moderators do about it.

People: post a message (:func:`chat_post`), mute or unmute someone for
themselves (:func:`chat_mute`), report a message (:func:`chat_report`).
Moderators (``games.moderate_chat``): hide a message (:func:`chat_hide`),
dismiss its reports (:func:`chat_dismiss_reports`), mute a user from every
chat for a time (:func:`chat_mute_user`) or lift that (:func:`chat_unmute_user`);
each asks for a reason and writes an :class:`~games.models.AuditRecord`, like
the other moderation steps.

Who may read or post in which channel is decided by
``games.chat_selectors.chat_access``.  A change of what a channel shows is
announced after commit as "chat changed" (its name only); each page then
fetches its own view of the chat.  Each function raises :class:`GameError`
and changes nothing when it refuses.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.zones import when
from games import chat_selectors, live
from games.models import (
    MESSAGE_MAX_LENGTH,
    QUICK_PHRASES,
    AuditRecord,
    ChatMessage,
    ChatMute,
    ChatReport,
    ChatSuspension,
    Game,
)

from . import audit
from .errors import GameError
from .moderation import check_moderator, moderation_reason
from .text import clean_text, shows_something
from .turns import log_on_commit

logger = logging.getLogger(__name__)

#: At most this many messages per person in each window of this many seconds (all games together).
RATE_LIMITS = ((5, 30), (60, 3600))

#: How long a moderator may mute someone from chat, in hours.
MUTE_HOURS = (1, 24, 7 * 24, 30 * 24)

#: The longest note a report may carry.
REPORT_NOTE_MAX_LENGTH = 200


def _game(game_id: Any) -> Game:
    try:
        return Game.objects.get(pk=game_id)
    except (Game.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such game.")) from None


def _access_or_refuse(game: Game, user: Any, invited: bool) -> chat_selectors.ChatAccess:
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in to chat."))
    access = chat_selectors.chat_access(game=game, user=user, invited=invited)
    if not access.role:
        raise GameError("not_seated", _("You may not look at this game, so you cannot chat there."))
    if access.off == "game":
        raise GameError("chat_off", _("This game was created without table talk."))
    if access.off == "user":
        raise GameError("chat_off", _("You turned table talk off on your profile."))
    return access


def _check_rate(user: Any, now: datetime.datetime) -> None:
    for count, seconds in RATE_LIMITS:
        since = now - datetime.timedelta(seconds=seconds)
        if ChatMessage.objects.filter(author=user, created_at__gt=since).count() >= count:
            raise GameError(
                "chat_too_fast",
                ngettext(
                    "Not so fast: at most %(count)s message in %(span)s. Wait a little and send it again.",
                    "Not so fast: at most %(count)s messages in %(span)s. Wait a little and send it again.",
                    count,
                )
                % {"count": count, "span": _span(seconds)},
            )


def _span(seconds: int) -> str:
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return ngettext("%(count)s hour", "%(count)s hours", hours) % {"count": hours}
    return ngettext("%(count)s second", "%(count)s seconds", seconds) % {"count": seconds}


def too_long(length: int) -> GameError:
    """The refusal of a message of ``length`` characters, more than ``MESSAGE_MAX_LENGTH``."""
    return GameError(
        "chat_too_long",
        ngettext(
            "A message may have at most %(count)s character (this one has %(length)s).",
            "A message may have at most %(count)s characters (this one has %(length)s).",
            MESSAGE_MAX_LENGTH,
        )
        % {"count": MESSAGE_MAX_LENGTH, "length": length},
    )


@transaction.atomic
def chat_post(
    *, game_id: Any, user: Any, text: Any = "", channel: Any = "", phrase: Any = "", invited: bool = False
) -> ChatMessage:
    """Post a message (``text``, or the quick phrase ``phrase``) in ``channel`` of the game's chat.

    No ``channel`` means the one the person may write in (the players' or the watchers').

    Refused when the person may not post in that channel (a stranger, a watcher
    in the players' channel, a player in the watchers' one), chat is off for
    the game or for them, a moderator muted them, the text is empty or longer
    than ``MESSAGE_MAX_LENGTH``, or they posted too often (``RATE_LIMITS``,
    counted under a lock of their user row, so racing posts are counted too).
    """
    game = _game(game_id)
    access = _access_or_refuse(game, user, invited)
    if access.closed:
        raise GameError("chat_closed", _("The game is over and its chat is closed: it takes no new messages."))
    if access.writable is None:
        raise GameError("chat_read_only", _("Only the players may post at this table; you may read along."))
    channel = channel or access.writable  # a post that names no channel goes to the one they may write in
    if channel not in chat_selectors.ChatMessage.Channel.values:
        raise GameError("chat_bad_channel", _("There is no such chat channel."))
    if channel != access.writable:
        if access.writable == chat_selectors.WATCHERS:
            raise GameError(
                "chat_wrong_channel",
                _("The players' chat is for the players: watchers post in the watchers' chat."),
            )
        raise GameError("chat_wrong_channel", _("Players post in the table talk, not in the watchers' chat."))
    if access.muted_until is not None:
        raise GameError(
            "chat_muted",
            _("A moderator muted you from chat until %(when)s.") % {"when": when(access.muted_until)},
        )
    phrase = phrase if isinstance(phrase, str) else ""
    if phrase:
        if phrase not in QUICK_PHRASES:
            raise GameError("chat_bad_phrase", _("There is no such quick phrase."))
        with translation.override("en"):  # kept in English; each reader sees it in their language
            words = str(QUICK_PHRASES[phrase])
    else:
        words = clean_text(text)
        if not shows_something(words):
            raise GameError("chat_empty", _("Write something first."))
        if len(words) > MESSAGE_MAX_LENGTH:
            raise too_long(len(words))
    # One post at a time per person: FOR NO KEY UPDATE, which still makes their posts wait for each other but
    # not a row that only names them (the audit record of their seat handed to a bot, a game's results). With
    # FOR UPDATE, such a row, written under the game's lock, waited for this post, whose message names the game
    # and so waited for that lock: PostgreSQL found a deadlock and failed one of the two.
    get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
    now = timezone.now()
    _check_rate(user, now)
    message = ChatMessage.objects.create(
        game=game, author=user, channel=access.writable, text=words, phrase=phrase, created_at=now
    )
    live.announce_chat_on_commit(game.pk, message.channel)
    return message


@transaction.atomic
def chat_mute(*, game_id: Any, user: Any, muted_id: Any, mute: bool, invited: bool = False) -> Any:
    """``user`` stops (``mute``) or starts again seeing what someone at this table writes, in every chat.

    Only someone at the table (seated, or who wrote in a channel of its chat that ``user`` reads) may be
    muted from there, and only someone ``user`` muted unmuted: a player could otherwise learn who writes
    in the watchers' chat during play, or anyone's name from a user number.  Returns the person.
    """
    game = _game(game_id)
    access = _access_or_refuse(game, user, invited)
    User = get_user_model()
    try:
        other = User.objects.get(pk=muted_id)
    except (User.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such person.")) from None
    if other.pk == user.pk:
        raise GameError("chat_mute_self", _("You cannot mute yourself."))
    if not mute:
        deleted, _by_model = ChatMute.objects.filter(user=user, muted=other).delete()
        if not deleted:
            raise GameError("not_found", _("You have not muted that person."))
        return other
    at_table = (
        game.seats.filter(user=other).exists()
        or game.chat_messages.filter(author=other, channel__in=access.readable).exists()
    )
    if not at_table:
        raise GameError("not_found", _("That person is not at this table."))
    ChatMute.objects.get_or_create(user=user, muted=other)
    return other


@transaction.atomic
def chat_report(*, game_id: Any, user: Any, message_id: Any, note: Any = "", invited: bool = False) -> ChatReport:
    """Ask a moderator to look at a message this person can read (once per message; not one's own)."""
    game = _game(game_id)
    access = _access_or_refuse(game, user, invited)
    try:
        message = ChatMessage.objects.get(pk=message_id, game=game, channel__in=access.readable, hidden_at__isnull=True)
    except (ChatMessage.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such message in this chat.")) from None
    if message.author_id == user.pk:
        raise GameError("chat_report_self", _("That is your own message."))
    note_text = clean_text(note)[:REPORT_NOTE_MAX_LENGTH]
    try:
        with transaction.atomic():
            report = ChatReport.objects.create(message=message, reporter=user, note=note_text)
    except IntegrityError:
        raise GameError("chat_reported", _("You reported this message already: a moderator will look at it.")) from None
    log_on_commit(logger, "user %s reported chat message %s of game %s", user.pk, message.pk, game.pk)
    return report


# -- moderation ---------------------------------------------------------------------------


def _locked_message(message_id: Any) -> ChatMessage:
    try:
        return ChatMessage.objects.select_for_update().select_related("author").get(pk=message_id)
    except (ChatMessage.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such chat message.")) from None


def _resolve_reports(message: ChatMessage, moderator: Any, now: datetime.datetime) -> int:
    return message.reports.filter(resolved_at__isnull=True).update(resolved_at=now, resolved_by=moderator)


@transaction.atomic
def chat_hide(*, message_id: Any, moderator: Any, reason: str) -> ChatMessage:
    """Hide a message from every page (its channel's open pages update at once); its reports are dealt with."""
    check_moderator(moderator, "games.moderate_chat")
    reason = moderation_reason(reason)
    message = _locked_message(message_id)
    if message.is_hidden:
        raise GameError("chat_already_hidden", _("That message is hidden already."))
    now = timezone.now()
    message.hidden_at, message.hidden_by, message.hidden_reason = now, moderator, reason
    message.save(update_fields=["hidden_at", "hidden_by", "hidden_reason"])
    _resolve_reports(message, moderator, now)
    audit.record(
        actor=moderator,
        action=AuditRecord.Action.CHAT_HIDE,
        reason=reason,
        game=message.game,
        target_user=message.author,
        kind="message",
        parts=audit.message_parts(message),
    )
    log_on_commit(logger, "moderator %s hid chat message %s of game %s", moderator.pk, message.pk, message.game_id)
    live.announce_chat_on_commit(message.game_id, message.channel)
    return message


@transaction.atomic
def chat_dismiss_reports(*, message_id: Any, moderator: Any, reason: str) -> ChatMessage:
    """The message stays: its open reports are marked dealt with."""
    check_moderator(moderator, "games.moderate_chat")
    reason = moderation_reason(reason)
    message = _locked_message(message_id)
    if not _resolve_reports(message, moderator, timezone.now()):
        raise GameError("chat_no_reports", _("No open report about that message."))
    audit.record(
        actor=moderator,
        action=AuditRecord.Action.CHAT_DISMISS,
        reason=reason,
        game=message.game,
        target_user=message.author,
        kind="message",
        parts=audit.message_parts(message),
    )
    log_on_commit(logger, "moderator %s dismissed the reports of chat message %s", moderator.pk, message.pk)
    return message


def _locked_user(user_id: Any) -> Any:
    User = get_user_model()
    try:
        return User.objects.select_for_update().get(pk=user_id)
    except (User.DoesNotExist, ValueError, TypeError):
        raise GameError("not_found", _("There is no such user.")) from None


@transaction.atomic
def chat_mute_user(*, user_id: Any, moderator: Any, reason: str, hours: Any) -> ChatSuspension:
    """Keep a user out of every chat for ``hours`` (one of ``MUTE_HOURS``); they still read.

    Refused while a mute is in force: it is one step, done once (a second moderator acting on the same
    report does nothing); another length is a new step after ``chat_unmute_user``.
    """
    check_moderator(moderator, "games.moderate_chat")
    reason = moderation_reason(reason)
    if hours not in MUTE_HOURS:
        raise GameError("chat_bad_duration", _("Choose one of the offered lengths."))
    user = _locked_user(user_id)
    if user.pk == moderator.pk:
        raise GameError("chat_mute_self", _("You cannot mute yourself."))
    # Read under the lock of their row: two moderators muting them from two tabs mute them once.
    muted_until = chat_selectors.muted_until(user)
    if muted_until is not None:
        raise GameError(
            "chat_already_muted",
            _(
                "%(name)s is muted from chat already, until %(when)s. To mute them for another time, "
                "let them chat again first."
            )
            % {"name": user.username, "when": when(muted_until)},
        )
    until = timezone.now() + datetime.timedelta(hours=hours)
    suspension = ChatSuspension.objects.create(user=user, until=until, reason=reason, moderator=moderator)
    audit.record(
        actor=moderator,
        action=AuditRecord.Action.CHAT_MUTE,
        reason=reason,
        target_user=user,
        kind="mute",
        parts=audit.mute_parts(user, until),
    )
    live.announce_chat_to_user_on_commit(user.pk)
    log_on_commit(logger, "moderator %s muted user %s from chat for %s h", moderator.pk, user.pk, hours)
    return suspension


@transaction.atomic
def chat_unmute_user(*, user_id: Any, moderator: Any, reason: str) -> Any:
    """End a user's chat mute now."""
    check_moderator(moderator, "games.moderate_chat")
    reason = moderation_reason(reason)
    user = _locked_user(user_id)
    now = timezone.now()
    if not ChatSuspension.objects.filter(user=user, until__gt=now).update(until=now):
        raise GameError("chat_not_muted", _("%(name)s is not muted from chat.") % {"name": user.username})
    audit.record(
        actor=moderator,
        action=AuditRecord.Action.CHAT_UNMUTE,
        reason=reason,
        target_user=user,
        kind="user",
        parts=audit.user_parts(user),
    )
    live.announce_chat_to_user_on_commit(user.pk)
    log_on_commit(logger, "moderator %s let user %s chat again", moderator.pk, user.pk)
    return user
