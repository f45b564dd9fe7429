"""A NUL byte anywhere in a request is a 400 page and changes nothing (PostgreSQL cannot store it)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from games.models import Game

from .conftest import logged_in, state_fingerprint
from .test_session_cache import CACHED

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "path",
    ["/rules/?variant=%00", "/rules/?%00=1", "/leaderboard/?page=1%00", "/accounts/login/?next=/%00"],
)
def test_a_nul_byte_in_the_address_is_a_400_page(client, path):
    response = client.get(path)
    assert response.status_code == 400
    assert "That request could not be read" in response.content.decode()


def test_a_nul_byte_in_a_posted_move_changes_nothing(make_user, classic):
    from games import services

    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=5)
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    mover = ann if game.current_seat == 0 else bob
    before = state_fingerprint(game)
    response = logged_in(mover).post(
        f"/games/{game.pk}/play/", {"version": game.version, "type": "draw", "source": "stock\x00"}
    )
    assert response.status_code == 400
    assert state_fingerprint(Game.objects.get(pk=game.pk)) == before


def test_ordinary_requests_pass(client):
    assert client.get("/rules/?variant=classic").status_code == 200


# Python's cookie parser turns ``\000`` in a quoted cookie into a NUL: PostgreSQL refused the session query.
FORGED_KEYS = ['"aaaaaaaaaaaa\\000"', "AAAAAAAAAAAAAAAA", "aaaaaaaa-aaaa;"]


@pytest.mark.parametrize("engine", ["database", "shared cache"])
@pytest.mark.parametrize("key", FORGED_KEYS)
def test_a_session_key_django_never_made_is_no_session_and_never_reaches_the_database(make_user, key, engine):
    ann = make_user("ann")
    with CACHED if engine == "shared cache" else override_settings():
        signed_in = logged_in(ann)
        with CaptureQueriesContext(connection) as queries:
            response = Client().get("/games/mine/", HTTP_COOKIE=f"sessionid={key}")
            sessions_read = [q["sql"] for q in queries.captured_queries if "django_session" in q["sql"]]
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]  # as a visitor
        assert sessions_read == []
        assert Client().get("/", HTTP_COOKIE=f"sessionid={key}").status_code == 200
        assert signed_in.get("/games/mine/").status_code == 200  # a real session is read as ever
