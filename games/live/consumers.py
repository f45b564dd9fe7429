"""The WebSocket side of a game and of a person.

Both only ever send small JSON objects and never a card:

- ``GameConsumer`` (``/ws/games/<id>/``): the players seated at that game and,
  when the game allows spectators, other signed-in people (who fetch the
  public view; for a private game only those whose session opened its
  invite link).  On connect and after every committed change it sends
  ``{"type": "version", "version": N}``; the page then fetches its own view
  of the table over HTTP.  When a chat channel changes it sends
  ``{"type": "chat"}``, only to the people who may read that channel now
  (``chat_selectors.may_read``: never the watchers' channel to a player
  during play); the page then fetches its own view of the chat.
- ``UserConsumer`` (``/ws/user/``): one person's group, for signals shown on
  every page (the "your turn" count in the header, counted here for this person
  when a move tells the group that their turns changed).
- ``LobbyConsumer`` (``/ws/lobby/``): a signed-in person's lobby page.  It
  says ``{"type": "lobby", "stamp": S}`` on connect and at each heartbeat
  (``selectors.lobby_stamp_for``: a fingerprint of the lists that page would
  show now) and a bare ``{"type": "lobby"}`` whenever a listed table changed;
  the page then fetches its lists over HTTP.
- ``NoRouteConsumer``: every other path, refused at once (``CLOSE_NOT_FOUND``).

Which cards a page shows is not decided here: the page's HTTP fetch goes
through ``games.selectors``, which builds the table from the engine's
``view(state, seat)`` (the one rule about hidden cards).  Who may watch is
decided by ``selectors.may_watch``, the same rule the table view applies,
asked on connect and again before every version is passed on.  A socket
closes (``CLOSE_NOT_LOGGED_IN``) when its session signs out or its account is
deactivated, told through its session's and account's groups, or, if that
message was lost, at its next heartbeat (a page pings after 15 s of silence),
which reads the session afresh; a connect reads it once more after joining
those groups, so a log-out during the handshake is not missed either.
Nothing a client sends changes anything: ``{"type": "ping"}`` is answered
``{"type": "pong"}`` (the page's heartbeat: "Live" shows only while answers
come back; a game's socket also rejoins its group and says the version
again, see ``GameConsumer.heartbeat``), anything else gets an error.
"""

from __future__ import annotations

import json
import time
from importlib import import_module
from types import SimpleNamespace
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.contrib import auth
from django.contrib.auth import get_user_model
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import trans_real

from games import chat_selectors, selectors
from games.models import Game

from . import groups

#: Close codes (the 4000 range is ours): not signed in, not allowed to watch.
CLOSE_NOT_LOGGED_IN = 4401
CLOSE_FORBIDDEN = 4403
#: No WebSocket route at this path (refused before the handshake completes).
CLOSE_NOT_FOUND = 4404


#: The heartbeat: the page sends PING now and then and counts the socket dead without a PONG.
PING = {"type": "ping"}
PONG = {"type": "pong"}
#: A game socket's heartbeat rejoins its group and reads the version at most this often.
HEARTBEAT_REFRESH_SECONDS = 5.0


def _is_ping(text_data: str | None) -> bool:
    if not text_data or len(text_data) > 100:
        return False
    try:
        return json.loads(text_data) == PING
    except ValueError:
        return False


def reader_language(scope: dict[str, Any]) -> str:
    """The language the socket's person reads the site in, as their pages choose it: the profile's,
    else the language cookie, else the browser's ``Accept-Language``, else the site's default."""
    language = getattr(scope.get("user"), "language", "")
    if language:
        return language
    candidates = [(scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME, "")]
    accept = dict(scope.get("headers") or []).get(b"accept-language", b"").decode("latin-1")
    candidates += [code for code, _quality in trans_real.parse_accept_lang_header(accept) if code != "*"]
    for code in filter(None, candidates):
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE


