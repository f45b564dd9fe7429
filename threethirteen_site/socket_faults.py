"""A WebSocket that meets a service that is down (the database, Redis): one warning line, and the page reconnects.

Opening a game's socket reads the session and the person (the database, or the
cache in Redis) and joins groups in the channel layer (Redis).  While one of
them is down, that raised out of the application: the server answered the
handshake with a 500 and logged an error with its traceback, once for every
page trying to reconnect.  Now the opening is refused (the socket is closed
before it is accepted, which the server answers with a 403, and the browser
sees a failed connection: it is not told a close code), one warning line is
logged, and the page reconnects with its usual backoff once the service is
back, as an HTTP request meets the site's 503 page
(``threethirteen_site.errors``).

An open socket whose service goes away (Redis restarted under it, which ends its
reads of the channel layer) is closed and the page reconnects, as when the
server closed it (1011); but the server also logged an error with its
traceback for each, two for every open table page (a fault tester counted
hundreds in a Redis restart): now it is one warning line, and the code 4013.  Any other exception still
raises, as a bug should.
"""

from __future__ import annotations

import logging
from typing import Any

from .errors import LOST_CONNECTION

logger = logging.getLogger(__name__)

#: The close code of RFC 6455 for "try again later" (of a socket not yet accepted: the server answers it with a 403).
CLOSE_TRY_AGAIN_LATER = 1013
#: The close code of an open socket whose service went down: "try again later" in the range of codes an
#: application may send (the server's WebSocket library refuses to send 1011 or 1013 itself, and the socket
#: stayed open and deaf).  The page reconnects after any close but 4401 and 4403.
CLOSE_SERVICE_DOWN = 4013

#: What a service that is down raises (``errors.LOST_CONNECTION``, as for a page): a query or command refused is
#: a bug, and raises (a review: with every database and Redis error here, a missing migration was a quiet
#: reconnecting loop of the pages).
SERVICE_DOWN = LOST_CONNECTION


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
            logger.warning(
                "socket %s %s, a service is down: %s: %s",
                scope.get("path"),
                "closed" if accepted else "refused",
                type(error).__name__,
                error,
            )
            code = CLOSE_SERVICE_DOWN if accepted else CLOSE_TRY_AGAIN_LATER
            try:
                await send({"type": "websocket.close", "code": code})
            except Exception:  # the connection is gone already: nothing to close
                logger.debug("socket %s was closed already", scope.get("path"))
