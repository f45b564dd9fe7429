"""``/healthz``: whether this server process can serve, for a proxy, a monitor or systemd.

200 when the database answers a query and the channel layer carries a message
(a message sent to a fresh channel and received back: through Redis when
``REDIS_URL`` is set), 503 when either does not, within a few seconds.  The
body is a small JSON object of words that are the same in every language
("ok", "unavailable"): it is read by programs, and it says nothing about the
set-up (no addresses, no errors; what went wrong is logged).  Never cached.

It is exempt from the HTTPS redirect (``SECURE_REDIRECT_EXEMPT``), so a monitor
on the server itself may ask a process directly over plain HTTP, e.g.
``curl -H 'Host: cards.example.com' http://127.0.0.1:8001/healthz``; the
``Host`` must be one of ``ALLOWED_HOSTS``, as for any request.
"""

from __future__ import annotations

import asyncio
import logging
import uuid

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

logger = logging.getLogger(__name__)

#: Seconds the channel layer has to carry the test message back.
CHANNEL_LAYER_TIMEOUT = 3.0

OK, UNAVAILABLE = "ok", "unavailable"


def database_answers() -> bool:
    """Whether the default database answers ``SELECT 1`` on this process's connection."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:  # any failure is "unavailable": the check itself must never fail the request
        logger.warning("health check: the database did not answer", exc_info=True)
        return False


async def channel_layer_answers(timeout: float | None = None) -> bool:
    """Whether the channel layer carries a message to a fresh channel and back within ``timeout`` seconds."""
    try:
        layer = get_channel_layer()
        if layer is None:
            return False
        channel = f"healthz.{uuid.uuid4().hex}"
        message = {"type": "healthz.ping", "token": uuid.uuid4().hex}

        async def round_trip() -> bool:
            await layer.send(channel, message)
            return await layer.receive(channel) == message

        return await asyncio.wait_for(round_trip(), timeout or CHANNEL_LAYER_TIMEOUT)
    except Exception:  # a refused connection, a timeout, a bad configuration: all "unavailable"
        logger.warning("health check: the channel layer did not answer", exc_info=True)
        return False


@never_cache
@require_safe
async def healthz(request: HttpRequest) -> JsonResponse:
    """200 ``{"status": "ok", ...}`` when the database and the channel layer answer, else 503."""
    database = await sync_to_async(database_answers)()
    channel_layer = await channel_layer_answers()
    healthy = database and channel_layer
    body = {
        "status": OK if healthy else UNAVAILABLE,
        "database": OK if database else UNAVAILABLE,
        "channel_layer": OK if channel_layer else UNAVAILABLE,
    }
    return JsonResponse(body, status=200 if healthy else 503)