def still_signed_in(scope: dict[str, Any], user: Any) -> bool:
    """Whether the socket's session still signs ``user`` in, as a page's request would find it now (read
    afresh: the socket's own copy is from its connect): not signed out, the same password, an active account."""
    key = getattr(scope.get("session"), "session_key", None)
    if not key or user is None or not user.is_authenticated:
        return False
    session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    found = auth.get_user(SimpleNamespace(session=session))  # type: ignore[arg-type]
    return bool(found.is_authenticated and found.pk == user.pk)


class _ReadOnlyConsumer(AsyncJsonWebsocketConsumer):
    """Answers the heartbeat; refuses every other message from the client with an error that says why.

    A signed-in socket also listens to its session's and its account's groups, and closes with
    ``CLOSE_NOT_LOGGED_IN`` when either says the person signed out (``groups.send_signed_out``).
    """

    signed_in_groups: tuple[str, ...] = ()
    checked_at: float = float("-inf")  # when the heartbeat last read the session afresh (time.monotonic)

    async def join_signed_in_groups(self) -> bool:
        """Listen for the person's sign-out; False (and nothing joined) if they are signed out already:
        a log-out between the handshake's reading of the session and this join would not be heard."""
        user = self.scope.get("user")
        key = getattr(self.scope.get("session"), "session_key", None)
        self.signed_in_groups = (groups.account_group(user.pk),) + ((groups.session_group(key),) if key else ())
        for group in self.signed_in_groups:
            await self.channel_layer.group_add(group, self.channel_name)
        if await database_sync_to_async(still_signed_in)(self.scope, user):
            return True
        await self.leave_groups()
        return False

    async def heartbeat(self) -> None:
        """Answer the page's ping; at most every ``HEARTBEAT_REFRESH_SECONDS`` first read the session
        afresh (a sign-out whose message the channel layer lost closes the socket here) and join the
        groups again (a Redis restart forgets them)."""
        now = time.monotonic()
        if self.signed_in_groups and now - self.checked_at >= HEARTBEAT_REFRESH_SECONDS:
            self.checked_at = now
            if not await database_sync_to_async(still_signed_in)(self.scope, self.scope.get("user")):
                await self.signed_out({})
                return
            for group in self.signed_in_groups:
                await self.channel_layer.group_add(group, self.channel_name)
        await self.send_json(PONG)

    async def leave_groups(self) -> None:
        joined, self.signed_in_groups = self.signed_in_groups, ()
        for group in joined:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def signed_out(self, event: dict[str, Any]) -> None:
        await self.leave_groups()
        await self.close(code=CLOSE_NOT_LOGGED_IN)

    async def sign_in_changed(self, event: dict[str, Any]) -> None:
        """The account's password (or its state) changed: close if this socket's session no longer signs in."""
        if self.signed_in_groups and not await database_sync_to_async(still_signed_in)(
            self.scope, self.scope.get("user")
        ):
            await self.signed_out({})

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        if _is_ping(text_data):
            await self.heartbeat()
            return
        with translation.override(reader_language(self.scope)):
            message = _("This connection only announces changes; play through the table's buttons.")
        await self.send_json({"type": "error", "message": message})


