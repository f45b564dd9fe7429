"""Several server processes serve one game through Redis.

A Redis server and two ASGI servers (daphne) start on loopback ports, both
with ``REDIS_URL`` set and the test database: a move posted over HTTP to the
first reaches a WebSocket connected to the second.  Debian's ``redis-server``
is needed (``.ci/run`` installs it with apt-get).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from websockets.sync.client import connect as websocket_connect

from games import services
from tests.servers import REPO, free_port, post_move, server_env, stop, wait_until_serving

from .conftest import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def redis_url(tmp_path: Any) -> Iterator[str]:
    server = shutil.which("redis-server")
    if server is None:
        raise RuntimeError("redis-server is missing: install Debian's redis-server (`.ci/run` does it with apt-get)")
    import redis

    port = free_port()
    process = subprocess.Popen(
        [
            server,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port)
        deadline = time.monotonic() + 20
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("redis-server did not start") from None
                time.sleep(0.05)
        client.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(process)


@pytest.fixture
def two_servers(redis_url: str, tmp_path: Any) -> Iterator[list[str]]:
    """Two daphne processes sharing the test database and the Redis channel layer."""
    env = server_env(connection.settings_dict, REDIS_URL=redis_url)
    processes, urls = [], []
    try:
        for name in ("a", "b"):
            port = free_port()
            log = tmp_path / f"daphne-{name}.log"
            with open(log, "wb") as out:
                processes.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "daphne",
                            "-b",
                            "127.0.0.1",
                            "-p",
                            str(port),
                            "threethirteen_site.asgi:application",
                        ],
                        cwd=REPO,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )
            urls.append(f"http://127.0.0.1:{port}")
            wait_until_serving(urls[-1] + "/rules/", processes[-1], log)
        yield urls
    finally:
        for process in processes:
            stop(process)


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
