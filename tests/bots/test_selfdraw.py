"""Self-draw deals: the expert's measure of a hand by the end of the round."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from games.bots.position import Position
from games.bots.rollout import Solved
from games.bots.sampling import Knowledge
from games.bots.selfdraw import HELD_POINTS, ROUND_ENDS, SelfDraws, held_points, last_turn_chance, round_turns
from games.engine import (
    JOKER,
    PRESETS,
    STANDARD_DECK,
    Card,
    Rules,
    best_arrangement,
    discard_penalties,
    go_out_discards,
    parse_cards,
    view,
)

from ..engine.test_melds import ALL_CARDS, RULE_CHOICES, small_hands
from .test_search import played

ROOT = Path(__file__).resolve().parents[2]


def own_points(*args, **kwargs) -> SelfDraws:
    """Deals measured by the hand's own points alone: no tempo."""
    return SelfDraws(*args, tempo=0.0, **kwargs)


def _positions(size: int, seed: int):
    """A seat's positions in a four-player round of ``size`` cards, with the round's history."""
    for state, history in played(Rules.from_dict({"rounds": [size]}), 4, seed, level="hard"):
        yield view(state, state.current_seat), history


def test_deals_draw_only_cards_the_seat_has_not_seen():
    checked = 0
    for seen, history in list(_positions(7, 1)):
        unseen = Knowledge(seen, history).unseen
        deals = own_points(Position(seen), history, random.Random(checked), 20, 6)
        for turns, drawn in deals.deals:
            assert 1 <= turns <= 6 and len(drawn) == turns + 1
            assert not Counter(drawn) - unseen  # never a card of its hand, the table, the known pile or held
        checked += 1
    assert checked > 10


def test_each_coming_turn_is_the_last_with_the_measured_chance():
    """Late in a round the deals play fewer turns, as the table of round ends says."""
    seen, history = next(
        (seen, history)
        for seed in range(1, 20)
        for seen, history in _positions(9, seed)
        if not seen.final_lap and len(history) >= 20
    )
    turns = round_turns(history, 4)
    assert turns == sum(1 for e in history if e["kind"] in ("drew", "discarded", "went_out")) // 8 > 0
    deals = own_points(Position(seen), history, random.Random(1), 4000, 10)
    lengths = Counter(count for count, _ in deals.deals)
    first = last_turn_chance(9, turns + 1)
    second = (1 - first) * last_turn_chance(9, turns + 2)
    assert abs(lengths[1] / 4000 - first) < 0.03 and abs(lengths[2] / 4000 - second) < 0.03
    assert max(lengths) <= 10
    assert last_turn_chance(9, 100) == ROUND_ENDS[9][-1] and 0 < last_turn_chance(30, 0) < 1  # past the table


def test_a_hand_that_goes_out_scores_nothing_and_one_that_does_not_throws_its_highest_leftover_card():
    seen, history = next(_positions(3, 3))
    deals = own_points(Position(seen), history, random.Random(1), 1, 1)
    hand = parse_cards("7H 7S KC")
    assert deals.play(hand, parse_cards("7D"), 1) == 0.0  # 7-7-7 melded, the king thrown: out
    assert deals.play(hand, parse_cards("2C"), 1) == 16.0  # nothing melds: the king goes, 2 + 7 + 7 stay
    assert deals.play(hand, parse_cards("2C 7D"), 2) == 0.0  # out a turn later
    assert deals.play(hand, parse_cards("2C 7D"), 1) == 16.0  # the round ended first
    assert deals.play(hand, parse_cards("3D"), 1) == 0.0  # threes are wild in the 3-card round


def test_with_tempo_going_out_sooner_is_worth_what_the_others_are_left_holding():
    seen, history = next(_positions(3, 3))
    pos, turns = Position(seen), round_turns(history, 4)
    rushed = SelfDraws(pos, history, random.Random(1), 1, 1, tempo=1.0)
    half = SelfDraws(pos, history, random.Random(1), 1, 1, tempo=0.5)
    hand = parse_cards("7H 7S KC")
    # Out at the next turn, before the round's end: each of the three others plays one turn more and scores it.
    assert rushed.play(hand, parse_cards("7D 2C"), 2) == -held_points(3, turns + 2)
    assert half.play(hand, parse_cards("7D 2C"), 2) == -0.5 * held_points(3, turns + 2)
    # The deal's last turn comes after another seat went out: that one scores nothing, going out or not.
    assert rushed.play(hand, parse_cards("7D"), 1) == -held_points(3, turns + 2) * 2 / 3
    assert rushed.play(hand, parse_cards("2C 7D"), 2) == -held_points(3, turns + 3) * 2 / 3
    assert rushed.play(hand, parse_cards("2C"), 1) == 16.0 - held_points(3, turns + 2) * 2 / 3
    assert rushed.play(hand, parse_cards("7D 2C"), 2) < rushed.play(hand, parse_cards("2C 7D"), 2)
    # Taking the top discard goes out at once: this turn, the earliest.
    stock, pile = rushed.draw_values(parse_cards("8H 8S 2C"), parse_cards("8C")[0])
    assert pile == -held_points(3, turns + 1) <= stock  # no draw from the stock can do better
    # Without a tempo a deal is the hand's own points.
    plain = own_points(pos, history, random.Random(1), 1, 1)
    assert plain.play(hand, parse_cards("7D 2C"), 2) == 0.0 and plain.play(hand, parse_cards("2C"), 1) == 16.0


