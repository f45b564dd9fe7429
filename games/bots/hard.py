"""The ``hard`` bot: everything ``medium`` does, plus what it has seen.

It counts the cards still unseen (not in its hand, on the table or known in
the discard pile) to judge each partial meld (a pair, two cards of a suit
one or two apart, a card next to a run) by how many live cards would
complete it; it discards to keep the most promising partial melds rather
than only the lowest penalty; it takes the top discard only when that beats
the expected value of a stock draw; it avoids feeding the next player a
card of a rank or suit that player has been taking from the pile; and it
weighs the remaining time: the further the round has gone (and in the last
turn after someone went out, entirely) it plays for the lowest penalty now
instead of for melds later.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from games.engine import JOKER, STANDARD_DECK, SUIT_CHARS, Action, Card, Discard, EventKind, SeatView
from games.engine.game import DISCARD_PILE

from .position import (
    Position,
    allowed_discards,
    discard_options,
    draw,
    draws,
    isolated,
    keeping_wilds,
    may_draw,
    remove,
)

__all__ = ["Memory", "choose", "ranked_discards", "hand_value", "wanted_by_next", "feeding_cost"]


class Memory:
    """What a seat has seen this round: the known cards of the discard pile, who took what."""

    def __init__(self, view: SeatView, history: Iterable[Mapping[str, Any]]) -> None:
        self.seat = view.seat
        pile: list[str] = []
        self.taken: dict[int, list[str]] = {}
        for event in history:
            kind, data = event.get("kind"), event.get("data") or {}
            if kind == EventKind.ROUND_DEALT:
                pile = [data["up_card"]] if data.get("up_card") else []
                self.taken = {}
            elif kind in (EventKind.DISCARDED, EventKind.WENT_OUT):
                pile.append(data["card"])
            elif kind == EventKind.DREW and data.get("source") == DISCARD_PILE:
                if pile:
                    pile.pop()
                self.taken.setdefault(event["seat"], []).append(data["card"])
            elif kind == EventKind.STOCK_REBUILT:
                pile = pile[-1:]
        top = None if view.discard_top is None else view.discard_top.code
        if top and (not pile or pile[-1] != top):
            pile.append(top)  # the up-card of the first round, or a history we were not given
        self.pile = pile

    @classmethod
    def of(cls, seat: int, pile: list[str], taken: dict[int, list[str]]) -> Memory:
        """A memory told directly what it holds (a rollout keeps one up to date as it plays)."""
        memory = cls.__new__(cls)
        memory.seat, memory.pile, memory.taken = seat, pile, taken
        return memory


def choose(pos: Position, legal: Sequence[Action], memory: Memory) -> Action:
    if draws(legal):
        return _choose_draw(pos, legal, _Judge(pos, memory))
    return Discard(ranked_discards(pos, legal, memory)[0][1])


def ranked_discards(pos: Position, legal: Sequence[Action], memory: Memory) -> list[tuple[float, Card]]:
    """The discards the hard bot weighs, best first, each with its value (lower is better).

    Its choice is the first.  The leftover cards of a best arrangement when
    any may be discarded, else the three that leave the least penalty.
    """
    judge = _Judge(pos, memory)
    return judge.ranked(pos.hand, allowed_discards(legal))


def hand_value(pos: Position, memory: Memory) -> float:
    """How the hard bot values the seat's hand as it stands: its penalty less the promise of its partial melds."""
    return _Judge(pos, memory).value(pos.hand, None)


def wanted_by_next(pos: Position, memory: Memory) -> list[Card]:
    """The cards the next player to draw has taken from the discard pile this round (what it collects)."""
    view = pos.view
    last_turns = view.last_turns
    next_seat = last_turns[1] if view.final_lap and len(last_turns) > 1 else (pos.seat + 1) % view.seat_count
    return [Card.from_code(c) for c in memory.taken.get(next_seat, [])]


def feeding_cost(pos: Position, discard: Card, wanted: Sequence[Card]) -> float:
    """What the hard bot charges a discard for feeding the next player: for each card of ``wanted`` it may
    join (same rank, or same suit one or two apart), half the square root of its points."""
    root: float = pos.points(discard) ** 0.5  # int ** float is typed Any (it may be complex)
    return 0.5 * sum(1 for w in wanted if _related(discard, w)) * root


class _Judge:
    """How the hard bot values a hand: penalty now, less the promise of its partial melds."""

    def __init__(self, pos: Position, memory: Memory) -> None:
        view = pos.view
        self.pos = pos
        self.unseen = _unseen(pos, memory)
        self.last_turn = view.final_lap
        # How much a partial meld is worth: full weight early in a round, nothing in a last turn.
        turns_played = view.move_count / max(1, 2 * view.seat_count)
        self.patience = 0.0 if self.last_turn else max(0.15, 1.0 - turns_played / (pos.hand_size + 4))
        self.wanted = wanted_by_next(pos, memory)

    def value(self, cards: Sequence[Card], discard: Card | None) -> float:
        pos = self.pos
        points, deadwood = pos.arrange(cards)
        score = points - self.patience * _promise(pos, cards, deadwood, self.unseen)
        if discard is not None and not self.last_turn:
            score += feeding_cost(pos, discard, self.wanted)
        return score

    def ranked(self, cards: Sequence[Card], allowed: set[str]) -> list[tuple[float, Card]]:
        pos = self.pos
        points, deadwood = pos.arrange(cards)
        candidates = [c for c in set(deadwood) if c.code in allowed]
        if not candidates:
            candidates = [card for _, card in discard_options(pos, cards, allowed)[:3]]
        candidates = keeping_wilds(pos, candidates)
        scored = sorted((self.value(remove(cards, c), c), -pos.points(c), c.code, c) for c in candidates)
        return [(value, card) for value, _, _, card in scored]


