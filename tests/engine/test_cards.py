"""Cards and their text codes (RULES.md, "Cards and notation")."""

import pytest

from games.engine import JOKER, STANDARD_DECK, Card, format_cards, parse_cards


def test_code_is_rank_then_suit():
    assert Card.from_code("TH") == Card(10, "H")
    assert Card(1, "S").code == "AS"
    assert Card(13, "C").code == "KC"


def test_codes_are_case_insensitive_on_input_and_upper_case_on_output():
    assert Card.from_code("th").code == "TH"
    assert Card.from_code(" as ").code == "AS"
    assert parse_cards("xx qd").__repr__() == "(Card('XX'), Card('QD'))"


def test_joker_code_is_xx():
    assert Card.from_code("XX") is JOKER
    assert JOKER.is_joker and JOKER.code == "XX"
    assert not Card.from_code("KS").is_joker


@pytest.mark.parametrize("bad", ["", "1H", "10H", "T", "THH", "ZZ", "AX", "X", "JJ", "XH"])
def test_bad_code_raises_value_error_naming_it(bad):
    with pytest.raises(ValueError, match=repr(bad)):
        Card.from_code(bad)


def test_parse_cards_names_the_bad_token():
    with pytest.raises(ValueError, match="'ZZ'"):
        parse_cards("AH ZZ TS")


def test_non_string_code_is_bad_input():
    with pytest.raises(ValueError):
        Card.from_code(None)


def test_parse_cards_accepts_an_iterable_and_format_round_trips():
    cards = parse_cards(["AH", "ts", "XX"])
    assert format_cards(cards) == "AH TS XX"
    assert parse_cards(format_cards(cards)) == cards


def test_cards_cannot_be_built_out_of_range():
    for rank, suit in [(0, "H"), (14, "H"), (5, "Z"), (3, "X")]:
        with pytest.raises(ValueError):
            Card(rank, suit)


def test_standard_deck_has_52_distinct_cards():
    assert len(STANDARD_DECK) == 52
    assert len(set(STANDARD_DECK)) == 52
    assert JOKER not in STANDARD_DECK


def test_identical_cards_from_two_decks_are_equal():
    assert Card.from_code("7H") == Card.from_code("7h")
    assert hash(Card.from_code("7H")) == hash(Card(7, "H"))


def test_card_names_for_people():
    assert Card.from_code("TH").name == "10 of hearts"
    assert Card.from_code("QS").name == "queen of spades"
    assert JOKER.name == "joker"
