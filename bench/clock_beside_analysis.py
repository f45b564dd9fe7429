"""How late the move clock plays a timed-out turn while it also analyses a game; prints figures, never passes or fails.

    python bench/clock_beside_analysis.py [--seconds 90] [--games 4] [--hand 11] [--inside]

Builds a throwaway SQLite database, plays a one-round classic game of four bots' choices (``--hand``
cards: the rounds of many cards have the longest decisions to analyse) and asks for its analysis.  Then
it runs the loop of ``manage.py gameclock`` (a pass every 2 s, 2 s of analysis a pass) for ``--seconds``,
while ``--games`` live games of two people keep running out of time: each time the clock has played a
turn, the next turn's deadline is set a moment (0 to 2 s) ahead, and its timeouts in a row are forgotten
so the bot never takes the seat for good.  Prints how late each timed-out turn was played after its
deadline (median, 95th percentile, worst), the longest time between two of the clock's heartbeats (what
``/healthz`` reads: 30 s without one and the clock counts as stopped), and the decisions analysed.

``--inside`` makes the analysis part of the clock's pass, as it was before 2026-12-06, to compare.
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import random
import statistics
import sys
import threading
import time
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.throwaway import django_on_a_throwaway_database  # noqa: E402

django_on_a_throwaway_database()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.utils import timezone  # noqa: E402

from games import bots, services  # noqa: E402
from games.engine import GameState, view  # noqa: E402
from games.live import heartbeat  # noqa: E402
from games.management.commands.gameclock import Command  # noqa: E402
from games.models import AnalysedDecision, Game, GameAnalysis, Move, Seat, Variant  # noqa: E402

INTERVAL = 2.0
ANALYSIS_SECONDS = 2.0


def analysed_game(hand: int, seed: int) -> None:
    """A finished one-round game of a person and three bots, the person's turns played by the bot's choice,
    with its analysis asked for."""
    ann = get_user_model().objects.create_user(username="ann", password="a-long-pass-phrase-42")
    game = services.game_create(
        creator=ann,
        variant=Variant.objects.get(name="Classic"),
        seat_count=4,
        bot_levels=["hard", "medium", "easy"],
        bot_count=3,
        seed=seed,
        options={"rounds": [hand]},
    )
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        assert game.current_seat is not None and game.state is not None
        seat = game.seats.get(position=game.current_seat)
        action = bots.choose_action(view(GameState.from_dict(game.state), seat.position))
        services.game_play(game_id=game.pk, user=seat.user, action=action, expected_version=game.version)
    services.analysis_request(game_id=game.pk, user=ann)


def live_games(count: int) -> list[int]:
    User = get_user_model()
    made = []
    for index in range(count):
        one, two = (
            User.objects.create_user(username=f"p{index}{side}", password="a-long-pass-phrase-42") for side in "ab"
        )
        game = services.game_create(
            creator=one,
            variant=Variant.objects.get(name="Classic"),
            seat_count=2,
            invitees=[two],
            time_limit_seconds=30,
            seed=index,
        )
        made.append(game.pk)
    return made


def drive(game_ids: list[int], seconds: float, rng: random.Random) -> list[float]:
    """Keep the games running out of time; how late (s) the clock played each timed-out turn."""
    late: list[float] = []
    waiting: dict[int, tuple[int, object]] = {}  # game -> (its turn number, the deadline set)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for game_id in game_ids:
            turn = Game.objects.filter(pk=game_id).values_list("turn_number", "status").get()
            if turn[1] != Game.Status.ACTIVE:
                continue
            if game_id in waiting and waiting[game_id][0] == turn[0]:
                continue  # not played yet
            if game_id in waiting:
                deadline = waiting[game_id][1]
                played = (
                    Move.objects.filter(game_id=game_id, by_bot=True, created_at__gte=deadline)
                    .order_by("seq")
                    .values_list("created_at", flat=True)
                    .first()
                )
                if played is not None:
                    late.append((played - deadline).total_seconds())  # type: ignore[operator]
            Seat.objects.filter(game_id=game_id).update(timeouts_in_row=0)
            deadline = timezone.now() + timedelta(seconds=rng.uniform(0, 2))
            Game.objects.filter(pk=game_id).update(turn_deadline=deadline)
            waiting[game_id] = (turn[0], deadline)
        time.sleep(0.05)
    return late


def inside(command: Command, stopping: threading.Event) -> None:
    """The loop as it was: the analysis in the clock's pass."""
    while True:
        command.clock_pass(once=False)
        command.analysis_pass(ANALYSIS_SECONDS, once=False)
        if stopping.wait(INTERVAL):
            return


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=90.0)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--hand", type=int, default=11, help="cards in the analysed game's one round")
    parser.add_argument("--seed", type=int, default=1, help="the analysed game's deal")
    parser.add_argument("--inside", action="store_true", help="the analysis inside the clock's pass, as before")
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    started = time.monotonic()
    logging.getLogger("games").setLevel(logging.WARNING)  # a line per timed-out turn otherwise
    analysed_game(args.hand, args.seed)
    game_ids = live_games(args.games)
    print(
        f"set-up: {time.monotonic() - started:.1f} s (a finished 4-seat game of {args.hand} cards, seed {args.seed},"
        f" {GameAnalysis.objects.get().decisions_total} moves, to analyse)"
    )

    beats: list[float] = []
    beat = heartbeat.beat

    def recorded_beat() -> None:
        beats.append(time.monotonic())
        beat()

    heartbeat.beat = recorded_beat
    command = Command(stdout=open(os.devnull, "w"))
    stopping = threading.Event()
    if args.inside:
        clock = threading.Thread(target=inside, args=(command, stopping))
    else:
        clock = threading.Thread(
            target=command.serve,
            kwargs={"interval": INTERVAL, "analysis_seconds": ANALYSIS_SECONDS, "stopping": stopping},
        )
    run_start = time.monotonic()
    clock.start()
    try:
        late = drive(game_ids, args.seconds, random.Random(1))
    finally:
        stopping.set()
        clock.join()
        connections.close_all()
    gaps = [b - a for a, b in zip([run_start, *beats], beats, strict=False)]
    decisions = AnalysedDecision.objects.count()
    total = GameAnalysis.objects.get().decisions_total
    where = "inside the clock pass (as before)" if args.inside else "beside the clock (a thread of its own)"
    print(f"the analysis {where}; {args.games} live games timing out for {args.seconds:g} s")
    if late:
        p95 = sorted(late)[math.ceil(0.95 * len(late)) - 1]  # nearest rank
        print(
            f"timed-out turns played: {len(late)}; late after the deadline: median {statistics.median(late):.2f} s,"
            f" p95 {p95:.2f} s, worst {max(late):.2f} s"
        )
    else:
        print("timed-out turns played: 0")
    print(f"clock heartbeats: {len(beats)}; longest time between two: {max(gaps, default=0.0):.1f} s")
    print(f"analysis: {decisions} of {total} decisions done")


if __name__ == "__main__":
    main()