def _choose_draw(pos: Position, legal: Sequence[Action], judge: _Judge) -> Action:
    top = pos.top
    if not (may_draw(legal, "discard") and top is not None):
        return draw(legal, "stock")
    if not may_draw(legal, "stock") or pos.is_wild(top):
        return draw(legal, "discard")
    now_points, deadwood = pos.arrange(pos.hand)
    if isolated(pos, top, pos.hand) and (not deadwood or pos.points(top) >= max(map(pos.points, deadwood))):
        return draw(legal, "stock")
    codes = {c.code for c in pos.hand}
    allowed = codes - {top.code} if codes != {top.code} else codes
    take_value = judge.ranked(pos.hand + [top], allowed)[0][0]
    stock_value = judge.value(pos.hand, None) - _dump_gain(pos, deadwood, judge.unseen)
    return draw(legal, "discard" if take_value < stock_value else "stock")


def _unseen(pos: Position, memory: Memory) -> Counter[Card]:
    """Cards this seat has not seen this round, by kind: the deck less its hand, the table, the known pile."""
    rules, view = pos.rules, pos.view
    decks = rules.deck_count(view.seat_count)
    unseen: Counter[Card] = Counter({card: decks for card in STANDARD_DECK})
    if rules.jokers_per_deck:
        unseen[JOKER] = decks * rules.jokers_per_deck
    seen = list(pos.hand) + [Card.from_code(c) for c in memory.pile]
    for table_meld in view.table_melds:
        seen += table_meld.meld.cards
    for card in seen:
        if unseen[card] > 0:
            unseen[card] -= 1
    return unseen


def _related(a: Card, b: Card) -> bool:
    """Whether ``a`` may help a meld that holds ``b`` (same rank, or same suit one or two apart)."""
    if a.is_joker or b.is_joker:
        return False
    return a.rank == b.rank or (a.suit == b.suit and abs(a.rank - b.rank) <= 2)


def _promise(pos: Position, cards: Sequence[Card], deadwood: Sequence[Card], unseen: Counter[Card]) -> float:
    """Expected penalty saved by the partial melds among the leftover cards.

    Each pair, each two suited cards one or two apart, and each leftover card
    next to a run of ``cards`` is worth the points it would meld times the
    chance that one of the next draws completes it (live cards and wilds
    among the unseen ones).
    """
    if not deadwood:
        return 0.0
    total_unseen = max(1, sum(unseen.values()))
    live_wilds = sum(n for card, n in unseen.items() if pos.is_wild(card))
    draws_left = 3.0

    def chance(outs: int) -> float:
        p = min(1.0, (outs + live_wilds) / total_unseen)
        miss: float = (1.0 - p) ** draws_left  # float ** float is typed Any (it may be complex)
        return 1.0 - miss

    naturals = [c for c in deadwood if not pos.is_wild(c)]
    saved = 0.0
    used: set[int] = set()
    for i, a in enumerate(naturals):
        for j in range(i + 1, len(naturals)):
            b = naturals[j]
            if a.rank == b.rank:
                outs = sum(unseen[Card(a.rank, s)] for s in SUIT_CHARS)
            elif a.suit == b.suit and abs(a.rank - b.rank) in (1, 2):
                low, high = min(a.rank, b.rank), max(a.rank, b.rank)
                ranks = [low + 1] if high - low == 2 else [low - 1, high + 1]
                outs = sum(unseen[Card(r, a.suit)] for r in ranks if 1 <= r <= 13)
            else:
                continue
            saved += (pos.points(a) + pos.points(b)) * chance(outs)
            used.update((i, j))
    melded = Counter(cards) - Counter(deadwood)
    for i, a in enumerate(naturals):
        if i in used:
            continue
        # two ranks away from a melded card of its suit: the card in between joins them
        for neighbour in (a.rank - 2, a.rank + 2):
            if 1 <= neighbour <= 13 and melded[Card(neighbour, a.suit)]:
                saved += 0.5 * pos.points(a) * chance(unseen[Card((a.rank + neighbour) // 2, a.suit)])
        saved += 0.1 * pos.points(a) * chance(sum(unseen[Card(a.rank, s)] for s in SUIT_CHARS))
    return saved


def _dump_gain(pos: Position, deadwood: Sequence[Card], unseen: Counter[Card]) -> float:
    """Expected penalty a stock draw sheds by replacing the highest leftover card with a lower one."""
    if not deadwood:
        return 0.0
    highest = max(pos.points(c) for c in deadwood)
    total = sum(unseen.values())
    if not total:
        return 0.0
    return sum(n * max(0, highest - pos.points(card)) for card, n in unseen.items()) / total
