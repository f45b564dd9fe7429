"""Score hands in batch: ``python -m games.engine.score < in.jsonl > out.jsonl``.

Each input line is a JSON object in the schema of ``shared/vectors``
(``hand_size``, ``hand``, ``options``, any other fields).  Each output line
is the same object with the engine's own ``deadwood`` and, for hands of
``hand_size + 1`` cards, ``go_out_discards``.  A line that cannot be read
gets ``{"line": N, "error": "..."}`` instead, and the run goes on.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from .cards import parse_cards
from .melds import deadwood_points, go_out_discards
from .rules import MAX_HAND_SIZE, MIN_HAND_SIZE, Rules, RulesError


def score_line(data: Any) -> dict[str, Any]:
    """Score one vector object; raises ``ValueError`` on bad input."""
    if not isinstance(data, dict):
        raise ValueError("a line must hold a JSON object")
    hand_size = data.get("hand_size")
    if not isinstance(hand_size, int) or isinstance(hand_size, bool) or not MIN_HAND_SIZE <= hand_size <= MAX_HAND_SIZE:
        raise ValueError(f"'hand_size' must be a whole number from {MIN_HAND_SIZE} to {MAX_HAND_SIZE}")
    if not isinstance(data.get("hand"), str):
        raise ValueError("'hand' must be a string of card codes")
    hand = parse_cards(data["hand"])
    if len(hand) > MAX_HAND_SIZE + 1:
        raise ValueError(f"a hand holds at most {MAX_HAND_SIZE + 1} cards, not {len(hand)}")
    try:
        rules = Rules.from_dict(data.get("options") or {})
    except (RulesError, TypeError) as error:
        raise ValueError(str(error)) from None
    result = dict(data)
    result["deadwood"] = deadwood_points(hand, rules, hand_size)
    if len(hand) == hand_size + 1:
        result["go_out_discards"] = [card.code for card in go_out_discards(hand, rules, hand_size)]
    else:
        result.pop("go_out_discards", None)
    return result


def run(source: TextIO, sink: TextIO) -> int:
    """Score every line of ``source`` onto ``sink``; return the number of bad lines."""
    errors = 0
    for number, line in enumerate(source, start=1):
        if not line.strip():
            continue
        try:
            out = score_line(json.loads(line))
        except ValueError as error:  # json.JSONDecodeError is a ValueError
            errors += 1
            out = {"line": number, "error": str(error)}
        sink.write(json.dumps(out) + "\n")
    return errors


def main() -> int:
    errors = run(sys.stdin, sys.stdout)
    if errors:
        print(f"{errors} line(s) could not be scored", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
