"""Why a flagged turn was flagged, in pure Python: the hand at its costliest decision and what each choice leaves.

Worked out once, when an analysis is done (``games.services.analysis``), and
stored beside it: the walk of the game and the arrangements of the hands
cost about a tenth of a second a game, too much for each view of the page.
Everything here is in card codes and seat numbers, the same in every
language; ``games.history.analysis`` puts it into words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import Card, Meld, Rules, best_arrangement, redemption_score
from games.engine.shuffle import Shuffle

from .grading import Turn
from .walk import LoggedMove, decisions

#: Goes up whenever what :func:`explain` gives would change: explanations stored by another version
#: are worked out again (``games.services.analysis.explanations``).
EXPLAIN_VERSION = 1


def worst_decision(turn: Turn) -> Mapping[str, Any]:
    """The turn's costliest decision (the first of them on a tie): where the page and the chart point."""
    return max(turn.decisions, key=lambda d: (float(d["cost"]), -int(d["seq"])))


def explain(
    rules: Rules, seat_count: int, shuffle: Shuffle | int, moves: Sequence[LoggedMove], graded: Sequence[Turn]
) -> dict[str, dict[str, Any]]:
    """For each flagged turn of ``graded``, by its costliest decision's ``seq`` (as text, a JSON key):

    ``hand`` (the codes held), ``went_out`` (the seat that had gone out, on a last turn, else None),
    ``chosen`` and ``best`` (what each leaves: :func:`leaves`; in a redemption game's last turn, after
    laying off onto the melds on the table, as that turn is scored).  The log is walked once, and only as
    far as the last flagged turn.
    """
    rows = {int(row["seq"]): row for row in (worst_decision(t) for t in graded if t.grade)}
    out: dict[str, dict[str, Any]] = {}
    if not rows:
        return out
    for decision in decisions(rules, seat_count, shuffle, moves):
        row = rows.get(decision.seq)
        if row is None:
            continue
        seen = decision.view
        assert seen.hand is not None
        top = seen.discard_top if decision.kind == "draw" else None
        # A redemption last turn is scored after laying off onto the melds on the table.
        table = [t.meld for t in seen.table_melds] if rules.redemption and seen.final_lap else None
        out[str(decision.seq)] = {
            "hand": [c.code for c in seen.hand],
            "went_out": seen.went_out,
            "chosen": leaves(seen.hand, row["chosen"], top, rules, seen.hand_size, table),
            "best": leaves(seen.hand, row["best"], top, rules, seen.hand_size, table),
        }
        if len(out) == len(rows):
            break
    return out


def leaves(
    hand: Sequence[Card],
    action: Mapping[str, Any] | None,
    top: Card | None,
    rules: Rules,
    hand_size: int,
    table: Sequence[Meld] | None = None,
) -> dict[str, Any] | None:
    """The melds, cards laid off and leftover cards (codes, and their points) ``hand`` is left with after
    ``action``.

    A discard or going out: the hand without that card.  Taking the discard pile's top: the hand with it,
    less the card best thrown after it (never the card taken nor a copy of it, unless the hand holds
    nothing else, as the engine rules).  The stock: None (its card was unknown).  ``table``: the melds on
    the table in a redemption last turn, which the hand lays cards off onto as it is scored.
    """
    if not action:
        return None
    if action["type"] == "draw":
        if action["source"] == "stock" or top is None:
            return None
        held = [*hand, top]
        throwable = [j for j in range(len(held)) if held[j] != top] or list(range(len(held)))
        options = [[c for i, c in enumerate(held) if i != j] for j in throwable]
    else:
        rest = list(hand)
        rest.remove(Card.from_code(action["card"]))
        options = [rest]
    if table is None:
        arrangements = (best_arrangement(o, rules, hand_size) for o in options)
    else:
        arrangements = (redemption_score(o, table, rules, hand_size) for o in options)
    arrangement = min(arrangements, key=lambda a: a.points)
    return {
        "melds": [list(m.codes) for m in arrangement.melds],
        "laid_off": [c.code for _index, cards in arrangement.layoffs for c in cards],
        "deadwood": [c.code for c in arrangement.deadwood],
        "points": arrangement.points * rules.round_multiplier(hand_size),
    }
