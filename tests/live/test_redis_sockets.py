"""Sockets on the Redis channel layer stay open, connect in bursts, and survive a Redis restart.

A daphne process with ``REDIS_URL`` (``threethirteen_site/redis_layer.py``)
serves the test database; the sockets are opened with the ``websockets``
client, as many pages would.
"""

from __future__ import annotations

import asyncio
import json
import resource
import time
import urllib.parse
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from games import services
from games.engine import GameState
from tests.servers import post_move
from threethirteen_site.redis_layer import BLOCKING_READ_SECONDS
from threethirteen_site.socket_faults import CLOSE_SERVICE_DOWN

from .conftest import session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

#: Three of the layer's blocking reads and a bit: an idle socket that survives this survives any number.
IDLE_SECONDS = 3 * BLOCKING_READ_SECONDS + 2


@pytest.fixture
def game(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=8, options={"rounds": [3]}
    )
    game.refresh_from_db()
    return game


def mover_and_watcher(game) -> tuple[Any, Any]:
    seats = {seat.position: seat.user for seat in game.seats.all()}
    return seats[game.current_seat], seats[1 - game.current_seat]


async def open_socket(base_url: str, game_id: int, cookie: str) -> tuple[ClientConnection, dict]:
    """A game page's socket, and the first message it hears (the version)."""
    port = urllib.parse.urlparse(base_url).port
    socket = await connect(
        f"ws://127.0.0.1:{port}/ws/games/{game_id}/",
        origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
        additional_headers={"Cookie": f"sessionid={cookie}"},
        open_timeout=60,
        ping_interval=None,  # like a browser: no pings of its own
    )
    return socket, json.loads(await asyncio.wait_for(socket.recv(), 60))


async def next_message(socket: ClientConnection, timeout: float) -> dict | int | None:
    """The next message, the close code if the server closed the socket, or None if it stayed quiet."""
    try:
        return json.loads(await asyncio.wait_for(socket.recv(), timeout))
    except TimeoutError:
        return None
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else 1006


@pytest.mark.parametrize(
    ("socket_timeout", "stays_open"),
    [
        (None, True),  # the site's setting: longer than the layer's blocking read
        ("3", False),  # shorter than the blocking read (like redis-py 8's own 5 s): the read times out
    ],
)
def test_idle_sockets_stay_open_while_the_layer_waits_for_messages(
    redis_url, start_daphne, game, socket_timeout, stays_open
):
    extra = {"REDIS_URL": redis_url}
    if socket_timeout is not None:
        extra["REDIS_SOCKET_TIMEOUT"] = socket_timeout
    server = start_daphne(**extra)
    cookie = session_cookie(mover_and_watcher(game)[1])

    async def scenario() -> list[Any]:
        opened = [await open_socket(server, game.pk, cookie) for _ in range(20)]
        assert all(first == {"type": "version", "version": game.version} for _socket, first in opened)
        heard = await asyncio.gather(*(next_message(socket, IDLE_SECONDS) for socket, _first in opened))
        for socket, _first in opened:
            await socket.close()
        return heard

    heard = asyncio.run(scenario())
    if stays_open:
        assert heard == [None] * 20  # nothing said, nothing closed
    else:
        assert CLOSE_SERVICE_DOWN in heard  # the server's consumer failed: the control shows the test can tell


def test_hundreds_of_sockets_connecting_at_once_all_connect_and_hear_the_next_move(redis_url, start_daphne, game):
    count = 300
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4 * count:  # the sockets' two ends and the server's Redis connections
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8 * count), hard))
    # The site's own pool (100 connections per process), and daphne as the README runs it: a handshake
    # may wait longer than daphne's default 5 s while a burst queues for the database.
    server = start_daphne("--websocket_connect_timeout", "120", REDIS_URL=redis_url)
    mover, watcher = mover_and_watcher(game)
    cookies = [session_cookie(watcher), session_cookie(mover)]

    async def scenario() -> tuple[list[dict], list[Any], float]:
        started = time.monotonic()
        opened = await asyncio.gather(*(open_socket(server, game.pk, cookies[i % 2]) for i in range(count)))
        took = time.monotonic() - started
        status = await asyncio.to_thread(post_move, server, cookies[1], game, {"type": "draw", "source": "stock"})
        assert status == 200
        heard = await asyncio.gather(*(next_message(socket, 60) for socket, _first in opened))
        for socket, _first in opened:
            await socket.close()
        return [first for _socket, first in opened], heard, took

    firsts, heard, took = asyncio.run(scenario())
    print(f"{count} sockets connected at once in {took:.1f} s")
    assert firsts == [{"type": "version", "version": game.version}] * count
    assert heard == [{"type": "version", "version": game.version + 1}] * count


def test_after_a_redis_restart_pages_reconnect_catch_up_and_hear_the_next_move(redis_server, start_daphne, game):
    server = start_daphne(REDIS_URL=redis_server.url)
    mover, watcher = mover_and_watcher(game)
    watcher_cookie, mover_cookie = session_cookie(watcher), session_cookie(mover)
    seat = game.current_seat

    def discard() -> dict:
        """The mover's discard after the draw (read off the main loop, where the ORM may run)."""
        game.refresh_from_db()
        return {"type": "discard", "card": GameState.from_dict(game.state).hands[seat][0].code}

    async def scenario() -> list[Any]:
        opened = [await open_socket(server, game.pk, watcher_cookie) for _ in range(5)]
        redis_server.stop()
        # The server closes the sockets it can no longer serve (the pages reconnect, see live.js) ...
        closed = await asyncio.gather(*(next_message(socket, 30) for socket, _first in opened))
        # ... a move made meanwhile is stored all the same (its announcement is lost with Redis) ...
        draw = await asyncio.to_thread(post_move, server, mover_cookie, game, {"type": "draw", "source": "stock"})
        redis_server.start()
        # ... and a page that reconnects hears the version it missed, then the next move.
        socket, first = await open_socket(server, game.pk, watcher_cookie)
        action = await asyncio.to_thread(discard)
        assert await asyncio.to_thread(post_move, server, mover_cookie, game, action) == 200
        after = await next_message(socket, 30)
        await socket.close()
        return [closed, draw, first, after]

    closed, draw, first, after = asyncio.run(scenario())
    assert all(isinstance(code, int) for code in closed), closed  # closed, not left open and deaf
    assert draw == 200
    game.refresh_from_db()
    assert first == {"type": "version", "version": game.version - 1}
    assert after == {"type": "version", "version": game.version}
