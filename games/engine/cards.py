"""Cards and their text codes.

A card is written as a rank character from ``A23456789TJQK`` followed by a
suit character from ``CDHS`` (``TH`` is the ten of hearts); a joker is
``XX``.  Codes are case-insensitive on input and upper-case on output.

Cards with the same code are equal for every rule.  Physical copies (two
``7H`` from two decks) are told apart by the game state, which keeps each
card in exactly one place, never by the card value itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"
JOKER_CODE = "XX"

#: Rank numbers: Ace is 1, Jack 11, Queen 12, King 13; a joker has rank 0.
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
JOKER_RANK = 0
RANK_NAMES = {1: "Ace", 11: "Jack", 12: "Queen", 13: "King"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card: ``rank`` 1..13 (0 for a joker) and ``suit`` ``C D H S`` (``X`` for a joker)."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if self.suit == "X":
            if self.rank != JOKER_RANK:
                raise ValueError(f"a joker has rank {JOKER_RANK}, not {self.rank}")
        elif self.suit not in SUIT_CHARS or not 1 <= self.rank <= 13:
            raise ValueError(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @classmethod
    def from_code(cls, code: str) -> Card:
        """Parse one card code such as ``"TH"``, ``"as"`` or ``"XX"``."""
        try:
            return _BY_CODE[code.strip().upper()]
        except (KeyError, AttributeError):
            raise ValueError(
                f"bad card code {code!r}: expected a rank from {RANK_CHARS} "
                f"and a suit from {SUIT_CHARS}, or {JOKER_CODE} for a joker"
            ) from None

    @property
    def code(self) -> str:
        if self.is_joker:
            return JOKER_CODE
        return RANK_CHARS[self.rank - 1] + self.suit

    @property
    def is_joker(self) -> bool:
        return self.suit == "X"

    @property
    def name(self) -> str:
        """English name for logs and alt text, e.g. ``"ten of hearts"``."""
        if self.is_joker:
            return "joker"
        rank = RANK_NAMES.get(self.rank, str(self.rank)).lower()
        return f"{rank} of {SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"


JOKER = Card(JOKER_RANK, "X")
_BY_CODE: dict[str, Card] = {JOKER_CODE: JOKER}
for _suit in SUIT_CHARS:
    for _rank in range(1, 14):
        _card = Card(_rank, _suit)
        _BY_CODE[_card.code] = _card
STANDARD_DECK: tuple[Card, ...] = tuple(Card(r, s) for s in SUIT_CHARS for r in range(1, 14))


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse space-separated card codes (or an iterable of codes).

    A bad token raises ``ValueError`` naming it.
    """
    tokens = text.split() if isinstance(text, str) else list(text)
    return tuple(Card.from_code(token) for token in tokens)


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(card.code for card in cards)
