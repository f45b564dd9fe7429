"""Whole games played through the pages, as a browser without JavaScript would."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import bots, services
from games.engine import GameState, Rules, action_from_dict, replay
from games.models import Game, RoundResult

from .conftest import CARD_ATTR, engine_view, logged_in, post_action

pytestmark = pytest.mark.django_db


def _play_to_the_end(game: Game, clients: dict[int, Client], check_page=None) -> int:
    """Each person posts what the bot would choose; returns the number of posts."""
    posts = 0
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return posts
        seat = game.current_seat
        assert seat is not None
        client = clients[seat]
        page = client.get(f"/games/{game.pk}/")
        assert page.status_code == 200
        if check_page is not None:
            check_page(game, seat, page.content.decode())
        action = bots.choose_action(engine_view(game, seat)).to_dict()
        response = post_action(client, game, action)
        assert response.status_code == 302, response.content.decode()[:2000]
        posts += 1
        assert posts < 5000


def _assert_replay_matches(game: Game) -> None:
    game.refresh_from_db()
    moves = list(game.moves.order_by("seq"))
    assert [m.seq for m in moves] == list(range(1, len(moves) + 1))
    state = replay(
        Rules.from_dict(game.rules),
        game.seat_count,
        game.engine_shuffle(),
        [(m.seat, action_from_dict(m.action)) for m in moves],
    )
    assert state.to_dict() == game.state


def _two_player_game(make_user, classic, rounds=None, seed=11) -> tuple[Game, dict]:
    ann, bob = make_user("ann"), make_user("bob")
    options = {"rounds": rounds} if rounds else None
    game = services.game_create(creator=ann, variant=classic, seat_count=2, options=options, seed=seed)
    ann_client, bob_client = logged_in(ann), logged_in(bob)
    response = bob_client.post(f"/games/{game.pk}/join/")
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game, {0: ann_client, 1: bob_client}


def test_two_people_play_a_short_classic_game_to_the_end(make_user, classic):
    game, clients = _two_player_game(make_user, classic, rounds=[3, 4, 5])
    _play_to_the_end(game, clients)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.finished_at is not None
    assert RoundResult.objects.filter(game=game).count() == 3 * 2
    totals = {s.position: s.total_score for s in game.seats.all()}
    per_round = {p: sum(r.points for r in game.round_results.filter(seat=p)) for p in totals}
    assert totals == per_round
    page = clients[0].get(f"/games/{game.pk}/").content.decode()
    assert "Final standings" in page
    assert "ann" in page and "bob" in page
    assert 'class="player-cards"' not in page  # the hands are laid out below: no stale "5 cards" per player
    _assert_replay_matches(game)


@pytest.mark.slow
def test_two_people_play_the_full_classic_eleven_rounds(make_user, classic):
    game, clients = _two_player_game(make_user, classic, seed=5)
    posts = _play_to_the_end(game, clients)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.round_results.values("round_number").distinct().count() == 11
    assert posts == game.moves.count()
    _assert_replay_matches(game)


def test_a_person_plays_a_full_game_against_three_bots(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=4, bot_count=3, options={"rounds": [3, 4, 5, 6]}, seed=3, coach=True
    )
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert [s.is_bot for s in game.seats.order_by("position")] == [False, True, True, True]
    _play_to_the_end(game, {0: logged_in(ann)})
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.moves.filter(by_bot=True).exists() and game.moves.filter(by_bot=False).exists()
    assert not game.moves.filter(by_bot=False).exclude(seat=0).exists()
    _assert_replay_matches(game)


def test_bots_play_their_turns_right_after_the_move_that_hands_them_the_turn(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, bot_count=2, seed=8)
    client = logged_in(ann)
    for _ in range(6):
        game.refresh_from_db()
        assert game.current_seat == 0  # whenever the page is served, it is the person's turn
        action = bots.choose_action(engine_view(game, 0)).to_dict()
        assert post_action(client, game, action).status_code == 302


def test_a_move_posted_by_the_pages_script_is_answered_with_the_table_alone(make_user, classic):
    """live.js swaps in the table only: its move is answered with the table partial at once (no redirect,
    no second request), showing the mover's hand and no card of the other hand; a plain form is redirected."""
    game, clients = _two_player_game(make_user, classic, rounds=[3])
    ann, draw = clients[0], {"type": "draw", "source": "stock"}
    response = ann.post(f"/games/{game.pk}/play/", {"version": game.version, **draw}, HTTP_X_REQUESTED_WITH="fetch")
    game.refresh_from_db()
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<div id="table"')
    assert f'data-version="{game.version}"' in html and "<html" not in html
    state = GameState.from_dict(game.state)
    shown = set(CARD_ATTR.findall(html))
    assert {c.code for c in state.hands[0]} <= shown
    hidden = {c.code for c in state.hands[1]} - {c.code for c in state.hands[0]} - {state.top_discard.code}
    assert not hidden & shown
    action = bots.choose_action(engine_view(game, 0)).to_dict()
    response = post_action(ann, game, action)
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    # Her script posting again out of turn is refused with the page, and nothing moves.
    game.refresh_from_db()
    before = game.version
    refused = ann.post(f"/games/{game.pk}/play/", {"version": before, **draw}, HTTP_X_REQUESTED_WITH="fetch")
    game.refresh_from_db()
    assert refused.status_code == 409 and game.version == before


