"""When rounds end: the chance that a seat's turn is its last, as the expert bot's self-draw deals use it.

    python bench/round_ends.py --games 300 [--seed haz]

Plays classic four-player games (11 rounds, 3 to 13 cards) of the hard bot
and counts, for every draw, the round's hand size, the whole turns of the
table played before it (``selfdraw.round_turns``), whether it is the
seat's last turn of the round (someone else went out), and the points its
hand holds then (its best arrangement).  Prints the chance by hand size and
turn, pooled as in ``games/bots/selfdraw.py``'s ``ROUND_ENDS`` table, with
that table below each line (it holds the figures of ``--games 300``, three
decimals); then the mean points held, beside ``selfdraw.HELD_POINTS`` (the
same games, one decimal; turns seen fewer than 40 times are left out, and
each figure is at most the one before it).
Prints figures, never passes or fails.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import choose_action  # noqa: E402
from games.bots.position import Position  # noqa: E402
from games.bots.selfdraw import HELD_POINTS, ROUND_ENDS, round_turns  # noqa: E402
from games.engine import Phase, Rules, apply, deal_event, new_game, view  # noqa: E402


def pooled(seen: Counter[tuple[int, int]], last: Counter[tuple[int, int]], size: int, turns: int) -> float:
    """The chance at ``turns``, pooled with the two turns either side where fewer than 40 draws were seen."""
    count, ends = seen[size, turns], last[size, turns]
    if count >= 40:
        return ends / count
    for near in (turns - 1, turns + 1, turns - 2, turns + 2):
        count, ends = count + seen[size, near], ends + last[size, near]
    if count < 20:
        return 0.6
    return min(0.95, max(0.3, ends / count)) if turns > 3 else ends / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", default="haz", help="game i is seeded '<seed>:i' (the table: haz)")
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    rules = Rules.from_dict({"rounds": list(range(3, 14))})
    seen: Counter[tuple[int, int]] = Counter()
    last: Counter[tuple[int, int]] = Counter()
    held: Counter[tuple[int, int]] = Counter()
    for index in range(args.games):
        rng = random.Random(f"{args.seed}:{index}")
        state = new_game(rules, 4, rng.getrandbits(62))
        history: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event of its own
        while not state.is_over:
            seat = state.current_seat
            assert seat is not None  # a game that is not over has a seat to play
            seen_now = view(state, seat)
            if seen_now.phase == Phase.DRAW:
                key = (state.hand_size, round_turns(history, state.seat_count))
                seen[key] += 1
                last[key] += seen_now.final_lap
                pos = Position(seen_now)
                held[key] += pos.arrange(pos.hand)[0]
            state, events = apply(state, seat, choose_action(seen_now, "hard", history))
            for event in events:
                if event.kind == "round_dealt":
                    history = []
                history.append(event.to_dict())
    print(f"the chance that a turn is the seat's last, by hand size and whole turns played; {args.games} games")
    for size in range(3, 14):
        turns = max(t for s, t in seen if s == size) + 1
        figures = " ".join(f"{pooled(seen, last, size, t):.2f}" for t in range(turns))
        print(f"{size:>2} measured: {figures}")
        print(f"{size:>2} table:    {' '.join(f'{chance:.2f}' for chance in ROUND_ENDS[size])}")
    print("the points a seat's hand holds at its draw, by hand size and whole turns played")
    for size in range(3, 14):
        means: list[float] = []
        while seen[size, len(means)] >= 40:  # the turns seen often enough, each mean at most the one before
            turns = len(means)
            means.append(min([held[size, turns] / seen[size, turns], *means[-1:]]))
        figures = " ".join(f"{mean:.1f}" for mean in means)
        print(f"{size:>2} measured: {figures}")
        print(f"{size:>2} table:    {' '.join(f'{points:.1f}' for points in HELD_POINTS[size])}")


if __name__ == "__main__":
    main()
