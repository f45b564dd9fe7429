"""Private means private: a private game is for its players and the people holding its invite link.

Game numbers are sequential, so a stranger typing ``/games/N/...`` is the
attacker here: every page about the game (table, partial, round summary,
rules, record, replay) answers the stranger 403 without a card or a name,
while the game is in play and after it ends.  Opening the invite link (a
GET is enough, no seat needed) is remembered in the session and opens the
pages that a spectator of a public game sees.  One rule decides it all:
``selectors.may_watch``.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import Client

from games import selectors, services
from games.history import records
from games.models import Game, Seat
from tests.history.conftest import finish_with_bot_moves

from .conftest import logged_in, post_action, state_fingerprint

pytestmark = pytest.mark.django_db

CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQKX][CDHSX](?![A-Za-z0-9])")
PRIVATE_REFUSAL = "This game is private"


def private_game(make_user, classic, *, spectators_allowed: bool = True, rounds=(3, 4), seed=7) -> tuple[Game, Any]:
    """An active private game of ann against a bot (the bot plays at once, so the game is ann's to move)."""
    ann = make_user("ann")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        bot_count=1,
        seed=seed,
        options={"rounds": list(rounds)},
        is_private=True,
        spectators_allowed=spectators_allowed,
    )
    assert game.status == Game.Status.ACTIVE and game.is_private and game.invite_token
    return game, ann


def game_pages(game: Game) -> list[str]:
    return [
        f"/games/{game.pk}/",
        f"/games/{game.pk}/table/",
        f"/games/{game.pk}/rules/",
        f"/games/{game.pk}/rounds/1/",
        f"/games/{game.pk}/record/",
        f"/games/{game.pk}/replay/",
        f"/games/{game.pk}/replay/?step=3",
    ]


def visible_text(response) -> str:
    return re.sub(r"<[^>]+>", " ", response.content.decode()).replace("3|13", "")


def assert_refused(client: Client, game: Game) -> None:
    for url in game_pages(game):
        response = client.get(url)
        body = response.content.decode()
        assert response.status_code == 403, url
        assert PRIVATE_REFUSAL in body, url
        assert game.variant_name not in visible_text(response), url  # not even what the game is
        assert not CARD_CODE.search(visible_text(response)), url
        assert 'id="table"' not in body and "data-socket-path" not in body, url


def test_a_stranger_typing_the_number_of_a_private_game_sees_nothing_in_play_or_after(make_user, classic):
    game, ann = private_game(make_user, classic)
    cid = logged_in(make_user("cid"))
    assert_refused(cid, game)
    # Before this change the default (others may watch) let anyone signed in in.
    assert game.spectators_allowed
    finish_with_bot_moves(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert_refused(cid, game)
    # ann, the player, sees every page of her finished game.
    for url in game_pages(game):
        assert logged_in(ann).get(url).status_code == 200, url


def test_a_forged_move_or_seat_request_from_a_stranger_shows_no_table(make_user, classic):
    game, _ann = private_game(make_user, classic)
    cid = logged_in(make_user("cid"))
    before = state_fingerprint(game)
    for response in (
        post_action(cid, game, {"type": "draw", "source": "stock"}),
        cid.post(f"/games/{game.pk}/resign/", {"confirm": "yes"}),
        cid.post(f"/games/{game.pk}/join/"),
    ):
        assert response.status_code in (403, 409)
        assert 'id="table"' not in response.content.decode()
        assert not CARD_CODE.search(visible_text(response))
    assert state_fingerprint(game) == before


def test_opening_the_invite_link_lets_that_session_watch_the_public_table(make_user, classic):
    game, ann = private_game(make_user, classic)
    cid_user = make_user("cid")
    cid = logged_in(cid_user)
    assert cid.get(f"/games/{game.pk}/").status_code == 403
    assert cid.get(game.invite_path()).status_code == 200  # a look at the invite, no seat taken
    assert not game.seats.filter(user=cid_user).exists()
    page = cid.get(f"/games/{game.pk}/")
    assert page.status_code == 200 and page.context["me"] is None and page.context["hand"] == []
    assert cid.get(f"/games/{game.pk}/table/").status_code == 200
    assert cid.get(f"/games/{game.pk}/rules/").status_code == 200
    # Another session of the same person has not opened the link: still refused.
    assert logged_in(cid_user).get(f"/games/{game.pk}/").status_code == 403
    finish_with_bot_moves(game)
    for url in game_pages(game):
        assert cid.get(url).status_code == 200, url


def test_a_wrong_token_or_another_games_token_opens_nothing(make_user, classic):
    game, ann = private_game(make_user, classic)
    other = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, is_private=True)
    cid = logged_in(make_user("cid"))
    for url in (
        f"/games/{game.pk}/invite/{game.invite_token[:-1]}x/",
        f"/games/{game.pk}/invite/{other.invite_token}/",
        f"/games/{game.pk}/invite/%20/",
    ):
        assert cid.get(url).status_code == 404, url
    assert selectors.invited_game_ids(cid.session) == []
    assert cid.get(f"/games/{game.pk}/").status_code == 403
    # The right token of the other game opens that game only.
    assert cid.get(other.invite_path()).status_code == 200
    assert cid.get(f"/games/{other.pk}/").status_code == 200
    assert cid.get(f"/games/{game.pk}/").status_code == 403


