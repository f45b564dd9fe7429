"""Card names are whole messages, one per face card and one per suit of numbered cards, in the reader's language."""

from __future__ import annotations

from django.utils import translation

from games import presentation


def test_card_names_in_english_and_czech():
    assert presentation.card_name("Q", "S") == "queen of spades"
    assert presentation.card_name("T", "H") == "10 of hearts"
    with translation.override("cs"):
        assert presentation.card_name("Q", "S") == "piková dáma"
        assert presentation.card_name("7", "H") == "srdcová 7"
        assert presentation.card_face("QS", ["Q"])["name"].startswith("piková dáma")
    assert presentation.card_name("Q", "S") == "queen of spades"  # the lazy messages follow the language


def test_the_recent_moves_show_rank_and_suit():
    names = {0: "Ann"}
    assert presentation.describe_event({"kind": "discarded", "seat": 0, "data": {"card": "TH"}}, names) == (
        "Ann discarded 10♥."
    )
    assert presentation.describe_event({"kind": "discarded", "seat": 0, "data": {"card": "XX"}}, names) == (
        "Ann discarded ★."
    )
