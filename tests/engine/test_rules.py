"""Rule options: JSON form, validation, presets, derived values (RULES.md, "Variant options")."""

import json

import pytest

from games.engine import JOKER, PRESETS, Card, Rules, RulesError, wild_ranks
from games.engine.rules import wild_rank_label

ALL_OPTIONS = {
    "decks",
    "jokers_per_deck",
    "rounds",
    "aces",
    "ace_points",
    "face_points",
    "wild_points",
    "max_wilds_per_meld",
    "all_wild_melds",
    "double_royal_rounds",
    "redemption",
    "jokers_free",
    "bad_go_out_penalty",
    "max_stock_rebuilds",
}


def test_defaults_are_the_classic_game():
    assert Rules().to_dict() == {
        "decks": "auto",
        "jokers_per_deck": 0,
        "rounds": list(range(3, 14)),
        "aces": "low",
        "ace_points": 1,
        "face_points": "10",
        "wild_points": "face",
        "max_wilds_per_meld": None,
        "all_wild_melds": False,
        "double_royal_rounds": False,
        "redemption": False,
        "jokers_free": False,
        "bad_go_out_penalty": None,
        "max_stock_rebuilds": 3,
    }


def test_to_dict_has_one_key_per_variant_option_and_is_json_safe():
    data = Rules().to_dict()
    assert set(data) == ALL_OPTIONS
    assert json.loads(json.dumps(data)) == data


@pytest.mark.parametrize("slug", sorted(PRESETS))
def test_every_preset_round_trips_through_json(slug):
    _, rules = PRESETS[slug]
    assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


def test_from_dict_accepts_a_partial_dict_and_fills_defaults():
    rules = Rules.from_dict({"jokers_per_deck": 2, "rounds": [3, 4, 5]})
    assert rules.jokers_per_deck == 2 and rules.rounds == (3, 4, 5) and rules.aces == "low"


def test_rules_are_hashable_even_from_a_json_list():
    assert hash(Rules.from_dict({"rounds": [3, 4]})) == hash(Rules(rounds=(3, 4)))


def test_unknown_option_is_refused_by_name():
    with pytest.raises(RulesError, match="wild_jacks"):
        Rules.from_dict({"wild_jacks": True})


def test_from_dict_refuses_a_non_object():
    with pytest.raises(RulesError):
        Rules.from_dict([("decks", 1)])


@pytest.mark.parametrize(
    "option,value",
    [
        ("decks", 0),
        ("decks", 5),
        ("decks", "two"),
        ("decks", True),
        ("jokers_per_deck", 3),
        ("jokers_per_deck", -1),
        ("rounds", []),
        ("rounds", [2]),
        ("rounds", [16]),
        ("rounds", "3-13"),
        ("rounds", [3.0]),
        ("aces", "high"),
        ("ace_points", 11),
        ("face_points", 10),
        ("wild_points", 20),
        ("max_wilds_per_meld", 0),
        ("max_wilds_per_meld", "1"),
        ("all_wild_melds", 1),
        ("double_royal_rounds", "yes"),
        ("redemption", None),
        ("bad_go_out_penalty", 10),
        ("max_stock_rebuilds", -1),
        ("max_stock_rebuilds", 1.5),
    ],
)
def test_bad_value_is_refused_naming_the_option(option, value):
    with pytest.raises(RulesError, match=option):
        Rules.from_dict({option: value})


def test_rules_error_is_a_value_error():
    assert issubclass(RulesError, ValueError)


def test_jokers_free_without_jokers_changes_nothing():
    assert Rules(jokers_free=True).to_dict()["jokers_free"] is True  # independent options (RULES.md)
    assert Rules(jokers_free=True, jokers_per_deck=1).jokers_free


def test_one_fixed_deck_cannot_hold_a_fifteen_card_round_for_two_is_fine_but_not_for_four():
    Rules(decks=1, rounds=(15,)).check_seats(2)
    with pytest.raises(RulesError):
        Rules(decks=1, rounds=(15,)).check_seats(4)


@pytest.mark.parametrize("seats,decks", [(2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (8, 4)])
def test_auto_decks_is_half_the_players_rounded_up(seats, decks):
    assert Rules().deck_count(seats) == decks


def test_fixed_deck_count_wins_over_auto():
    assert Rules(decks=3).deck_count(2) == 3


@pytest.mark.parametrize("seats", [1, 9, 0, -2, "2", 2.0, True])
def test_seat_count_outside_two_to_eight_is_refused(seats):
    with pytest.raises(RulesError):
        Rules().check_seats(seats)


@pytest.mark.parametrize("seats", range(2, 9))
def test_every_preset_deals_to_two_to_eight_players(seats):
    for _, rules in PRESETS.values():
        rules.check_seats(seats)


def test_wild_rank_is_the_number_of_cards_dealt():
    assert wild_ranks(3) == {3}
    assert wild_ranks(10) == {10}
    assert wild_ranks(11) == {11} and wild_ranks(12) == {12} and wild_ranks(13) == {13}


def test_aces_and_twos_are_wild_in_fourteen_and_fifteen_card_rounds():
    assert wild_ranks(14) == {1, 2} and wild_ranks(15) == {1, 2}
    assert wild_rank_label(15) == "A, 2"
    assert wild_rank_label(10) == "10" and wild_rank_label(13) == "K"


def test_wild_ranks_refuse_impossible_hand_sizes():
    with pytest.raises(RulesError):
        wild_ranks(2)


def test_every_joker_and_every_card_of_the_wild_rank_is_wild():
    rules = Rules(jokers_per_deck=1)
    assert rules.is_wild(JOKER, 7)
    assert rules.is_wild(Card.from_code("7C"), 7) and rules.is_wild(Card.from_code("7H"), 7)
    assert not rules.is_wild(Card.from_code("8C"), 7)


def test_penalty_table():
    rules, points = Rules(), (lambda code, size=5: Rules().card_points(Card.from_code(code), size))
    assert points("AH") == 1 and points("9D") == 9 and points("TC") == 10
    assert points("JD") == points("QD") == points("KD") == 10
    assert points("XX") == 20
    assert rules.card_points(Card.from_code("AH"), 14) == 1  # a wild Ace scores as an Ace


def test_penalty_variants():
    card = Card.from_code
    assert Rules(ace_points=15).card_points(card("AS"), 5) == 15
    royal = Rules(face_points="11-12-13")
    assert [royal.card_points(card(c), 5) for c in ("JH", "QH", "KH")] == [11, 12, 13]
    wild15 = Rules(wild_points=15)
    assert wild15.card_points(card("5H"), 5) == 15 and wild15.card_points(card("6H"), 5) == 6
    assert wild15.card_points(card("AH"), 14) == 15 and wild15.card_points(card("2H"), 15) == 15
    assert wild15.card_points(JOKER, 5) == 20
    assert Rules(jokers_per_deck=1, jokers_free=True).card_points(JOKER, 5) == 0


def test_double_royal_rounds_doubles_only_the_jack_queen_king_rounds():
    rules = Rules(double_royal_rounds=True)
    assert [rules.round_multiplier(n) for n in (3, 10, 11, 12, 13, 14)] == [1, 1, 2, 2, 2, 1]
    assert Rules().round_multiplier(13) == 1


def test_up_and_down_preset_plays_22_rounds():
    assert PRESETS["up-and-down"][1].rounds == tuple(range(3, 14)) + tuple(range(13, 2, -1))


def test_changed_options_lists_only_non_defaults():
    assert Rules().changed_options() == {}
    assert Rules(redemption=True).changed_options() == {"redemption": True}