class GameConsumer(_ReadOnlyConsumer):
    group: str | None = None
    game_id: int | None = None
    refreshed_at: float = float("-inf")  # when the heartbeat last rejoined the group (time.monotonic)
    invited: bool = False  # whether the socket's session held the game's invite link when last read

    async def connect(self) -> None:
        user = self.scope.get("user")
        game_id = self.scope["url_route"]["kwargs"]["game_id"]
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        if not await self._may_watch(user, game_id):
            await self.close(code=CLOSE_FORBIDDEN)
            return
        # Join the group before reading the version: a change that commits in
        # between is then heard as a message instead of being missed.
        self.game_id = game_id
        self.group = groups.game_group(game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        if not await self.join_signed_in_groups():
            await self.leave_groups()
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        await self.accept()
        version = await self._version(game_id)
        await self.send_json(groups.version_message(version))

    async def disconnect(self, code: int) -> None:
        await self.leave_groups()

    async def game_version(self, event: dict[str, Any]) -> None:
        """Pass the new version on, if this person may still watch.

        Who may watch can change while the socket is open (a players-only
        game that starts, a game a moderator closes to spectators), so every
        version asks ``may_watch`` again before it is sent; when it no longer
        holds, the socket is closed with ``CLOSE_FORBIDDEN`` and hears nothing
        more.  A version announced by a change carries who may watch as that
        change committed (``selectors.watch_facts``), which answers it without
        a database read; a version without them asks the database.
        """
        if self.game_id is None or not await self._may_still_watch(event, self.game_id):
            await self.leave_groups()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.send_json(groups.version_message(event["version"]))

    async def chat_changed(self, event: dict[str, Any]) -> None:
        """Pass "chat changed" on, if this person may read that channel now (asked again every time)."""
        if self.game_id is None:
            return
        if await self._may_read_chat(self.scope.get("user"), self.game_id, str(event.get("channel", ""))):
            await self.send_json(groups.CHAT_MESSAGE)

    async def heartbeat(self) -> None:
        """The page's heartbeat (a ping after 15 s of silence): join the group again, answer, say the version.

        A Redis restart forgets every group; a socket that stayed open through
        it would hear nothing more.  Joining again (the same as nothing when
        nothing was lost) makes it hear the next change, and the version makes
        a page that missed one fetch its table: no page waits on a silence.
        """
        now = time.monotonic()
        if self.game_id is None or self.group is None or now - self.refreshed_at < HEARTBEAT_REFRESH_SECONDS:
            await self.send_json(PONG)  # a page pings after 15 s of silence: more often is only answered
            return
        self.refreshed_at = now
        if not await database_sync_to_async(still_signed_in)(self.scope, self.scope.get("user")):
            await self.signed_out({})  # the message of it was lost (the channel layer was down)
            return
        self.checked_at = now
        version = await self._version_if_watching(self.scope.get("user"), self.game_id)
        if version is None:
            await self.leave_groups()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        for group in (self.group, *self.signed_in_groups):
            await self.channel_layer.group_add(group, self.channel_name)
        await self.send_json(PONG)
        await self.send_json(groups.version_message(version))

    async def _may_still_watch(self, event: dict[str, Any], game_id: int) -> bool:
        user = self.scope.get("user")
        watch = event.get("watch")
        if isinstance(watch, dict):
            return selectors.may_watch_given(watch, user=user, invited=self.invited)
        return await self._may_watch(user, game_id)

    async def leave_groups(self) -> None:
        if self.group is not None:
            group, self.group = self.group, None
            await self.channel_layer.group_discard(group, self.channel_name)
        await super().leave_groups()

    @database_sync_to_async
    def _may_watch(self, user: Any, game_id: int) -> bool:
        return self._watchable_version(user, game_id) is not None

    @database_sync_to_async
    def _version_if_watching(self, user: Any, game_id: int) -> int | None:
        return self._watchable_version(user, game_id)

    def _watchable_version(self, user: Any, game_id: int) -> int | None:
        """The game's version if ``selectors.may_watch`` holds for this socket (its user, and whether its
        session holds the invite link), else None."""
        game = Game.objects.filter(pk=game_id).first()
        if game is None:
            return None
        self.invited = invited = selectors.holds_invite(self.scope.get("session"), game_id)
        return game.version if selectors.may_watch(game=game, user=user, invited=invited) else None

    @database_sync_to_async
    def _may_read_chat(self, user: Any, game_id: int, channel: str) -> bool:
        """``chat_selectors.may_read`` for this socket, with the person's chat setting as stored now."""
        game = Game.objects.filter(pk=game_id).first()
        if game is None or user is None or not user.is_authenticated:
            return False
        user = get_user_model().objects.filter(pk=user.pk, is_active=True).first()
        if user is None:
            return False
        invited = selectors.holds_invite(self.scope.get("session"), game_id)
        return chat_selectors.may_read(game=game, user=user, channel=channel, invited=invited)

    @database_sync_to_async
    def _version(self, game_id: int) -> int:
        return Game.objects.values_list("version", flat=True).get(pk=game_id)


class _SignedInGroupConsumer(_ReadOnlyConsumer):
    """A signed-in person's socket that listens to one group (``group_for``) besides their sign-in groups;
    refused to signed-out visitors.  ``opened`` says what the page must know at once (it may have missed
    messages while it was not connected)."""

    group: str | None = None

    def group_for(self, user: Any) -> str:
        raise NotImplementedError

    async def opened(self) -> None:
        raise NotImplementedError

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        # Joined before anything is read: a change that commits in between is then heard, not missed.
        self.group = self.group_for(user)
        await self.channel_layer.group_add(self.group, self.channel_name)
        if not await self.join_signed_in_groups():
            await self.leave_groups()
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        await self.accept()
        await self.opened()

    async def disconnect(self, code: int) -> None:
        await self.leave_groups()

    async def leave_groups(self) -> None:
        if self.group is not None:
            group, self.group = self.group, None
            await self.channel_layer.group_discard(group, self.channel_name)
        await super().leave_groups()


class UserConsumer(_SignedInGroupConsumer):
    def group_for(self, user: Any) -> str:
        return groups.user_group(user.pk)

    async def opened(self) -> None:
        # The count as it is now: a page that reconnects (after a dropped connection, a server's
        # restart) missed the counts sent meanwhile.
        await self.user_turns({})

    async def user_message(self, event: dict[str, Any]) -> None:
        await self.send_json(event["data"])

    async def user_turns(self, event: dict[str, Any]) -> None:
        """A turn of this person's moved: count the games waiting on them now (``{"type": "turns", "count": N}``)."""
        count = await database_sync_to_async(selectors.turns_waiting_count)(user=self.scope.get("user"))
        await self.send_json({"type": "turns", "count": count})


class LobbyConsumer(_SignedInGroupConsumer):
    """The lobby's open tables, live: the group ``groups.LOBBY_GROUP`` hears that they changed.

    On connect, and at the page's heartbeat (at most every ``HEARTBEAT_REFRESH_SECONDS``: it also joins the
    group again, which a Redis restart forgets), it says the stamp of the lists as this person would see
    them now, so a page whose socket was down while a seat was taken sees another stamp and catches up.
    """

    refreshed_at: float = float("-inf")

    def group_for(self, user: Any) -> str:
        return groups.LOBBY_GROUP

    async def opened(self) -> None:
        await self.send_stamp()

    async def lobby_changed(self, event: dict[str, Any]) -> None:
        await self.send_json(groups.lobby_message())

    async def send_stamp(self) -> None:
        stamp = await database_sync_to_async(selectors.lobby_stamp_for)(user=self.scope.get("user"))
        await self.send_json(groups.lobby_message(stamp))

    async def heartbeat(self) -> None:
        """Answer the ping; at most every ``HEARTBEAT_REFRESH_SECONDS`` also read the session afresh, join
        the groups again and say the stamp (what a lost announcement would have told)."""
        now = time.monotonic()
        if self.group is None or now - self.refreshed_at < HEARTBEAT_REFRESH_SECONDS:
            await self.send_json(PONG)
            return
        self.refreshed_at = now
        await super().heartbeat()  # signs out, or rejoins the person's groups and answers PONG
        if self.group is None:
            return
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_stamp()


class NoRouteConsumer(AsyncJsonWebsocketConsumer):
    """Any WebSocket path that matches no route (``/ws/``, ``/ws/games/abc/``): refused at once.

    Without it, Channels' router raises for an unknown path and the server
    logs an error for what is only a mistyped or probing request.
    """

    async def connect(self) -> None:
        await self.close(code=CLOSE_NOT_FOUND)
