"""The deployed layout of ``deploy/``, started on loopback from its own files.

``deployed_layout()`` starts what the README's "Deploying" describes, each
part from the file that ships in ``deploy/`` with only names, ports and paths
substituted (each substitution must find its text, so the files cannot drift
from what is tested):

- PostgreSQL (a throwaway server of Debian's package, ``tests/postgres.py``)
  and ``redis-server`` (``tests/live/conftest.py``'s ``RedisServer``);
- the environment of every process: ``deploy/env.example`` with a secret key,
  the addresses of these servers and a loopback name;
- ``deploy/update.sh`` (migrate, variants, catalogs, collectstatic,
  ``check --deploy``), each step through ``deploy/manage`` with that
  environment written to a file as ``/etc/threethirteen/env`` would be;
- two server processes with the ``ExecStart`` of
  ``deploy/systemd/threethirteen-daphne@.service`` (a free port for ``%i``),
  and the move clock with that of ``threethirteen-gameclock.service``;
- nginx (Debian's package), in the foreground with a main configuration in a
  temporary directory (its pid file, logs and temporary files there) that
  includes ``deploy/nginx/threethirteen-http.conf`` (port 80: the ACME
  challenge's directory, the rest sent to HTTPS) and
  ``deploy/nginx/threethirteen.conf``, HTTPS with a certificate made for
  127.0.0.1 on the spot.

The one addition for tests, in that main configuration and not in the site's
file: an ``X-Upstream`` header on every proxied answer (WebSocket upgrades
included) naming the server process that answered, so a test can tell them
apart.  Everything is stopped and removed when the ``with`` block ends.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import secrets
import shlex
import shutil
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.postgres import throwaway_server
from tests.servers import REPO, free_port, stop

DEPLOY = REPO / "deploy"
#: The app's directory and virtualenv in the shipped units, replaced by this checkout and this Python.
UNIT_APP = "/srv/threethirteen/app"
UNIT_PYTHON = f"{UNIT_APP}/.venv/bin/python"
UNIT_DAPHNE = f"{UNIT_APP}/.venv/bin/daphne"
HOST = "127.0.0.1"


@dataclass
class Layout:
    """A running layout: where to reach it and what runs."""

    workdir: Path
    base_url: str  # https://127.0.0.1:PORT, the proxy
    http_url: str  # http://127.0.0.1:PORT, the proxy's redirect to HTTPS
    upstreams: list[str]  # http://127.0.0.1:PORT of each server process, directly
    database_url: str
    redis_url: str
    env: dict[str, str]
    ssl_context: ssl.SSLContext
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)

    def log(self, name: str) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace")[-4000:] if path.exists() else ""


def substitute(text: str, replacements: dict[str, str], what: str) -> str:
    """``text`` with each key replaced; every key must be there (the shipped file changed otherwise)."""
    for old, new in replacements.items():
        assert old in text, f"{what} no longer has {old!r}: update tests/deploy/layout.py with it"
        text = text.replace(old, new)
    return text


def unit_command(unit: str, instance: str = "") -> list[str]:
    """The ``ExecStart`` of a shipped systemd unit, for this checkout (its Python, ``%i`` = instance)."""
    lines = [line for line in (DEPLOY / "systemd" / unit).read_text().splitlines() if line.startswith("ExecStart=")]
    assert len(lines) == 1, f"{unit} must have one ExecStart"
    command = shlex.split(lines[0].removeprefix("ExecStart=").replace("%i", instance))
    if command[0] == UNIT_DAPHNE:
        return [sys.executable, "-m", "daphne", *command[1:]]
    assert command[0] == UNIT_PYTHON, command
    return [sys.executable, *command[1:]]


def example_environment() -> dict[str, str]:
    """``deploy/env.example``'s variables as systemd reads them (``NAME=value``, double quotes removed)."""
    values = {}
    for line in (DEPLOY / "env.example").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip().removeprefix('"').removesuffix('"')
    return values


