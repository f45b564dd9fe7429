"""Who may watch a table: one rule (``selectors.may_watch``) for the page, the partial and the socket."""

from __future__ import annotations

import pytest

from games import selectors, services
from games.models import Game
from tests.history.conftest import finish_with_bot_moves
from tests.web.conftest import logged_in

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("players_only", [True, False])
def test_the_lobby_form_makes_a_players_only_game_or_one_others_may_watch(make_user, classic, players_only):
    ann, cid = make_user("ann"), make_user("cid")
    data = {
        "variant": classic.pk,
        "people": 0,
        "easy_bots": 0,
        "medium_bots": 1,
        "hard_bots": 0,
        "invite": "",
        "time_limit_seconds": 86400,
        "round_count": "",
    }
    if players_only:
        data["players_only"] = "on"
    response = logged_in(ann).post("/games/new/", data)
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.status == Game.Status.ACTIVE and game.spectators_allowed is not players_only
    watching = logged_in(cid).get(f"/games/{game.pk}/")
    assert watching.status_code == (403 if players_only else 200)
    assert logged_in(ann).get(f"/games/{game.pk}/").status_code == 200


def test_an_open_players_only_game_can_still_be_seen_and_joined(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, spectators_allowed=False)
    assert selectors.may_watch(game=game, user=bob)
    assert logged_in(bob).get(f"/games/{game.pk}/").status_code == 200
    assert logged_in(bob).post(f"/games/{game.pk}/join/").status_code == 302
    assert logged_in(cid).post(f"/games/{game.pk}/join/").status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    dan = make_user("dan")
    assert not selectors.may_watch(game=game, user=dan)
    assert all(selectors.may_watch(game=game, user=u) for u in (ann, bob, cid))
    assert logged_in(dan).get(f"/games/{game.pk}/table/").status_code == 403


def test_nobody_logged_out_may_watch(classic, make_user):
    from django.contrib.auth.models import AnonymousUser

    game = services.game_create(creator=make_user("ann"), variant=classic, seat_count=2, bot_count=1)
    assert game.spectators_allowed and not selectors.may_watch(game=game, user=AnonymousUser())


def test_a_watcher_is_told_they_are_watching_and_a_player_is_not(make_user, classic):
    ann, cid = make_user("ann"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=3)
    note = "You are watching this game"
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/table/"):
        assert note in logged_in(cid).get(url).content.decode()
        assert note not in logged_in(ann).get(url).content.decode()


def test_a_players_only_games_round_summaries_are_for_its_players(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        invitees=[bob],
        seed=5,
        options={"rounds": [3, 4]},
        spectators_allowed=False,
    )
    finish_with_bot_moves(game)
    assert logged_in(ann).get(f"/games/{game.pk}/rounds/1/").status_code == 200
    refused = logged_in(cid).get(f"/games/{game.pk}/rounds/1/")
    assert refused.status_code == 403 and "Only the players" in refused.content.decode()


def test_a_rematch_keeps_a_players_only_table_players_only(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        invitees=[bob],
        seed=5,
        options={"rounds": [3]},
        spectators_allowed=False,
    )
    finish_with_bot_moves(game)
    rematch = services.game_rematch(game_id=game.pk, user=ann)
    assert rematch.spectators_allowed is False
