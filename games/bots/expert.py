"""The ``expert`` bot: the hard bot's judgment, checked by searching.

At each decision where the hard bot would hesitate, it deals the cards it
cannot see at random, consistently with everything public (its hand, the
table, the discard pile and who took what: :mod:`.sampling`), plays each
candidate action and then the rest of the round with a bot policy on each
such deal (:mod:`.rollout`), and keeps the candidate with the fewest
expected points for its seat.  The candidates are both draws (stock or
discard pile) and, to discard, the hard bot's few best cards.  Every
candidate meets the same deals, so their difference is measured far more
precisely than their values.

It sees only its seat's view and the round's public history, like every
level.  Its random deals come from a generator seeded by what the seat sees
(seat, round, move count, hand, top discard, history), so the same position
always gets the same answer and a replay repeats it.
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import Action, Discard, Draw

from . import hard
from .position import Position, draws, isolated, may_draw
from .rollout import Leaf, Policy, evaluate

__all__ = ["Budget", "BUDGET", "choose", "candidates", "seed_of"]


@dataclass(frozen=True)
class Budget:
    """How hard the expert searches.

    ``rollouts``: rollouts per decision, shared among the candidates (each
    gets ``rollouts // candidates`` deals, at least ``min_samples``);
    ``discards``: how many of the hard bot's best discards are candidates;
    ``policy``: the bot that plays the rollouts; ``margin``: how many points
    a candidate must save over the hard bot's own choice to be preferred;
    ``cycles``: how many more turns of its own a rollout plays before it
    scores the hands (``None``: to the end of the round); ``leaf``: how it
    scores them then (``rollout.play_out``).
    """

    rollouts: int = 24
    min_samples: int = 6
    discards: int = 3
    policy: Policy = "greedy"
    margin: float = 0.0
    cycles: int | None = 2
    leaf: Leaf = "hard"


BUDGET = Budget()


def seed_of(pos: Position, history: Sequence[Mapping[str, Any]]) -> int:
    """The seed of a decision's deals: what the seat sees now, so that a replay gets the same answer."""
    view = pos.view
    top = None if view.discard_top is None else view.discard_top.code
    text = json.dumps(
        [view.seat, view.round, view.move_count, [c.code for c in pos.hand], top, len(history)], separators=(",", ":")
    )
    return zlib.crc32(text.encode())


def candidates(
    pos: Position, legal: Sequence[Action], memory: hard.Memory, budget: Budget | None = None
) -> list[Action]:
    """The actions worth searching, the hard bot's choice first (``budget``: ``BUDGET`` unless given)."""
    budget = budget or BUDGET
    first = hard.choose(pos, legal, memory)
    if draws(legal):
        others = [a for a in legal if isinstance(a, Draw) and a != first]
        top = pos.top
        if top is None or pos.is_wild(top) or not (may_draw(legal, "discard") and may_draw(legal, "stock")):
            return [first]  # a wild card is always worth taking; with one pile there is no choice
        _, deadwood = pos.arrange(pos.hand)
        if isolated(pos, top, pos.hand) and (not deadwood or pos.points(top) >= max(map(pos.points, deadwood))):
            return [first]  # the top card could only replace a lower leftover card: never worth taking
        return [first, *others]
    ranked = [Discard(card) for _, card in hard.ranked_discards(pos, legal, memory)]
    return [first, *[a for a in ranked if a != first][: budget.discards - 1]]


def choose(
    pos: Position, legal: Sequence[Action], history: Sequence[Mapping[str, Any]], budget: Budget | None = None
) -> Action:
    """The candidate with the fewest expected points (``budget``: the module's ``BUDGET`` unless given)."""
    budget = budget or BUDGET
    memory = hard.Memory(pos.view, history)
    options = candidates(pos, legal, memory, budget)
    if len(options) == 1:
        return options[0]
    samples = max(budget.min_samples, budget.rollouts // len(options))
    rng = random.Random(seed_of(pos, history))
    horizon = None
    if budget.cycles is not None:
        # Moves until the seat's own discard ``cycles`` turns later (a draw is followed by its discard).
        horizon = 2 * pos.view.seat_count * budget.cycles + (1 if draws(legal) else 0)
    values = evaluate(pos.view, history, options, rng, samples, budget.policy, horizon, budget.leaf)
    best = min(range(len(options)), key=lambda i: (values[i] + (0 if i == 0 else budget.margin), i))
    return options[best]
