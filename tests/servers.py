"""Helpers for tests that start real server processes on loopback ports."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


def server_env(database_name: str, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
    env.update({"DATABASE_URL": f"sqlite:///{database_name}", "DEBUG": "1", "PYTHONUNBUFFERED": "1",
                "DJANGO_SETTINGS_MODULE": "threethirteen_site.settings"})
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
