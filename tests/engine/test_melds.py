"""The hand solver: RULES.md's worked examples, each rule decision, the
public vectors, the batch scorer, and property tests against a slow oracle."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    JOKER,
    STANDARD_DECK,
    Meld,
    MeldKind,
    Rules,
    best_arrangement,
    can_meld_all,
    discard_penalties,
    go_out_discards,
    meld_kind,
    parse_cards,
    redemption_score,
    wild_ranks,
)
from games.engine import melds as solver
from games.engine.score import run as score_run

from .oracle import oracle_points

REPO = Path(__file__).resolve().parents[2]
VECTORS = Path(__file__).resolve().parent / "vectors" / "vectors_public.jsonl"  # copied from shared/vectors
CLASSIC = Rules()


def points(hand: str, hand_size: int, rules: Rules = CLASSIC) -> int:
    return best_arrangement(parse_cards(hand), rules, hand_size).points


def assert_valid(arrangement, hand, rules, hand_size):
    """Every meld is legal, every card is used once, points add up."""
    for meld in arrangement.melds:
        assert meld_kind(meld.cards, rules, hand_size), meld
    used = [c for m in arrangement.melds for c in m.cards] + list(arrangement.deadwood)
    assert Counter(used) == Counter(hand)
    assert arrangement.points == sum(rules.card_points(c, hand_size) for c in arrangement.deadwood)


# -- RULES.md worked examples -------------------------------------------------


def test_set_with_wild_standing_in_goes_out():
    assert go_out_discards(parse_cards("3H 4C 9D 4S"), CLASSIC, 3) == parse_cards("9D")


def test_run_goes_out_by_discarding_king():
    assert go_out_discards(parse_cards("5H 6H KS 7H"), CLASSIC, 3) == parse_cards("KS")


def test_final_hand_without_melds_scores_face_values():
    assert points("KS QD 2C", 3) == 22


def test_meld_of_only_wilds_is_refused_by_default():
    assert points("3H 3D 3S", 3) == 9


def test_meld_of_only_wilds_allowed_with_all_wild_melds():
    assert points("3H 3D 3S", 3, Rules(all_wild_melds=True)) == 0


def test_thirteen_card_example_scores_24():
    hand = parse_cards("AH 2H 3H 4S 5S KC 9D 9C 9H JD QD 8C 7S")
    arrangement = best_arrangement(hand, CLASSIC, 13)
    assert arrangement.points == 24
    assert sorted(c.code for c in arrangement.deadwood) == ["4S", "5S", "7S", "8C"]
    assert_valid(arrangement, hand, CLASSIC, 13)
    assert points("AH 2H 3H 4S 5S KC 9D 9C 9H JD QD 8C 7S", 13, Rules(max_wilds_per_meld=1)) == 24


def test_wild_standing_for_itself_in_run():
    assert points("3H 4H 5H", 3) == 0


# -- one test per rule decision ----------------------------------------------


def test_run_cannot_wrap_king_to_ace():
    assert meld_kind(parse_cards("KS AS 2S"), CLASSIC, 5) is None
    assert meld_kind(parse_cards("KS AS 5H"), CLASSIC, 5) is None  # wild 5 cannot make Q-K-A with low aces


def test_high_aces_allow_queen_king_ace():
    assert meld_kind(parse_cards("QS KS AS"), Rules(aces="high_or_low"), 5) == "run"
    assert meld_kind(parse_cards("QS KS AS"), CLASSIC, 5) is None


def test_run_never_holds_low_and_high_ace():
    rules = Rules(aces="high_or_low")
    assert meld_kind(parse_cards("QS KS AS AS 2S"), rules, 5) is None
    assert meld_kind(parse_cards("AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"), rules, 5) is None


def test_high_aces_still_never_wrap_king_to_two():
    assert points("KS AS 2S", 5, Rules(aces="high_or_low")) == 13


def test_run_with_two_stand_ins_fits_inside_ace_to_king():
    assert meld_kind(parse_cards("QS KS 5C 5D"), CLASSIC, 5) == "run"  # T-J-Q-K
    assert meld_kind(parse_cards("KS AS 5C"), CLASSIC, 5) is None


def test_max_wilds_per_meld_limits_each_meld():
    one = Rules(max_wilds_per_meld=1)
    assert meld_kind(parse_cards("7H 3C 3D"), one, 3) is None
    assert points("7H 8H 3C 3D", 3, one) == 3  # 7-8-(3) is a run; the other 3 is left over


def test_max_wilds_per_meld_wins_over_all_wild_melds():
    rules = Rules(all_wild_melds=True, max_wilds_per_meld=1)
    assert points("3H 3D 3S", 3, rules) == 9


def test_unmelded_wild_scores_its_face_or_fifteen():
    assert points("KH 2C 7D", 13) == 10 + 2 + 7
    assert points("KH 2C 7D", 13, Rules(wild_points=15)) == 15 + 2 + 7
    assert points("AH 5C 9D", 14, Rules(ace_points=15)) == 15 + 5 + 9  # a wild Ace scores as an Ace


def test_joker_scores_twenty_or_nothing_with_jokers_free():
    assert points("XX 2C 9D", 5) == 31
    free = Rules(jokers_free=True, jokers_per_deck=1)
    assert points("XX 2C 9D", 5, free) == 11
    assert not can_meld_all(parse_cards("XX 2C 9D"), free, 5)  # it never helps a player go out


def test_set_has_no_upper_size():
    assert points("7C 7D 7H 7S 3H", 3) == 0


def test_identical_cards_from_two_decks_form_a_set():
    assert points("7H 7H 7S", 3) == 0


def test_face_points_eleven_twelve_thirteen():
    assert points("JH QC KD", 3, Rules(face_points="11-12-13")) == 36


def test_go_out_discards_are_exactly_the_melding_discards():
    hand = parse_cards("5H 6H 7H 8H 9C 9D 9S")
    found = go_out_discards(hand, CLASSIC, 6)
    for card in set(hand):
        rest = list(hand)
        rest.remove(card)
        assert (card in found) == can_meld_all(rest, CLASSIC, 6)
    assert [c.code for c in found] == ["5H", "8H"]


def test_discard_penalties_match_best_arrangement_of_the_rest():
    hand = parse_cards("AH 2H 3H 4S 5S KC 9D 9C 9H JD QD 8C 7S 7S")
    penalties = discard_penalties(hand, CLASSIC, 13)
    assert set(penalties) == set(hand)
    for card, value in penalties.items():
        rest = list(hand)
        rest.remove(card)
        assert value == best_arrangement(rest, CLASSIC, 13).points


def test_bad_card_code_names_the_token():
    with pytest.raises(ValueError, match="'ZZ'"):
        best_arrangement("AH ZZ", CLASSIC, 3)


# -- redemption lay-offs -------------------------------------------------------

TABLE = [Meld(MeldKind.RUN, parse_cards("5H 6H 7H")), Meld(MeldKind.SET, parse_cards("9C 9D 9S"))]
REDEMPTION = Rules(redemption=True)


def test_redemption_lays_off_onto_a_set_and_extends_a_run():
    result = redemption_score(parse_cards("8H 9H 4H KS"), TABLE, REDEMPTION, 5)
    assert result.points == 10
    laid = {index: sorted(c.code for c in cards) for index, cards in result.layoffs}
    assert laid == {0: ["4H", "8H"], 1: ["9H"]}


def test_redemption_wild_bridges_a_gap_to_extend_a_run():
    # 5s are wild: 5D stands for 8H so that 9H extends the run.
    result = redemption_score(parse_cards("9H 5D KS"), TABLE[:1], REDEMPTION, 5)
    assert result.points == 10
    assert sorted(c.code for c in result.layoffs[0][1]) == ["5D", "9H"]


def test_redemption_cannot_extend_a_run_that_is_not_adjacent():
    assert redemption_score(parse_cards("TH 2C 4D"), TABLE[:1], REDEMPTION, 13).points == 16


def test_redemption_never_scores_more_than_without_the_table():
    hand = parse_cards("4H 8H 9H 9C QS 2D JD")
    assert redemption_score(hand, TABLE, REDEMPTION, 7).points <= best_arrangement(hand, REDEMPTION, 7).points


def test_redemption_who_lays_off_everything_scores_zero():
    assert redemption_score(parse_cards("4H 9H 8H"), TABLE, REDEMPTION, 11).points == 0


# -- the public vectors and the batch scorer ------------------------------------


def _vectors():
    with VECTORS.open() as handle:
        return [json.loads(line) for line in handle if line.strip()]


def test_engine_agrees_with_every_public_vector():
    cases = _vectors()
    assert len(cases) >= 300
    for case in cases:
        rules = Rules.from_dict(case["options"])
        hand = parse_cards(case["hand"])
        arrangement = best_arrangement(hand, rules, case["hand_size"])
        assert arrangement.points == case["deadwood"], case["id"]
        assert_valid(arrangement, hand, rules, case["hand_size"])
        if "go_out_discards" in case:
            found = [c.code for c in go_out_discards(hand, rules, case["hand_size"])]
            assert found == case["go_out_discards"], case["id"]


def test_batch_scorer_writes_back_every_vector():
    result = subprocess.run(
        [sys.executable, "-m", "games.engine.score"],
        input=VECTORS.read_text(),
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    out = [json.loads(line) for line in result.stdout.splitlines()]
    cases = _vectors()
    assert len(out) == len(cases)
    for mine, theirs in zip(out, cases, strict=True):
        assert mine["id"] == theirs["id"]
        assert mine["deadwood"] == theirs["deadwood"]
        assert mine.get("go_out_discards") == theirs.get("go_out_discards")


def test_batch_scorer_answers_bad_lines_with_errors_and_goes_on():
    source = io.StringIO(
        '{"hand_size": 3, "hand": "ZZ 3H"}\nnot json\n[1]\n'
        '{"hand_size": 30, "hand": "3H"}\n{"hand_size": 3, "hand": "3H", "options": {"nope": 1}}\n'
        '{"hand_size": 3, "hand": "KS QD 2C"}\n'
    )
    sink = io.StringIO()
    assert score_run(source, sink) == 5
    lines = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert [line.get("line") for line in lines[:5]] == [1, 2, 3, 4, 5]
    assert "ZZ" in lines[0]["error"] and "nope" in lines[4]["error"]
    assert lines[5]["deadwood"] == 22


# -- property tests -------------------------------------------------------------

RULE_CHOICES = [
    Rules(),
    Rules(max_wilds_per_meld=1),
    Rules(aces="high_or_low", ace_points=15),
    Rules(all_wild_melds=True),
    Rules(max_wilds_per_meld=2, all_wild_melds=True),
    Rules(max_wilds_per_meld=3, all_wild_melds=True),
    Rules(max_wilds_per_meld=4, all_wild_melds=True),
    Rules(jokers_free=True, jokers_per_deck=1),
    Rules(wild_points=15, face_points="11-12-13"),
    Rules(aces="high_or_low", max_wilds_per_meld=1),
]
ALL_CARDS = list(STANDARD_DECK) + [JOKER]


@st.composite
def small_hands(draw):
    hand_size = draw(st.integers(3, 15))
    wild = wild_ranks(hand_size)
    suit = draw(st.sampled_from("CDHS"))
    # Bias towards one suit and wilds so that runs, sets and stand-ins all occur.
    pool = [c for c in ALL_CARDS if c.is_joker or c.rank in wild or c.suit == suit or draw(st.booleans())]
    hand = draw(st.lists(st.sampled_from(pool), min_size=3, max_size=8))
    return hand, draw(st.sampled_from(RULE_CHOICES)), hand_size


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_hands())
def test_solver_agrees_with_exhaustive_oracle(case):
    hand, rules, hand_size = case
    arrangement = best_arrangement(hand, rules, hand_size)
    assert arrangement.points == oracle_points(hand, rules, hand_size)
    assert_valid(arrangement, hand, rules, hand_size)
    assert can_meld_all(hand, rules, hand_size) == (oracle_points(hand, rules, hand_size, count_cards=True) == 0)


@st.composite
def wild_heavy_hands(draw):
    hand_size = draw(st.integers(12, 15))
    wild = wild_ranks(hand_size)
    suits = draw(st.sampled_from(["C", "CD", "CDHS"]))
    naturals = [c for c in STANDARD_DECK if c.suit in suits and c.rank not in wild]
    wilds = [JOKER] + [c for c in STANDARD_DECK if c.rank in wild]
    n_wild = draw(st.integers(0, 8))
    hand = draw(st.lists(st.sampled_from(wilds), min_size=n_wild, max_size=n_wild))
    hand += draw(st.lists(st.sampled_from(naturals), min_size=hand_size - n_wild, max_size=hand_size + 1 - n_wild))
    return hand, draw(st.sampled_from(RULE_CHOICES + [Rules(max_wilds_per_meld=13)])), hand_size


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wild_heavy_hands())
def test_quick_search_equals_full_search_on_big_hands(case):
    """The quick search's cuts and fallback never change an answer (see melds._solve)."""
    hand, rules, hand_size = case
    for count_cards in (False, True):
        ctx = solver._context(rules, count_cards=count_cards)
        split = solver._split(hand, rules, hand_size, count_cards)
        quick, _ = solver._solve(ctx, split)
        full, _, _ = solver._search(replace(ctx, full=True), split)
        assert quick == full
    assert_valid(best_arrangement(hand, rules, hand_size), hand, rules, hand_size)


@pytest.mark.parametrize("cap", [3, 4, 5])
@pytest.mark.parametrize("count", range(3, 13))
def test_wild_cards_alone_are_grouped_into_melds_of_three_or_more(cap, count):
    rules = Rules(all_wild_melds=True, max_wilds_per_meld=cap)
    kings = list(parse_cards("KH KD KS KC KH KD"))  # wild in the round of 13 cards
    hand = [JOKER] * (count - count // 2) + kings[: count // 2]
    assert all(card == JOKER or card.rank in wild_ranks(13) for card in hand)
    arrangement = best_arrangement(hand, rules, 13)
    assert_valid(arrangement, hand, rules, 13)
    assert arrangement.points == oracle_points(hand, rules, 13)


def test_nine_wild_cards_under_a_cap_of_four_are_three_melds_of_three():
    rules = Rules(all_wild_melds=True, max_wilds_per_meld=4)
    arrangement = best_arrangement([JOKER] * 9, rules, 13)
    assert sorted(len(meld.cards) for meld in arrangement.melds) == [3, 3, 3]
    assert arrangement.points == 0
