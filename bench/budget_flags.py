"""The expert's search budget as command-line flags, for the bench scripts that play or measure it.

A flag per :class:`games.bots.expert.Budget` field asked for, named after
the field (``--refine-work``, or ``--expert-refine-work`` with the prefix
``expert-``), defaulting to ``expert.BUDGET``; :func:`budget_from` reads
them back into a budget, which refuses counts it cannot search with
(``ValueError``: each script words its own refusal).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Sequence
from typing import Any

from games.bots import expert

__all__ = ["add_budget_flags", "budget_from"]

_HELP = {
    "deals": "self-draw deals a decision",
    "turns": "most turns a deal plays",
    "work": "most cards the first deals' turns hold (0: no limit)",
    "discards": "the hard bot's best discards weighed beside the leftover cards",
    "refine": "more deals for the best discards (0: none)",
    "finalists": "the best discards that play more deals",
    "refine_work": "most cards the finalists' turns hold (1 up)",
    "big_refine_work": f"their most cards in rounds of {expert.BUDGET.big_hand} cards or more",
    "tempo": "weight of the others' points at the round's end against its own (0 to 1)",
    "draws": "weigh draws on the deals too (--no-{name}: draw as the hard bot)",
}


def add_budget_flags(parser: argparse.ArgumentParser, fields: Sequence[str], prefix: str = "") -> None:
    """Declare a flag for each of the budget's ``fields``, ``prefix`` before its name."""
    for field in fields:
        name = prefix + field.replace("_", "-")
        default = getattr(expert.BUDGET, field)
        if isinstance(default, bool):
            action = argparse.BooleanOptionalAction
            parser.add_argument("--" + name, action=action, default=default, help=_HELP[field].format(name=name))
        else:
            kind = float if isinstance(default, float) else int
            parser.add_argument("--" + name, type=kind, default=default or 0, help=_HELP[field])


def budget_from(args: argparse.Namespace, fields: Sequence[str], prefix: str = "", **fixed: Any) -> expert.Budget:
    """The budget the flags of ``fields`` ask for (``work`` 0: no limit), ``fixed`` set as given, the rest as
    ``expert.BUDGET``; ``ValueError`` for counts it cannot search with."""
    values = {field: getattr(args, (prefix + field).replace("-", "_")) for field in fields}
    if "work" in values:
        values["work"] = values["work"] or None
    return dataclasses.replace(expert.BUDGET, **values, **fixed)
