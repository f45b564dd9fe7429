"""Reads of table talk: who may read and post in which channel, and the chat as one person sees it.

The one rule (:func:`chat_access`), asked by the chat's pages, its services and
the WebSocket consumer before it passes a "chat changed" signal on:

- nobody signed out, nobody who may not watch the game (``selectors.may_watch``);
  nothing at all when the game was created without chat or the person turned
  chat off on their profile;
- the **players' channel**: everyone who may watch the game reads it; only the
  people seated at the game (a seat a bot took over still counts) post in it;
- the **watchers' channel** (only in a game others may watch): the people
  watching read and post in it; the players read it only once the game is
  over (finished or aborted), never during play;
- a person a moderator muted from chat still reads, and posts nothing until then;
- once the game is over its chat closes to new messages: the watchers' channel at
  once (the players read it only from then on, so nobody could write to them there
  after the end, a stranger who never watched included), the players' channel
  ``CHAT_AFTER_GAME`` later (time for a "good game" from someone who comes back
  to a game played over days); then both are kept as they were.

What is shown leaves out messages a moderator hid and, for each reader, the
people they muted.  A chat page shows names and words only, never a card.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from . import selectors
from .models import MESSAGE_MAX_LENGTH, QUICK_PHRASES, ChatMessage, ChatMute, ChatSuspension, Game, Seat

PLAYERS = ChatMessage.Channel.PLAYERS
WATCHERS = ChatMessage.Channel.WATCHERS

#: What a chat line shows of a message and its author (``_line``, ``ChatMessage.shown_text``, ``User.shown_name``).
MESSAGE_FIELDS = ("channel", "text", "phrase", "created_at", "author__username", "author__display_name")

#: How long the players may still talk once their game is over.
CHAT_AFTER_GAME = datetime.timedelta(days=1)

#: The table shows this many of the latest messages of each channel (the record shows them all).
TABLE_LINES = 50
#: Up to this many muted people are left out of the lines by their ids (read already, one query less);
#: past it the messages query looks the mutes up itself rather than carry every id as a parameter.
MUTED_IDS_INLINE = 100


@dataclass(frozen=True)
class ChatAccess:
    """What one person may do with one game's chat now."""

    #: "player", "watcher" or "" (no access at all).
    role: str = ""
    #: The channels they read, in the order shown.
    readable: tuple[str, ...] = ()
    #: The channel they post in (None: they only read).
    writable: str | None = None
    #: Why there is no chat: "game" (created without), "user" (turned off on the profile), or "".
    off: str = ""
    #: Until when a moderator muted them from chat (None: not muted).
    muted_until: datetime.datetime | None = None
    #: Whether the game allows watchers (and so has a watchers' channel).
    has_watchers: bool = field(default=False)
    #: Whether the chat takes no more messages from this person because the game is over.
    closed: bool = False


def is_over(game: Game) -> bool:
    return game.status in (Game.Status.FINISHED, Game.Status.ABORTED)


def muted_until(user: Any) -> datetime.datetime | None:
    """The end of the moderator's chat mute in force on ``user`` (None: they may chat)."""
    return (
        ChatSuspension.objects.filter(user=user, until__gt=timezone.now())
        .order_by("-until")
        .values_list("until", flat=True)
        .first()
    )


