"""How long the analysis of a finished game takes; prints figures, never passes or fails.

    python bench/analysis.py [--seed 1] [--seats 4] [--rounds 11] [--samples 16] [--candidates 3] [--policy hard]

Plays a classic game of bots (hard, medium, easy and hard again, for a mix
of good and poor choices; ``--rounds`` plays only the first rounds), then
analyses every decision of it as the site's worker does
(``games.analysis``: the seat's view and the round's public history, the
candidates, ``rollout.evaluate`` with the hard bot's play to the end of the
round; ``--policy`` tries another), in this one process.  Prints the total time, the time per decision
(median, 95th percentile, worst) and per round, and the figures of the
analysis (accuracy and points lost per seat), so a change of the search can
be judged on both.  Figures of the machine as loaded; the site works
through an analysis a bounded slice at a time in the background.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games import analysis, bots  # noqa: E402
from games.analysis import evaluate  # noqa: E402
from games.bots.rollout import POLICIES  # noqa: E402
from games.engine import Rules, apply, deal_event, new_game, view  # noqa: E402

LEVELS = ("hard", "medium", "easy", "hard")


def play(seed: int, seats: int, rounds: int) -> tuple[Rules, list[analysis.LoggedMove]]:
    rules = Rules.from_dict({**Rules().to_dict(), "rounds": list(Rules().rounds[:rounds])})
    state = new_game(rules, seats, seed)
    history: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event of its own
    moves = []
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        action = bots.choose_action(view(state, seat), LEVELS[seat % len(LEVELS)], history)
        state, events = apply(state, seat, action)
        history = analysis.extend_history(history, [e.to_dict() for e in events])
        moves.append(analysis.LoggedMove(seat, action))
    return rules, moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--samples", type=int, default=analysis.SAMPLES)
    parser.add_argument("--candidates", type=int, default=analysis.MAX_CANDIDATES)
    parser.add_argument("--policy", choices=POLICIES, default=evaluate.POLICY, help="the rollouts' bot")
    args = parser.parse_args()
    evaluate.POLICY = args.policy

    rules, moves = play(args.seed, args.seats, args.rounds)
    seed = analysis.analysis_seed(args.seed)
    times: list[float] = []
    by_round: dict[int, float] = defaultdict(float)
    rows = []
    started = time.perf_counter()
    cpu = time.process_time()
    for decision in analysis.decisions(rules, args.seats, args.seed, moves):
        t = time.perf_counter()
        rows.append(analysis.analyse_decision(decision, seed, samples=args.samples, limit=args.candidates))
        spent = time.perf_counter() - t
        if rows[-1]["options"]:  # searched (not forced, not plain)
            times.append(spent)
        by_round[decision.round_number] += spent
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    turns = analysis.turns(rows)
    print(
        f"{args.seats}-player classic game of {len(rules.rounds)} rounds, seed {args.seed}: {len(moves)} moves,"
        f" {len(times)} searched; {args.samples} samples, at most {args.candidates} candidates,"
        f" rollouts played by {args.policy}"
    )
    print(f"analysis: {wall:.1f} s wall, {cpu:.1f} s CPU, Python {sys.version.split()[0]}")
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else 0.0
    print(
        f"per searched decision: median {1000 * statistics.median(times):.0f} ms, p95 {1000 * p95:.0f} ms,"
        f" worst {1000 * max(times):.0f} ms"
    )
    print("per round (s): " + ", ".join(f"{r}: {s:.1f}" for r, s in sorted(by_round.items())))
    for seat, verdict in enumerate(analysis.summary(turns, args.seats)):
        print(
            f"seat {seat} ({LEVELS[seat % len(LEVELS)]}): accuracy {verdict['accuracy']}%,"
            f" {verdict['lost']} points lost, turns graded (inaccuracy, mistake, blunder) {verdict['counts']}"
        )


if __name__ == "__main__":
    main()
