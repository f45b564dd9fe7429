"""WebSocket routes of the games app (the consumers arrive with live updates)."""

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
