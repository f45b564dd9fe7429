"""The WebSocket side of a game and of a person.

Both only ever send small JSON objects and never a card:

- ``GameConsumer`` (``/ws/games/<id>/``): the players seated at that game and,
  when the game allows spectators, other signed-in people (who fetch the
  public view).  On connect and after every committed change it sends
  ``{"type": "version", "version": N}``; the page then fetches its own view
  of the table over HTTP.
- ``UserConsumer`` (``/ws/user/``): one person's group, for signals shown on
  every page (the "your turn" count in the header).

Which cards a page shows is not decided here: the page's HTTP fetch goes
through ``games.selectors``, which builds the table from the engine's
``view(state, seat)`` (the one rule about hidden cards).  Who may watch is
decided by ``selectors.may_watch``, the same rule the table view applies.
Nothing a client sends changes anything: it gets an error.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from games import selectors
from games.models import Game

from . import groups

#: Close codes (the 4000 range is ours): not signed in, not allowed to watch.
CLOSE_NOT_LOGGED_IN = 4401
CLOSE_FORBIDDEN = 4403


class _ReadOnlyConsumer(AsyncJsonWebsocketConsumer):
    """Refuses every message from the client with an error that says why."""

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        user = self.scope.get("user")
        language = getattr(user, "language", "") or settings.LANGUAGE_CODE
        with translation.override(language):
            message = _("This connection only announces changes; play through the table's buttons.")
        await self.send_json({"type": "error", "message": message})


class GameConsumer(_ReadOnlyConsumer):
    group: str | None = None

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
        self.group = groups.game_group(game_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        version = await self._version(game_id)
        await self.send_json(groups.version_message(version))

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def game_version(self, event: dict[str, Any]) -> None:
        await self.send_json(groups.version_message(event["version"]))

    @database_sync_to_async
    def _may_watch(self, user: Any, game_id: int) -> bool:
        game = Game.objects.filter(pk=game_id).first()
        return game is not None and selectors.may_watch(game=game, user=user)

    @database_sync_to_async
    def _version(self, game_id: int) -> int:
        return Game.objects.values_list("version", flat=True).get(pk=game_id)


class UserConsumer(_ReadOnlyConsumer):
    group: str | None = None

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=CLOSE_NOT_LOGGED_IN)
            return
        self.group = groups.user_group(user.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group is not None:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def user_message(self, event: dict[str, Any]) -> None:
        await self.send_json(event["data"])
