"""``deploy/restart.sh``: the server processes one at a time, each once the one before answers, then the clock.

systemd is not at hand in a test: a ``systemctl`` of the test's, first on the
``PATH``, lists two running instances and records what it is told to restart;
the two "processes" are HTTP servers of the test that record the ``Host`` they
were asked with.  That nothing 502s through nginx in this order is
``tests/deploy/test_layout.py``'s.
"""

from __future__ import annotations

import http.server
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import REPO

RESTART = REPO / "deploy" / "restart.sh"


class Recorder(http.server.BaseHTTPRequestHandler):
    hosts: list[str]

    def do_GET(self) -> None:
        self.hosts.append(self.headers["Host"])
        self.send_response(503)  # a process that answers, whatever its health: the restart goes on
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def processes() -> Iterator[list[tuple[int, list[str]]]]:
    servers, running = [], []
    for _ in range(2):
        hosts: list[str] = []
        handler = type("Handler", (Recorder,), {"hosts": hosts})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        running.append((server.server_address[1], hosts))
    yield running
    for server in servers:
        server.shutdown()
        server.server_close()


def test_restart_goes_one_process_at_a_time_then_the_clock(tmp_path: Path, processes):
    calls = tmp_path / "calls"
    units = "".join(f"threethirteen-daphne@{port}.service loaded active running x\\n" for port, _hosts in processes)
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "systemctl").write_text(
        f'#!/bin/sh\nif [ "$1" = list-units ]; then printf "{units}"; exit 0; fi\necho "$*" >> {calls}\n'
    )
    (fake / "systemctl").chmod(0o755)
    env_file = tmp_path / "env"
    env_file.write_text("DEBUG=0\nALLOWED_HOSTS=cards.example.com,www.example.com\n")
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "THREETHIRTEEN_ENV": str(env_file)}
    result = subprocess.run([str(RESTART)], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert calls.read_text().splitlines() == [
        *(f"restart threethirteen-daphne@{port}" for port, _hosts in processes),
        "restart threethirteen-gameclock",
    ]
    for _port, hosts in processes:  # each waited for, with a name the site answers for
        assert hosts == ["cards.example.com"]
