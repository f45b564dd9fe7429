"""The ``medium`` bot: greedy.

Takes the top discard when holding it (and discarding the best other card)
leaves less penalty than the hand has now, and a wild card always; goes
out at once; otherwise discards the card whose discard leaves the least
penalty (the highest-scoring one on ties), never a wild while another card
may go, but in its last turn (:func:`~.position.keeping_wilds`).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.engine import Action, Card, Discard

from .position import Position, allowed_discards, discard_options, draw, draws, isolated, keeping_wilds, may_draw

__all__ = ["choose"]


def choose(pos: Position, legal: Sequence[Action]) -> Action:
    if draws(legal):
        if may_draw(legal, "discard") and pos.top is not None:
            if not may_draw(legal, "stock") or _worth_taking(pos, pos.top):
                return draw(legal, "discard")
        return draw(legal, "stock" if may_draw(legal, "stock") else "discard")
    options = discard_options(pos, pos.hand, allowed_discards(legal))
    return Discard(keeping_wilds(pos, [card for _, card in options])[0])


def _worth_taking(pos: Position, top: Card) -> bool:
    """Holding the top discard (and discarding another card) leaves less penalty than now."""
    if pos.is_wild(top):
        return True
    now, deadwood = pos.arrange(pos.hand)
    if isolated(pos, top, pos.hand):
        # ``top`` stays a leftover card: it only helps by replacing a higher one.
        if not deadwood or pos.points(top) >= max(pos.points(c) for c in deadwood):
            return False
    codes = {c.code for c in pos.hand}
    allowed = codes - {top.code} if codes != {top.code} else codes
    options = discard_options(pos, pos.hand + [top], allowed)
    return bool(options) and options[0][0] < now
