"""With a shared cache (``REDIS_URL``), sessions are read from the cache and kept in the database
(``threethirteen_site/sessions.py``): no session query once cached, a log-out ends the session in both,
and a cache that cannot be reached costs a database read, never a page."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.cache import caches
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from threethirteen_site.redis_cache import cache_settings

from .conftest import settings_read

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-42"

ROOT = Path(__file__).resolve().parents[2]
CACHED = override_settings(
    SESSION_ENGINE="threethirteen_site.sessions",
    CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "sessions"}},
)


def session_reads(client: Client, path: str = "/games/mine/") -> tuple[int, int]:
    """The page's status and how many times it read the session table."""
    with CaptureQueriesContext(connection) as queries:
        status = client.get(path).status_code
    return status, sum('FROM "django_session"' in q["sql"] for q in queries.captured_queries)


def engine_with(**env_vars: str) -> list:
    expression = "[s.SESSION_ENGINE, s.CACHES['default'].get('OPTIONS', {}).get('pool_class')]"
    return settings_read(expression, drop=("REDIS_URL", "DATABASE_URL"), **env_vars)


def test_the_cached_sessions_come_with_the_shared_cache_only():
    shared_pool = "threethirteen_site.redis_cache.SharedConnectionPool"
    assert engine_with(REDIS_URL="redis://127.0.0.1:6379/0") == ["threethirteen_site.sessions", shared_pool]
    # each process's own memory would keep a session another process ended
    assert engine_with() == ["threethirteen_site.sessions_db", None]


def test_every_cache_object_of_a_process_takes_its_connections_from_one_pool():
    """Django makes a cache object per request: each used to open its own connection to Redis."""
    from django.core.cache.backends.redis import RedisCache

    from threethirteen_site.redis_cache import cache_settings

    def pool(url: str):
        params = cache_settings(url)
        return RedisCache(params["LOCATION"], params)._cache._get_connection_pool(write=False)  # type: ignore[attr-defined]

    first = pool("redis://127.0.0.1:6399/0")  # no connection is made until a command
    assert pool("redis://127.0.0.1:6399/0") is first
    assert pool("redis://127.0.0.1:6399/1") is not first
    assert first.connection_kwargs["socket_timeout"] == 2


@CACHED
def test_a_cached_session_is_not_read_from_the_database(make_user):
    caches["default"].clear()
    client = Client()
    client.force_login(make_user("ann"))  # written to both
    assert session_reads(client) == (200, 0)
    caches["default"].clear()  # e.g. Redis restarted: read from the database once, then cached again
    assert session_reads(client) == (200, 1)
    assert session_reads(client) == (200, 0)


@CACHED
def test_a_log_out_ends_the_session_in_the_cache_too(make_user):
    caches["default"].clear()
    client = Client()
    client.force_login(make_user("ann"))
    cookie = client.cookies["sessionid"].value
    assert client.get("/games/mine/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    stale = Client()
    stale.cookies["sessionid"] = cookie  # the old cookie, kept by someone
    response = stale.get("/games/mine/")
    assert response.status_code == 302 and "/login/" in response["Location"]


@CACHED
def test_a_cache_that_cannot_be_reached_costs_a_database_read_not_a_page(make_user):
    caches["default"].clear()
    client = Client()
    client.force_login(make_user("ann"))
    down = ConnectionError("the cache is down")
    with (
        mock.patch.object(type(caches["default"]), "get", side_effect=down),
        mock.patch.object(type(caches["default"]), "set", side_effect=down),
    ):
        status, reads = session_reads(client)
        assert status == 200 and reads == 1
        assert "ann" in client.get("/games/mine/").content.decode()  # still signed in


#: Redis gone: the site's own cache settings, at an address where nothing listens (connection refused).
REDIS_DOWN = override_settings(
    SESSION_ENGINE="threethirteen_site.sessions", CACHES={"default": cache_settings("redis://127.0.0.1:1/0")}
)


def assert_try_again_page(response: Any) -> None:
    assert response.status_code == 503 and int(response["Retry-After"]) > 0
    assert "Try again in a moment" in response.content.decode()


@REDIS_DOWN
def test_a_person_signs_in_while_redis_is_down(make_user, caplog):
    """Found by a tester: with Redis stopped, every log-in was a 500 (a new session's key was checked in the
    cache only).  The database has every session: the log-in works, and so do the pages after it, each with one
    warning line in the log (a traceback each filled it)."""
    make_user("ann", password=PASSWORD)
    client = Client(raise_request_exception=False)
    response = client.post("/accounts/login/", {"username": "ann", "password": PASSWORD})
    assert response.status_code == 302
    assert "ann" in client.get("/games/mine/").content.decode()
    warned = [record for record in caplog.records if "Session cache unreachable" in record.getMessage()]
    assert warned and "ConnectionError" in warned[0].getMessage()
    assert not [record for record in caplog.records if record.exc_info or record.levelno >= logging.ERROR]


def test_what_needs_redis_while_it_is_down_is_a_try_again_page_that_changes_nothing(make_user):
    """Ending a session must end its cached copy too, and the limits on sign-ups and password resets are
    counted in Redis: while it cannot be reached these are the 503 "try again" page, not a 500."""
    ann = make_user("ann", password=PASSWORD)
    ann.email = "ann@example.com"
    ann.save()
    client = Client(raise_request_exception=False)
    with CACHED:
        client.force_login(ann)  # while Redis was up

    with REDIS_DOWN:
        assert_try_again_page(client.post("/accounts/logout/"))
        assert "ann" in client.get("/games/mine/").content.decode()  # still signed in, as the page implies
        # A review: the new password was saved, then the session could not be renewed, and every page after
        # the "try again" was a 503 until Redis was back.
        new = "kartanje-uvecer-42"
        changed = {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
        assert_try_again_page(client.post("/accounts/password_change/", changed))
        ann.refresh_from_db()
        assert ann.check_password(PASSWORD)
        assert client.get("/games/mine/").status_code == 200
        # A log-in over the session the browser has (another account's, or its own again) renews it: the same.
        assert_try_again_page(client.post("/accounts/login/", {"username": "ann", "password": PASSWORD}))
        assert "ann" in client.get("/games/mine/").content.decode()
        assert_try_again_page(
            Client(raise_request_exception=False).post(
                "/accounts/signup/", {"username": "bob", "password1": PASSWORD, "password2": PASSWORD}
            )
        )
        assert_try_again_page(
            Client(raise_request_exception=False).post("/accounts/password_reset/", {"email": "ann@example.com"})
        )
    assert not get_user_model().objects.filter(username="bob").exists() and mail.outbox == []