def write_environment_file(path: Path, values: dict[str, str]) -> Path:
    """``values`` as deploy/env.example writes them (``NAME=value``, double quotes around a value with spaces)."""
    lines = [f'{name}="{value}"' if " " in value else f"{name}={value}" for name, value in values.items()]
    path.write_text("".join(line + "\n" for line in lines))
    path.chmod(0o640)
    return path


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (and its key), as the proxy's HTTPS certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(HOST))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "fullchain.pem", directory / "privkey.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    if found is None:
        raise RuntimeError("nginx is missing: install Debian's nginx package (`.ci/run` installs it)")
    return found


def nginx_site(upstream_ports: list[int], https_port: int, static_root: Path, cert: Path, key: Path) -> str:
    """``deploy/nginx/threethirteen.conf`` for this layout: loopback ports, this certificate, this STATIC_ROOT."""
    text = (DEPLOY / "nginx" / "threethirteen.conf").read_text()
    shipped = [line for line in text.splitlines(keepends=True) if line.startswith("    server 127.0.0.1:")]
    assert [line.split()[1] for line in shipped] == ["127.0.0.1:8001", "127.0.0.1:8002"], shipped
    # One line for each process, as the shipped ones are (their options too).
    servers = "".join(shipped[0].replace("127.0.0.1:8001", f"{HOST}:{port}") for port in upstream_ports)
    return substitute(
        text,
        {
            "".join(shipped): servers,
            "    listen 443 ssl http2;\n    listen [::]:443 ssl http2;\n": (
                f"    listen {HOST}:{https_port} ssl http2;\n"
            ),
            "/etc/letsencrypt/live/cards.example.com/fullchain.pem": str(cert),
            "/etc/letsencrypt/live/cards.example.com/privkey.pem": str(key),
            "cards.example.com": HOST,
            "alias /srv/threethirteen/staticfiles/;": f"alias {static_root}/;",
        },
        "deploy/nginx/threethirteen.conf",
    )


def nginx_http_site(http_port: int, webroot: Path) -> str:
    """``deploy/nginx/threethirteen-http.conf`` for this layout: a loopback port, this challenge directory."""
    return substitute(
        (DEPLOY / "nginx" / "threethirteen-http.conf").read_text(),
        {
            "    listen 80;\n    listen [::]:80;\n": f"    listen {HOST}:{http_port};\n",
            "cards.example.com": HOST,
            "root /var/www/letsencrypt;": f"root {webroot};",
        },
        "deploy/nginx/threethirteen-http.conf",
    )


def nginx_main(workdir: Path, *sites: Path) -> str:
    """A main configuration that runs nginx in the foreground with everything of its own in ``workdir``."""
    kinds = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    temp = "\n".join(f"    {kind}_temp_path {workdir / (kind + '_temp')};" for kind in kinds)
    # As root, nginx's workers would run as "nobody", who cannot read the temporary directory.
    user = "user root;\n" if os.geteuid() == 0 else ""
    includes = "\n".join(f"    include {site};" for site in sites)
    return f"""{user}daemon off;
worker_processes 1;
pid {workdir / "nginx.pid"};
error_log {workdir / "nginx-error.log"} warn;
events {{ worker_connections 512; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {workdir / "nginx-access.log"};
{temp}
    # Tests only: which server process answered (the site's file adds no header of its own there).
    add_header X-Upstream $upstream_addr always;
{includes}
}}
"""


