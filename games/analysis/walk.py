"""Walk a finished game's move log and stop at every decision, as the player saw it then.

A decision is one move of the log: a draw (stock or discard pile) or the
discard (or going out) that ends a turn.  At each one, :func:`decisions`
gives the seat's own :class:`~games.engine.SeatView` of the state *before*
the move (``view(state, seat)``: its hand, the top discard, counts, the
melds on the table, never another hand nor the stock) and the public events
of the round so far (``history``, what a bot may remember), built exactly as
the site builds them for a bot in play (``services.turns.round_history``):
the log's events, started again at each deal.  Nothing else of the state
leaves this module.

The log is replayed with the engine from the game's rules and shuffle (the
game is over, so the shuffle is no secret any more); the events are the
engine's, which are those the log stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from games.engine import Action, Draw, EventKind, GameState, Rules, SeatView, apply, deal_event, new_game, view
from games.engine.shuffle import Shuffle

__all__ = ["Decision", "Kind", "LoggedMove", "decisions", "extend_history"]

Kind = Literal["draw", "discard"]


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """One move of the log: who played what (``by_bot``: a bot played it for the seat)."""

    seat: int
    action: Action
    by_bot: bool = False


@dataclass(frozen=True, slots=True)
class Decision:
    """The position one seat faced before one move, and what it chose.

    ``seq`` is the move's number in the log (1 for the first move: the
    replay shows the position before it at step ``seq - 1``); ``turn`` counts
    the game's turns from 1 (a draw and the discard after it share one);
    ``total_before`` is the seat's total before this round.
    """

    seq: int
    seat: int
    round_number: int
    turn: int
    kind: Kind
    chosen: Action
    by_bot: bool
    total_before: int
    view: SeatView
    history: tuple[dict[str, Any], ...]

    @property
    def forced(self) -> bool:
        """Only one legal action: nothing to choose, nothing to analyse."""
        return len(self.view.legal_actions) <= 1


def extend_history(history: Sequence[dict[str, Any]], events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """``history`` with ``events`` after it, started again at each deal (the round's public events)."""
    out = list(history)
    for event in events:
        if event.get("kind") == EventKind.ROUND_DEALT:
            out = []
        out.append(event)
    return out


def decisions(
    rules: Rules, seat_count: int, shuffle: Shuffle | int, moves: Sequence[LoggedMove], *, after: int = 0
) -> Iterator[Decision]:
    """Every decision of the game whose ``seq`` is above ``after``, in order (views only for those).

    A move the engine refuses raises ``IllegalAction``: the log is not this game's.
    """
    state: GameState = new_game(rules, seat_count, shuffle)
    history: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event of its own
    turn = 1
    for seq, move in enumerate(moves, start=1):
        if seq > after:
            kind: Kind = "draw" if isinstance(move.action, Draw) else "discard"
            yield Decision(
                seq=seq,
                seat=move.seat,
                round_number=state.round_number,
                turn=turn,
                kind=kind,
                chosen=move.action,
                by_bot=move.by_bot,
                total_before=state.scores[move.seat],
                view=view(state, move.seat),
                history=tuple(history),
            )
        state, events = apply(state, move.seat, move.action)
        history = extend_history(history, (e.to_dict() for e in events))
        if not isinstance(move.action, Draw):
            turn += 1
