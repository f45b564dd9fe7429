"""ASGI entry point: HTTP goes to Django, WebSockets to Channels.

The WebSocket routes are ``games.live.routing``'s, behind the session
authentication of ``AuthMiddlewareStack`` and an origin check against
``ALLOWED_HOSTS``; any other path goes, last, to ``NoRouteConsumer``, which
refuses it at once (the router alone would raise, and log an error, for a
mistyped or probing path such as ``/ws/`` or ``/ws/games/abc/``).

In the default set-up (the in-memory channel layer) the move clock runs in
this process (``games.live.clock``): started on the first request or socket,
or at the ASGI lifespan start-up for servers that send one (daphne does not),
so that the turns it plays reach the sockets this process holds.
"""

import os
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "threethirteen_site.settings")

# Initialise Django (apps, models) before importing anything that uses models.
django.setup(set_prefix=False)

from threethirteen_site.http import OneTripASGIHandler  # noqa: E402

django_asgi_app = OneTripASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.urls import re_path  # noqa: E402

from games.live.clock import enabled as clock_in_server  # noqa: E402
from games.live.clock import server_clock  # noqa: E402
from games.live.consumers import NoRouteConsumer  # noqa: E402
from games.live.routing import websocket_urlpatterns  # noqa: E402
from threethirteen_site.socket_faults import ServiceDownCloses  # noqa: E402

websocket_routes = [*websocket_urlpatterns, re_path(r"", NoRouteConsumer.as_asgi(), name="ws_no_route")]

router = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": ServiceDownCloses(AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_routes)))),
    }
)


async def lifespan(receive: Any, send: Any) -> None:
    """The ASGI lifespan protocol (uvicorn, hypercorn): the clock starts and stops with the server."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            if clock_in_server():
                server_clock.start()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await server_clock.stop()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The router, plus the in-process move clock when this process runs it."""
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    if clock_in_server():
        server_clock.start()
    await router(scope, receive, send)
