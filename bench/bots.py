"""A tournament of the bot levels, or a match of two; prints figures, never passes or fails.

    python bench/bots.py --games 1000 --seed 1 [--workers 2] [--rounds 11]
    python bench/bots.py --match expert,hard --games 200 --seed 1 [--workers 2] [--save FILE]

Tournament: every game is a classic four-player game (11 rounds, 3 to 13
cards) with one easy, one medium and one hard bot plus a fourth bot whose
level turns easy, medium, hard from one game to the next.  Match (``--match
A,B``): two bots of level A and two of level B.  The seats are shuffled by
the game's seed.  Game ``i`` uses seeds derived from ``--seed`` and ``i``
only, so a run is reproducible and does not depend on ``--workers``.

Each level's score of a game is the mean final total of its seats in that
game (lower is better); the table shows the mean over games with a 95%
confidence interval (mean ± 1.96 standard errors).  A match also shows the
difference A - B per game (same tables, so paired) with its interval, A's
score relative to B's, the standard deviation of that difference (over
games, or with ``--duplicate`` over deals: how many are needed to tell two
versions apart), and each level's time per decision (median, 95th
percentile, worst; figures of the machine as loaded, ``--workers`` at once).
Each bot sees only its own ``view`` and the public events of the round, as
on the site.  ``--expert-*`` options set the expert's search budget;
``--minutes`` stops a long run in time and reports the games finished (the
first ones, in order, so still reproducible).

``--against FILE`` (a match) compares this run game by game with a match
saved by ``--save`` with the same seed (another budget, or another version of
the code): both deal every seat the same cards each round, so the change of
A - B per game is measured far more precisely than either run's figure.

``--duplicate`` (a match) plays each deal twice, the second time with the
two levels' seats swapped: every seat is dealt the same cards each round in
both games, so the luck of the deal falls on both levels alike and their
difference is measured with far fewer games (the intervals are then over
deals, each the mean of its two games).

``--save FILE`` keeps each game's result as it finishes (a line of JSON) and
plays only the games the file does not hold yet, so a long match (1,000
expert games take hours of CPU) can be played in pieces, stopped and resumed
at will; the figures are always those of the first games in order (the
decision times as each piece's machine was loaded).  The file's first line
records the seed, rounds, levels, budget and a fingerprint of the code that
plays a game (the engine, the bots and ``play_game``, docstrings left out),
and a file saved with any of them different is refused rather than mixed in.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import hashlib
import inspect
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.budget_flags import add_budget_flags, budget_from  # noqa: E402
from games.bots import LEVELS, choose_action, expert  # noqa: E402
from games.engine import Rules, apply, deal_event, new_game, view  # noqa: E402

#: The tournament's levels (the expert plays matches: it is slow enough to be measured on its own).
TOURNAMENT = ("easy", "medium", "hard")
#: The expert's budget fields a match may set (``--expert-deals``, ...).
BUDGET_FLAGS = (
    "deals",
    "turns",
    "work",
    "discards",
    "refine",
    "finalists",
    "refine_work",
    "big_refine_work",
    "tempo",
    "draws",
)


@dataclasses.dataclass(frozen=True)
class Job:
    seed: int
    index: int
    rounds: int
    match: tuple[str, str] | None = None
    budget: expert.Budget = expert.BUDGET
    duplicate: bool = False


def play_game(job: Job) -> dict[str, Any]:
    """Play game ``index`` seeded ``seed``: each level's mean final score, and its decision times.

    ``duplicate`` (a match): games ``2k`` and ``2k + 1`` play deal ``k`` (the same shuffles, so every seat
    is dealt the same cards each round), the second with the two levels' seats swapped.
    """
    rng = random.Random(f"{job.seed}:{job.index // 2 if job.duplicate else job.index}")
    if job.match:
        levels = [job.match[0], job.match[0], job.match[1], job.match[1]]
    else:
        levels = list(TOURNAMENT) + [TOURNAMENT[job.index % len(TOURNAMENT)]]
    rng.shuffle(levels)
    if job.match and job.duplicate and job.index % 2:
        levels = [job.match[1] if level == job.match[0] else job.match[0] for level in levels]
    expert.BUDGET = job.budget
    rules = Rules.from_dict({"rounds": list(range(3, 3 + job.rounds))})
    state = new_game(rules, len(levels), rng.getrandbits(62))
    history: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event of its own
    times: dict[str, list[float]] = {level: [] for level in levels}
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None  # a game that is not over has a seat to play
        start = time.perf_counter()
        action = choose_action(view(state, seat), levels[seat], history)
        times[levels[seat]].append(time.perf_counter() - start)
        state, events = apply(state, seat, action)
        for event in events:
            event_dict = event.to_dict()
            if event_dict["kind"] == "round_dealt":
                history = []
            history.append(event_dict)
    by_level: dict[str, list[int]] = {}
    for seat, level in enumerate(levels):
        by_level.setdefault(level, []).append(state.scores[seat])
    scores = {level: statistics.fmean(values) for level, values in by_level.items()}
    return {"index": job.index, "seats": levels, "scores": scores, "times": times}


def code_fingerprint() -> str:
    """A digest of the code that decides a game's result: the engine, the bots and :func:`play_game`.

    Of their syntax trees, without docstrings (and so without comments): a
    change of wording leaves a saved match usable, a change of behaviour
    does not.
    """
    root = Path(__file__).resolve().parent.parent / "games"
    paths = sorted([*root.glob("engine/*.py"), *root.glob("bots/*.py")])
    sources = [(path.relative_to(root).as_posix(), path.read_text()) for path in paths]
    sources.append(("play_game", inspect.getsource(Job) + inspect.getsource(play_game)))
    digest = hashlib.sha256()
    for name, text in sources:
        tree = ast.parse(text)
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
                if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                    body[0] = ast.Pass()  # a docstring
        digest.update(name.encode() + b"\0" + ast.dump(tree).encode() + b"\0")
    return digest.hexdigest()[:16]


def saved_results(path: Path, header: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The games ``path`` holds, by index (a new file gets ``header`` as its first line).

    Raises ``ValueError`` when the file was saved under another header.  A
    last line cut short (the run was killed while writing) is left out.
    """
    if not path.exists() or not path.stat().st_size:
        path.write_text(json.dumps(header) + "\n")
        return {}
    text = path.read_text()
    lines = text.splitlines()
    try:
        first = json.loads(lines[0])
    except json.JSONDecodeError:
        first = None
    if first != json.loads(json.dumps(header)):
        raise ValueError(f"{path} holds games of another run: {lines[0][:300]}")
    found = games_in(lines[1:])
    if not text.endswith("\n"):
        with path.open("a") as sink:
            sink.write("\n")  # the next game starts a line of its own
    return found


