"""A GET on an address that only a button posts to answers with a page of the site (405, Allow: POST),
a short message and a way back: to the table for a game one may watch, else to the lobby."""

from __future__ import annotations

import pytest
from django.test import Client

from games import services

from .conftest import logged_in, state_fingerprint

pytestmark = pytest.mark.django_db

GAME_ACTIONS = ("play", "join", "leave", "start", "resign", "rematch")


@pytest.fixture
def game(make_user, classic):
    return services.game_create(creator=make_user("ann"), variant=classic, seat_count=2, seed=4)


def _assert_page(response, back: str) -> str:
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    text = response.content.decode()
    assert "<html" in text and 'class="panel narrow"' in text  # the site's layout, not Django's blank answer
    assert "This address belongs to a button" in text
    assert f'href="{back}"' in text
    return text


@pytest.mark.parametrize("action", GAME_ACTIONS)
def test_get_on_a_game_button_address_links_back_to_the_table(game, action):
    ann = game.created_by
    before = state_fingerprint(game)
    _assert_page(logged_in(ann).get(f"/games/{game.pk}/{action}/"), f"/games/{game.pk}/")
    assert state_fingerprint(game) == before


@pytest.mark.parametrize("action", GAME_ACTIONS)
def test_get_as_a_visitor_gets_the_page_with_the_lobby_link(game, action):
    text = _assert_page(Client().get(f"/games/{game.pk}/{action}/"), "/")
    assert f'href="/games/{game.pk}/"' not in text  # signed out, one may not watch a table


def test_get_on_new_game_links_back_to_the_lobby(make_user):
    _assert_page(logged_in(make_user("ann")).get("/games/new/"), "/")


def test_get_for_a_game_that_does_not_exist_links_to_the_lobby(make_user):
    _assert_page(logged_in(make_user("ann")).get("/games/999999/play/"), "/")


def test_a_private_game_the_reader_may_not_watch_is_not_linked(make_user, classic):
    private = services.game_create(creator=make_user("ann"), variant=classic, seat_count=2, seed=4, is_private=True)
    text = _assert_page(logged_in(make_user("cleo")).get(f"/games/{private.pk}/join/"), "/")
    assert f'href="/games/{private.pk}/"' not in text


@pytest.mark.parametrize(
    "language, words",
    [("hr", "Ova adresa pripada gumbu"), ("cs", "Tato adresa patří tlačítku"), ("af", "Hierdie adres behoort aan")],
)
def test_the_page_is_translated(game, language, words):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    response = client.get(f"/games/{game.pk}/play/")
    assert response.status_code == 405
    assert "This address belongs to a button" not in response.content.decode()
    assert words in response.content.decode()


SHOW_ONLY_PAGES = (
    "/leaderboard/",
    "/players/ann/games/",
    "/players/ann/",
    "/rules/",
    "/games/{pk}/",
    "/games/{pk}/rules/",
)


@pytest.mark.parametrize("path", SHOW_ONLY_PAGES)
def test_a_post_to_a_page_that_only_shows_gets_the_sites_page_linking_to_it(game, path):
    """It was Django's empty 405, which a browser shows as an error of its own; HEAD was refused too."""
    ann = game.created_by
    url = path.format(pk=game.pk)
    before = state_fingerprint(game)
    response = logged_in(ann).post(url, {"anything": "x"})
    assert response.status_code == 405 and "GET" in response["Allow"]
    text = response.content.decode()
    assert "<html" in text and "Nothing to send here" in text and f'href="{url}"' in text
    assert "belongs to a button" not in text
    assert state_fingerprint(game) == before
    head = logged_in(ann).head(url)
    assert head.status_code == 200 and head.content == b""


def test_the_page_about_sending_is_translated(game):
    response = Client(HTTP_ACCEPT_LANGUAGE="cs").post("/rules/")
    assert response.status_code == 405 and "Sem se nic neodesílá" in response.content.decode()
