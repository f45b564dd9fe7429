"""What one seat may see: the single visibility policy of the game.

``view(state, seat)`` gives a :class:`SeatView` for ``seat`` (``None``: a
spectator).  While the game runs it holds the seat's own hand, the other
seats' card counts, the top discard, the stock size, the melds on the
table, scores and past round results, whose turn and the seat's legal
actions; never another seat's hand or the stock.  After the game ends it
holds everything, including every hand, the stock and the discard pile.

``SeatView.to_dict()`` is its JSON form (card codes, actions and results as
their own ``to_dict``), which pages and tests read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .cards import Card
from .game import Action, GameState, Phase, RoundResult, TableMeld, check_seat, codes, legal_actions
from .rules import Rules, wild_rank_chars

__all__ = ["SeatView", "view"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's (or a spectator's) view of a game at one moment.

    ``round`` counts from 1; ``wild_ranks`` are the round's wild ranks
    (Ace 1 .. King 13); ``hand`` is ``None`` for a spectator; ``hands``,
    ``stock`` and ``discard_pile`` are ``None`` until the game is over.
    """

    seat: int | None
    seat_count: int
    rules: Rules
    round: int
    round_count: int
    hand_size: int
    wild_ranks: frozenset[int]
    dealer: int
    current_seat: int | None
    phase: Phase
    is_over: bool
    move_count: int
    scores: tuple[int, ...]
    hand_counts: tuple[int, ...]
    hand: tuple[Card, ...] | None
    stock_size: int
    stock_rebuilds: int
    discard_top: Card | None
    discard_size: int
    taken_from_discard: Card | None
    final_lap: bool
    went_out: int | None
    last_turns: tuple[int, ...]
    table_melds: tuple[TableMeld, ...]
    legal_actions: tuple[Action, ...]
    results: tuple[RoundResult, ...]
    winners: tuple[int, ...]
    hands: tuple[tuple[Card, ...], ...] | None = None
    stock: tuple[Card, ...] | None = None
    discard_pile: tuple[Card, ...] | None = None

    @property
    def wild_chars(self) -> list[str]:
        """The wild ranks as rank characters (``"A23456789TJQK"``), lowest first."""
        return wild_rank_chars(self.hand_size)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: card codes, actions and results as their ``to_dict``."""
        data: dict[str, Any] = {
            "seat": self.seat,
            "seat_count": self.seat_count,
            "rules": self.rules.to_dict(),
            "round": self.round,
            "round_count": self.round_count,
            "hand_size": self.hand_size,
            "wild_ranks": self.wild_chars,
            "dealer": self.dealer,
            "current_seat": self.current_seat,
            "phase": self.phase.value,
            "is_over": self.is_over,
            "move_count": self.move_count,
            "scores": list(self.scores),
            "hand_counts": list(self.hand_counts),
            "hand": None if self.hand is None else codes(self.hand),
            "stock_size": self.stock_size,
            "stock_rebuilds": self.stock_rebuilds,
            "discard_top": None if self.discard_top is None else self.discard_top.code,
            "discard_size": self.discard_size,
            "taken_from_discard": None if self.taken_from_discard is None else self.taken_from_discard.code,
            "final_lap": self.final_lap,
            "went_out": self.went_out,
            "last_turns": list(self.last_turns),
            "table_melds": [t.to_dict() for t in self.table_melds],
            "legal_actions": [a.to_dict() for a in self.legal_actions],
            "results": [r.to_dict() for r in self.results],
            "winners": list(self.winners),
        }
        if self.hands is not None:
            data["hands"] = [codes(h) for h in self.hands]
        if self.stock is not None:
            data["stock"] = codes(self.stock)
        if self.discard_pile is not None:
            data["discard_pile"] = codes(self.discard_pile)
        return data


def view(state: GameState, seat: int | None) -> SeatView:
    """What ``seat`` may see now (``None``: a spectator); see the module docstring."""
    if seat is not None:
        check_seat(state, seat)
    over = state.is_over
    return SeatView(
        seat=seat,
        seat_count=state.seat_count,
        rules=state.rules,
        round=state.round_number,
        round_count=len(state.rules.rounds),
        hand_size=state.hand_size,
        wild_ranks=state.wild_ranks,
        dealer=state.dealer,
        current_seat=state.current_seat,
        phase=state.phase,
        is_over=over,
        move_count=state.move_count,
        scores=state.scores,
        hand_counts=tuple(len(h) for h in state.hands),
        hand=None if seat is None else state.hands[seat],
        stock_size=len(state.stock),
        stock_rebuilds=state.rebuilds,
        discard_top=state.top_discard,
        discard_size=len(state.discard_pile),
        taken_from_discard=state.taken_from_discard,
        final_lap=state.final_lap,
        went_out=state.went_out,
        last_turns=state.last_turns,
        table_melds=state.table,
        legal_actions=() if seat is None else tuple(legal_actions(state, seat)),
        results=state.results,
        winners=state.winners,
        hands=state.hands if over else None,
        stock=state.stock if over else None,
        discard_pile=state.discard_pile if over else None,
    )
