"""The rules page: the full rules written for one variant (or one game), one sentence per option value.

Each option's sentence is checked for the value the variant has, and the sentences of its other values
are checked to be absent: a player reads the rules of the table, not a list of alternatives.
"""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from games import selectors, services
from games.engine import PRESETS, Rules, meld_kind, parse_cards
from games.models import Variant

from .conftest import logged_in

pytestmark = pytest.mark.django_db

CARD = re.compile(r'data-card="([A2-9TJQKX][CDHSX])"')

LOW_ACES = "Aces are low only"
HIGH_ACES = "Aces are low or high"
NO_JOKERS = "There are no jokers."
LAYING_OFF = "Laying off (redemption)"
NO_LAYING_OFF = "nobody ever adds cards to another player's melds"
ANY_WILDS = "A meld may hold any number of wild cards."
WILD_NEEDS_NATURAL = "A meld needs at least one card that is not wild"
ALL_WILD = "A meld may even be made only of wild cards."
FACE_10 = "A Jack, Queen or King: 10 points each."
FACE_11_12_13 = "A Jack: 11 points; a Queen: 12; a King: 13."
WILD_OWN_VALUE = "A card of the round's wild rank: its own value"
GO_OUT_REFUSED = "the table refuses to let you go out"
DOUBLED = "count double"
JOKER_20 = "A joker: 20 points."
JOKER_FREE = "A joker left out of your melds scores 0"
AUTO_DECKS = "one deck for every two players"
NEVER_REBUILT = "the stock is never rebuilt"


def page_text(response: Any) -> str:
    """The words of a page as a reader sees them: no tags, entities decoded, spaces collapsed."""
    assert response.status_code == 200
    body = response.content.decode()
    main = body[body.index("<article") : body.index("</article>")]
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", main)).split())


def variant(slug: str, **options: Any) -> Variant:
    rules = Rules(**options)  # refuses options the engine would refuse
    return Variant.objects.create(slug=slug, name=f"Test {slug}", options=rules.to_dict())


def test_the_classic_rules_say_the_classic_sentences_and_no_alternative(classic):
    text = page_text(Client().get("/rules/"))
    for sentence in (
        "How to play Three Thirteen",
        "These are the rules of the variant “Classic”.",
        "The game has 11 rounds. The first round deals 3 cards to each player, and every round deals one card"
        " more, up to 13 cards in the last round.",
        LOW_ACES,
        NO_JOKERS,
        AUTO_DECKS,
        ANY_WILDS,
        WILD_NEEDS_NATURAL,
        FACE_10,
        "An Ace: 1 point.",
        WILD_OWN_VALUE,
        GO_OUT_REFUSED,
        NO_LAYING_OFF,
        "The stock is rebuilt at most 3 times in a round.",
        # K, Q, A and the 4 (wild in the 4-card round, the first that deals four cards, its own value)
        "at the end of the 4-card round cost you 25 points.",
        "After the last round the player with the lowest total wins.",
    ):
        assert sentence in text, sentence
    for other in (
        HIGH_ACES,
        LAYING_OFF,
        ALL_WILD,
        FACE_11_12_13,
        DOUBLED,
        "A joker",
        "at most 1 wild card",
        "In the rounds of 14 and 15 cards",
        NEVER_REBUILT,
        "penalty points, and the card goes onto the discard pile",
    ):
        assert other not in text, other
    # the options table is still there, under its heading
    assert "This variant: Classic" in text and "Jokers per deck" in text


