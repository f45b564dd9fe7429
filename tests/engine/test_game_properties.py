"""Property tests: random complete games under random variant options (hypothesis).

Each example plays a whole game of 2-8 seats with random legal moves (a
mix of random and greedy play, so that rounds end by going out as well as
by running the stock dry) and checks at every step that no card is ever
created or lost; at every round end that the scores are those of the
rules; at the end that the game is over and that replaying the action log
and a snapshot round trip both give the same state.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from games.engine import (
    Card,
    Discard,
    Draw,
    GameState,
    GoOut,
    IllegalAction,
    Rules,
    RulesError,
    apply,
    best_arrangement,
    discard_penalties,
    game_deck,
    legal_actions,
    meld_kind,
    new_game,
    replay,
    view,
)
from games.engine.cards import JOKER, STANDARD_DECK

MAX_STEPS = 20_000
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw):
    """(rules, seat count, seed, driver seed) for a game the rules can deal."""
    small = draw(st.booleans())
    sizes = st.integers(3, 7) if small else st.integers(3, 15)
    options = dict(
        decks=draw(st.sampled_from(["auto", "auto", 1, 2, 3, 4])),
        jokers_per_deck=draw(st.sampled_from([0, 0, 1, 2])),
        rounds=tuple(draw(st.lists(sizes, min_size=1, max_size=3 if small else 2))),
        aces=draw(st.sampled_from(["low", "high_or_low"])),
        ace_points=draw(st.sampled_from([1, 15])),
        face_points=draw(st.sampled_from(["10", "11-12-13"])),
        wild_points=draw(st.sampled_from(["face", 15])),
        max_wilds_per_meld=draw(st.sampled_from([None, None, 1, 2])),
        all_wild_melds=draw(st.booleans()),
        double_royal_rounds=draw(st.booleans()),
        redemption=draw(st.booleans()),
        jokers_free=draw(st.booleans()),
        bad_go_out_penalty=draw(st.sampled_from([None, 20])),
        max_stock_rebuilds=draw(st.integers(0, 2)),
    )
    seats = draw(st.integers(2, 8))
    try:
        rules = Rules(**options)
        rules.check_seats(seats)
    except RulesError:
        assume(False)
    return rules, seats, draw(st.integers(0, 2**32)), draw(st.integers(0, 2**32))


def choose(state: GameState, rng: random.Random, greed: float):
    """A legal move for the seat to play: random, or greedy (go out, else drop the costliest card)."""
    seat = state.current_seat
    assert seat is not None, "a game that is not over has a seat to play"
    actions = legal_actions(state, seat)
    assert actions, "a seat to play always has a legal action"
    if state.phase == "discard":
        go_outs = [a for a in actions if isinstance(a, GoOut)]
        if go_outs and rng.random() < 0.9:
            return rng.choice(go_outs)
        allowed = {a.card for a in actions if isinstance(a, Discard)}
        if state.rules.bad_go_out_penalty and rng.random() < 0.05:
            return GoOut(rng.choice(sorted(allowed)))  # may fail and cost 20
        if rng.random() < greed:
            penalties = discard_penalties(state.hands[seat], state.rules, state.hand_size)
            return Discard(min(allowed, key=lambda c: (penalties[c], c.code)))
    return rng.choice(actions)


def final_hand(before: GameState, seat: int, acting: int, action) -> Counter:
    hand = Counter(before.hands[seat])
    if seat == acting and not isinstance(action, Draw):
        hand[action.card if isinstance(action, Discard) else action.discard] -= 1
    return +hand


def check_round(before: GameState, acting: int, action, result: dict, rules: Rules) -> None:
    hand_size = result["hand_size"]
    multiplier = rules.round_multiplier(hand_size)
    for seat, seat_result in enumerate(result["seats"]):
        penalty = seat_result["penalty"]
        assert seat_result["points"] >= 0 and penalty >= 0 and penalty % 20 == 0
        if seat_result["went_out"]:
            assert seat_result["points"] == penalty  # going out scores 0 (plus earlier failed go-outs)
            continue
        held = Counter(Card.from_code(c) for m in seat_result["melds"] for c in m["cards"])
        held += Counter(Card.from_code(c) for c in seat_result["deadwood"] + seat_result["laid_off"])
        best = best_arrangement(list(held.elements()), rules, hand_size).points * multiplier + penalty
        if (
            rules.redemption
            and before.settled[seat] is not None
            or (rules.redemption and seat == acting and before.went_out is not None)
        ):
            assert seat_result["points"] <= best  # redemption never costs more than keeping the hand
        else:
            assert held == final_hand(before, seat, acting, action)
            assert seat_result["points"] == best


def play_game(rules: Rules, seats: int, seed: int, driver: int):
    rng = random.Random(driver)
    greed = rng.choice([0.0, 0.5, 0.9, 1.0])
    deck = Counter(game_deck(rules, seats))
    state = new_game(rules, seats, seed)
    log, states = [], [state]
    rounds_scored = 0
    for _ in range(MAX_STEPS):
        if state.is_over:
            break
        seat = state.current_seat
        assert seat is not None, "a game that is not over has a seat to play"
        action = choose(state, rng, greed)
        before = state
        state, events = apply(state, seat, action)
        log.append((seat, action))
        states.append(state)
        assert state.card_counter() == deck  # no card created or lost, ever
        assert all(total >= 0 for total in state.scores)
        for event in events:
            json.dumps(event.to_dict())
            if event.kind == "drew" and event.data["source"] == "stock":
                assert set(event.data) == {"source"}  # a stock card is never shown
            if event.kind in ("went_out", "laid_down") and state.round_index == before.round_index:
                for table_meld in state.table:  # every meld on the table stays a valid meld
                    assert meld_kind(table_meld.meld.cards, rules, state.hand_size) is not None
            if event.kind == "round_scored":
                rounds_scored += 1
                check_round(before, seat, action, event.data, rules)
    assert state.is_over, "the game always ends"
    assert rounds_scored == len(rules.rounds) == len(state.results)
    assert state.scores == tuple(sum(r.points[s] for r in state.results) for s in range(seats))
    assert state.winners and all(state.scores[w] == min(state.scores) for w in state.winners)
    return state, log, states


@pytest.mark.slow
@SETTINGS
@given(games())
def test_random_games_conserve_cards_end_and_score_by_the_rules_and_replay_exactly(game):
    rules, seats, seed, driver = game
    final, log, states = play_game(rules, seats, seed, driver)
    assert replay(rules, seats, seed, log) == final
    assert GameState.from_dict(json.loads(json.dumps(final.to_dict()))) == final
    middle = states[len(states) // 2]
    assert GameState.from_dict(json.loads(json.dumps(middle.to_dict()))) == middle


ALL_CARDS = list(STANDARD_DECK) + [JOKER]


def random_action(rng: random.Random):
    kind = rng.randrange(4)
    if kind == 0:
        return Draw(rng.choice(["stock", "discard", "deck", ""]))  # type: ignore[list-item]
    if kind == 3:
        return rng.choice([None, "draw", {"type": "draw", "source": "stock"}, Discard("TH"), GoOut(None)])  # type: ignore[arg-type]
    card = rng.choice(ALL_CARDS)
    return Discard(card) if kind == 1 else GoOut(card)


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games(), st.integers(0, 2**32))
def test_random_actions_are_either_legal_or_raise_and_change_nothing(game, probe_seed):
    rules, seats, seed, driver = game
    _, _, states = play_game(rules, seats, seed, driver)
    rng = random.Random(probe_seed)
    for state in rng.sample(states, min(len(states), 25)):
        snapshot = state.to_dict()
        for _ in range(12):
            seat = rng.choice([*range(seats), -1, seats, None])
            action = random_action(rng)
            try:
                new_state, events = apply(state, seat, action)
            except IllegalAction as error:
                assert error.code and str(error)
                assert state.to_dict() == snapshot and GameState.from_dict(snapshot) == state
                continue
            # Accepted: it was offered, or it is a failed go-out the penalty option allows.
            offered = legal_actions(state, seat)
            assert action in offered or (
                isinstance(action, GoOut) and rules.bad_go_out_penalty and Discard(action.discard) in offered
            ), (action, offered)
            assert new_state.card_counter() == state.card_counter()
        for seat in [None, *range(seats)]:
            json.dumps(view(state, seat).to_dict())
