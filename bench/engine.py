"""Time the hand solver on random hands; prints figures, never passes or fails.

    python bench/engine.py [--hands 1000] [--seed 1]

Three workloads, each on freshly dealt random hands:
  * 13-card hands from two decks, Kings wild (classic last round);
  * 15-card hands from two decks with two jokers each, Aces and 2s wild;
  * go_out_discards on 14-card hands (hand_size + 1) from two decks, Kings wild;
  * dealing: new_game (first dealer, one shuffle, the deal) of a classic
    four-seat game and one rebuilt stock of 80 cards, with shuffle version 1
    (random.Random) and version 2 (HMAC-SHA256, Fisher-Yates);
  * a hunt for slow hands: 12- to 15-card hands from one to four decks with
    jokers, drawn from one or two suits or a few ranks plus 0..15 wilds,
    under every wild-related rule option; it prints the slowest it met.
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

from games.engine import FairShuffle, LegacyShuffle, melds, new_game, rebuilt_stock  # noqa: E402
from games.engine.cards import JOKER, STANDARD_DECK, parse_cards  # noqa: E402
from games.engine.rules import Rules, wild_ranks  # noqa: E402


def deck(decks: int, jokers_per_deck: int) -> list:
    return list(STANDARD_DECK) * decks + [JOKER] * (decks * jokers_per_deck)


def timed(fn, hands, rules, hand_size):
    """Wall-clock and CPU milliseconds of each call (CPU time leaves out
    time the process waited for a core, so it stays honest on a busy machine)."""
    melds._SUIT_CACHE.clear()
    wall, cpu = [], []
    for hand in hands:
        start, start_cpu = time.perf_counter(), time.thread_time()
        fn(hand, rules, hand_size)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
    return wall, cpu


def report(label, times):
    wall, cpu = times
    for kind, values in (("wall", sorted(wall)), ("cpu", sorted(cpu))):
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        print(
            f"{label:<48} {kind:>4}: median {statistics.median(values):7.3f} ms   "
            f"p99 {p99:7.3f} ms   max {values[-1]:7.3f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--presets-only", action="store_true", help="hunt for slow hands under the presets' wild rules only"
    )
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

    dealing(rng, args.hands)
    hunt(rng, args.hands * 3, PRESET_HUNT_RULES if args.presets_only else HUNT_RULES)
    for hand, rules, hand_size in KNOWN_SLOW:
        melds._SUIT_CACHE.clear()
        start = time.thread_time()
        melds.best_arrangement(parse_cards(hand), rules, hand_size)
        print(
            f"known slow hand {hand} (round of {hand_size}, {rules.changed_options()}): "
            f"cpu {(time.thread_time() - start) * 1000:.3f} ms"
        )


#: The slowest hands met by earlier hunts, timed every run (cold cache).
KNOWN_SLOW = [
    ("AH AC AS 7H 5H 3H JH 5H 6H 9H 4H 8H 7H TH 8H", Rules(max_wilds_per_meld=3), 15),
    ("XX AS AH XX 8S TS 4S KS 6S 3S 9S 7S QS 5S JS", Rules(max_wilds_per_meld=3), 15),
    ("XX TH QC QD 3D TC 3S TD TH 3C QS QD TC 3D QS", Rules(max_wilds_per_meld=1), 15),
    ("XX AH AC AS 3S KS 6S JS TS QS 4S 8S 5S 9S 7S", Rules(), 15),
]


def dealing(rng: random.Random, count: int) -> None:
    """Time the deal and a stock rebuild with each shuffle version (a fresh seed each time)."""
    classic, pile = Rules(), deck(2, 0)[:80]
    shuffles = {
        "v1": [LegacyShuffle(rng.getrandbits(62)) for _ in range(count)],
        "v2": [
            FairShuffle(rng.randbytes(32), tuple(f"{rng.getrandbits(64):016x}" for _ in range(4))) for _ in range(count)
        ],
    }
    for version, values in shuffles.items():
        report(f"new_game, classic, 4 seats, shuffle {version}", timed_each(lambda s: new_game(classic, 4, s), values))
        report(
            f"stock rebuild, 80 cards, shuffle {version}", timed_each(lambda s: rebuilt_stock(s, pile, 3, 1), values)
        )


def timed_each(fn, values):
    wall, cpu = [], []
    for value in values:
        start, start_cpu = time.perf_counter(), time.thread_time()
        fn(value)
        cpu.append((time.thread_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
    return wall, cpu


HUNT_RULES = [
    Rules(),
    Rules(max_wilds_per_meld=1),
    Rules(max_wilds_per_meld=2, all_wild_melds=True),
    Rules(max_wilds_per_meld=3),
    Rules(aces="high_or_low", ace_points=15),
    Rules(all_wild_melds=True),
    Rules(wild_points=15),
]


PRESET_HUNT_RULES = [
    Rules(),
    Rules(max_wilds_per_meld=1, wild_points=15),
    Rules(aces="high_or_low", ace_points=15),
    Rules(jokers_per_deck=2),
]


def hunt(rng: random.Random, count: int, rule_choices: list) -> None:
    slowest = []
    for _ in range(count):
        hand_size = rng.choice([12, 13, 14, 15])
        cards = deck(rng.choice([1, 2, 3, 4]), 2)
        wild = wild_ranks(hand_size)
        wilds = [c for c in cards if c.is_joker or c.rank in wild]
        if rng.random() < 0.3:
            ranks = rng.sample([r for r in range(1, 14) if r not in wild], rng.randint(2, 5))
            naturals = [c for c in cards if c.rank in ranks]
        else:
            suits = rng.sample("CDHS", rng.choice([1, 2, 4]))
            naturals = [c for c in cards if c.suit in suits and not (c.is_joker or c.rank in wild)]
        n_wild = rng.randint(max(0, hand_size - len(naturals)), min(hand_size, len(wilds)))
        hand = rng.sample(wilds, n_wild) + rng.sample(naturals, hand_size - n_wild)
        rules = rng.choice(rule_choices)
        melds._SUIT_CACHE.clear()  # cold cache: the worst case
        start, start_cpu = time.perf_counter(), time.thread_time()
        melds.best_arrangement(hand, rules, hand_size)
        cpu = (time.thread_time() - start_cpu) * 1000
        slowest.append(((time.perf_counter() - start) * 1000, cpu, hand, rules, hand_size))
    report(
        f"best_arrangement, {count} adversarial hands, cold cache",
        ([item[0] for item in slowest], [item[1] for item in slowest]),
    )
    slowest.sort(key=lambda item: -item[1])
    _, ms, hand, rules, hand_size = slowest[0]
    print(f"  slowest: {' '.join(c.code for c in hand)} (round of {hand_size}, options {rules.changed_options()})")


if __name__ == "__main__":
    main()