def test_a_variant_with_other_options_says_its_own_sentences_instead(classic):
    variant(
        "everything",
        decks=2,
        jokers_per_deck=2,
        rounds=(3, 4, 5, 5, 4, 3),
        aces="high_or_low",
        ace_points=15,
        face_points="11-12-13",
        wild_points=15,
        max_wilds_per_meld=1,
        redemption=True,
        jokers_free=True,
        bad_go_out_penalty=20,
        max_stock_rebuilds=1,
    )
    text = page_text(Client().get("/rules/?variant=everything"))
    for sentence in (
        "These are the rules of the variant “Test everything”.",
        "The game is played with 2 standard decks of 52 cards, whatever the number of players.",
        "Each deck adds 2 jokers. A joker is a wild card in every round.",
        "The game has 6 rounds. The first round deals 3 cards to each player; every round deals one card more,"
        " up to 5, and then one card fewer, down to 3 cards in the last round.",
        HIGH_ACES,
        "A meld may hold at most 1 wild card.",
        WILD_NEEDS_NATURAL,  # one wild card at most: never a meld of wild cards only
        LAYING_OFF,
        "A natural card never replaces a wild card that is already in a meld.",
        "An Ace: 15 points.",
        FACE_11_12_13,
        "A card of the round's wild rank: 15 points, whatever its rank.",
        JOKER_FREE,
        "it costs you 20 penalty points",
        "The stock is rebuilt at most 1 time in a round.",
        # K 13, Q 12, A 15, the wild 5 15 and a free joker 0, in the first round of five cards
        "at the end of the 5-card round cost you 55 points.",
    ):
        assert sentence in text, sentence
    for other in (
        LOW_ACES,
        NO_JOKERS,
        AUTO_DECKS,
        NO_LAYING_OFF,
        ANY_WILDS,
        ALL_WILD,
        FACE_10,
        "An Ace: 1 point.",
        WILD_OWN_VALUE,
        JOKER_20,
        GO_OUT_REFUSED,
        DOUBLED,
        "It is never doubled.",
        "every round deals one card more, up to 5 cards in the last round",
    ):
        assert other not in text, other


def test_fourteens_doubled_rounds_and_wild_only_melds_are_written_out(classic):
    variant("long", rounds=tuple(range(3, 16)), double_royal_rounds=True, all_wild_melds=True, jokers_per_deck=1)
    text = page_text(Client().get("/rules/?variant=long"))
    for sentence in (
        "In the rounds of 14 and 15 cards, Aces and 2s are both wild.",
        "The points of the rounds where Jacks, Queens or Kings are wild count double: the rounds of 11, 12, 13 cards.",
        ALL_WILD,
        "Each deck adds 1 joker.",
        JOKER_20,
        "The game has 13 rounds.",
    ):
        assert sentence in text, sentence
    assert WILD_NEEDS_NATURAL not in text and JOKER_FREE not in text
    assert "Wild rank by round 3: 3, 4: 4," in text and "13: K, 14: A, 2, 15: A, 2" in text


def test_rounds_in_no_simple_order_are_listed(classic):
    variant("odd-order", rounds=(7, 3, 9), max_stock_rebuilds=0)
    text = page_text(Client().get("/rules/?variant=odd-order"))
    assert "The game has 3 rounds. In order, they deal this many cards to each player: 7, 3, 9." in text
    assert "In this variant the stock is never rebuilt" in text
    assert "rebuilt at most" not in text
    # examples are laid out for the first round: 7 cards, 7s wild, so the natural set is not 7s
    assert "each player is dealt 7 cards and the wild rank is 7" in text


@pytest.mark.parametrize("slug", sorted(PRESETS))
def test_every_example_meld_is_a_meld_of_the_variant_and_shows_the_cards(classic, slug):
    rules = PRESETS[slug][1]
    facts = selectors.rules_text(rules)
    assert facts["examples"], slug
    for example in facts["examples"]:
        codes = [face["code"] for face in example["cards"]]
        expected = "set" if example["kind"].startswith("set") else "run"
        assert meld_kind(parse_cards(codes), rules, facts["example_size"]) == expected, (slug, codes)
    kinds = {example["kind"] for example in facts["examples"]}
    assert ("run_high" in kinds) == rules.aces_high and ("run_joker" in kinds) == bool(rules.jokers_per_deck)
    page = Client().get(f"/rules/?variant={slug}").content.decode()
    shown = " ".join(CARD.findall(page))
    for example in facts["examples"]:
        assert " ".join(face["code"] for face in example["cards"]) in shown, (slug, example)


