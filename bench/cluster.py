"""The multi-process set-up the benches run against, and the HTTP they speak to it.

``Cluster`` starts, in a temporary directory and on free loopback ports:

* a PostgreSQL server of its own (Debian's ``initdb`` and ``pg_ctl``; as root
  they run as the ``postgres`` user), with a migrated database;
* a ``redis-server`` of its own as the channel layer (unless ``redis=False``:
  each server process then has the in-memory layer);
* ``servers`` daphne processes serving ``bench.site`` (the site plus a trivial
  page) with ``DEBUG=0``;
* ``manage.py gameclock`` (with Redis; ``clock=False`` leaves it out).

It can also do what goes wrong in production: kill a server process
(``SIGKILL``) and start it again, restart Redis (which forgets every group),
restart PostgreSQL (which ends every connection).  ``memory()`` says what
each process holds; ``server_cpu()`` and ``postgres_cpu()`` their CPU time.

The bench process itself talks to the same database through Django
(``setup_django()``), to create people, sessions and games.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.servers import free_port, stop, wait_until_serving  # noqa: E402

#: PostgreSQL's settings: durable, as in production; enough connections for every process's pool.
POSTGRES_OPTIONS = "-c listen_addresses=127.0.0.1 -c max_connections=300"


# -- processes -------------------------------------------------------------------------------


def pg_binary(name: str) -> str:
    """Debian keeps PostgreSQL's programs under /usr/lib/postgresql/<version>/bin."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda p: int(p.parts[-3]))
    if not candidates:
        sys.exit(f"{name} not found: install Debian's postgresql package (apt-get install postgresql)")
    return str(candidates[-1])


def as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run it as the postgres user then."""
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process, with its reaped children's (fields 14-17 of /proc/PID/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (PostgreSQL's backends)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == pid:
                found.append(int(entry.name))
    return found


def memory_bytes(pid: int) -> int:
    """A process's proportional set size (shared pages divided among their users), else its resident size."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on port {port} after {timeout} s") from None
            time.sleep(0.05)


