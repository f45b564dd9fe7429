"""Live updates: the channel-layer groups and what is sent to them.

One group per game (``game-<id>``), one per person (``user-<id>``) and one for
the lobby's open pages (``lobby``, which hears a bare "the lobby changed"
whenever a table that is or was listed there changes).  After
a change of a game commits, its group hears the new version number (with who
may watch the game then, which each socket reads and keeps to itself), and
a person's group small signals (how many games wait on them); when its chat
changes, only the name of the channel, which each socket passes on as a bare
"chat changed" to the people who may read that channel: no WebSocket message
ever carries a card, nor a chat message's words.  Each browser then fetches its own view of the
table over HTTP, so which cards a person may see is decided in one place,
the engine's ``view(state, seat)``, from which ``games.selectors`` builds
every table.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

from threethirteen_site.errors import LOST_CONNECTION, log_failure

#: Consumer handler names (``type`` of group messages).
GAME_VERSION = "game.version"
CHAT_CHANGED = "chat.changed"
USER_MESSAGE = "user.message"
USER_TURNS = "user.turns"
SIGNED_OUT = "signed.out"
SIGN_IN_CHANGED = "sign_in.changed"
LOBBY_CHANGED = "lobby.changed"

#: Every open lobby page's socket (``LobbyConsumer``).
LOBBY_GROUP = "lobby"

logger = logging.getLogger(__name__)

#: What a page hears when a chat channel it may read changed: ``{"type": "chat"}`` (no words, no names).
CHAT_MESSAGE = {"type": "chat"}


def game_group(game_id: int) -> str:
    return f"game-{int(game_id)}"


def user_group(user_id: int) -> str:
    return f"user-{int(user_id)}"


def session_group(session_key: str) -> str:
    """Every socket opened under one session (a log-out there closes them); the key itself stays secret."""
    return f"session-{hashlib.sha256(session_key.encode()).hexdigest()[:40]}"


def account_group(user_id: int) -> str:
    """Every socket of one person, whatever the session (a deactivated account's are closed)."""
    return f"account-{int(user_id)}"


def _send_quietly(group: str, message: dict[str, Any]) -> None:
    """Send a sign-in message to ``group``; never raises (the heartbeat catches what is lost)."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:
        logger.warning("could not send %s to the sockets of %s", message["type"], group, exc_info=True)


def send_signed_out(group: str) -> None:
    """Close the sockets of ``group`` (``session_group`` or ``account_group``): their person is signed out.

    Never raises: a log-out must not fail because the channel layer is down.
    A socket that missed it finds out at its next heartbeat, which reads the
    session again (``GameConsumer.heartbeat``).
    """
    _send_quietly(group, {"type": SIGNED_OUT})


def close_sockets_on_log_out(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """``user_logged_out``'s receiver: the session's sockets close (the page that logged out goes on as a
    signed-out visitor; a socket kept open by hand would otherwise go on hearing the game)."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        send_signed_out(session_group(key))


def check_sockets_of_account_on_save(
    sender: Any, instance: Any, created: bool = False, update_fields: Any = None, **kwargs: Any
) -> None:
    """The user model's ``post_save`` receiver: once a save that may have changed the password commits,
    each socket of the account reads its session afresh and closes if it no longer signs the person in.

    A password change signs out every other session (Django's session hash), but their sockets went on
    hearing the games until their next heartbeat.  The session that changed it stays signed in under a new
    key (``update_session_auth_hash``): its sockets opened before close too, and their pages reload signed
    in (live.js on 4401); those it opens afterwards stay.  Saves of named fields other than the
    password (a log-in's ``last_login``) ask nothing, nor does a new account (it has no socket yet).
    """
    if created or (update_fields is not None and "password" not in update_fields):
        return
    group = account_group(instance.pk)
    transaction.on_commit(lambda: _send_quietly(group, {"type": SIGN_IN_CHANGED}))


def close_sockets_of_account_on_commit(user_id: int) -> None:
    """Once the transaction commits, every socket of ``user_id`` closes (a deactivated account)."""
    group = account_group(user_id)
    transaction.on_commit(lambda: send_signed_out(group))


def lobby_message(stamp: str | None = None) -> dict[str, Any]:
    """What a lobby page hears: ``{"type": "lobby"}`` (its lists changed: fetch them), or with the
    ``stamp`` of the lists as they are now for this person (on connect and at a heartbeat: the page fetches
    only when it shows another one)."""
    return {"type": "lobby"} if stamp is None else {"type": "lobby", "stamp": str(stamp)}


def send_lobby_changed() -> None:
    """Tell every open lobby page that the open tables changed (no game, no name: each page fetches its
    own lists over HTTP)."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(LOBBY_GROUP, {"type": LOBBY_CHANGED})


def _after_commit(send: Callable[[], None]) -> None:
    """``send`` once the current transaction commits, ``robust``: what the transaction stored stays whatever
    happens to the channel layer, and the pages catch up on their next fetch.  A channel layer that cannot be
    reached (Redis down) is one warning line; Django's ``robust`` logged an error with its traceback for every
    announcement (a fault tester counted 40 in 40 s from the clock alone)."""

    def quietly() -> None:
        try:
            send()
        except LOST_CONNECTION as error:
            log_failure(logger, "the pages were not told of a change (they catch up on their next fetch)", error)

    transaction.on_commit(quietly, robust=True)


def announce_lobby_on_commit() -> None:
    """``send_lobby_changed`` once the transaction commits (``_after_commit``): the join or the leave is stored
    whatever happens to the channel layer, and the lobby pages catch up when their sockets open again (the stamp
    they hear then)."""
    _after_commit(send_lobby_changed)


#: What a person's pages hear when a private table of theirs changed (their lobby fetches its lists).
LOBBY_MESSAGE = {"type": "lobby"}


def announce_lobby_to_users_on_commit(user_ids: Iterable[int]) -> None:
    """Once the transaction commits, these people's lobby pages fetch their lists (through their own socket
    group, ``send_to_user``): a private table's change is told to its own people only, never to every
    lobby (a stranger's socket would learn that a private table was made)."""
    people = sorted(set(user_ids))

    def send() -> None:
        for user_id in people:
            send_to_user(user_id, LOBBY_MESSAGE)

    if people:
        _after_commit(send)


def version_message(version: int) -> dict[str, Any]:
    """The one message a game's group ever hears: ``{"type": "version", "version": N}``."""
    return {"type": "version", "version": int(version)}


def _version_event(version: int, watch: Mapping[str, Any] | None) -> dict[str, Any]:
    """The group message of a new version; ``watch``: who may watch then (``selectors.watch_facts``)."""
    event: dict[str, Any] = {"type": GAME_VERSION, "version": int(version)}
    if watch is not None:
        event["watch"] = dict(watch)
    return event


def send_game_version(game_id: int, version: int, watch: Mapping[str, Any] | None = None) -> None:
    """Tell everyone watching the game that it is now at ``version``.

    ``watch``: who may watch the game now (``selectors.watch_facts``), so that
    each socket decides from the message instead of reading the database;
    without it each socket asks ``may_watch`` itself.  Only the version ever
    reaches a page.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(game_group(game_id), _version_event(version, watch))


def announce_game_version_on_commit(game_id: int, version: int, watch: Mapping[str, Any] | None = None) -> None:
    """After the current transaction commits, announce the game's new version.

    ``robust``: the move is stored whatever happens to the channel layer (a
    Redis that is down is logged; the pages catch up on their next fetch).
    """
    _after_commit(lambda: send_game_version(game_id, version, watch))


def send_chat_changed(game_id: int, channel: str) -> None:
    """Tell the game's group that a chat ``channel`` changed (a message posted or hidden).

    The group hears the channel's name only; each socket passes ``CHAT_MESSAGE``
    on to its page only if that person may read the channel now (the
    watchers' channel never reaches a player during play), and the page then
    fetches its own view of the chat over HTTP (``games.chat_selectors``).
    """
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(game_group(game_id), {"type": CHAT_CHANGED, "channel": str(channel)})


def announce_chat_on_commit(game_id: int, channel: str) -> None:
    """``send_chat_changed`` once the current transaction has committed (``_after_commit``, like the versions)."""
    _after_commit(lambda: send_chat_changed(game_id, channel))


def send_to_user(user_id: int, data: Mapping[str, Any]) -> None:
    """Send ``data`` (a JSON object, never cards) to every open page of one person."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(layer.group_send)(user_group(user_id), {"type": USER_MESSAGE, "data": dict(data)})


def announce_chat_to_user_on_commit(user_id: int) -> None:
    """Once the transaction commits, the person's open pages fetch their chat again (a moderator muted them
    from chat, or let them chat again: the message box goes or comes back)."""
    _after_commit(lambda: send_to_user(user_id, CHAT_MESSAGE))


def send_turns_changed(user_ids: list[int]) -> None:
    """Tell each person's open pages that their "games waiting on you" count may have changed.

    The message carries no count: each open page's socket counts for its
    person when it hears it (``UserConsumer.user_turns``), with the same
    selector as the header that every page renders, so a move costs no count
    for people without an open page, and every count is read after the change
    committed.
    """
    layer = get_channel_layer()
    if layer is None:
        return
    for user_id in user_ids:
        async_to_sync(layer.group_send)(user_group(user_id), {"type": USER_TURNS})


async def _send_change(
    layer: Any, game_id: int, version: int, user_ids: list[int], watch: Mapping[str, Any] | None
) -> None:
    await layer.group_send(game_group(game_id), _version_event(version, watch))
    for user_id in user_ids:
        await layer.group_send(user_group(user_id), {"type": USER_TURNS})


def send_change(
    game_id: int, version: int, turns_changed_for: list[int], watch: Mapping[str, Any] | None = None
) -> None:
    """``send_game_version``, then ``send_turns_changed`` to ``turns_changed_for``, in one trip to the
    channel layer's event loop (what a move announces)."""
    layer = get_channel_layer()
    if layer is None:
        return
    async_to_sync(_send_change)(layer, game_id, version, list(turns_changed_for), watch)


def announce_change_on_commit(
    game_id: int, version: int, turns_changed_for: list[int], watch: Mapping[str, Any] | None = None
) -> None:
    """``send_change`` once the current transaction commits (``_after_commit``, as the version alone)."""
    ids = list(turns_changed_for)
    _after_commit(lambda: send_change(game_id, version, ids, watch))