def chat_access(
    *, game: Game, user: Any, invited: bool = False, seated: bool | None = None, reading_only: bool = False
) -> ChatAccess:
    """What ``user`` may read and post in ``game``'s chat (see the module docstring).

    ``invited``: whether their session holds the invite link (``selectors.holds_invite``);
    ``seated``: whether they have a seat, when the caller knows it already; ``reading_only``:
    the caller only reads (a moderator's mute, which stops posting only, is not looked up).
    """
    if user is None or not user.is_authenticated:
        return ChatAccess()
    if seated is None:
        seated = Seat.objects.filter(game=game, user=user).exists()
    if not seated and not selectors.may_watch(game=game, user=user, invited=invited):
        return ChatAccess()
    role = "player" if seated else "watcher"
    has_watchers = game.spectators_allowed
    if not game.chat_enabled:
        return ChatAccess(role=role, off="game", has_watchers=has_watchers)
    if not getattr(user, "chat_enabled", True):
        return ChatAccess(role=role, off="user", has_watchers=has_watchers)
    over = is_over(game)
    if seated:
        readable: tuple[str, ...] = (PLAYERS, WATCHERS) if has_watchers and over else (PLAYERS,)
        writable: str | None = PLAYERS
        closed = over and (game.finished_at is None or timezone.now() >= game.finished_at + CHAT_AFTER_GAME)
    else:
        readable = (PLAYERS, WATCHERS) if has_watchers else (PLAYERS,)
        writable = WATCHERS if has_watchers else None
        closed = over and writable is not None
    if closed:
        writable = None
    return ChatAccess(
        role=role,
        readable=readable,
        writable=writable,
        muted_until=muted_until(user) if writable and not reading_only else None,
        has_watchers=has_watchers,
        closed=closed,
    )


def may_read(*, game: Game, user: Any, channel: str, invited: bool = False) -> bool:
    """May ``user`` read ``channel`` of ``game`` now?  (The consumer asks before each "chat changed".)"""
    return channel in chat_access(game=game, user=user, invited=invited).readable


def visible_messages(
    *, game: Game, user: Any, channels: tuple[str, ...], muted_ids: Collection[int] | None = None
) -> QuerySet[ChatMessage]:
    """The messages of ``channels`` that ``user`` sees: not hidden by a moderator, not by someone they muted.

    ``muted_ids``: everyone ``user`` muted, when the caller has read them already (``chat_panel``);
    else the mutes are looked up inside the query.
    """
    messages = ChatMessage.objects.filter(game=game, channel__in=channels, hidden_at__isnull=True)
    if muted_ids is None:
        messages = messages.exclude(author__in=ChatMute.objects.filter(user=user).values("muted"))
    elif muted_ids:
        messages = messages.exclude(author_id__in=list(muted_ids))
    return messages.select_related("author")


def latest_lines(messages: QuerySet[ChatMessage]) -> tuple[list[ChatMessage], int]:
    """The last ``TABLE_LINES`` of ``messages`` (one channel's), oldest first, and how many are older.

    No older line is read however long the chat grew: they are counted only when the channel shows a
    whole table's worth (two plain queries cost Django less to build than one with window functions).
    The count is of messages older than the first line shown, so a message posted or hidden between
    the two queries cannot make it disagree with the lines.
    """
    lines = list(messages.order_by("-created_at", "-pk")[:TABLE_LINES])
    lines.reverse()
    if len(lines) < TABLE_LINES:
        return lines, 0
    first = lines[0]
    older = messages.filter(
        Q(created_at__lt=first.created_at) | Q(created_at=first.created_at, pk__lt=first.pk)
    ).count()
    return lines, older


def channel_title(channel: str, role: str) -> str:
    if channel == WATCHERS:
        return _("Watchers' chat")
    return _("Table talk") if role == "player" else _("The players' chat")


def _line(message: ChatMessage, user: Any, seated_ids: set[int], today: datetime.date) -> dict[str, Any]:
    """One chat line as the template shows it, its times and its menu's labels worked out here: a table
    shows up to 50 lines a channel, and the template engine spent more on each line's filters than on
    its words."""
    author = message.author
    name = author.shown_name
    written = timezone.localtime(message.created_at)  # in the reader's time zone
    return {
        "datetime": formats.date_format(written, "c"),
        "when": formats.date_format(written, "DATETIME_FORMAT"),
        "shown_time": (
            formats.time_format(written, "H:i") if written.date() == today else formats.date_format(written, "j M H:i")
        ),
        "report_or_mute": _("Report or mute %(name)s") % {"name": name},
        "mute": _("Mute %(name)s") % {"name": name},
        "id": message.pk,
        "author": name,
        "author_id": author.pk,
        "author_is_player": author.pk in seated_ids,
        "text": message.shown_text,
        "mine": author.pk == user.pk,
    }


