"""A throwaway PostgreSQL server, and the whole test suite run against it.

``make test-postgres`` (``python -m tests.postgres [pytest arguments]``) starts
Debian's PostgreSQL (``initdb`` into a temporary directory, ``pg_ctl start`` on
a free loopback port with its Unix socket directory in that directory too),
runs pytest with ``DATABASE_URL`` pointing at it, then stops the server and
removes the directory.  pytest-django creates and drops the test database
(``test_threethirteen``) inside it as usual, and the server processes the
tests start are handed that same database (``tests/servers.py``).

PostgreSQL refuses to run as root: when the suite runs as root (CI), the
server runs as the ``postgres`` user that Debian's package creates, and the
temporary directory is handed to that user.  The server keeps nothing that
must survive a crash (``fsync`` and friends are off): it lives for one run.

``PG_BIN`` names the directory of ``initdb`` and ``pg_ctl`` when they are not
in Debian's place (``/usr/lib/postgresql/<version>/bin``) or on ``PATH``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.servers import REPO, free_port

#: The database the URL names; pytest-django's test database is ``test_`` + this.
DATABASE = "threethirteen"
#: Server settings for a database that lives for one run (no durability, more speed).
SERVER_OPTIONS = (
    "-c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
    "-c max_connections=200"
)


def postgres_bin() -> Path:
    """The directory of ``initdb`` and ``pg_ctl``: ``PG_BIN``, Debian's newest, or ``PATH``."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if debian:
        return debian[-1].parent
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    raise RuntimeError("PostgreSQL is missing: install Debian's postgresql package (`.ci/run` does it with apt-get)")


def _run_as() -> dict[str, Any]:
    """Popen arguments that run the server as ``postgres`` when we are root (it refuses root)."""
    if os.geteuid() != 0:
        return {}
    try:
        account = pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError("running as root needs the postgres user (Debian's postgresql package makes it)") from None
    return {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}


@contextlib.contextmanager
def throwaway_server() -> Iterator[str]:
    """Start a private PostgreSQL server; yield its ``DATABASE_URL``; stop it and remove its files."""
    binaries = postgres_bin()
    as_user = _run_as()
    root = Path(tempfile.mkdtemp(prefix="threethirteen-pg-"))
    data, log = root / "data", root / "server.log"
    if as_user:
        os.chown(root, as_user["user"], as_user["group"])
    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    port = free_port()
    started = False
    try:
        subprocess.run(
            [str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8"]
            + ["--locale=C.UTF-8", "--no-sync", "--no-instructions"],
            cwd=root,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            **as_user,
        )
        started = True
        subprocess.run(
            [str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "start"]
            + ["-o", f"-p {port} -k {root} {SERVER_OPTIONS}"],
            cwd=root,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            **as_user,
        )
        yield f"postgres://postgres@127.0.0.1:{port}/{DATABASE}"
    except subprocess.CalledProcessError as error:
        tail = log.read_text()[-3000:] if log.exists() else ""
        raise RuntimeError(f"PostgreSQL did not start ({error}):\n{tail}") from None
    finally:
        if started:
            subprocess.run(
                [str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"],
                cwd=root,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                **as_user,
            )
        shutil.rmtree(root, ignore_errors=True)


def main(args: list[str]) -> int:
    """Run pytest with ``args`` against a throwaway server; its exit status."""
    with throwaway_server() as url:
        env = {**os.environ, "DATABASE_URL": url}
        print(f"PostgreSQL for this run: {url}", flush=True)
        try:
            # --reuse-db: the test database is not dropped at the end (the whole server goes; a session some
            # thread left open would only make the drop fail), and a fresh server has none to reuse.
            command = [sys.executable, "-m", "pytest", "--reuse-db", *args]
            return subprocess.run(command, cwd=REPO, env=env).returncode
        except KeyboardInterrupt:
            return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
