"""A tournament of the bot levels; prints figures, never passes or fails.

    python bench/bots.py --games 1000 --seed 1 [--workers 2] [--rounds 11]

Every game is a classic four-player game (11 rounds, 3 to 13 cards) with
one easy, one medium and one hard bot plus a fourth bot whose level turns
easy, medium, hard from one game to the next; the seats are shuffled by the
game's seed.  Game ``i`` uses seeds derived from ``--seed`` and ``i`` only,
so a run is reproducible and does not depend on ``--workers``.

Each level's score of a game is the mean final total of its seats in that
game (lower is better); the table shows the mean over games with a 95%
confidence interval (mean ± 1.96 standard errors).  Each bot sees only its
own ``view`` and the public events of the round, as on the site.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.bots import LEVELS, choose_action  # noqa: E402
from games.engine import Rules, apply, new_game, view  # noqa: E402


def play_game(job: tuple[int, int, int]) -> dict[str, float]:
    """Play game ``index`` of the tournament seeded ``seed``; each level's mean final score."""
    seed, index, rounds = job
    rng = random.Random(f"{seed}:{index}")
    levels = list(LEVELS) + [LEVELS[index % len(LEVELS)]]
    rng.shuffle(levels)
    rules = Rules.from_dict({"rounds": list(range(3, 3 + rounds))})
    state = new_game(rules, len(levels), rng.getrandbits(62))
    history: list[dict[str, Any]] = []
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None  # a game that is not over has a seat to play
        action = choose_action(view(state, seat), levels[seat], history)
        state, events = apply(state, seat, action)
        for event in events:
            event_dict = event.to_dict()
            if event_dict["kind"] == "round_dealt":
                history = []
            history.append(event_dict)
    by_level: dict[str, list[int]] = {}
    for seat, level in enumerate(levels):
        by_level.setdefault(level, []).append(state.scores[seat])
    return {level: statistics.fmean(scores) for level, scores in by_level.items()}


def summary(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return mean, half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=11, help="rounds per game (3 to 13 cards: 11)")
    args = parser.parse_args()
    if args.games < 1 or not 1 <= args.rounds <= 11:
        parser.error("--games must be at least 1 and --rounds between 1 and 11")

    start = time.perf_counter()
    jobs = [(args.seed, index, args.rounds) for index in range(args.games)]
    if args.workers > 1 and args.games > 1:
        with multiprocessing.Pool(args.workers) as pool:
            results = pool.map(play_game, jobs, chunksize=max(1, args.games // (8 * args.workers)))
    else:
        results = [play_game(job) for job in jobs]
    elapsed = time.perf_counter() - start

    print(
        f"{args.games} four-player games of {args.rounds} rounds, seed {args.seed}, "
        f"{args.workers} worker(s), {elapsed:.1f} s"
    )
    print(f"{'level':<8} {'games':>6} {'mean score':>11} {'95% interval':>20}")
    means = {}
    for level in LEVELS:
        values = [r[level] for r in results]
        mean, half = summary(values)
        means[level] = mean
        print(f"{level:<8} {len(values):>6} {mean:>11.1f} {f'{mean - half:.1f} .. {mean + half:.1f}':>20}")
    print("mean score per game: " + " ".join(f"{level}={means[level]:.1f}" for level in LEVELS))


if __name__ == "__main__":
    main()