def test_an_invite_opened_before_logging_in_is_kept_and_logging_out_forgets_it(make_user, classic):
    game, _ann = private_game(make_user, classic)
    make_user("cid")
    browser = Client()
    assert browser.get(game.invite_path()).status_code == 200
    assert browser.get(f"/games/{game.pk}/").status_code == 302  # signed out: to the log-in page
    log_in = {"username": "cid", "password": "a-long-pass-phrase-42"}  # through the form, as a person does
    assert browser.post("/accounts/login/", log_in).status_code == 302
    assert browser.get(f"/games/{game.pk}/").status_code == 200
    browser.post("/accounts/logout/")
    assert browser.post("/accounts/login/", log_in).status_code == 302
    assert browser.get(f"/games/{game.pk}/").status_code == 403


def test_a_private_players_only_game_is_for_its_players_once_it_starts_even_with_the_link(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, is_private=True, spectators_allowed=False, seed=3
    )
    cid_client = logged_in(cid)
    assert cid_client.get(f"/games/{game.pk}/").status_code == 403
    assert cid_client.get(game.invite_path()).status_code == 200
    assert cid_client.get(f"/games/{game.pk}/").status_code == 200  # looking before taking a seat
    bob_client = logged_in(bob)
    assert bob_client.post(game.invite_path()).status_code == 302
    assert cid_client.post(game.invite_path()).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert cid_client.get(f"/games/{game.pk}/").status_code == 200  # seated now
    dan = logged_in(make_user("dan"))
    assert dan.get(game.invite_path()).status_code == 200
    refused = dan.get(f"/games/{game.pk}/")
    assert refused.status_code == 403 and PRIVATE_REFUSAL in refused.content.decode()


def test_a_players_seat_taken_over_by_a_bot_still_opens_the_game(make_user, classic):
    game, ann = private_game(make_user, classic)
    assert logged_in(ann).post(f"/games/{game.pk}/resign/", {"confirm": "yes"}).status_code == 302
    assert Seat.objects.get(game=game, user=ann).bot_level
    assert logged_in(ann).get(f"/games/{game.pk}/").status_code == 200


def test_the_rules_of_a_game_follow_its_table_and_the_general_rules_stay_open(make_user, classic):
    game, _ann = private_game(make_user, classic)
    assert Client().get(f"/games/{game.pk}/rules/").status_code == 302
    assert Client().get("/rules/").status_code == 200
    assert logged_in(make_user("cid")).get(f"/games/{game.pk}/rules/").status_code == 403
    assert logged_in(make_user("dan")).get("/games/999999/rules/").status_code == 404
    public = services.game_create(creator=make_user("eve"), variant=classic, seat_count=2, bot_count=1)
    assert logged_in(make_user("fay")).get(f"/games/{public.pk}/rules/").status_code == 200


def test_the_session_keeps_a_bounded_list_of_game_ids_and_ignores_junk():
    session: dict[str, Any] = {}
    for game_id in range(1, selectors.INVITES_REMEMBERED + 11):
        selectors.remember_invite(session, game_id)
    held = selectors.invited_game_ids(session)
    assert len(held) == selectors.INVITES_REMEMBERED and held[-1] == selectors.INVITES_REMEMBERED + 10
    assert not selectors.holds_invite(session, 1) and selectors.holds_invite(session, 11)
    selectors.remember_invite(session, 11)  # again: moved to the end, not doubled
    assert selectors.invited_game_ids(session).count(11) == 1 and selectors.invited_game_ids(session)[-1] == 11
    for junk in ("1,2", {"1": True}, [True, "2", None, 3.0], None):
        assert selectors.invited_game_ids({selectors.INVITES_SESSION_KEY: junk}) == []
    assert selectors.invited_game_ids(None) == []


@pytest.mark.parametrize(
    "is_private, spectators_allowed, seated, invited", list(itertools.product([False, True], repeat=4))
)
def test_the_history_lists_rule_is_the_tables_rule_for_finished_games(
    make_user, classic, is_private, spectators_allowed, seated, invited
):
    """``records.visible_to`` (history, stats) and ``selectors.may_watch`` (every page) agree."""
    ann, cid = make_user("ann"), make_user("cid")
    invitees = [cid] if seated else []
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=3 if seated else 2,
        bot_count=1,
        invitees=invitees,
        options={"rounds": [3]},
        is_private=is_private,
        spectators_allowed=spectators_allowed,
        seed=2,
    )
    finish_with_bot_moves(game)
    game.refresh_from_db()
    ids = [game.pk] if invited else []
    listed = (
        Seat.objects.filter(game=game, user=ann).filter(records.visible_to(cid, ann, ids)).exists()
    )  # cid looking at ann's games
    watchable = selectors.may_watch(game=game, user=cid, invited=invited)
    assert listed == watchable
    assert watchable == (seated or (spectators_allowed and (invited or not is_private)))
    assert not selectors.may_watch(game=game, user=AnonymousUser(), invited=True)
