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

from games.engine import Action, Card, Discard, Draw, discard_penalties

from . import hard
from .position import Position, draws, isolated, may_draw
from .rollout import Leaf, Policy, evaluate
from .sampling import Knowledge

__all__ = ["Budget", "BUDGET", "choose", "candidates", "seed_of", "last_turn_draw", "least_left"]


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

    rollouts: int = 12
    min_samples: int = 4
    discards: int = 3
    policy: Policy = "hard"
    margin: float = 1.0
    cycles: int | None = 1
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
    if draws(legal) and pos.view.final_lap and not pos.rules.redemption:
        exact = last_turn_draw(pos, legal, history)
        if exact is not None:
            return exact
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


def last_turn_draw(pos: Position, legal: Sequence[Action], history: Sequence[Mapping[str, Any]]) -> Draw | None:
    """The draw of the seat's last turn (someone went out) that leaves the fewest points expected, worked out exactly.

    The hand is scored after this turn's discard, so each draw's cost is
    known without playing on: the top discard's at once, the stock's over
    every card it could give (``Knowledge.next_stock_card``), each followed
    by the discard that leaves the least.  ``None`` when there is no choice
    to make (one pile only) or the history does not add up.  Not for the
    redemption variant, where the last turn lays cards off as well.
    """
    top = pos.top
    if top is None or not (may_draw(legal, "discard") and may_draw(legal, "stock")):
        return None
    try:
        chances = Knowledge(pos.view, history).next_stock_card()
    except ValueError:
        return None
    if not chances:
        return None
    take = least_left(pos, [*pos.hand, top], forbidden=top)
    stock = sum(chance * least_left(pos, [*pos.hand, card]) for card, chance in chances.items())
    return Draw("discard") if take < stock else Draw("stock")


def least_left(pos: Position, cards: Sequence[Card], forbidden: Card | None = None) -> int:
    """The least penalty ``cards`` leave after one discard (never ``forbidden``, the card just taken,
    unless every card is one): a leftover card of a best arrangement, the highest allowed, is always best."""
    points, deadwood = pos.arrange(cards)
    allowed = [card for card in deadwood if card != forbidden]
    if allowed:
        return points - max(pos.points(card) for card in allowed)
    left = discard_penalties(list(cards), pos.rules, pos.hand_size)
    return min([value for card, value in left.items() if card != forbidden] or left.values())
