"""How long the expert bot takes to decide; prints figures, never passes or fails.

    python bench/expert_speed.py --games 4 --seed 1 [--rounds 11] [--seats 4] [--options JSON]

Plays classic four-player games (11 rounds, 3 to 13 cards), two expert bots
against two hard ones (seats shuffled by the seed), in this one process,
and times every decision of the expert seats (``choose_action`` on the
seat's view and the round's history, as the site calls it).  Prints the
median, the 95th percentile and the worst, overall and by the round's hand
size, and of the draws of last turns after someone went out alone.
``--seats`` plays that many (half of them expert), ``--options`` adds rule
options, e.g. ``'{"redemption": true, "decks": 3, "jokers_per_deck": 2}'``.
Only the expert's own search is timed, so run it on an idle core for the
figures the README quotes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import choose_action  # noqa: E402
from games.engine import Draw, Rules, apply, deal_event, legal_actions, new_game, view  # noqa: E402


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def line(label: str, times: list[float]) -> str:
    return (
        f"{label:<12} {len(times):>6} {1000 * statistics.median(times):>9.1f} "
        f"{1000 * percentile(times, 0.95):>9.1f} {1000 * max(times):>9.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=11, help="rounds per game (3 to 13 cards: 11)")
    parser.add_argument("--seats", type=int, default=4, help="players, half of them expert (2 to 8)")
    parser.add_argument("--options", default="{}", help="rule options as JSON")
    args = parser.parse_args()
    if args.games < 1 or not 1 <= args.rounds <= 11 or not 2 <= args.seats <= 8:
        parser.error("--games must be at least 1, --rounds between 1 and 11 and --seats between 2 and 8")
    rules = Rules.from_dict({"rounds": list(range(3, 3 + args.rounds)), **json.loads(args.options)})
    times: dict[int, list[float]] = {}
    last_draws: list[float] = []
    for index in range(args.games):
        rng = random.Random(f"speed:{args.seed}:{index}")
        levels = ["expert"] * (args.seats // 2) + ["hard"] * (args.seats - args.seats // 2)
        rng.shuffle(levels)
        state = new_game(rules, len(levels), rng.getrandbits(62))
        history: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event of its own
        while not state.is_over:
            seat = state.current_seat
            assert seat is not None  # a game that is not over has a seat to play
            last_draw = state.final_lap and any(isinstance(a, Draw) for a in legal_actions(state, seat))
            start = time.perf_counter()
            action = choose_action(view(state, seat), levels[seat], history)
            if levels[seat] == "expert":
                times.setdefault(state.hand_size, []).append(time.perf_counter() - start)
                if last_draw:
                    last_draws.append(times[state.hand_size][-1])
            state, events = apply(state, seat, action)
            for event in events:
                if event.kind == "round_dealt":
                    history = []
                history.append(event.to_dict())
    every = [t for ts in times.values() for t in ts]
    experts = args.seats // 2
    print(
        f"expert decisions in {args.games} games of {args.seats} ({experts} expert, {args.seats - experts} hard), "
        f"seed {args.seed}, options {args.options}"
    )
    print(f"{'cards':<12} {'count':>6} {'median ms':>9} {'95% ms':>9} {'worst ms':>9}")
    for size in sorted(times):
        print(line(str(size), times[size]))
    print(line("all", every))
    if last_draws:
        print(line("last draws", last_draws))
    print(
        f"decision time: median {1000 * statistics.median(every):.1f} ms, "
        f"95% {1000 * percentile(every, 0.95):.1f} ms, worst {1000 * max(every):.1f} ms"
    )


if __name__ == "__main__":
    main()
