from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from tests.servers import REPO, free_port, server_env, stop, wait_until_serving

DAPHNE_APPLICATION = "threethirteen_site.asgi:application"


def session_cookie(user: Any) -> str:
    """The session id of a fresh log-in of ``user`` (stored in the database)."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


class RedisServer:
    """Debian's ``redis-server`` on a free loopback port, which a test may stop and start again."""

    def __init__(self, workdir: Path) -> None:
        server = shutil.which("redis-server")
        if server is None:
            raise RuntimeError("redis-server is missing: install Debian's redis-server (`.ci/run` installs it)")
        self.command = [server, "--bind", "127.0.0.1", "--port", str(free_port())]
        self.command += ["--save", "", "--appendonly", "no", "--dir", str(workdir)]
        self.port = int(self.command[4])
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(host="127.0.0.1", port=self.port)
        deadline = time.monotonic() + 20
        try:
            while True:
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    if time.monotonic() > deadline or self.process.poll() is not None:
                        raise RuntimeError("redis-server did not start") from None
                    time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        """Stop it as a crash or a restart would: every connection to it is closed, its data is gone."""
        if self.process is not None:
            stop(self.process)
            self.process = None


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    return redis_server.url


@pytest.fixture
def start_daphne(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """``start_daphne(*daphne_options, REDIS_URL=..., **env)``: a daphne process serving the test database;
    its base URL."""
    processes: list[subprocess.Popen] = []

    def start(*options: str, **extra: str) -> str:
        port = free_port()
        log = tmp_path / f"daphne-{len(processes)}.log"
        with open(log, "wb") as out:
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), *options, DAPHNE_APPLICATION],
                    cwd=REPO,
                    env=server_env(connection.settings_dict, **extra),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )
        url = f"http://127.0.0.1:{port}"
        wait_until_serving(url + "/rules/", processes[-1], log)
        return url

    try:
        yield start
    finally:
        for process in processes:
            stop(process)
