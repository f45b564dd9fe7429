"""ASGI entry point: HTTP goes to Django, WebSockets to Channels.

The WebSocket routes are ``games.live.routing``'s, behind the session
authentication of ``AuthMiddlewareStack`` and an origin check against
``ALLOWED_HOSTS``; any other path goes, last, to ``NoRouteConsumer``, which
refuses it at once (the router alone would raise, and log an error, for a
mistyped or probing path such as ``/ws/`` or ``/ws/games/abc/``).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "threethirteen_site.settings")

# Initialise Django (apps, models) before importing anything that uses models.
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from games.live.consumers import NoRouteConsumer  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402

websocket_routes = [*websocket_urlpatterns, re_path(r"", NoRouteConsumer.as_asgi(), name="ws_no_route")]

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_routes))),
    }
)
