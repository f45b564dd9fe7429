"""Several server processes serve one game through Redis.

A Redis server and two ASGI servers (daphne) start on loopback ports, both
with ``REDIS_URL`` set and the test database: a move posted over HTTP to the
first reaches a WebSocket connected to the second.  Debian's ``redis-server``
is needed (``.ci/run`` installs it with apt-get).
"""

from __future__ import annotations

import json
import urllib.parse

import pytest
from websockets.sync.client import connect as websocket_connect

from games import services
from tests.servers import post_move

from .conftest import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def two_servers(redis_url: str, start_daphne) -> list[str]:
    """Two daphne processes sharing the test database and the Redis channel layer."""
    return [start_daphne(REDIS_URL=redis_url), start_daphne(REDIS_URL=redis_url)]


@pytest.mark.slow
def test_a_move_posted_to_one_process_reaches_a_socket_on_the_other(two_servers, make_user, classic):
    server_a, server_b = two_servers
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=8, options={"rounds": [3]}
    )
    game.refresh_from_db()
    mover = [ann, bob][game.current_seat]
    watcher = [ann, bob][1 - game.current_seat]

    port_b = urllib.parse.urlparse(server_b).port
    with websocket_connect(
        f"ws://127.0.0.1:{port_b}/ws/games/{game.pk}/",
        origin=f"http://127.0.0.1:{port_b}",
        additional_headers={"Cookie": f"sessionid={session_cookie(watcher)}"},
        open_timeout=10,
    ) as socket:
        assert json.loads(socket.recv(timeout=10)) == {"type": "version", "version": game.version}
        assert post_move(server_a, session_cookie(mover), game, {"type": "draw", "source": "stock"}) == 200
        message = json.loads(socket.recv(timeout=10))
    game.refresh_from_db()
    assert game.version == message["version"] and message == {"type": "version", "version": game.version}
    assert game.moves.count() == 1
