"""A WebSocket that meets a service that is down (the database, Redis) as it opens: "try again later".

Opening a game's socket reads the session and the person (the database, or the
cache in Redis) and joins groups in the channel layer (Redis).  While one of
them is down, that raised out of the application: the server answered the
handshake with a 500 and logged an error with its traceback, once for every
page trying to reconnect.  Now the socket is closed with code 1013 ("try
again later"), one warning line is logged, and the page reconnects with its
usual backoff once the service is back, as an HTTP request meets the site's
503 page (``threethirteen_site.errors``).  Any other exception, and any once
the socket is open (the server closes it with 1011, and the page reconnects),
still raises.
"""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from django.db import Error as DatabaseError
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

#: The close code of RFC 6455 for "try again later".
CLOSE_TRY_AGAIN_LATER = 1013

#: What a service that is down raises (a lost connection, a pool that waited in vain, Redis refusing).
SERVICE_DOWN = (DatabaseError, psycopg.Error, RedisError, ConnectionError, TimeoutError)


class ServiceDownCloses:
    """ASGI middleware for the WebSocket side (see the module's docstring)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        accepted = False

        async def send_noting_the_accept(message: dict[str, Any]) -> None:
            nonlocal accepted
            accepted = accepted or message.get("type") == "websocket.accept"
            await send(message)

        try:
            await self.app(scope, receive, send_noting_the_accept)
        except SERVICE_DOWN as error:
            if accepted:
                # An open socket whose layer failed: the server closes it (1011) and the page reconnects,
                # as before; only the opening, which the server answered with a 500, is answered here.
                raise
            logger.warning(
                "socket %s closed, a service is down: %s: %s", scope.get("path"), type(error).__name__, error
            )
            try:
                await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN_LATER})
            except Exception:  # the connection is gone already: nothing to close
                logger.debug("socket %s was closed already", scope.get("path"))
