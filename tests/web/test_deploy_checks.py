"""``manage.py check --deploy`` tells an operator what the multi-process set-up is missing.

A production configuration as ``deploy/env.example`` describes it passes; each
test then breaks one thing and expects exactly the message about it (its id,
and words that tell the operator what to do).  The last tests run the command
itself, as an operator does, on the environment of ``deploy/env.example``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import run_checks

from tests.deploy.layout import example_environment as deploy_example_environment
from tests.servers import REPO

MANIFEST_STORAGE = "threethirteen_site.static.HashedStaticFilesStorage"  # the storage of DEBUG=0


@pytest.fixture
def production(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The settings of a complete production set-up (PostgreSQL, Redis, collected static files, SMTP...)."""
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')
    settings.STATIC_ROOT = tmp_path
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": MANIFEST_STORAGE}}
    settings.DATABASES = {**settings.DATABASES, "default": {**settings.DATABASES["default"]}}
    settings.DATABASES["default"]["ENGINE"] = "django.db.backends.postgresql"
    settings.REDIS_URL = "redis://127.0.0.1:6379/0"
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.ALLOWED_HOSTS = ["cards.example.com"]
    settings.SITE_URL = "https://cards.example.com"
    settings.CSRF_TRUSTED_ORIGINS = []
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.CLIENT_IP_HEADER = "HTTP_X_FORWARDED_FOR"
    monkeypatch.delenv("GAMECLOCK_IN_SERVER", raising=False)
    return settings


def site_messages() -> list[Any]:
    messages = run_checks(include_deployment_checks=True)
    return [message for message in messages if (message.id or "").startswith("threethirteen.")]


def only(message_id: str) -> Any:
    messages = site_messages()
    assert [message.id for message in messages] == [message_id], [str(message) for message in messages]
    return messages[0]


pytestmark = pytest.mark.filterwarnings("ignore:Overriding setting DATABASES")


def test_a_complete_production_set_up_passes(production):
    assert site_messages() == []


def test_the_checks_run_only_with_deploy(production):
    production.REDIS_URL = ""
    assert not [message for message in run_checks() if (message.id or "").startswith("threethirteen.")]


def test_sqlite(production):
    production.DATABASES["default"]["ENGINE"] = "django.db.backends.sqlite3"
    message = only("threethirteen.W001")
    assert "SQLite" in message.msg and "DATABASE_URL" in message.hint and "postgres://" in message.hint


def test_no_redis_with_several_processes(production):
    production.REDIS_URL = ""
    message = only("threethirteen.W002")
    assert "only one server process" in message.msg and "REDIS_URL" in message.hint


def test_static_files_not_collected(production):
    (Path(production.STATIC_ROOT) / "staticfiles.json").unlink()
    message = only("threethirteen.E003")
    assert message.is_serious() and "staticfiles.json" in message.msg and "collectstatic" in message.hint


