"""WebSocket routes of the games app (mounted by ``threethirteen_site.asgi``)."""

from django.urls import URLPattern, path

from . import consumers

websocket_urlpatterns: list[URLPattern] = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi(), name="ws_game"),
    path("ws/user/", consumers.UserConsumer.as_asgi(), name="ws_user"),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi(), name="ws_lobby"),
]
