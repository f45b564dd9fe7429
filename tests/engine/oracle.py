"""A slow, obviously-correct solver used only by the tests.

It tries every way of splitting the hand into melds, checking each meld
with ``meld_kind`` (RULES.md read directly), so it shares no search code
with the engine.  Usable up to about nine cards.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from games.engine.cards import Card
from games.engine.melds import meld_kind
from games.engine.rules import Rules


def oracle_points(hand: list[Card], rules: Rules, hand_size: int, *, count_cards: bool = False) -> int:
    def points(card: Card) -> int:
        return 1 if count_cards else rules.card_points(card, hand_size)

    @cache
    def best(rest: tuple[Card, ...]) -> int:
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        result = points(first) + best(others)
        for size in range(2, len(others) + 1):
            for combo in combinations(range(len(others)), size):
                meld = (first,) + tuple(others[i] for i in combo)
                if meld_kind(meld, rules, hand_size):
                    left = tuple(c for i, c in enumerate(others) if i not in combo)
                    result = min(result, best(left))
        return result

    return best(tuple(sorted(hand)))