@pytest.mark.slow
def test_the_html_served_to_a_seat_never_holds_another_seats_cards(make_user, classic):
    """During a round, no page served to a seat shows a card only another seat holds.

    Public cards are allowed: every card that lay face up on the discard pile
    this round (some are taken back into a hand later) and the melds laid
    down by a player who went out.  Both players' pages (and the table
    partial that live updates fetch) are checked before every move, so every
    top discard of the round is seen.  When a round ends, both players move on
    from its summary at once ("Next deal"): the summary shows the finished
    round's hands, whose codes this presence check cannot tell from the new
    deal's; the leak sweep (tests/web/test_leak_sweep.py) counts those copies.
    """
    game, clients = _two_player_game(make_user, classic, rounds=[3, 4, 5, 6, 7], seed=21)
    public: set[str] = set()
    seen = {"round": None, "pages": 0}

    def check_seat(seat: int) -> None:
        v = engine_view(game, seat).to_dict()
        state = GameState.from_dict(game.state)
        mine = {c.code for c in state.hands[seat]}
        for url in (f"/games/{game.pk}/", f"/games/{game.pk}/table/"):
            html = clients[seat].get(url).content.decode()
            for other in range(game.seat_count):
                if other == seat:
                    continue
                secret = {c.code for c in state.hands[other]} - public - mine
                leaked = secret & set(CARD_ATTR.findall(html))
                assert not leaked, f"seat {seat} is shown {leaked} from seat {other}'s hand"
                for code in secret:
                    assert not re.search(rf"\b{code}\b", html), f"seat {seat}'s page names {code}"
            seen["pages"] += 1
        assert v["hand"] is not None

    def check(game_: Game, seat: int, html: str) -> None:
        v = engine_view(game, None).to_dict()
        if v["round"] != seen["round"]:
            seen["round"] = v["round"]
            public.clear()
            if v["results"]:
                for client in clients.values():
                    moved_on = client.post(f"/games/{game.pk}/rounds/{len(v['results'])}/seen/")
                    assert moved_on.status_code == 302
        if v["discard_top"]:
            public.add(v["discard_top"])
        for meld in v["table_melds"]:
            public.update(meld["cards"])
        for position in range(game.seat_count):
            check_seat(position)

    _play_to_the_end(game, clients, check_page=check)
    assert seen["pages"] > 100


def test_the_players_are_a_list_that_says_whose_turn_it_is(make_user, classic):
    """A screen reader says each player apart, and the one to play as "current" (an accessibility tester heard
    the whole region as one run-on line, and whose turn it was only as a coloured border)."""
    game, clients = _two_player_game(make_user, classic, rounds=[3])
    page = clients[0].get(f"/games/{game.pk}/").content.decode()
    players = re.search(r'<ul class="players"[^>]*>(.*?)</ul>', page, re.S).group(1)
    items = re.findall(r'<li class="player[^"]*"([^>]*)>(.*?)</li>', players, re.S)
    assert len(items) == 2
    current = [re.sub(r"<[^>]+>|\s+", " ", body).split()[0] for attrs, body in items if 'aria-current="true"' in attrs]
    assert current == [game.seats.get(position=game.current_seat).user.username]
