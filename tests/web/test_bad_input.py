"""Every kind of bad input gets a 4xx page that says what is wrong, and changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation
from django.utils.html import escape

from games import services
from games.engine.game import IllegalAction, action_from_dict
from games.models import Game
from games.services.turns import describe_illegal

from .conftest import CARD_ATTR, engine_view, logged_in, post_action, state_fingerprint

pytestmark = pytest.mark.django_db


def _assert_refused(response, status: int, words: str, game: Game, before: tuple) -> None:
    assert response.status_code == status, (response.status_code, response.content.decode()[:500])
    assert words.lower() in response.content.decode().lower()
    assert state_fingerprint(game) == before


def test_not_logged_in(table):
    game, *_ = table
    before = state_fingerprint(game)
    response = post_action(Client(), game, {"type": "draw", "source": "stock"})
    _assert_refused(response, 403, "Log in", game, before)


def test_not_logged_in_visitor_is_sent_to_log_in_for_the_table(table):
    game, *_ = table
    response = Client().get(f"/games/{game.pk}/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_not_seated(table, make_user):
    game, *_ = table
    before = state_fingerprint(game)
    response = post_action(logged_in(make_user("cleo")), game, {"type": "draw", "source": "stock"})
    _assert_refused(response, 403, "no seat at this table", game, before)


def test_not_your_turn(table):
    game, _mover, waiter, _ = table
    before = state_fingerprint(game)
    response = post_action(waiter, game, {"type": "draw", "source": "stock"})
    _assert_refused(response, 409, "not your turn", game, before)


def test_wrong_phase_discard_before_drawing(table):
    game, mover, _, seat = table
    card = engine_view(game, seat).to_dict()["hand"][0]
    before = state_fingerprint(game)
    response = post_action(mover, game, {"type": "discard", "card": card})
    _assert_refused(response, 409, "draw a card first", game, before)


def test_wrong_phase_drawing_twice(table):
    game, mover, _, seat = table
    assert post_action(mover, game, {"type": "draw", "source": "stock"}).status_code == 302
    before = state_fingerprint(game)
    response = post_action(mover, game, {"type": "draw", "source": "stock"})
    _assert_refused(response, 409, "you have drawn already", game, before)


def test_card_not_in_hand(table):
    game, mover, _, seat = table
    assert post_action(mover, game, {"type": "draw", "source": "stock"}).status_code == 302
    hand = set(engine_view(game, seat).to_dict()["hand"])
    missing = next(code for code in ("AS", "2H", "3C", "4D", "5S", "6H", "7C") if code not in hand)
    before = state_fingerprint(game)
    response = post_action(mover, game, {"type": "discard", "card": missing})
    _assert_refused(response, 400, "not in your hand", game, before)


def test_go_out_that_does_not_meld_is_refused(table):
    game, mover, _, seat = table
    assert post_action(mover, game, {"type": "draw", "source": "stock"}).status_code == 302
    v = engine_view(game, seat).to_dict()
    go_outs = {a["card"] for a in v["legal_actions"] if a["type"] == "go_out"}
    card = next(c for c in v["hand"] if c not in go_outs)
    before = state_fingerprint(game)
    response = post_action(mover, game, {"type": "go_out", "card": card})
    _assert_refused(response, 400, "cannot go out", game, before)


def test_stale_version(table):
    game, mover, _, _ = table
    before = state_fingerprint(game)
    response = post_action(mover, game, {"type": "draw", "source": "stock"}, version=game.version - 1)
    _assert_refused(response, 409, "table has changed since your page was loaded", game, before)


def test_repeated_submission_is_refused_the_second_time(table):
    game, mover, _, _ = table
    game.refresh_from_db()
    version = game.version
    assert post_action(mover, game, {"type": "draw", "source": "stock"}, version=version).status_code == 302
    before = state_fingerprint(game)
    response = post_action(mover, game, {"type": "draw", "source": "stock"}, version=version)
    _assert_refused(response, 409, "That move was already played", game, before)


@pytest.mark.parametrize(
    "action, words",
    [
        ({"type": "fly"}, "Unknown move: you can draw, discard or go out."),
        ({"type": "draw", "source": "sky"}, "Draw from the stock or from the discard pile."),
        ({"type": "draw"}, "Draw from the stock or from the discard pile."),
        ({"type": "discard"}, "Say which card you discard."),
        ({"type": "go_out"}, "Say which card you discard."),
        ({"type": "discard", "card": "TH", "source": "stock"}, "That move could not be read."),  # a card, wrong fields
    ],
)
def test_unknown_action(table, action, words):
    game, mover, _, _ = table
    before = state_fingerprint(game)
    _assert_refused(post_action(mover, game, action), 400, words, game, before)


@pytest.mark.parametrize("card", ["ZZ", "1H", "10H", "T", "<b>", "AHX"])
def test_malformed_card(table, card):
    game, mover, _, _ = table
    assert post_action(mover, game, {"type": "draw", "source": "stock"}).status_code == 302
    before = state_fingerprint(game)
    response = post_action(mover, game, {"type": "discard", "card": card})
    assert response.status_code == 400
    page = response.content.decode()
    assert "<b>" not in page.split("<main", 1)[1]  # escaped, never echoed as HTML
    assert "is not a card: a card is named by its code, such as TH" in page
    assert state_fingerprint(game) == before


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fly"},
        {"type": "draw", "source": "sky"},
        {"type": "discard"},
        {"type": "discard", "card": "ZZ"},
        {"type": "go_out", "card": "ZZ"},
    ],
)
@pytest.mark.parametrize("language", ["hr", "af", "cs"])
def test_a_hand_made_move_is_refused_in_the_readers_language(table, action, language):
    """The engine explains a move it cannot read in English; the reader gets their own language."""
    game, mover, _, _ = table
    assert post_action(mover, game, {"type": "draw", "source": "stock"}).status_code == 302
    before = state_fingerprint(game)
    mover.cookies["django_language"] = language
    response = post_action(mover, game, action)
    assert response.status_code == 400
    page = response.content.decode()
    with translation.override("en"):
        refusal = str(describe_illegal(_unreadable(action), action))
    with translation.override(language):
        translated = str(describe_illegal(_unreadable(action), action))
    assert translated != refusal  # the catalog has it
    assert escape(translated) in page
    for english in ("expected draw", "wrong fields", "Draw from 'stock'", "is not a card"):
        assert english not in page
    assert state_fingerprint(game) == before


def _unreadable(action: dict) -> IllegalAction:
    try:
        action_from_dict(action)
    except IllegalAction as error:
        return error
    raise AssertionError(f"{action} was read")


@pytest.mark.parametrize(
    "data, words",
    [
        ({"type": "draw", "source": "stock"}, "missing the game version"),
        ({"type": "draw", "source": "stock", "version": "seven"}, "whole number"),
        ({"version": "1"}, "which action"),
    ],
)
def test_forged_form(table, data, words):
    game, mover, _, _ = table
    before = state_fingerprint(game)
    response = mover.post(f"/games/{game.pk}/play/", data)
    _assert_refused(response, 400, words, game, before)


def test_post_without_csrf_token_is_refused(table):
    game, *_ = table
    ann = game.seats.get(position=0).user
    client = Client(enforce_csrf_checks=True)
    client.force_login(ann)
    before = state_fingerprint(game)
    response = post_action(client, game, {"type": "draw", "source": "stock"})
    assert response.status_code == 403
    assert state_fingerprint(game) == before


def test_unknown_game_is_404(table):
    _, mover, _, _ = table
    assert mover.post("/games/999999/play/", {"version": 1, "type": "draw", "source": "stock"}).status_code == 404
    assert mover.get("/games/999999/").status_code == 404


def test_get_on_play_is_405(table):
    game, mover, _, _ = table
    assert mover.get(f"/games/{game.pk}/play/").status_code == 405


def test_moves_after_the_game_is_over_are_refused(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]}, seed=2
    )
    client = logged_in(ann)
    from games import bots

    while True:
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        action = bots.choose_action(engine_view(game, 0)).to_dict()
        assert post_action(client, game, action).status_code == 302
    before = state_fingerprint(game)
    _assert_refused(post_action(client, game, {"type": "draw", "source": "stock"}), 409, "game is over", game, before)


def test_join_twice_full_and_leave_after_start(make_user, classic):
    ann, bob, cleo = make_user("ann"), make_user("bob"), make_user("cleo")
    game = services.game_create(creator=ann, variant=classic, seat_count=2)
    before = state_fingerprint(game)
    _assert_refused(logged_in(ann).post(f"/games/{game.pk}/join/"), 409, "already have a seat", game, before)
    assert logged_in(bob).post(f"/games/{game.pk}/join/").status_code == 302
    before = state_fingerprint(game)
    _assert_refused(logged_in(cleo).post(f"/games/{game.pk}/join/"), 409, "not taking players", game, before)
    _assert_refused(logged_in(bob).post(f"/games/{game.pk}/leave/"), 409, "before it starts", game, before)
    _assert_refused(Client().post(f"/games/{game.pk}/join/"), 403, "log in", game, before)


def test_only_the_creator_starts(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    services.game_join(game_id=game.pk, user=bob)
    before = state_fingerprint(game)
    _assert_refused(logged_in(bob).post(f"/games/{game.pk}/start/"), 403, "created the game", game, before)


def test_someone_without_a_seat_sees_the_public_table_only(table, make_user):
    game, *_ = table
    stranger = logged_in(make_user("cleo"))
    html = stranger.get(f"/games/{game.pk}/").content.decode()
    v = engine_view(game, None).to_dict()
    assert "Your hand" not in html and "Draw from stock" not in html
    assert set(CARD_ATTR.findall(html)) <= {v["discard_top"]}


def test_the_csrf_failure_page_says_what_happened(table):
    game, *_ = table
    client = Client(enforce_csrf_checks=True)
    client.force_login(game.seats.get(position=0).user)
    response = post_action(client, game, {"type": "draw", "source": "stock"})
    assert response.status_code == 403 and "nothing was done" in response.content.decode()