def test_with_two_seats_the_round_ended_by_the_other_leaves_nothing_to_count():
    state, history = next(played(Rules.from_dict({"rounds": [3]}), 2, 1, level="hard"))
    seen = view(state, state.current_seat)
    deals = SelfDraws(Position(seen), history, random.Random(1), 1, 1, tempo=1.0)
    hand = parse_cards("7H 7S KC")
    assert deals.play(hand, parse_cards("2C"), 1) == 16.0  # the other went out: it scores nothing
    assert deals.play(hand, parse_cards("7D 2C"), 2) == -held_points(3, round_turns(history, 2) + 2)


def test_the_points_held_never_rise_as_a_round_goes_on_and_reach_past_the_table():
    for size, held in HELD_POINTS.items():
        assert len(held) >= 3 and held[0] > held[-1] > 0, size
        assert all(later <= earlier for earlier, later in itertools.pairwise(held)), size  # never rises
        assert held_points(size, 100) == held[-1] and held_points(size, 0) == held[0]
    assert held_points(2, 0) == HELD_POINTS[3][0] and held_points(30, 5) == held_points(13, 5)  # nearest size


def test_a_hand_with_a_pair_is_worth_more_than_one_of_as_many_points_without_and_values_are_reproducible():
    seen, history = next(_positions(3, 4))
    pair, odd = parse_cards("8H 8S 2C"), parse_cards("9H 7S 2C")  # 18 points each
    first = own_points(Position(seen), history, random.Random(5), 300, 10)
    again = own_points(Position(seen), history, random.Random(5), 300, 10)
    assert first.value(pair) < first.value(odd)
    assert first.value(pair) == again.value(pair)
    stock, pile = first.draw_values(pair, parse_cards("8C")[0])
    assert pile == 0.0 < stock  # taking the third eight goes out at once


def test_self_draws_refuse_an_empty_budget():
    seen, history = next(_positions(3, 3))
    for deals, turns in ((0, 3), (3, 0)):
        with pytest.raises(ValueError, match="at least one deal"):
            own_points(Position(seen), history, random.Random(1), deals, turns)


def test_a_work_limit_plays_the_first_deals_only_the_same_for_every_hand():
    seen, history = next(_positions(7, 5))
    pos = Position(seen)
    hands = [tuple(sorted(pos.hand[1:])), tuple(sorted(pos.hand[:-1]))]
    free = own_points(pos, history, random.Random(2), 40, 6)
    limited = own_points(pos, history, random.Random(2), 40, 6, work=200)
    assert free.deals == limited.deals  # the same deals, fewer of them played
    # Count the cards the turns hold, deal by deal, to the deal that reaches 200.
    free.spent, played = 0, 0
    while free.spent < 200:
        turns, drawn = free.deals[played]
        for hand in hands:
            free.play(hand, drawn[1:], turns)
        played += 1
    assert 1 < played < 40
    first = own_points(pos, history, random.Random(2), played, 6)  # only those deals, no limit
    assert limited.values(hands) == first.values(hands) != free.values(hands)
    assert limited.played == played and free.played == 40


def test_more_deals_continue_the_same_stream_and_are_played_from_where_they_start():
    seen, history = next(_positions(7, 5))
    pos = Position(seen)
    hands = [tuple(sorted(pos.hand[1:])), tuple(sorted(pos.hand[:-1]))]
    whole = own_points(pos, history, random.Random(4), 30, 6)
    grown = own_points(pos, history, random.Random(4), 10, 6)
    grown.more(20)
    assert grown.deals == whole.deals
    later = own_points(pos, history, random.Random(4), 30, 6)
    later.deals = whole.deals[10:]
    assert grown.values(hands, first=10) == later.values(hands) != grown.values(hands)
    assert grown.values(hands, first=10, work=50) != grown.values(hands, first=10)  # a tighter limit
    with pytest.raises(ValueError, match="no deal to play"):
        grown.values(hands, first=30)


def test_the_round_ends_script_prints_the_measured_chances_beside_the_table():
    command = [sys.executable, "bench/round_ends.py", "--games", "1"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    for size in range(3, 14):
        assert re.search(rf"^ *{size} measured:( (0|1)\.\d\d)+$", out, re.M), out
        table = " ".join(f"{chance:.2f}" for chance in ROUND_ENDS[size])
        assert re.search(rf"^ *{size} table:    {table}$", out, re.M), out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_hands(), st.integers(-1, 7))
