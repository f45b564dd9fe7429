"""Time the hand solver on random hands; prints figures, never passes or fails.

    python bench/engine.py [--hands 1000] [--seed 1]

Three workloads, each on freshly dealt random hands:
  * 13-card hands from two decks, Kings wild (classic last round);
  * 15-card hands from two decks with two jokers each, Aces and 2s wild;
  * go_out_discards on 14-card hands (hand_size + 1) from two decks, Kings wild.
The solver keeps a cache of suit shapes across calls (as in play); the cache
is cleared before each workload, so its warm-up is counted.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.engine import melds  # noqa: E402
from games.engine.cards import JOKER, STANDARD_DECK  # noqa: E402
from games.engine.rules import Rules  # noqa: E402


def deck(decks: int, jokers_per_deck: int) -> list:
    return list(STANDARD_DECK) * decks + [JOKER] * (decks * jokers_per_deck)


def timed(fn, hands, rules, hand_size):
    melds._SUIT_CACHE.clear()
    times = []
    for hand in hands:
        start = time.perf_counter()
        fn(hand, rules, hand_size)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return times


def report(label, times):
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    print(f"{label:<48} median {statistics.median(times):7.3f} ms   p99 {p99:7.3f} ms   max {times[-1]:7.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    classic = Rules()
    print(f"{args.hands} random hands per workload, seed {args.seed}, Python {sys.version.split()[0]}")

    cards = deck(2, 0)
    hands13 = [rng.sample(cards, 13) for _ in range(args.hands)]
    report("best_arrangement, 13 cards, 2 decks, Kings wild", timed(melds.best_arrangement, hands13, classic, 13))

    jokers = Rules(jokers_per_deck=2, rounds=tuple(range(3, 16)))
    cards = deck(2, 2)
    hands15 = [rng.sample(cards, 15) for _ in range(args.hands)]
    report("best_arrangement, 15 cards, jokers, A/2 wild", timed(melds.best_arrangement, hands15, jokers, 15))

    cards = deck(2, 0)
    hands14 = [rng.sample(cards, 14) for _ in range(args.hands)]
    report("go_out_discards, 14 cards, 2 decks, Kings wild", timed(melds.go_out_discards, hands14, classic, 13))


if __name__ == "__main__":
    main()