def test_a_wild_example_card_is_marked_wild_on_the_page(classic):
    page, scoring = Client().get("/rules/").content.decode().split('<figure class="score-example">')
    # the classic first round has 3s wild: the example sets and runs use the 3 of hearts as their wild card
    assert re.search(r'class="card red wild" data-card="3H"', page)
    assert not re.search(r'class="card [a-z]+ wild" data-card="[^3X]', page)
    # the scoring example is laid out in the 4-card round (four cards left over), where 4s are wild
    assert re.findall(r'class="card [a-z]+( wild)?" data-card="(..)"', scoring) == [
        ("", "KS"),
        ("", "QD"),
        ("", "AC"),
        (" wild", "4H"),
    ]


def test_the_rules_of_a_game_follow_the_games_own_options(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=3,
        bot_count=2,
        options={"aces": "high_or_low", "redemption": True, "jokers_per_deck": 1},
        seed=1,
    )
    text = page_text(logged_in(ann).get(f"/games/{game.pk}/rules/"))
    for sentence in (
        HIGH_ACES,
        LAYING_OFF,
        "Each deck adds 1 joker.",
        JOKER_20,
        "This game has 3 seats, so it uses 2 decks.",
        "Back to the table",
    ):
        assert sentence in text, sentence
    for other in (LOW_ACES, NO_JOKERS, NO_LAYING_OFF, "Other variants:"):
        assert other not in text, other
    # the classic variant's own page is unchanged by the game's options
    general = page_text(Client().get("/rules/?variant=classic"))
    assert LOW_ACES in general and LAYING_OFF not in general and "This game has" not in general


def test_a_two_seat_game_with_one_deck_does_not_mention_identical_cards(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=1)
    text = page_text(logged_in(ann).get(f"/games/{game.pk}/rules/"))
    assert "This game has 2 seats, so it uses 1 deck." in text
    assert "identical cards" not in text


@pytest.mark.parametrize("query", ["?variant=nope", "?variant=", "?variant=broken"])
def test_an_unknown_or_broken_variant_shows_the_classic_rules(classic, query):
    Variant.objects.create(slug="broken", name="Broken", options={"aces": "sideways"})
    text = page_text(Client().get(f"/rules/{query}"))
    assert LOW_ACES in text and "This variant: Classic" in text


def test_the_scoring_example_never_shows_more_cards_than_a_round_deals(classic):
    variant("short", jokers_per_deck=1, rounds=(3,))
    text = page_text(Client().get("/rules/?variant=short"))
    # the one round deals three: an Ace (1), the wild 3 (its own value, 3) and a joker (20)
    assert "at the end of the 3-card round cost you 24 points." in text
    scoring = Client().get("/rules/?variant=short").content.decode().split('<figure class="score-example">')[1]
    assert len(re.findall(r'data-card="', scoring.split("</figure>")[0])) == 3


def test_melds_of_wild_cards_only_ruled_out_by_the_wild_limit_are_not_called_yes(classic):
    """Found by a tester: a game's options table said "Melds of wild cards only: yes" while its text said
    "A meld needs at least one card that is not wild": with at most 2 wild cards per meld (which wins over
    the option, RULES.md) no meld of three cards is made of wild cards only."""
    variant("capped", all_wild_melds=True, max_wilds_per_meld=2)
    text = page_text(Client().get("/rules/?variant=capped"))
    assert WILD_NEEDS_NATURAL in text and ALL_WILD not in text
    assert "Melds of wild cards only no: the limit of wild cards per meld wins" in text
    variant("roomy", all_wild_melds=True, max_wilds_per_meld=3)
    text = page_text(Client().get("/rules/?variant=roomy"))
    assert ALL_WILD in text and "Melds of wild cards only yes" in text
