"""A lost database connection: a "try again" page (503, translated), nothing half-done, the next request works.

The connection is really lost on PostgreSQL: its server process is ended
(``pg_terminate_backend``, from another connection) just before the chosen
query runs, which then fails as after a database restart.  SQLite has no
server to lose: there the query raises the ``OperationalError`` a lost
connection raises.  ``make test`` runs both.

Requests go through ``ServerLikeClient``: Django's test client keeps the
database connection from one request to the next, a server closes or checks
it at each request's start and end; this client does as a server does.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import OperationalError, close_old_connections, connection, connections
from django.test import AsyncClient, Client
from django.utils import translation
from django.utils.translation import gettext

from games import services
from games.models import Game

from .conftest import state_fingerprint

pytestmark = pytest.mark.django_db(transaction=True)

TRY_AGAIN = "Try again in a moment"


class ServerLikeClient(Client):
    """The test client, with the connection handling of a server around each request (``close_old_connections``
    on request_started and request_finished, which the test client leaves out)."""

    def __init__(self, **defaults: Any) -> None:
        super().__init__(raise_request_exception=False, **defaults)

    served_by_pid: int | None = None  # PostgreSQL: the server process of the connection of the last request

    def request(self, **request: Any) -> Any:
        close_old_connections()
        try:
            response = super().request(**request)
            if connection.vendor == "postgresql" and connection.connection is not None:
                self.served_by_pid = connection.connection.info.backend_pid
            return response
        finally:
            close_old_connections()


def terminate_backend(wrapper: Any) -> None:
    """End the server process of ``wrapper``'s PostgreSQL connection (from another connection); wait till it is gone."""
    pid = wrapper.connection.info.backend_pid
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
            deadline = time.monotonic() + 10
            while True:
                cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid])
                if cursor.fetchone()[0] == 0:
                    return
                assert time.monotonic() < deadline, "the terminated backend did not go away"
                time.sleep(0.01)
    finally:
        other.close()


