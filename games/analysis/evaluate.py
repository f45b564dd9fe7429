"""What each choice of a decision is worth: the one place the analysis asks the search.

:func:`choice_costs` answers, for a seat's view and the round's public
history, the expected points of the round for that seat after each
candidate action.  :func:`candidates` picks the few actions worth that
work: every legal draw; for a discard, the one chosen, the hard bot's, the
best going out (any going out scores the same) and the cards whose discard
leaves the least penalty now, at most ``limit`` in all.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.bots import choose_action
from games.bots.position import Position, discard_options
from games.engine import Action, Discard, Draw, GoOut, SeatView

__all__ = ["MAX_CANDIDATES", "SAMPLES", "candidates", "choice_costs"]

#: Hidden cards sampled (deals of what the seat could not see) per decision.
SAMPLES = 16
#: Actions compared per discard decision (a draw has at most two).
MAX_CANDIDATES = 4


def candidates(
    view: SeatView, history: Sequence[Mapping[str, Any]], chosen: Action, limit: int = MAX_CANDIDATES
) -> list[Action]:
    """The actions to compare at this decision, ``chosen`` first; all of them legal."""
    legal = list(view.legal_actions)
    if any(isinstance(a, Draw) for a in legal):
        return [chosen] + [a for a in legal if a != chosen]
    picked: list[Action] = [chosen]

    def add(action: Action) -> None:
        if action not in picked and action in legal and len(picked) < limit:
            picked.append(action)

    add(choose_action(view, "hard", history))  # it goes out whenever it can (any going out scores the same)
    pos = Position(view)
    allowed = {a.card.code for a in legal if isinstance(a, Discard)}
    for _left, card in discard_options(pos, pos.hand, allowed):
        add(Discard(card))
    return picked


def choice_costs(
    view: SeatView,
    history: Sequence[Mapping[str, Any]],
    actions: Sequence[Action],
    seed: str,
    samples: int = SAMPLES,
) -> dict[Action, float]:
    """Expected points of the round for the seat of ``view`` after each of ``actions`` (lower is better).

    ``seed`` fixes every random choice (the same seed, the same figures).
    Only ``view`` and ``history`` are read: what the seat could see then.
    """
    rng = random.Random(seed)
    return _stand_in(view, actions, rng)


def _stand_in(view: SeatView, actions: Sequence[Action], rng: random.Random) -> dict[Action, float]:
    """Until the rollouts land: the penalty each action leaves now (no sampling)."""
    pos = Position(view)
    points, _deadwood = pos.arrange(pos.hand)
    out: dict[Action, float] = {}
    for action in actions:
        if isinstance(action, GoOut):
            out[action] = 0.0
        elif isinstance(action, Discard):
            rest = list(pos.hand)
            rest.remove(action.card)
            out[action] = float(pos.arrange(rest)[0])
        elif action.source == "discard" and pos.top is not None:
            taken = [*pos.hand, pos.top]
            left = min(pos.arrange([c for j, c in enumerate(taken) if j != i])[0] for i in range(len(taken) - 1))
            out[action] = float(left)
        else:
            out[action] = float(points) - rng.random()
    return out
