"""The ``easy`` bot: little thought.

Draws from the stock unless the top discard is wild, goes out when the
table offers it, otherwise throws away a card picked at random among those
that are in no meld (a random card when all are), with a lean towards high
cards.  Its randomness is seeded from the public position, so the same
position always gets the same answer.
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Sequence

from games.engine import Action, Discard

from .position import Position, allowed_discards, draw, draws, may_draw

__all__ = ["choose"]


def choose(pos: Position, legal: Sequence[Action]) -> Action:
    view = pos.view
    seed = json.dumps([view.seat, view.round, view.move_count, [c.code for c in pos.hand]])
    rng = random.Random(zlib.crc32(seed.encode()))
    if draws(legal):
        if pos.top is not None and pos.is_wild(pos.top) and may_draw(legal, "discard"):
            return draw(legal, "discard")
        return draw(legal, "stock" if may_draw(legal, "stock") else "discard")
    allowed = allowed_discards(legal)
    _, deadwood = pos.arrange(pos.hand)
    pool = [c for c in deadwood if c.code in allowed and not pos.is_wild(c)]
    pool = pool or [c for c in pos.hand if c.code in allowed]
    weights = [1 + pos.points(c) for c in pool]
    return Discard(rng.choices(pool, weights=weights)[0])
