"""TEMPORARY brute-force stand-in for melds.redemption_score (deleted before merge)."""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from .cards import Card
from .melds import Arrangement, Meld, meld_kind


def _sub(hand, used):
    rest = list(hand)
    for c in used:
        rest.remove(c)
    return tuple(rest)


def _combos(rest):
    n = len(rest)
    for mask in range(1 << n):
        pick = tuple(rest[i] for i in range(n) if mask >> i & 1)
        if len(pick) >= 2:
            yield pick


def redemption_score(hand, table_melds: Sequence[Meld], rules, hand_size) -> Arrangement:
    hand = tuple(sorted(hand))
    table = tuple(tuple(m.cards) for m in table_melds)

    @lru_cache(maxsize=None)
    def go(rest, tab):
        if not rest:
            return 0, (), (), ()
        first, others = rest[0], rest[1:]
        p, m, d, lo = go(others, tab)
        best = (p + rules.card_points(first, hand_size), m, (first,) + d, lo)
        for i, t in enumerate(tab):
            if meld_kind(t + (first,), rules, hand_size):
                p, m, d, lo = go(others, tab[:i] + (t + (first,),) + tab[i + 1:])
                if p < best[0]:
                    best = (p, m, d, ((i, first),) + lo)
        for pick in _combos(others):
            meld = (first,) + pick
            kind = meld_kind(meld, rules, hand_size)
            if kind is None:
                continue
            p, m, d, lo = go(_sub(others, pick), tab)
            if p < best[0]:
                best = (p, (Meld(kind, meld),) + m, d, lo)
        return best

    p, m, d, lo = go(hand, table)
    grouped: dict[int, list[Card]] = {}
    for i, c in lo:
        grouped.setdefault(i, []).append(c)
    return Arrangement(m, d, p, tuple((i, tuple(cs)) for i, cs in sorted(grouped.items())))
