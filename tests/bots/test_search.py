"""The search's parts: determinizations consistent with a seat's view, rollouts, candidate evaluation."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.bots import choose_action
from games.bots.hard import Memory
from games.bots.rollout import evaluate, evaluate_samples, play_out, rollout
from games.bots.sampling import Knowledge, sample_state
from games.engine import Card, Discard, Draw, GameState, Rules, apply, deal_event, game_deck, new_game, view

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


#: Far more moves than the longest game these variants deal (two rounds, up to 5 seats and 3 stock rebuilds).
MOVES_AT_MOST = 3000


def played(rules: Rules, seats: int, seed: int, level: str = "medium"):
    """Every position of a game the bots play, with the round's public history (from its deal on)."""
    state = new_game(rules, seats, seed)
    history: list[dict] = [deal_event(state).to_dict()]  # the first deal has no event of its own
    moves = 0
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        # A round the bots never end fails here rather than running CI out of time (it once did).
        assert moves < MOVES_AT_MOST, f"the bots did not end a game of {rules.rounds} rounds in {moves} moves"
        moves += 1
        yield state, list(history)
        state, events = apply(state, seat, choose_action(view(state, seat), level, history))
        for event in events:
            if event.kind == "round_dealt":
                history = []
            history.append(event.to_dict())


@st.composite
def variants(draw):
    options = dict(
        decks=draw(st.sampled_from(["auto", 1, 2])),
        jokers_per_deck=draw(st.sampled_from([0, 2])),
        rounds=[draw(st.integers(3, 9)), draw(st.sampled_from([10, 13]))],
        redemption=draw(st.booleans()),
        bad_go_out_penalty=draw(st.sampled_from([None, 20])),
        max_stock_rebuilds=draw(st.sampled_from([0, 3])),
    )
    seats = draw(st.integers(2, 5))
    rules = Rules.from_dict(options)
    if rules.deck_count(seats) * 52 < seats * 14 + 2:
        rules = Rules.from_dict({**options, "decks": "auto"})
    return rules, seats, draw(st.integers(0, 10_000))


@SETTINGS
@given(variants())
def test_a_sampled_state_is_consistent_with_everything_the_seat_knows(variant):
    """Same view for the seat, every card once, known cards where they are, hidden cards moved around."""
    rules, seats, seed = variant
    rng = random.Random(seed)
    differs = 0
    for state, history in played(rules, seats, seed):
        seat = state.current_seat
        seen = view(state, seat)
        knowledge = Knowledge(seen, history)
        sampled = knowledge.sample(rng)
        assert view(sampled, seat) == seen
        assert sampled.card_counter() == Counter(game_deck(rules, seats))
        assert sampled.hands[seat] == state.hands[seat]
        assert [len(h) for h in sampled.hands] == [len(h) for h in state.hands]
        assert sampled.discard_pile[len(sampled.discard_pile) - len(knowledge.pile) :] == knowledge.pile
        assert state.discard_pile[len(state.discard_pile) - len(knowledge.pile) :] == knowledge.pile
        for other in range(seats):
            # what the seat knows another holds is really there, and stays there in every sample
            assert not Counter(knowledge.held[other]) - Counter(state.hands[other])
            assert not Counter(knowledge.held[other]) - Counter(sampled.hands[other])
        if knowledge.rebuilt is not None:
            assert not Counter(state.stock) - knowledge.rebuilt
            assert not Counter(sampled.stock) - knowledge.rebuilt
        assert [s is None for s in sampled.settled] == [s is None for s in state.settled]
        assert sampled.penalties == state.penalties
        assert GameState.from_dict(sampled.to_dict()) == sampled  # a state the engine accepts
        differs += sampled.hands != state.hands or sampled.stock != state.stock
    assert differs


def test_what_others_took_from_the_pile_stays_in_their_hands_until_they_give_it_back():
    rules = Rules.from_dict({"rounds": [3, 9]})
    seen_held = 0
    rounds_seen = set()
    for state, history in played(rules, 4, 7, level="hard"):
        rounds_seen.add(state.round_index)
        knowledge = Knowledge(view(state, state.current_seat), history)
        assert knowledge.pile == state.discard_pile  # the whole pile is known
        for seat, cards in enumerate(knowledge.held):
            for sample in range(3):
                assert not Counter(cards) - Counter(knowledge.sample(random.Random(sample)).hands[seat])
            seen_held += len(cards)
    assert seen_held > 5 and rounds_seen == {0, 1}  # the first round too: its history starts at its deal


