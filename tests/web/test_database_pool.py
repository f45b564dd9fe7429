"""On PostgreSQL each server process keeps a pool of connections (settings: ``DATABASE_POOL``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def database_settings(**env_vars: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "CONN_MAX_AGE"))}
    env.update(env_vars)
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, threethirteen_site.settings as s; d = s.DATABASES['default'];"
            "print(json.dumps({'age': d['CONN_MAX_AGE'], 'pool': d.get('OPTIONS', {}).get('pool')}))",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_postgresql_gets_a_pool_and_no_persistent_connections():
    url = "postgres://cards:secret@db.example.com:5432/cards"
    assert database_settings(DATABASE_URL=url, CONN_MAX_AGE="60") == {
        "age": 0,  # Django refuses a pool with persistent connections
        "pool": {"min_size": 2, "max_size": 20, "timeout": 10.0},
    }
    sized = database_settings(DATABASE_URL=url, DATABASE_POOL_MAX_SIZE="8", DATABASE_POOL_TIMEOUT="2.5")
    assert sized["pool"] == {"min_size": 2, "max_size": 8, "timeout": 2.5}


def test_the_pool_can_be_turned_off_and_sqlite_has_none():
    url = "postgres://cards:secret@db.example.com:5432/cards"
    assert database_settings(DATABASE_URL=url, DATABASE_POOL="0", CONN_MAX_AGE="60") == {"age": 60, "pool": None}
    assert database_settings(DATABASE_URL="sqlite:///tmp-unused.sqlite3")["pool"] is None
