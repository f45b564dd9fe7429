"""What every bot level knows about the position, and the helpers they share."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from games.engine import (
    Action,
    Card,
    Discard,
    Draw,
    DrawSource,
    GoOut,
    Meld,
    Rules,
    SeatView,
    best_arrangement,
    discard_penalties,
    redemption_score,
)

__all__ = [
    "Position",
    "remove",
    "discard_options",
    "allowed_discards",
    "going_out",
    "redemption_last_discard",
    "lay_off_discard",
    "draws",
    "draw",
    "may_draw",
    "isolated",
]


class Position:
    """The seat's view with its rules, hand and solver at hand."""

    def __init__(self, view: SeatView) -> None:
        if view.hand is None or view.seat is None:
            raise ValueError("a bot plays a seat: a spectator's view has no hand")
        self.view = view
        self.seat: int = view.seat
        self.rules: Rules = view.rules
        self.hand_size = view.hand_size
        self.hand: list[Card] = list(view.hand)
        self.top = view.discard_top
        self.taken = view.taken_from_discard

    def points(self, card: Card) -> int:
        return self.rules.card_points(card, self.hand_size)

    def is_wild(self, card: Card) -> bool:
        return self.rules.is_wild(card, self.hand_size)

    def arrange(self, cards: Sequence[Card]) -> tuple[int, tuple[Card, ...]]:
        """Least penalty of ``cards`` and the cards a best arrangement leaves over."""
        return _arrange(tuple(sorted(cards)), self.rules, self.hand_size)


@lru_cache(maxsize=8192)
def _arrange(cards: tuple[Card, ...], rules: Rules, hand_size: int) -> tuple[int, tuple[Card, ...]]:
    arrangement = best_arrangement(cards, rules, hand_size)
    return arrangement.points, tuple(arrangement.deadwood)


def remove(cards: Sequence[Card], card: Card) -> list[Card]:
    rest = list(cards)
    rest.remove(card)
    return rest


def discard_options(pos: Position, cards: Sequence[Card], allowed: set[str]) -> list[tuple[int, Card]]:
    """(penalty left, card) for the allowed discards worth considering, best first.

    The leftover cards of a best arrangement, each leaving ``points - its
    points`` exactly; when none is allowed, every allowed card by the solver.
    """
    points, deadwood = pos.arrange(cards)
    options = sorted({(points - pos.points(c), -pos.points(c), c.code, c) for c in deadwood if c.code in allowed})
    if options:
        return [(left, card) for left, _, _, card in options]
    penalties = discard_penalties(list(cards), pos.rules, pos.hand_size)
    options = sorted((left, -pos.points(c), c.code, c) for c, left in penalties.items() if c.code in allowed)
    return [(left, card) for left, _, _, card in options]


def keeping_wilds(pos: Position, discards: Sequence[Card]) -> list[Card]:
    """``discards`` (best first) without the wild cards while another card may go, but in the seat's last turn,
    when a wild left in hand only costs its points.

    Every level takes a wild card from the pile whenever it is there; two seats that then threw it as their
    costliest card passed it back and forth, the stock never drawn, in a round that never ended.
    """
    if pos.view.final_lap:
        return list(discards)
    return [card for card in discards if not pos.is_wild(card)] or list(discards)


def allowed_discards(legal: Sequence[Action]) -> set[str]:
    """The codes of the cards the seat may discard."""
    return {a.card.code for a in legal if isinstance(a, Discard)}


def going_out(pos: Position, legal: Sequence[Action]) -> GoOut | None:
    """How every level goes out when it can (0 is the least a round can cost): with the highest-scoring card
    that goes out, the highest code among equals; ``None`` if no legal action goes out."""
    go_outs = [a for a in legal if isinstance(a, GoOut)]
    return max(go_outs, key=lambda a: (pos.points(a.discard), a.discard.code), default=None)


def redemption_last_discard(pos: Position, legal: Sequence[Action]) -> Discard | None:
    """The discard of a last turn in the redemption variant: the one that leaves the least once the table has
    taken what it can (``redemption_score``, as the round is scored), the highest-scoring card on ties.

    ``None`` outside such a turn's discard.  After that discard the server lays the hand down and lays cards
    off onto the melds on the table, so the hand alone is the wrong measure: the costliest leftover card may
    be the one a meld on the table would take.
    """
    if not (pos.rules.redemption and pos.view.final_lap) or draws(legal):
        return None
    allowed = [Card.from_code(code) for code in allowed_discards(legal)]
    table = [table_meld.meld for table_meld in pos.view.table_melds]
    card = lay_off_discard(pos.hand, table, pos.rules, pos.hand_size, allowed)
    return None if card is None else Discard(card)


def lay_off_discard(
    hand: Sequence[Card], table: Sequence[Meld], rules: Rules, hand_size: int, allowed: Iterable[Card]
) -> Card | None:
    """Of the ``allowed`` discards, the one whose hand left scores least after laying off onto ``table``
    (the highest-scoring card, then the highest code, on ties); ``None`` if none is allowed."""
    options = []
    for card in set(allowed):
        left = redemption_score(remove(hand, card), table, rules, hand_size).points
        options.append((left, -rules.card_points(card, hand_size), card.code, card))
    return min(options)[3] if options else None


def draws(legal: Sequence[Action]) -> list[Draw]:
    """The legal draws (none once the seat has drawn)."""
    return [a for a in legal if isinstance(a, Draw)]


def draw(legal: Sequence[Action], source: DrawSource) -> Draw:
    """The draw from ``source`` if legal, else the first legal draw."""
    wanted = Draw(source)
    if wanted in legal:
        return wanted
    return next(a for a in legal if isinstance(a, Draw))


def may_draw(legal: Sequence[Action], source: DrawSource) -> bool:
    return Draw(source) in legal


def isolated(pos: Position, card: Card, hand: Sequence[Card]) -> bool:
    """No meld can hold ``card`` with cards of ``hand``: no wild, no same rank, no suited neighbour."""
    if pos.is_wild(card):
        return False
    for other in hand:
        if pos.is_wild(other) or other.rank == card.rank:
            return False
        if other.suit == card.suit and (
            abs(other.rank - card.rank) == 1 or (pos.rules.aces_high and {other.rank, card.rank} == {1, 13})
        ):
            return False
    return True