def games_in(lines: list[str]) -> dict[int, dict[str, Any]]:
    """The games that lines of a saved file hold whole, by index (a line cut short is left out)."""
    found = {}
    for line in lines:
        try:
            result = json.loads(line)
        except json.JSONDecodeError:
            continue  # cut short
        if isinstance(result, dict) and isinstance(result.get("index"), int):
            found[result["index"]] = result
    return found


def load_against(path: Path, header: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The games of the match saved in ``path``, to compare with this run's: it must have played the same
    seed's games (any budget or code).  Raises ``ValueError`` when ``path`` holds no such match."""
    try:
        lines = path.read_text().splitlines()
        theirs = json.loads(lines[0])
    except (OSError, UnicodeDecodeError, IndexError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} holds no saved match") from error
    ours = json.loads(json.dumps(header))
    if not isinstance(theirs, dict) or any(theirs.get(key) != ours.get(key) for key in SAME_GAMES):
        raise ValueError(f"{path} holds games of another seed, rounds or levels: {lines[0][:300]}")
    return games_in(lines[1:])


#: What a saved match's header must share with a run for their games to be the same deals.
SAME_GAMES = ("seed", "rounds", "match", "duplicate")


def against(games: dict[int, dict[str, Any]], results: list[dict[str, Any]], match: tuple[str, str]) -> str:
    """How A - B per game changed from the saved ``games`` to ``results``, game by game: the same seed deals
    every seat the same cards each round in both, so much of a game's luck cancels."""
    a, b = match
    pairs = [
        (games[r["index"]]["scores"][a] - games[r["index"]]["scores"][b], r["scores"][a] - r["scores"][b])
        for r in results
        if r["index"] in games
    ]
    if len(pairs) < 2:
        return f"against: fewer than two of these games saved there ({len(pairs)})"
    before, now = (list(side) for side in zip(*pairs, strict=True))
    mean, half = summary([n - p for p, n in pairs])
    correlation = statistics.correlation(before, now) if len(set(before)) > 1 and len(set(now)) > 1 else 0.0
    # A change meant to leave every choice alone (a speed-up) must leave every game as it was.
    same = sum(1 for r in results if r["index"] in games and games[r["index"]]["scores"] == r["scores"])
    return (
        f"against the saved match ({len(pairs)} of the same games): {a} - {b} per game changed by {mean:+.1f} "
        f"({mean - half:+.1f} .. {mean + half:+.1f}); the two runs' differences correlate {correlation:.2f}; "
        f"{same} of the {len(pairs)} games ended with both levels' scores the same"
    )


def by_deal(values: list[float], duplicate: bool) -> list[float]:
    """The samples an interval is taken over: each game's value, or with ``duplicate`` each deal's (the mean
    of its two games, whose seat luck cancels and which are far from independent)."""
    if not duplicate:
        return values
    return [(values[i] + values[i + 1]) / 2 for i in range(0, len(values) - 1, 2)]


def summary(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return mean, half


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=11, help="rounds per game (3 to 13 cards: 11)")
    parser.add_argument(
        "--minutes", type=float, default=0, help="stop after this long; report the first games finished"
    )
    parser.add_argument("--save", type=Path, help="keep each game's result in this file and resume from it")
    parser.add_argument("--match", help="two levels, A,B: two bots of each a game (e.g. expert,hard)")
    parser.add_argument("--against", type=Path, help="a match saved by --save with the same seed: compare game by game")
    parser.add_argument(
        "--duplicate", action="store_true", help="a match plays each deal twice, the levels' seats swapped"
    )
    add_budget_flags(parser, BUDGET_FLAGS, "expert-")
    args = parser.parse_args()
    if args.games < 1 or not 1 <= args.rounds <= 11:
        parser.error("--games must be at least 1 and --rounds between 1 and 11")
    match: tuple[str, str] | None = None
    if args.match:
        names = tuple(args.match.split(","))
        if len(names) != 2 or names[0] == names[1] or not set(names) <= set(LEVELS):
            parser.error(f"--match takes two different levels among {', '.join(LEVELS)}, such as expert,hard")
        match = (names[0], names[1])
    if args.duplicate and (not match or args.games % 2):
        parser.error("--duplicate plays a --match, in an even number of --games")
    try:
        budget = budget_from(args, BUDGET_FLAGS, "expert-")
    except ValueError:
        parser.error(
            "the expert's deals, turns, work, discards, finalists and their work are at least 1 "
            "(--expert-work 0: no limit), more deals at least 0, the tempo 0 to 1"
        )

    header = {"seed": args.seed, "rounds": args.rounds, "match": match, "code": code_fingerprint()}
    header |= {"duplicate": True} if args.duplicate else {}
    compared: dict[int, dict[str, Any]] = {}
    if args.against:
        if not match:
            parser.error("--against compares a --match with a saved one")
        try:
            compared = load_against(args.against, header)
        except ValueError as error:
            parser.error(str(error))
    saved: dict[int, dict[str, Any]] = {}
    if args.save:
        header["budget"] = dataclasses.asdict(budget) if match and "expert" in match else None
        try:
            saved = saved_results(args.save, header)
        except ValueError as error:
            parser.error(str(error))
    start = time.perf_counter()
    jobs = [
        Job(args.seed, index, args.rounds, match, budget, args.duplicate)
        for index in range(args.games)
        if index not in saved
    ]
    played = 0
    with open(args.save, "a") if args.save else contextlib.nullcontext() as sink:

        def keep(result: dict[str, Any]) -> bool:
            """Keep a finished game; whether time is up."""
            nonlocal played
            if sink is not None:  # kept as saved, to the 10 microseconds, so a resumed run reports the same
                times = {level: [round(t, 5) for t in values] for level, values in result["times"].items()}
                result = {**result, "times": times}
                sink.write(json.dumps(result) + "\n")
                sink.flush()
            saved[result["index"]] = result
            played += 1
            return bool(args.minutes) and time.perf_counter() - start > 60 * args.minutes

        if args.workers > 1 and len(jobs) > 1:
            with multiprocessing.Pool(args.workers) as pool:
                chunk = 1 if args.minutes or args.save else max(1, len(jobs) // (8 * args.workers))
                for result in pool.imap(play_game, jobs, chunksize=chunk):
                    if keep(result):
                        pool.terminate()
                        break
        else:
            for job in jobs:
                if keep(play_game(job)):
                    break
    elapsed = time.perf_counter() - start
    results: list[dict[str, Any]] = []
    while len(results) < args.games and len(results) in saved:
        results.append(saved[len(results)])
    if args.duplicate and len(results) % 2:
        results.pop()  # a deal is reported once both its games are played
    if args.save:
        print(f"played {played} game(s) now; {args.save} holds {len(saved)}")
    if len(results) < args.games:
        reason = f"time is up after {args.minutes} minutes" if args.minutes and played else "not all played yet"
        print(f"{reason}: the first {len(results)} of {args.games} games")
        args.games = len(results)
    if not results:
        parser.exit(1, "no game to report\n")

    levels = match or TOURNAMENT
    kind = f"{levels[0]} x2 against {levels[1]} x2" if match else "tournament"
    kind += "; duplicate: each deal twice, the seats swapped, intervals over deals" if args.duplicate else ""
    print(
        f"{args.games} four-player games of {args.rounds} rounds ({kind}), seed {args.seed}, "
        f"{args.workers} worker(s), {elapsed:.1f} s" + (f" for the {played} played now" if args.save else "")
    )
    if match and "expert" in match:
        print(
            f"expert budget: {budget.deals} self-draw deals of at most {budget.turns} turns "
            + (f"(until their turns hold {budget.work} cards), " if budget.work else "(no limit on their cards), ")
            + f"{budget.discards} of the hard bot's discards beside the leftover cards, "
            f"draws {'weighed on the deals' if budget.draws else 'as the hard bot'}, "
            + (
                f"the {budget.finalists} best discards on {budget.refine} more deals "
                f"(until their turns hold {budget.refine_work} cards, "
                f"{budget.big_refine_work} in rounds of {budget.big_hand} cards or more)"
                if budget.refine and budget.finalists > 1
                else "no more deals for the best discards"
            )
            + (f"; the others' points at the round's end weigh {budget.tempo:g} of its own" if budget.tempo else "")
        )
    print(f"{'level':<8} {'games':>6} {'mean score':>11} {'95% interval':>20}")
    means = {}
    for level in levels:
        values = [r["scores"][level] for r in results]
        mean, half = summary(by_deal(values, args.duplicate))
        means[level] = mean
        print(f"{level:<8} {len(values):>6} {mean:>11.1f} {f'{mean - half:.1f} .. {mean + half:.1f}':>20}")
    if match:
        a, b = match
        differences = by_deal([r["scores"][a] - r["scores"][b] for r in results], args.duplicate)
        mean, half = summary(differences)
        spread = statistics.stdev(differences) if len(differences) > 1 else float("nan")
        print(
            f"{a} - {b} per game: {mean:.1f} ({mean - half:.1f} .. {mean + half:.1f}); "
            f"standard deviation {spread:.1f} a {'deal' if args.duplicate else 'game'}"
        )
        print(f"{a} relative to {b}: {100 * (means[a] - means[b]) / means[b]:+.1f}%")
        for level in match:
            times = [t for r in results for t in r["times"][level]]
            print(
                f"{level} decision time: median {1000 * statistics.median(times):.1f} ms, "
                f"95% {1000 * percentile(times, 0.95):.1f} ms, worst {1000 * max(times):.1f} ms "
                f"({len(times)} decisions)"
            )
        if args.against:
            print(against(compared, results, match))
    print("mean score per game: " + " ".join(f"{level}={means[level]:.1f}" for level in levels))


if __name__ == "__main__":
    main()
