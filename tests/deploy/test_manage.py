"""``deploy/manage``: manage.py on the server runs with the site's environment, as the app's owner.

An operator who ran ``.venv/bin/python manage.py createsuperuser`` on the
server, as the README said, made the account in a SQLite file in the checkout:
without the environment the laptop's defaults apply.  The wrapper loads the
environment file (``THREETHIRTEEN_ENV`` points it at one of the test's), and
a process with ``DEBUG=0`` but no ``DATABASE_URL`` refuses to start instead of
falling back to SQLite.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.servers import REPO

MANAGE = REPO / "deploy" / "manage"
#: What the shell around the test may have set that the environment file must decide alone.
SITE_VARIABLES = ("DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "DEFAULT_FROM_EMAIL", "THREETHIRTEEN_ENV")
SHOW_SETTINGS = (
    "from django.conf import settings as s; "
    "print(s.DEBUG, s.DATABASES['default']['NAME'], s.DEFAULT_FROM_EMAIL, sep='|')"
)


def bare_environment(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in SITE_VARIABLES}
    env.update(PYTHON=sys.executable, **extra)
    return env


def run(command: list[str], env: dict[str, str], *, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """``command`` with ``env`` (and nothing else of the test's environment), its output as text."""
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def write_env_file(path: Path, database: Path) -> Path:
    """An environment file as deploy/env.example has it: NAME=value, a quoted value with spaces."""
    path.write_text(
        "# the site's environment\n"
        "DEBUG=0\n"
        "SECRET_KEY=a-test-secret-of-the-site-0123456789abcdefghijklmnopqrstuvwxyz\n"
        f"DATABASE_URL=sqlite:///{database}\n"
        'DEFAULT_FROM_EMAIL="Three Thirteen <cards@example.com>"\n'
    )
    return path


def test_manage_runs_with_the_environment_file_loaded(tmp_path):
    env_file = write_env_file(tmp_path / "env", tmp_path / "site.sqlite3")
    env = bare_environment(THREETHIRTEEN_ENV=str(env_file))
    result = run([str(MANAGE), "shell", "-v", "0", "-c", SHOW_SETTINGS], env, cwd=tmp_path)  # from anywhere
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"False|{tmp_path / 'site.sqlite3'}|Three Thirteen <cards@example.com>"


def test_manage_without_a_readable_environment_file_runs_nothing(tmp_path):
    missing = tmp_path / "env"
    result = run(
        [str(MANAGE), "shell", "-v", "0", "-c", "print('ran')"], bare_environment(THREETHIRTEEN_ENV=str(missing))
    )
    assert result.returncode != 0 and "ran" not in result.stdout
    assert f"cannot read {missing}" in result.stderr


def test_manage_refuses_anyone_but_the_apps_owner(tmp_path):
    """Run as root, an update leaves static files and catalogs the owner's next update cannot replace."""
    app = tmp_path / "app"
    (app / "deploy").mkdir(parents=True)
    shutil.copy(MANAGE, app / "deploy" / "manage")
    fake = tmp_path / "bin"  # `id -u` says someone else runs it (no second account needed)
    fake.mkdir()
    (fake / "id").write_text("#!/bin/sh\necho 4242\n")
    (fake / "id").chmod(0o755)
    env_file = write_env_file(tmp_path / "env", tmp_path / "site.sqlite3")
    env = bare_environment(THREETHIRTEEN_ENV=str(env_file))
    env["PATH"] = f"{fake}:{env['PATH']}"
    result = run([str(app / "deploy" / "manage"), "shell", "-v", "0", "-c", "print('ran')"], env)
    assert result.returncode != 0 and "ran" not in result.stdout
    assert f"run this as the owner of {app}" in result.stderr and "sudo -u" in result.stderr


def test_debug_off_without_a_database_url_refuses_instead_of_using_sqlite():
    env = bare_environment(DEBUG="0", SECRET_KEY="a-test-secret-of-the-site-0123456789abcdefghijklmnopqrstuvwxyz")
    result = run([sys.executable, "manage.py", "shell", "-v", "0", "-c", SHOW_SETTINGS], env)
    assert result.returncode != 0 and "db.sqlite3" not in result.stdout
    assert "ImproperlyConfigured" in result.stderr and "DATABASE_URL is not set" in result.stderr
    assert "deploy/manage" in result.stderr


def test_debug_off_with_sqlite_chosen_on_purpose_starts(tmp_path):
    env = bare_environment(
        DEBUG="0",
        SECRET_KEY="a-test-secret-of-the-site-0123456789abcdefghijklmnopqrstuvwxyz",
        DATABASE_URL=f"sqlite:///{tmp_path / 'chosen.sqlite3'}",
    )
    result = run([sys.executable, "manage.py", "shell", "-v", "0", "-c", SHOW_SETTINGS], env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("|")[1] == str(tmp_path / "chosen.sqlite3")
