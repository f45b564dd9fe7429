"""ISSUE 13.6: "Play now" deals a game against bots in one click; the create form's defaults suit a
person alone; one game may seat bots of several levels.  Forged and invalid input changes nothing."""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.models import Game, Variant

from .conftest import logged_in

pytestmark = pytest.mark.django_db


def test_play_now_deals_a_game_against_bots_and_opens_its_table(make_user, classic):
    ann = make_user("ann")
    client = logged_in(ann)
    lobby = client.get("/").content.decode()
    assert 'action="/games/play-now/"' in lobby and "Play now" in lobby
    response = client.post("/games/play-now/")
    game = Game.objects.get()
    assert response.status_code == 302 and response["Location"] == game.get_absolute_url()
    assert game.status == Game.Status.ACTIVE and game.variant == classic and game.current_seat == 0
    seats = list(game.seats.order_by("position"))
    assert seats[0].user == ann and [s.bot_level for s in seats[1:]] == ["medium"] * services.PLAY_NOW_BOTS
    page = client.get(response["Location"]).content.decode()
    assert "Your turn" in page and "Draw from stock" in page


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_play_now_takes_the_chosen_bot_level(make_user, classic, level):
    assert logged_in(make_user("ann")).post("/games/play-now/", {"bot_level": level}).status_code == 302
    assert set(Game.objects.get().seats.exclude(bot_level="").values_list("bot_level", flat=True)) == {level}


def test_play_now_without_the_classic_variant_takes_another_offered_one(make_user, classic):
    Variant.objects.filter(slug="classic").update(is_active=False)
    assert logged_in(make_user("ann")).post("/games/play-now/").status_code == 302
    game = Game.objects.get()
    assert game.variant.is_active and game.variant != classic


@pytest.mark.parametrize(
    ("client_kind", "method", "data", "status", "words"),
    [
        ("anonymous", "post", {}, 403, "Log in to play."),
        ("anonymous", "get", {}, 405, "This address belongs to a button"),
        ("ann", "get", {}, 405, "This address belongs to a button"),
        ("ann", "post", {"bot_level": "godlike"}, 400, "Select a valid choice"),
        ("ann", "post", {"bot_level": "\x00"}, 400, ""),
        ("ann", "post", {"bot_level": ["easy", "hard"]}, 302, ""),  # a repeated field: the last one counts
    ],
)
def test_play_now_refuses_what_it_cannot_do_with_a_page(make_user, classic, client_kind, method, data, status, words):
    client = Client() if client_kind == "anonymous" else logged_in(make_user(client_kind))
    response = getattr(client, method)("/games/play-now/", data)
    assert response.status_code == status
    if status != 302:
        assert Game.objects.count() == 0
        assert words in response.content.decode()
        assert "<html" in response.content.decode()  # a page of the site, never a blank answer


def test_play_now_with_no_variant_offered_says_so(make_user, classic):
    Variant.objects.update(is_active=False)
    response = logged_in(make_user("ann")).post("/games/play-now/")
    assert response.status_code == 400 and "No variant is offered" in response.content.decode()
    assert not Game.objects.exists()


def test_the_service_refuses_unknown_levels_and_anonymous_people(make_user, classic):
    ann = make_user("ann")
    with pytest.raises(services.GameError) as refused:
        services.game_play_now(creator=ann, bot_level="godlike")
    assert refused.value.code == "bad_bot_level"
    with pytest.raises(services.GameError) as refused:
        services.game_create(creator=ann, variant=classic, seat_count=3, bot_levels=["easy", "grandmaster"])
    assert refused.value.code == "bad_bot_level"
    from django.contrib.auth.models import AnonymousUser

    with pytest.raises(services.GameError) as refused:
        services.game_play_now(creator=AnonymousUser())
    assert refused.value.code == "not_logged_in"
    assert not Game.objects.exists()


def test_the_create_form_defaults_deal_a_game_against_bots_at_once(make_user, classic):
    client = logged_in(make_user("ann"))
    form = client.get("/").context["form"]
    data = {name: field.initial for name, field in form.fields.items() if field.initial is not None}
    data["variant"] = classic.pk
    response = client.post("/games/new/", data)
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.status == Game.Status.ACTIVE  # nobody to wait for
    assert game.seats.exclude(bot_level="").count() == services.PLAY_NOW_BOTS


SEATS = {"people": 0, "easy_bots": 0, "medium_bots": 0, "hard_bots": 0}


@pytest.mark.parametrize(
    ("seats", "words"),
    [
        ({"hard_bots": 7, "people": 1}, "A table has at most 8 seats: you, the people and the bots make 9."),
        ({"easy_bots": 5, "medium_bots": 5}, "A table has at most 8 seats"),
        ({}, "Nobody to play with"),
        ({"medium_bots": 99}, "Select a valid choice"),
        ({"medium_bots": -1}, "Select a valid choice"),
        ({"medium_bots": "one"}, "Select a valid choice"),
        ({"people": 0, "invite": "bob"}, "You invited 1 player(s) but left 0 seat(s) for people"),
    ],
)
def test_the_create_form_refuses_impossible_tables(make_user, classic, seats, words):
    make_user("bob")
    client = logged_in(make_user("ann"))
    response = client.post("/games/new/", {**SEATS, "variant": classic.pk, "time_limit_seconds": 86400, **seats})
    assert response.status_code == 400 and words in response.content.decode()
    assert not Game.objects.exists()


def test_a_form_without_the_seat_fields_is_refused(make_user, classic):
    # An old page (Players, Bots, Bot level) posted after the form changed: refused, nothing made.
    client = logged_in(make_user("ann"))
    response = client.post(
        "/games/new/",
        {"variant": classic.pk, "seat_count": 4, "bot_count": 3, "bot_level": "medium", "time_limit_seconds": 120},
    )
    assert response.status_code == 400 and not Game.objects.exists()


def test_invited_people_and_a_mix_of_bots(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    response = logged_in(ann).post(
        "/games/new/",
        {**SEATS, "variant": classic.pk, "time_limit_seconds": 86400, "people": 2, "invite": "bob", "hard_bots": 2},
    )
    assert response.status_code == 302
    game = Game.objects.get()
    seats = [(s.user, s.reserved_for, s.bot_level) for s in game.seats.order_by("position")]
    assert seats == [(ann, None, ""), (None, bob, ""), (None, None, "hard"), (None, None, "hard"), (None, None, "")]
    assert game.status == Game.Status.OPEN  # one seat waits for a person
