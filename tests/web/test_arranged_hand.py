"""The player's own hand arranged into its best melds (issue 13, point 2): the engine's
arrangement of their own hand, with the points of what is left over, instead of their
own order; chosen with a link (no JavaScript), kept in the session so that the table
partial that live updates fetch keeps it, and never a card of anyone else's hand."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import pytest

from games import bots, services
from games.engine import GameState, best_arrangement, parse_cards, view
from games.models import Game
from tests.engine.positions import redemption_last_turn
from tests.leaks import card_marks, find_leaks, secrets_of

from .conftest import engine_view, logged_in, post_action

pytestmark = pytest.mark.django_db

#: RULES.md's worked example: 13-card round, Kings wild; best melds AH 2H 3H, 9D 9C 9H, JD QD KC; 24 left over.
EXAMPLE = "AH 2H 3H 4S 5S KC 9D 9C 9H JD QD 8C 7S"


def deal_hand(game: Game, seat: int, codes: str) -> None:
    """Give ``seat`` exactly these cards, swapping them with the stock and the other hands (no card is
    created or lost: the engine's snapshot check counts them)."""
    game.refresh_from_db()
    assert game.state is not None
    state = GameState.from_dict(game.state)
    hands = [list(hand) for hand in state.hands]
    stock = list(state.stock)
    wanted = list(parse_cards(codes))
    assert len(wanted) == len(hands[seat])
    spare = list((Counter(hands[seat]) - Counter(wanted)).elements())
    for card in (Counter(wanted) - Counter(hands[seat])).elements():
        give = spare.pop()
        for place in [stock] + [hand for position, hand in enumerate(hands) if position != seat]:
            if card in place:
                place[place.index(card)] = give
                break
        else:
            raise AssertionError(f"{card.code} is on the discard pile: pick another seed")
    hands[seat] = wanted
    state = replace(state, hands=tuple(tuple(hand) for hand in hands), stock=tuple(stock))
    game.state = GameState.from_dict(state.to_dict()).to_dict()  # the snapshot check: every card still there
    game.save(update_fields=["state"])


@pytest.fixture
def kings_wild(make_user, classic):
    """ann (seat 0, to play) against a bot in one 13-card round, holding RULES.md's example hand."""
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, seed=3, options={"rounds": [13]}
    )
    game.refresh_from_db()
    assert game.current_seat == 0
    deal_hand(game, 0, EXAMPLE)
    return game, ann


def codes_of(faces: list[dict]) -> list[str]:
    return [face["code"] for face in faces]


def test_the_hand_is_shown_in_the_engines_best_melds_with_the_points_left_over(kings_wild):
    game, ann = kings_wild
    client = logged_in(ann)
    response = client.get(f"/games/{game.pk}/?hand=melds")
    arranged = response.context["arranged"]
    best = best_arrangement(EXAMPLE, GameState.from_dict(game.state).rules, 13)
    assert [codes_of(meld["cards"]) for meld in arranged["melds"]] == [meld.codes for meld in best.melds]
    assert sorted(map(sorted, (codes_of(m["cards"]) for m in arranged["melds"]))) == sorted(
        [sorted(["AH", "2H", "3H"]), sorted(["9D", "9C", "9H"]), sorted(["JD", "QD", "KC"])]
    )
    assert sorted(codes_of(arranged["deadwood"])) == sorted(["4S", "5S", "8C", "7S"])
    assert arranged["points"] == 24 and not arranged["doubled"]
    html = response.content.decode()
    assert "Left over: <strong>24 points</strong>" in html
    # Each meld a group named set or run; the wild King is marked wild inside its meld.
    section = html.split("data-hand-melds", 1)[1].split('class="arranged-points"', 1)[0]
    assert section.count('role="group"') == 4  # three melds and what is left over
    assert re.search(r'aria-label="run".*?data-card="KC"[^>]*title="king of clubs \(wild\)"', section, re.S)
    assert section.count('class="card-wild"') == 1
    # Every card of the hand exactly once, nothing else: the own-order hand is not rendered beside it.
    assert card_marks(section)[0] == Counter(EXAMPLE.split())
    assert "data-hand>" not in html and "data-hand " not in html
    assert "data-arrange-tools" not in html  # the own order's tools belong to the own order


def test_points_left_over_count_as_the_round_would_score_them(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        bot_count=1,
        seed=3,
        options={"rounds": [13], "double_royal_rounds": True},
    )
    deal_hand(game, 0, EXAMPLE)
    response = logged_in(ann).get(f"/games/{game.pk}/?hand=melds")
    assert response.context["arranged"]["points"] == 48 and response.context["arranged"]["doubled"]
    assert "(doubled this round)" in response.content.decode()