def wait_for(url: str, context: ssl.SSLContext | None, process: subprocess.Popen, what: str, log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
            raise RuntimeError(f"{what} stopped (exit {process.returncode}):\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=5, context=context) as response:
                if response.status == 200:
                    return
        except (OSError, urllib.error.HTTPError):
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not answer {url} in 60 s")
        time.sleep(0.1)


def start(layout: Layout, name: str, command: list[str]) -> subprocess.Popen:
    with open(layout.workdir / f"{name}.log", "wb") as out:
        process = subprocess.Popen(command, cwd=REPO, env=layout.env, stdout=out, stderr=subprocess.STDOUT)
    layout.processes[name] = process
    return process


@contextlib.contextmanager
def deployed_layout(workdir: Path, servers: int = 2) -> Iterator[Layout]:
    """PostgreSQL, Redis, ``servers`` daphne processes, the move clock and nginx, as ``deploy/`` says."""
    from tests.live.conftest import RedisServer

    workdir.mkdir(parents=True, exist_ok=True)
    redis = RedisServer(workdir)
    layout: Layout | None = None
    with throwaway_server() as server_url:
        database_url = server_url.rsplit("/", 1)[0] + "/threethirteen_deployed"
        _create_database(server_url, "threethirteen_deployed")
        redis.start()
        try:
            upstream_ports = [free_port() for _ in range(servers)]
            https_port, http_port = free_port(), free_port()
            static_root = workdir / "staticfiles"
            site_env = example_environment()
            site_env.update(
                {
                    "SECRET_KEY": secrets.token_urlsafe(50),
                    "ALLOWED_HOSTS": HOST,
                    "SITE_URL": f"https://{HOST}:{https_port}",
                    "DATABASE_URL": database_url,
                    "REDIS_URL": redis.url,
                    "STATIC_ROOT": str(static_root),
                    "EMAIL_HOST": HOST,
                    "EMAIL_PORT": str(free_port()),  # nothing listens: no e-mail is due in a live game
                }
            )
            # /etc/threethirteen/env: the processes get it as systemd's EnvironmentFile= would give it,
            # deploy/update.sh (through deploy/manage) reads the file itself.
            env_file = write_environment_file(workdir / "env", site_env)
            base = {
                key: value
                for key, value in os.environ.items()
                if not key.startswith(("DJANGO_", "GAMECLOCK")) and key not in site_env
            }
            env = {**base, **site_env, "PYTHONUNBUFFERED": "1"}
            cert, key = make_certificate(workdir)
            context = ssl.create_default_context(cafile=str(cert))
            layout = Layout(
                workdir=workdir,
                base_url=f"https://{HOST}:{https_port}",
                http_url=f"http://{HOST}:{http_port}",
                upstreams=[f"http://{HOST}:{port}" for port in upstream_ports],
                database_url=database_url,
                redis_url=redis.url,
                env=env,
                ssl_context=context,
            )
            update = subprocess.run(
                [str(DEPLOY / "update.sh")],
                cwd=workdir,
                env={**base, "THREETHIRTEEN_ENV": str(env_file), "PYTHON": sys.executable},
                capture_output=True,
                text=True,
                timeout=300,
            )
            (workdir / "update.log").write_text(update.stdout + update.stderr)
            if update.returncode != 0:
                raise RuntimeError(f"deploy/update.sh failed:\n{update.stdout[-3000:]}\n{update.stderr[-3000:]}")
            for index, port in enumerate(upstream_ports):
                start(layout, f"daphne-{index}", unit_command("threethirteen-daphne@.service", str(port)))
            start(layout, "gameclock", unit_command("threethirteen-gameclock.service"))
            site, http_site = workdir / "threethirteen.conf", workdir / "threethirteen-http.conf"
            site.write_text(nginx_site(upstream_ports, https_port, static_root, cert, key))
            (workdir / "letsencrypt").mkdir()
            http_site.write_text(nginx_http_site(http_port, workdir / "letsencrypt"))
            main = workdir / "nginx.conf"
            main.write_text(nginx_main(workdir, http_site, site))
            # -e: the error log from the start (before the configuration is read), ours too when not root.
            error_log = str(workdir / "nginx-error.log")
            nginx = start(layout, "nginx", [nginx_binary(), "-p", str(workdir), "-e", error_log, "-c", str(main)])
            for index, upstream in enumerate(layout.upstreams):
                # Each process directly, as a monitor on the server would (Host: one of ALLOWED_HOSTS).
                wait_for(
                    f"{upstream}/healthz",
                    None,
                    layout.processes[f"daphne-{index}"],
                    f"daphne-{index}",
                    workdir / f"daphne-{index}.log",
                )
            wait_for(f"{layout.base_url}/healthz", context, nginx, "nginx", workdir / "nginx.log")
            yield layout
        finally:
            if layout is not None:
                for process in reversed(layout.processes.values()):
                    stop(process)
            redis.stop()


def _create_database(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
