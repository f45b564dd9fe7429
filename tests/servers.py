"""Helpers for tests that start real server processes on loopback ports."""

from __future__ import annotations

import http.cookiejar
import os
import random
import re
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


#: Ports this process handed out: two servers started one after the other never get the same one.
_handed_out: set[int] = set()


def ephemeral_ports() -> range:
    """The ports the kernel picks from for outgoing connections (and for a bind to port 0)."""
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999  # Linux's default
    return range(low, high + 1)


def free_port() -> int:
    """A free loopback port for a server to listen on, chosen outside the ephemeral range (between 20000
    and 32767 where it can, clear of the usual services' ports).

    A port the kernel hands out for a bind to port 0 comes from the range it also gives outgoing
    connections: between this choice and the server's own bind, a connection to PostgreSQL or Redis
    (ours, or another server's) could take it, and the server failed with "Address already in use"
    (seen once here, while other processes were downloading).
    """
    ephemeral = ephemeral_ports()
    outside = [port for port in range(1024, 65536) if port not in ephemeral and port not in _handed_out]
    preferred = [port for port in outside if 20000 <= port < 32768]  # clear of the usual services' ports
    above = [port for port in outside if port >= 32768]  # then above the range: few services listen there
    below = [port for port in outside if port < 20000]  # last: where databases, caches and proxies listen
    for candidates in (preferred, above, below):
        for port in random.sample(candidates, len(candidates)):
            if _bindable(port):
                _handed_out.add(port)
                return port
    # A machine whose ephemeral range covers every port: the kernel's choice, as before.
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _handed_out:
            _handed_out.add(port)
            return port


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_until_serving(url: str, process: subprocess.Popen, log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped (exit {process.returncode}):\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer {url} in {timeout} s:\n{log.read_text()[-3000:]}")


def database_url(settings_dict: Mapping[str, Any]) -> str:
    """The ``DATABASE_URL`` of a connection's settings (the test database, once pytest-django made it)."""
    engine, name = settings_dict["ENGINE"], str(settings_dict["NAME"])
    if engine == "django.db.backends.sqlite3":
        return f"sqlite:///{name}"
    if engine == "django.db.backends.postgresql":
        user = urllib.parse.quote(settings_dict.get("USER") or "", safe="")
        password = urllib.parse.quote(settings_dict.get("PASSWORD") or "", safe="")
        credentials = f"{user}:{password}@" if password else f"{user}@" if user else ""
        port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
        return f"postgres://{credentials}{settings_dict.get('HOST') or ''}{port}/{urllib.parse.quote(name, safe='')}"
    raise ValueError(f"no DATABASE_URL for {engine}")


def server_env(settings_dict: Mapping[str, Any], **extra: str) -> dict[str, str]:
    """The environment of a server process that serves this test run's database (``connection.settings_dict``)."""
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    env.update(
        {
            "DATABASE_URL": database_url(settings_dict),
            "DEBUG": "1",
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": "threethirteen_site.settings",
        }
    )
    env.update(extra)
    return env


def stop(process: subprocess.Popen) -> None:
    """Stop a server this test started (only that process)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def table_form(base_url: str, session_id: str, game_id: int) -> tuple[Any, dict[str, str]]:
    """What a browser has before it posts a move: a cookie jar opener and the form's CSRF token and version."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    host = urllib.parse.urlparse(base_url).hostname
    assert host is not None, base_url
    jar.set_cookie(
        http.cookiejar.Cookie(
            0, "sessionid", session_id, None, False, host, False, False, "/", True, False, None, False, None, None, {}
        )
    )
    page = opener.open(f"{base_url}/games/{game_id}/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    version = re.search(r'name="version" value="(\d+)"', page)
    assert token is not None and version is not None, "the table page has no move form"
    return opener, {"csrfmiddlewaretoken": token.group(1), "version": version.group(1)}


def post_form(base_url: str, opener: Any, fields: dict[str, str], game_id: int, action: dict) -> int:
    """Post the move form and follow the redirect back to the table, as a browser does."""
    data = urllib.parse.urlencode({**fields, **action}).encode()
    with opener.open(f"{base_url}/games/{game_id}/play/", data=data, timeout=10) as response:
        assert response.url.endswith(f"/games/{game_id}/")  # redirected back to the table: the move was taken
        response.read()
        return response.status


def post_move(base_url: str, session_id: str, game: Any, action: dict) -> int:
    """Load the table (CSRF cookie and token), post the move, follow the redirect."""
    opener, fields = table_form(base_url, session_id, game.pk)
    return post_form(base_url, opener, fields, game.pk, action)