def terminate_idle_backends() -> list[int]:
    """End the server process of every idle connection to the test database (the pool's, between requests), as a
    database restart would; wait till they are gone.  Their process ids."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle'"
                " AND pid <> pg_backend_pid()"
            )
            pids = [row[0] for row in cursor.fetchall()]
            for pid in pids:
                cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
            deadline = time.monotonic() + 10
            while True:
                cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [pids])
                if cursor.fetchone()[0] == 0:
                    return pids
                assert time.monotonic() < deadline, "the terminated backends did not go away"
                time.sleep(0.01)
    finally:
        other.close()


@contextlib.contextmanager
def connection_lost_at(sql_start: str) -> Iterator[list[str]]:
    """The connection is lost when the next query that starts with ``sql_start`` is run (on this thread)."""
    lost: list[str] = []

    def wrapper(execute: Callable, sql: str, params: Any, many: bool, context: dict) -> Any:
        if not lost and sql.lstrip().startswith(sql_start):
            lost.append(sql)
            if context["connection"].vendor == "postgresql":
                terminate_backend(context["connection"])  # the query below then fails for real
            else:
                raise OperationalError("the connection to the database was lost")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        yield lost


def signed_in(user: Any, **defaults: Any) -> ServerLikeClient:
    client = ServerLikeClient(**defaults)
    client.force_login(user)
    return client


@pytest.fixture
def game(make_user, classic) -> Game:
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=4)
    game.refresh_from_db()
    return game


def player_to_move(game: Game) -> Any:
    assert game.current_seat is not None
    return game.seats.get(position=game.current_seat).user


@pytest.mark.parametrize("language", ["en", "cs"])
def test_a_page_that_loses_its_database_connection_says_try_again_and_the_next_request_works(game, language):
    client = signed_in(player_to_move(game), HTTP_ACCEPT_LANGUAGE=language)
    with connection_lost_at("SELECT") as lost:  # the first query: the session, in the middleware
        response = client.get(f"/games/{game.pk}/")
    assert lost and response.status_code == 503 and response["Retry-After"] == "5"
    page = response.content.decode()
    with translation.override(language):
        assert gettext(TRY_AGAIN) in page and f'href="/games/{game.pk}/"' in page
    if language != "en":
        assert TRY_AGAIN not in page  # said in the reader's language
    assert client.get(f"/games/{game.pk}/").status_code == 200


@pytest.mark.parametrize(
    "statement",
    [
        'SELECT "games_game"',  # the locked read of the game, before anything is written
        'INSERT INTO "games_move"',  # the move log, before the game row is saved
        'UPDATE "games_game"',  # the game row, after the move was logged: the whole move is rolled back
    ],
)
def test_a_move_that_loses_its_connection_is_not_played_at_all_and_posting_it_again_plays_it_once(game, statement):
    client = signed_in(player_to_move(game))
    before = state_fingerprint(game)
    move = {"version": game.version, "type": "draw", "source": "stock"}
    with connection_lost_at(statement) as lost:
        response = client.post(f"/games/{game.pk}/play/", move)
    assert lost and response.status_code == 503
    assert TRY_AGAIN in response.content.decode()
    assert state_fingerprint(game) == before  # nothing half-done
    again = client.post(f"/games/{game.pk}/play/", move)
    assert again.status_code == 302
    game.refresh_from_db()
    assert game.moves.count() == before[3] + 1 and game.version == before[0] + 1


def test_a_kept_connection_that_died_between_requests_is_replaced_before_use(game, settings):
    """``CONN_HEALTH_CHECKS``: a connection kept between requests (in the pool on PostgreSQL, else by
    ``CONN_MAX_AGE``) that died (a database restart) costs no request: it is found dead and replaced before use."""
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is True
    client = signed_in(player_to_move(game))
    if getattr(connection, "pool", None) is not None:  # PostgreSQL with its pool (DATABASE_POOL, the default)
        assert client.get(f"/games/{game.pk}/").status_code == 200
        served = client.served_by_pid
        assert served in terminate_idle_backends()
        assert client.get(f"/games/{game.pk}/").status_code == 200
        assert client.served_by_pid != served  # the pool checked the dead one and handed out a live one
        return
    connection.close()
    connection.settings_dict["CONN_MAX_AGE"] = 60
    try:
        assert client.get(f"/games/{game.pk}/").status_code == 200
        kept = connection.connection
        assert kept is not None  # kept after the request
        if connection.vendor == "postgresql":
            terminate_backend(connection)
        else:  # SQLite has no server to lose: close the file under Django and say so when asked
            kept.close()
            connection.is_usable = lambda: False
        assert client.get(f"/games/{game.pk}/").status_code == 200
        assert connection.connection is not kept  # a new connection served it
    finally:
        connection.__dict__.pop("is_usable", None)
        connection.settings_dict["CONN_MAX_AGE"] = 0
        connection.close()


def test_through_the_asgi_handler_too(game):
    """Daphne serves the site through Django's ASGI handler: the same 503 (its 500 handler runs on another thread)."""
    client = AsyncClient(raise_request_exception=False)
    client.force_login(player_to_move(game))
    try:
        with connection_lost_at("SELECT"):
            response = async_to_sync(client.get)(f"/games/{game.pk}/")
    finally:
        close_old_connections()  # as the server does when the request ends: the broken connection goes
    assert response.status_code == 503 and TRY_AGAIN in response.content.decode()
    assert async_to_sync(client.get)(f"/games/{game.pk}/").status_code == 200


def test_other_errors_are_still_the_500_page(game, monkeypatch):
    def broken(**kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr("games.selectors.game_table", broken)
    response = signed_in(player_to_move(game)).get(f"/games/{game.pk}/")
    assert response.status_code == 500 and TRY_AGAIN not in response.content.decode()


def test_a_join_that_loses_its_connection_while_dealing_leaves_the_seat_open(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=4)
    client = signed_in(bob)
    with connection_lost_at('UPDATE "games_game"') as lost:  # the seat is taken, the deal is being saved
        response = client.post(f"/games/{game.pk}/join/")
    assert lost and response.status_code == 503
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN and game.state is None and game.version == 1
    assert game.seats.get(position=1).user is None  # the seat taken in that transaction is open again
    assert client.post(f"/games/{game.pk}/join/").status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.seats.get(position=1).user == bob


def test_the_try_again_page_speaks_the_profiles_language_though_the_profile_cannot_be_read(game):
    """An English browser, Croatian on the profile: the page that could not read the profile was English."""
    person = player_to_move(game)
    person.language = "hr"
    person.save()
    client = signed_in(person, HTTP_ACCEPT_LANGUAGE="en")
    assert client.get(f"/games/{game.pk}/").cookies[settings.LANGUAGE_COOKIE_NAME].value == "hr"
    with connection_lost_at("SELECT"):
        response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 503
    with translation.override("hr"):
        assert gettext(TRY_AGAIN) in response.content.decode()