class Cluster:
    """PostgreSQL, Redis, several daphne processes and the clock; a context manager that stops them all."""

    def __init__(self, *, servers: int = 2, redis: bool = True, clock: bool = True, log_level: str = "WARNING"):
        self.server_count = servers
        self.with_redis = redis
        self.with_clock = clock and redis
        self.workdir = Path(tempfile.mkdtemp(prefix="threethirteen-cluster-"))
        self.workdir.chmod(0o755)  # the postgres user makes its data directory inside
        self.pg_port = free_port()
        self.pg_data = self.workdir / "pg"
        self.pg_started = False
        self.redis_port = free_port() if redis else 0
        self.redis: subprocess.Popen | None = None
        self.servers: list[subprocess.Popen | None] = [None] * servers
        self.ports = [free_port() for _ in range(servers)]
        self.clock: subprocess.Popen | None = None
        self.database_url = f"postgres://postgres@127.0.0.1:{self.pg_port}/bench"
        self.env = {key: value for key, value in os.environ.items() if key not in ("REDIS_URL", "DATABASE_URL")}
        self.env.update(
            {
                "DATABASE_URL": self.database_url,
                "DJANGO_SETTINGS_MODULE": "bench.site",
                "DEBUG": "0",
                "SECRET_KEY": "bench-" + secrets.token_hex(24),
                "SECURE_SSL_REDIRECT": "0",
                "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
                "PYTHONUNBUFFERED": "1",
                "LOG_LEVEL": log_level,
                "APP_LOG_LEVEL": log_level,
                # collected into the work directory, as production collects them (``start``)
                "STATIC_ROOT": str(self.workdir / "static"),
            }
        )
        if redis:
            self.env["REDIS_URL"] = f"redis://127.0.0.1:{self.redis_port}/0"

    # -- starting and stopping

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        self.start_postgres()
        if self.with_redis:
            self.start_redis()
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, env=self.env, check=True
        )
        # The static files with their hashed names and the manifest, as a deployment has them: without
        # the manifest every {% static %} of a page would look for the file on disk (threethirteen_site/static.py).
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"], cwd=REPO, env=self.env, check=True
        )
        for index in range(self.server_count):
            self.start_server(index)
        if self.with_clock:
            self.start_clock()

    def stop(self) -> None:
        if self.clock is not None:
            stop(self.clock)
        for server in self.servers:
            if server is not None:
                stop(server)
        if self.redis is not None:
            stop(self.redis)
        if self.pg_started:
            subprocess.run(
                as_postgres([pg_binary("pg_ctl"), "-D", str(self.pg_data), "-m", "fast", "-w", "stop"]),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self.pg_started = False
        shutil.rmtree(self.workdir, ignore_errors=True)

    def setup_django(self) -> None:
        """Point this process's Django at the cluster's database (and Redis), and set it up."""
        os.environ.update(self.env)
        import django

        django.setup()
        from django.core.management import call_command

        call_command("load_variants", stdout=open(os.devnull, "w"))

    # -- PostgreSQL

    def start_postgres(self) -> None:
        self.pg_data.mkdir()
        if os.geteuid() == 0:
            shutil.chown(self.pg_data, "postgres", "postgres")
        subprocess.run(
            as_postgres([pg_binary("initdb"), "-D", str(self.pg_data), "-A", "trust", "-U", "postgres", "-E", "UTF8"])
            + ["--no-sync"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self._pg_ctl("start")
        self.pg_started = True
        subprocess.run(
            as_postgres([pg_binary("createdb"), "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "postgres", "bench"]),
            check=True,
        )

    def _pg_ctl(self, action: str) -> None:
        options = f"-p {self.pg_port} -k {self.pg_data} {POSTGRES_OPTIONS}"
        log = str(self.pg_data / "log")
        mode = ["-m", "fast"] if action in ("restart", "stop") else []
        subprocess.run(
            as_postgres([pg_binary("pg_ctl"), "-D", str(self.pg_data), "-o", options, "-l", log, *mode])
            + ["-w", action],
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def restart_postgres(self, outage: float = 0.0) -> None:
        """Stop PostgreSQL (``-m fast``: every session is ended, open transactions rolled back) and start it,
        after ``outage`` seconds down."""
        if not outage:
            self._pg_ctl("restart")
            return
        self._pg_ctl("stop")
        time.sleep(outage)
        self._pg_ctl("start")

    def postgres_pids(self) -> list[int]:
        try:
            postmaster = int((self.pg_data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return []
        return [postmaster, *children_of(postmaster)]

    def postgres_cpu(self) -> float:
        """CPU of the postmaster and every backend: a backend's time moves to the postmaster's children when it
        exits."""
        return sum(cpu_seconds(pid) for pid in self.postgres_pids())

    # -- Redis

    def start_redis(self) -> None:
        self.redis = subprocess.Popen(
            [shutil.which("redis-server") or "redis-server", "--bind", "127.0.0.1", "--port", str(self.redis_port)]
            + ["--save", "", "--appendonly", "no", "--dir", str(self.workdir), "--maxclients", "20000"],
            stdout=subprocess.DEVNULL,
        )
        wait_for_port(self.redis_port)

    def restart_redis(self) -> None:
        """Stop Redis and start it again on the same port: it comes back empty (every group forgotten)."""
        assert self.redis is not None
        stop(self.redis)
        self.start_redis()

    # -- the server processes and the clock

    def url(self, index: int) -> str:
        return f"http://127.0.0.1:{self.ports[index]}"

    def start_server(self, index: int) -> None:
        log = self.workdir / f"daphne-{index}.log"
        with open(log, "ab") as out:
            self.servers[index] = process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.ports[index])]
                + ["--websocket_connect_timeout", "60", "threethirteen_site.asgi:application"],
                cwd=REPO,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        wait_until_serving(self.url(index) + "/bench/trivial/", process, log)

    def kill_server(self, index: int) -> None:
        """``SIGKILL``: the process ends at once, its requests and sockets cut mid-way."""
        process = self.servers[index]
        assert process is not None
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        self.servers[index] = None

    def server_log(self, index: int) -> str:
        log = self.workdir / f"daphne-{index}.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def logged_errors(self) -> dict[str, int]:
        """The exceptions the server processes and the clock logged (the last line of each traceback), counted."""
        found: dict[str, int] = {}
        for log in sorted(self.workdir.glob("*.log")):
            lines = log.read_text(errors="replace").splitlines()
            for number, line in enumerate(lines):
                if not line.startswith("Traceback"):
                    continue
                end = number + 1
                while end < len(lines) and (lines[end].startswith(" ") or lines[end].startswith("Traceback")):
                    end += 1
                last = lines[end] if end < len(lines) else lines[-1]
                key = f"{log.stem}: {last[:160]}"
                found[key] = found.get(key, 0) + 1
        return found

    def start_clock(self) -> None:
        with open(self.workdir / "gameclock.log", "ab") as out:
            self.clock = subprocess.Popen(
                [sys.executable, "manage.py", "gameclock"], cwd=REPO, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )

    def clock_alive(self) -> bool:
        return self.clock is not None and self.clock.poll() is None

    def server_cpu(self) -> float:
        return sum(cpu_seconds(server.pid) for server in self.servers if server is not None)

    def memory(self) -> dict[str, int]:
        """Each process's memory (bytes, proportional set size); PostgreSQL's processes together."""
        figures: dict[str, int] = {}
        for index, server in enumerate(self.servers):
            if server is not None:
                figures[f"daphne {index}"] = memory_bytes(server.pid)
        if self.clock is not None and self.clock.poll() is None:
            figures["gameclock"] = memory_bytes(self.clock.pid)
        if self.redis is not None and self.redis.poll() is None:
            figures["redis-server"] = memory_bytes(self.redis.pid)
        pids = self.postgres_pids()
        figures[f"PostgreSQL ({len(pids)} processes)"] = sum(memory_bytes(pid) for pid in pids)
        figures["this bench (clients)"] = memory_bytes(os.getpid())
        return figures


# -- HTTP/1.1 on a keep-alive connection -----------------------------------------------------


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """Read one HTTP/1.1 response (Content-Length or chunked): its status, headers (lower-case names) and body."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            parts.append((await reader.readexactly(size + 2))[:-2])
            if size == 0:
                break
        body = b"".join(parts)
    return status, headers, body


def request_bytes(
    method: str, path: str, host: str, cookie: str = "", body: bytes = b"", *, by_fetch: bool = False
) -> bytes:
    """One HTTP/1.1 request; ``by_fetch``: marked as the page's script marks its requests (``X-Requested-With``)."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: keep-alive"]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    if by_fetch:
        lines.append("X-Requested-With: fetch")
    if method == "POST":
        lines += ["Content-Type: application/x-www-form-urlencoded", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body