def test_a_stock_rebuilt_in_the_first_round_holds_its_up_card_and_the_bots_know_it():
    """The first round is dealt by ``new_game``, with no event: its history starts with ``deal_event``.
    Without it, the first up-card, buried in the pile, went into a rebuilt stock the bots thought held
    only the cards they had seen discarded (found by hypothesis: 3 seats, seed 2783)."""
    rules = Rules.from_dict(
        {"decks": 1, "jokers_per_deck": 0, "rounds": [5, 10], "redemption": False, "max_stock_rebuilds": 3}
    )
    first_up_card = new_game(rules, 3, 2783).discard_pile[-1]
    rebuilt_checked = 0
    for state, history in played(rules, 3, 2783):
        if state.round_index or not state.rebuilds:
            continue
        knowledge = Knowledge(view(state, state.current_seat), history)
        assert knowledge.rebuilt is not None
        assert not Counter(state.stock) - knowledge.rebuilt
        rebuilt_checked += first_up_card in state.stock
    assert rebuilt_checked  # the up-card went into the rebuilt stock, where the bots look for it


def test_sampling_is_reproducible_from_the_generator_and_refuses_what_it_cannot_sample():
    state = new_game(Rules.from_dict({"rounds": [7]}), 3, 5)
    seen = view(state, state.current_seat)
    assert sample_state(seen, [], random.Random(3)) == sample_state(seen, [], random.Random(3))
    assert sample_state(seen, [], random.Random(3)) != sample_state(seen, [], random.Random(4))
    with pytest.raises(ValueError, match="spectator"):
        Knowledge(view(state, None))
    over = replace(state, phase="game_over", current_seat=None)
    with pytest.raises(ValueError, match="over"):
        Knowledge(view(over, 0))
    lying = replace(seen, hand_counts=tuple(n + 1 for n in seen.hand_counts))
    with pytest.raises(ValueError, match="add up"):
        Knowledge(lying)


@pytest.mark.parametrize("policy", ["hard", "medium"])
def test_a_rollout_plays_the_round_exactly_as_the_bots_would(policy):
    """Played out from the real state, a rollout ends the round with the points the bots really score."""
    rules = Rules.from_dict({"rounds": [4, 8]})
    checked = 0
    for state, history in played(rules, 3, 2, level=policy):
        if state.round_index == 1 and state.move_count % 5 == 0:
            taken = Memory(view(state, state.current_seat), history).taken
            real = state
            while len(real.results) == 1:
                seat = real.current_seat
                action = choose_action(view(real, seat), policy, [*history])
                real, events = apply(real, seat, action)
                history += [e.to_dict() for e in events]
            assert play_out(state, policy, taken) == real.results[1].points
            checked += 1
    assert checked >= 3


def test_a_rollout_of_the_move_that_ends_the_round_scores_that_round():
    rules = Rules.from_dict({"rounds": [3]})
    for state, _ in played(rules, 2, 3):
        seen = view(state, state.current_seat)
        go_outs = [a for a in seen.legal_actions if type(a).__name__ == "GoOut"]
        if go_outs:
            after, _ = apply(state, state.current_seat, go_outs[0])
            points = rollout(state, go_outs[0])
            assert points[state.current_seat] == 0 and len(points) == 2
            assert points == play_out(after, results=0)
            return
    pytest.fail("no one went out")  # pragma: no cover


def test_evaluate_gives_every_candidate_the_same_samples_and_is_reproducible():
    rules = Rules.from_dict({"rounds": [5]})
    state = new_game(rules, 3, 9)
    seat = state.current_seat
    state, _ = apply(state, seat, Draw("stock"))
    seen = view(state, seat)
    discards = [a for a in seen.legal_actions if isinstance(a, Discard)]
    first = discards[0]
    rows = evaluate_samples(seen, [], [first, discards[1], first], random.Random(1), 4)
    assert len(rows) == 3 and all(len(row) == 4 for row in rows)
    assert rows[0] == rows[2]  # same samples, deterministic rollouts
    assert evaluate(seen, [], discards, random.Random(1), 3) == evaluate(seen, [], discards, random.Random(1), 3)
    with pytest.raises(ValueError, match="not legal"):
        evaluate(seen, [], [Draw("stock")], random.Random(1), 2)
    with pytest.raises(ValueError, match="not legal"):
        evaluate(seen, [], [Discard(Card.from_code("XX"))], random.Random(1), 2)
    with pytest.raises(ValueError, match="in turn"):
        evaluate(view(state, (seat + 1) % 3), [], discards, random.Random(1), 2)


def test_the_solver_answers_kept_by_rollouts_stay_bounded_in_all(monkeypatch):
    """A server process plays rollouts for days: the answers kept, over every rules and hand size, stay bounded."""
    from games.bots import rollout

    monkeypatch.setattr(rollout, "_SOLVED", {})
    monkeypatch.setattr(rollout, "_SOLVED_LIMIT", 50)
    rules = Rules()
    deck = list(game_deck(rules, 2))
    for size in range(3, 14):
        kept = rollout.solver_answers(rules, size)
        for i in range(20):
            kept.arranged[tuple(deck[i : i + size])] = (0, ())
        total = sum(len(s.arranged) + len(s.outs) for s in rollout._SOLVED.values())
        assert total <= 50 + 20  # past the limit, the next call forgets everything kept
