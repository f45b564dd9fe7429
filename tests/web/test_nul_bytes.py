"""A NUL byte or a lone surrogate anywhere in a request is a 400 page and changes nothing (PostgreSQL cannot
store a NUL, and no database can store a lone surrogate: it has no UTF-8)."""

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


def form_in(charset: str, **fields: str) -> tuple[bytes, str]:
    """A multipart form whose fields are written in ``charset``: Django decodes them with it, whatever it is."""
    parts = [
        f'--XyZ\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n' for name, value in fields.items()
    ]
    return ("".join(parts) + "--XyZ--\r\n").encode("ascii"), f"multipart/form-data; boundary=XyZ; charset={charset}"


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        ("/accounts/login/", {"username": "ann\\ud800", "password": "x"}),
        ("/accounts/signup/", {"username": "ann\\udfff", "email": "a@example.com", "password1": "x", "password2": "x"}),
        ("/i18n/setlang/", {"language": "hr", "next": "/rules/\\ud800"}),
    ],
)
def test_a_lone_surrogate_decoded_from_a_form_is_a_400_page(make_user, path, fields):
    make_user("ann")
    body, content_type = form_in("unicode_escape", **fields)
    response = Client().generic("POST", path, body, content_type=content_type)
    assert response.status_code == 400
    assert "holds a character this site does not accept" in response.content.decode()


def test_a_nul_in_a_header_is_a_400_page_before_the_log_in_stores_it(make_user):
    make_user("ann")
    response = Client().post(
        "/accounts/login/", {"username": "ann", "password": "wrong"}, HTTP_USER_AGENT="Mozilla\x00/5.0"
    )
    assert response.status_code == 400