def test_static_files_without_hashed_names_need_no_manifest(production):
    (Path(production.STATIC_ROOT) / "staticfiles.json").unlink()
    production.STORAGES = {
        **production.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    assert site_messages() == []


@pytest.mark.parametrize("backend", ["console", "locmem", "dummy", "filebased"])
def test_email_that_reaches_nobody(production, backend):
    production.EMAIL_BACKEND = f"django.core.mail.backends.{backend}.EmailBackend"
    message = only("threethirteen.W004")
    assert "password resets" in message.msg and "EMAIL_HOST" in message.hint


@pytest.mark.parametrize(
    "site_url", ["http://127.0.0.1:8000", "http://cards.example.com", "https://cards.example.org", "cards.example.com"]
)
def test_site_url_that_does_not_lead_to_the_site(production, site_url):
    production.SITE_URL = site_url
    message = only("threethirteen.W005")
    assert site_url in message.msg and "e-mails" in message.msg


def test_site_url_with_a_port_of_an_allowed_host_passes(production):
    production.SITE_URL = "https://cards.example.com:8443/"
    assert site_messages() == []


@pytest.mark.parametrize("hosts", [["localhost", "127.0.0.1", "[::1]"], ["127.0.0.1"], []])
def test_allowed_hosts_of_a_laptop(production, hosts):
    production.ALLOWED_HOSTS = hosts
    production.SITE_URL = f"https://{hosts[0] if hosts else 'localhost'}"  # so that only the hosts' message is due
    if not hosts:
        messages = {message.id for message in site_messages()}
        assert messages == {"threethirteen.W005", "threethirteen.W006"}
        return
    message = only("threethirteen.W006")
    assert "400" in message.msg and "cards.example.com" in message.hint


@pytest.mark.parametrize(
    "origin", ["http://cards.example.com", "https://cards.example.org", "cards.example.com", "https://*.example.com"]
)
def test_csrf_trusted_origins_that_do_not_match(production, origin):
    production.CSRF_TRUSTED_ORIGINS = ["https://cards.example.com", origin]
    message = only("threethirteen.W007")
    assert origin in message.msg and "https://cards.example.com," not in message.msg


def test_csrf_trusted_origins_of_allowed_hosts_pass(production):
    production.ALLOWED_HOSTS = ["cards.example.com", ".example.net"]
    production.CSRF_TRUSTED_ORIGINS = [
        "https://cards.example.com",
        "https://*.example.net",
        "https://a.example.net:8443",
    ]
    assert site_messages() == []


def test_client_address_of_the_proxy(production):
    production.CLIENT_IP_HEADER = "REMOTE_ADDR"
    message = only("threethirteen.W008")
    assert "lock everybody out" in message.msg and "CLIENT_IP_HEADER=X-Forwarded-For" in message.hint


def test_client_address_without_a_proxy_is_the_peer(production):
    production.CLIENT_IP_HEADER = "REMOTE_ADDR"
    del production.SECURE_PROXY_SSL_HEADER
    assert site_messages() == []


def test_a_move_clock_that_reaches_no_page(production, monkeypatch):
    production.REDIS_URL = ""
    monkeypatch.setenv("GAMECLOCK_IN_SERVER", "0")
    messages = {message.id: message for message in site_messages()}
    assert set(messages) == {"threethirteen.W002", "threethirteen.W009"}
    assert "gameclock" in messages["threethirteen.W009"].msg and "REDIS_URL" in messages["threethirteen.W009"].hint


def test_the_in_server_clock_on_one_process_is_no_clock_problem(production):
    production.REDIS_URL = ""
    assert [message.id for message in site_messages()] == ["threethirteen.W002"]


def with_pool(production: Any, max_size: int) -> None:
    production.DATABASES["default"]["OPTIONS"] = {"pool": {"min_size": 2, "max_size": max_size, "timeout": 10}}


def test_a_pool_no_larger_than_the_http_threads(production):
    with_pool(production, max_size=8)
    production.HTTP_THREADS = 8
    message = only("threethirteen.W010")
    assert "8 HTTP threads" in message.msg and "DATABASE_POOL_MAX_SIZE above HTTP_THREADS" in message.hint


def test_a_pool_larger_than_the_http_threads(production):
    with_pool(production, max_size=20)
    production.HTTP_THREADS = 16
    assert site_messages() == []


# -- the command, as an operator runs it --------------------------------------------------------


def example_environment() -> dict[str, str]:
    """``deploy/env.example``'s variables, with a secret key filled in (it has none)."""
    values = deploy_example_environment()
    assert values["SECRET_KEY"] == "", "the example must not carry a secret key someone could deploy with"
    values["SECRET_KEY"] = "an-example-secret-for-the-check-" + "0123456789abcdefghijklmnopqrstuvwxyz"
    return values


def manage_check(env: dict[str, str]) -> subprocess.CompletedProcess:
    keep = {key: value for key, value in os.environ.items() if key in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env={**keep, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_example_environment_passes_once_static_files_are_collected(tmp_path):
    env = example_environment()
    env["STATIC_ROOT"] = str(tmp_path)
    result = manage_check(env)
    assert result.returncode != 0 and "threethirteen.E003" in result.stderr and "collectstatic" in result.stderr
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')
    result = manage_check(env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "threethirteen." not in result.stdout + result.stderr


def test_the_command_tells_the_operator_what_is_missing(tmp_path):
    env = example_environment()
    env.update(STATIC_ROOT=str(tmp_path), REDIS_URL="", CLIENT_IP_HEADER="REMOTE_ADDR")
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')
    result = manage_check(env)
    assert result.returncode != 0
    assert "threethirteen.W002" in result.stderr and "threethirteen.W008" in result.stderr
    assert "HINT: Set REDIS_URL" in result.stderr


def test_behind_the_proxy_with_debug_on_the_client_address_is_still_checked(tmp_path):
    """The proxy's header is trusted from its own setting: with DEBUG=1 (e.g. while looking into a problem)
    the check still knows the site is behind the proxy.  It stopped saying W008 when DEBUG alone decided."""
    env = example_environment()
    env.update(DEBUG="1", STATIC_ROOT=str(tmp_path), CLIENT_IP_HEADER="REMOTE_ADDR")
    result = manage_check(env)
    assert "threethirteen.W008" in result.stderr, result.stderr