@example((parse_cards("7H 7S 7D KC"), Rules(), 9), -1)  # out by throwing the king: left exactly its 10 points
@example((parse_cards("7H 7S 7D KC"), Rules(), 9), 3)  # the king may not be thrown: no way out
def test_the_greedy_discard_skips_the_going_out_search_only_where_no_discard_goes_out(case, pick):
    """``Solved.greedy_discard`` asks whether the hand goes out only when its best arrangement leaves no more
    than a card it may throw scores; its answer is the one found by asking first, every time."""
    _assert_greedy_as_when_asking_first(case, pick)


@pytest.mark.parametrize("rules", [*RULE_CHOICES, Rules(wild_points=15), *(rules for _, rules in PRESETS.values())])
def test_the_solved_answers_count_every_card_as_the_rules_do(rules):
    for size in range(3, 16):
        solved = Solved(rules, size)
        assert [solved.points(card) for card in ALL_CARDS] == [rules.card_points(card, size) for card in ALL_CARDS]


@st.composite
def nearly_melded(draw):
    """A hand of sets and runs (with a wild now and then) and one card more: most such hands go out."""
    rules = draw(st.sampled_from([*RULE_CHOICES, *(rules for _, rules in PRESETS.values())]))
    size = draw(st.integers(3, 13))
    wild = JOKER if rules.jokers_per_deck else next(c for c in STANDARD_DECK if c.rank == size)
    hand: list[Card] = []
    for _ in range(draw(st.integers(1, 3))):
        rank, suit = draw(st.integers(1, 11)), draw(st.sampled_from("CDHS"))
        if draw(st.booleans()):
            meld = [c for c in STANDARD_DECK if c.rank == rank][: draw(st.integers(3, 4))]
        else:
            meld = [c for c in STANDARD_DECK if c.suit == suit and rank <= c.rank < rank + draw(st.integers(3, 4))]
        if draw(st.booleans()):
            meld[draw(st.integers(0, len(meld) - 1))] = wild
        hand += meld
    hand.append(draw(st.sampled_from(ALL_CARDS)))
    return hand, rules, size


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(small_hands(), nearly_melded()), st.integers(-1, 12))
@example((parse_cards("AC 2C 3C 3D 3H KD 7S 7H"), Rules(), 7), -1)  # out by throwing the king, the lone leftover
@example((parse_cards("AC 2C 3C 3D 3H KD 7S 7H"), Rules(), 7), 7)  # the king may not be thrown: no way out
@example((parse_cards("AC 2C 3C 4C 3D 3H 3S 7S"), Rules(), 7), -1)  # all melded: the wild 7 is the best out
@example((parse_cards("AC 2C 3C 4C 3D 3H 3S 7S"), Rules(), 7), 7)  # not the 7: then the 4
def test_the_best_out_is_the_highest_scoring_card_that_goes_out(case, pick):
    hand, rules, size = case
    cards = tuple(sorted(hand))
    forbidden = cards[pick] if 0 <= pick < len(cards) else None
    solved = Solved(rules, size)
    outs = [c for c in go_out_discards(cards, rules, size) if c != forbidden]
    expected = max(outs, key=lambda c: (solved.points(c), c.code)) if outs else None
    assert solved.best_out(cards, forbidden) == expected
    assert solved.best_out(cards, forbidden) == expected  # and again, from what it kept


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nearly_melded(), st.integers(-1, 12))
def test_the_greedy_discard_goes_out_exactly_when_a_discard_leaves_every_other_card_melded(case, pick):
    _assert_greedy_as_when_asking_first(case, pick)


def _assert_greedy_as_when_asking_first(case, pick) -> None:
    """``Solved.greedy_discard`` answers as the medium bot's discard found by asking first whether the hand
    goes out (never throwing card ``pick`` of the hand, when that is a card and another card differs)."""
    hand, rules, size = case
    cards = tuple(sorted(hand))
    forbidden = cards[pick] if 0 <= pick < len(cards) and any(c != cards[pick] for c in cards) else None
    solved = Solved(rules, size)
    outs = [c for c in go_out_discards(cards, rules, size) if c != forbidden]
    if outs:
        expected = (max(outs, key=lambda c: (solved.points(c), c.code)), True)
    else:
        deadwood = [c for c in best_arrangement(cards, rules, size).deadwood if c != forbidden]
        left = discard_penalties(cards, rules, size)
        best = min(deadwood, key=lambda c: (-solved.points(c), c.code)) if deadwood else None
        expected = (
            best or min((c for c in left if c != forbidden), key=lambda c: (left[c], -solved.points(c), c.code)),
            False,
        )
    assert solved.greedy_discard(cards, forbidden) == expected
