"""On PostgreSQL each server process keeps a pool of connections (settings: ``DATABASE_POOL``)."""

from __future__ import annotations

from .conftest import settings_read


def database_settings(**env_vars: str) -> dict:
    default = "s.DATABASES['default']"
    expression = f"{{'age': {default}['CONN_MAX_AGE'], 'pool': {default}.get('OPTIONS', {{}}).get('pool')}}"
    return settings_read(expression, drop=("DATABASE_", "CONN_MAX_AGE"), **env_vars)


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


def test_the_pool_tries_to_reconnect_every_second_however_long_the_database_is_down():
    """Its own backoff doubled the pause (1, 2, 4, 8, 16 s): the site came back 20 s after the database."""
    from psycopg_pool.base import AttemptWithBackoff

    attempt, pauses = AttemptWithBackoff(timeout=300), []
    for second in range(8):
        attempt.update_delay(now=float(second))
        pauses.append(attempt.delay)
    assert max(pauses) < 1.2, pauses
