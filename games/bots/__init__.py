"""Bots that play a seat using only what that seat may see.

A bot gets the seat's :class:`~games.engine.SeatView` (``view(state, seat)``:
its own hand, the top discard and the legal actions, never another hand or
the stock) and, optionally, the public events of the current round
(``history``: what everyone at the table saw happen: discards, cards taken
from the pile, stock rebuilds).  It answers with one of the legal actions.
The only other thing it uses is the hand solver.  Bots keep no state between
calls, so a bot can take over any seat at any moment (timeouts,
resignations) and a replay is deterministic.

Four levels, one module each: ``easy`` (little thought, seeded randomness),
``medium`` (greedy on the penalty left), ``hard`` (medium plus what it
has seen this round) and ``expert`` (its draws and discards weighed by
playing the hand on alone to a random end of the round, on random deals of
the unseen cards: ``selfdraw`` and ``sampling``);
``position`` holds what every level knows about the position; ``rollout``
plays whole rounds with a bot policy (the analysis of a finished game).
Every level goes out at once when it can, with the discard that scores the
most: a seat that goes out scores 0 for the round, the least
possible, so holding never lowers its own score.  In the redemption
variant's last turn, every level but ``easy`` discards as that turn is
scored: after the table has taken the cards it can
(:func:`~.position.redemption_last_discard`).

Speed: the best discard is always a leftover card of a best arrangement of
the hand (a card in a meld only ties with one), and discarding a leftover
card ``d`` leaves exactly ``points - points(d)``, so one solver call per
decision replaces one per card.  Results are cached per hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from games.engine import Action, SeatView

from . import easy, expert, hard, medium
from .position import Position, going_out, redemption_last_discard

__all__ = ["choose_action", "free_bot_name", "reads_history", "BOT_NAMES", "LEVELS", "Level"]

#: Names shown for bot seats, in order of the seat they take.
BOT_NAMES = ("Ada", "Blaise", "Carl", "Dora", "Emmy", "Felix", "Grace", "Hugo")


def free_bot_name(taken: Iterable[str]) -> str:
    """The first bot name not in ``taken`` (the names at the table), or the first of all if every one is."""
    used = set(taken)
    return next((name for name in BOT_NAMES if name not in used), BOT_NAMES[0])


Level = Literal["easy", "medium", "hard", "expert"]
LEVELS: tuple[Level, ...] = ("easy", "medium", "hard", "expert")


def reads_history(level: str) -> bool:
    """Whether the bot of ``level`` reads the round's ``history`` (the others choose the same without it)."""
    return level in ("hard", "expert")


def choose_action(view: SeatView, level: str = "medium", history: Iterable[Mapping[str, Any]] = ()) -> Action:
    """The action the bot of ``level`` plays for the seat whose ``view`` this is.

    ``view`` must be the seat's own view (``view(state, seat)``) with at
    least one legal action; ``history`` the public events of the round so
    far (only ``hard`` and ``expert`` read them).
    """
    legal = list(view.legal_actions)
    if not legal:
        raise ValueError("the bot was asked to move when its seat has no legal action")
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}: choose from {', '.join(LEVELS)}")
    if len(legal) == 1:
        return legal[0]
    pos = Position(view)
    out = going_out(pos, legal)
    if out is not None:  # every level goes out at once
        return out
    if level != "easy":
        laid_off = redemption_last_discard(pos, legal)
        if laid_off is not None:
            return laid_off
    if level == "easy":
        return easy.choose(pos, legal)
    if level == "medium":
        return medium.choose(pos, legal)
    if level == "hard":
        return hard.choose(pos, legal, hard.Memory(view, history))
    return expert.choose(pos, legal, list(history))