def muted_at_table(
    *, game: Game, user: Any, seated_ids: Collection[int]
) -> tuple[list[tuple[int, str, str]], list[int]]:
    """The people of this table (seated, or who wrote here) ``user`` muted, to unmute them, by name:
    (id, username, display name); and the ids of everyone they muted, whose lines are not shown (one
    who writes here for the first time while the page is built stays muted).

    Most people mute nobody: then one short query; the game's messages are asked only about muted
    people without a seat here (people muted elsewhere wrote nothing here)."""
    mine = list(
        ChatMute.objects.filter(user=user)
        .order_by("muted__username")
        .values_list("muted_id", "muted__username", "muted__display_name")
    )
    elsewhere = [pk for pk, _username, _display in mine if pk not in seated_ids]
    wrote_here = (
        set(ChatMessage.objects.filter(game=game, author_id__in=elsewhere).values_list("author_id", flat=True))
        if elsewhere
        else set()
    )
    return [m for m in mine if m[0] in seated_ids or m[0] in wrote_here], [m[0] for m in mine]


def chat_panel(
    *,
    game: Game,
    user: Any,
    invited: bool = False,
    record: bool = False,
    seated_ids: set[int] | None = None,
    error: str = "",
    text: str = "",
) -> dict[str, Any]:
    """The chat beside a table (``record``: the whole history, read-only, on a finished game's record).

    ``seated_ids``: the people with a seat, when the caller has read the seats already.
    ``error`` and ``text``: a refused post's message and what the person had typed (kept for them).
    """
    if seated_ids is None:
        seated_ids = set(Seat.objects.filter(game=game, user__isnull=False).values_list("user_id", flat=True))
    seated = user.is_authenticated and user.pk in seated_ids
    access = chat_access(game=game, user=user, invited=invited, seated=seated, reading_only=record)
    channels = []
    today = timezone.localdate()  # in the reader's time zone: a message of today shows its time only
    muted: list[tuple[int, str, str]] = []
    muted_ids: list[int] | None = None  # the record looks the mutes up inside its one query
    if access.readable and not record:
        muted, muted_ids = muted_at_table(game=game, user=user, seated_ids=seated_ids)
        if len(muted_ids) > MUTED_IDS_INLINE:
            muted_ids = None  # too many to send as parameters: the query looks them up itself
    if access.readable:
        shown = (
            list(
                visible_messages(game=game, user=user, channels=access.readable, muted_ids=muted_ids)
                .only(*MESSAGE_FIELDS)
                .order_by("created_at", "pk")
            )
            if record
            else []
        )
        for channel in access.readable:
            if record:
                lines, older = [m for m in shown if m.channel == channel], 0
            else:
                lines, older = latest_lines(
                    visible_messages(game=game, user=user, channels=(channel,), muted_ids=muted_ids).only(
                        *MESSAGE_FIELDS
                    )
                )
            channels.append(
                {
                    "channel": channel,
                    "title": channel_title(channel, access.role),
                    "lines": [_line(m, user, seated_ids, today) for m in lines],
                    "older": older,
                    "mine": channel == access.writable,
                }
            )
    return {
        "game": game,
        "access": access,
        "enabled": bool(access.readable),
        "channels": channels,
        "record": record,
        "can_post": bool(access.writable) and access.muted_until is None and not record,
        "any_lines": any(channel["lines"] for channel in channels),
        "max_length": MESSAGE_MAX_LENGTH,
        "quick_phrases": list(QUICK_PHRASES.items()),
        "muted_people": [{"id": pk, "name": display_name or username} for pk, username, display_name in muted],
        "error": error,
        "text": text,
    }