def test_the_choice_stays_in_the_session_for_the_partial_that_live_updates_fetch(kings_wild):
    game, ann = kings_wild
    client = logged_in(ann)
    assert client.get(f"/games/{game.pk}/").context["arranged"] is None  # own order by default
    client.get(f"/games/{game.pk}/?hand=melds")
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/table/", f"/games/{game.pk}/?hand=nonsense"):
        response = client.get(url)
        assert response.context["arranged"]["points"] == 24, url
        assert 'href="?hand=own"' in response.content.decode()
    back = client.get(f"/games/{game.pk}/table/?hand=own")
    assert back.context["arranged"] is None and "data-hand>" in back.content.decode()
    assert client.get(f"/games/{game.pk}/table/").context["arranged"] is None
    # The sort of the own order is untouched by the choice (and comes back with it).
    client.get(f"/games/{game.pk}/?sort=rank")
    client.get(f"/games/{game.pk}/?hand=melds")
    assert client.get(f"/games/{game.pk}/?hand=own").context["sort"] == "rank"


def test_the_arrangement_follows_every_draw_and_discards_from_its_groups(kings_wild):
    game, ann = kings_wild
    client = logged_in(ann)
    client.get(f"/games/{game.pk}/?hand=melds")
    assert post_action(client, game, {"type": "draw", "source": "stock"}).status_code == 302
    v = engine_view(game, 0)
    assert len(v.hand) == 14
    page = client.get(f"/games/{game.pk}/table/")
    arranged = page.context["arranged"]
    shown = [c for m in arranged["melds"] for c in codes_of(m["cards"])] + codes_of(arranged["deadwood"])
    assert Counter(shown) == Counter(c.code for c in v.hand)
    assert arranged["points"] == best_arrangement(v.hand, v.rules, 13).points
    # Time to discard: the cards in the groups are the discard buttons, exactly the legal discards.
    html = page.content.decode()
    form = html.split("data-hand-melds", 1)[1].split("</form>", 1)[0]
    offered = set(re.findall(r'name="card" value="(\w\w)"(?![^>]*disabled)', form))
    assert offered == {a["card"] for a in v.to_dict()["legal_actions"] if a["type"] == "discard"}
    card = sorted(offered)[0]
    assert post_action(client, game, {"type": "discard", "card": card}).status_code == 302
    assert game.moves.filter(seat=0).order_by("-seq").first().action == {"type": "discard", "card": card}


def test_the_coachs_numbers_stay_optional_and_show_under_the_arranged_cards(make_user, classic):
    ann = make_user("ann")
    for coach in (False, True):
        game = services.game_create(
            creator=ann, variant=classic, seat_count=2, bot_count=1, seed=3, coach=coach, options={"rounds": [13]}
        )
        client = logged_in(ann)
        client.get(f"/games/{game.pk}/?hand=melds")
        post_action(client, game, {"type": "draw", "source": "stock"})
        html = client.get(f"/games/{game.pk}/").content.decode()
        section = html.split("data-hand-melds", 1)[1].split('class="arranged-points"', 1)[0]
        assert (section.count('<span class="coach') == 14) is coach


def test_the_arranged_view_shows_no_other_hand_to_a_player_a_watcher_or_a_stranger(make_user, classic, role_client):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, invitees=[bob], bot_count=1, seed=9)
    watcher_client, _ = role_client("user", "watcher")
    moderator_client, _ = role_client("moderator")
    parties = [(logged_in(ann), 0), (logged_in(bob), 1), (watcher_client, None), (moderator_client, None)]
    for step in range(6):
        game.refresh_from_db()
        state = GameState.from_dict(game.state)
        events = [event for events in game.moves.values_list("events", flat=True) for event in events]
        for client, seat in parties:
            for url in (f"/games/{game.pk}/?hand=melds", f"/games/{game.pk}/table/"):
                response = client.get(url)
                assert response.status_code == 200
                html = response.content.decode()
                assert find_leaks(html, secrets_of(state, seat, events=events)) == [], (seat, url)
                arranged = response.context["arranged"]
                if seat is None:
                    assert arranged is None and "data-hand-melds" not in html
                else:
                    shown = [c for m in arranged["melds"] for c in codes_of(m["cards"])]
                    shown += codes_of(arranged["deadwood"])
                    assert Counter(shown) == Counter(c.code for c in state.hands[seat])
        seat = game.current_seat
        client = parties[seat][0]
        assert post_action(client, game, bots.choose_action(view(state, seat)).to_dict()).status_code == 302, step


def test_in_a_redemption_last_turn_the_coach_counts_what_the_table_takes(make_user, classic):
    """Found by a tester: in a redemption game's last turn the coach's numbers scored the hand alone: with
    K♣ K♦ K♥ on the table and K♠ 9♦ 2♣ 7♦ in hand it said throwing the King leaves 18 and the 9 leaves 19,
    when the table takes the King and throwing the 9 leaves 9."""
    ann = make_user("ann")
    options = {"rounds": [3], "redemption": True}
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, seed=3, coach=True, options=options
    )
    game.refresh_from_db()
    state = redemption_last_turn(GameState.from_dict(game.state))
    game.state, game.current_seat = state.to_dict(), 0
    game.save(update_fields=["state", "current_seat"])
    hand = logged_in(ann).get(f"/games/{game.pk}/").context["hand"]
    coach = {face["code"]: face["penalty"] for face in hand}
    assert coach == {"KS": 18, "9D": 9, "2C": 16, "7D": 11}
    assert [face["code"] for face in hand if face["best"]] == ["9D"]
