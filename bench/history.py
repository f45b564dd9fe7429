"""Time the looking-back pages and count their queries; prints figures, never passes or fails.

    python bench/history.py [--games 500] [--rounds 11]

Builds a throwaway SQLite database in a temporary directory: one player
with ``--games`` finished games (rows written directly, rated as they end,
``--rounds`` rounds each) against two people and a bot, plus one whole
classic game played by four bots' choices through the services (for the
record and replay pages).  Then it fetches each page a few times with
Django's test client and prints the median time and the number of queries.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.throwaway import django_on_a_throwaway_database  # noqa: E402

django_on_a_throwaway_database()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from games import bots, services  # noqa: E402
from games.engine import GameState, Rules, view  # noqa: E402
from games.history import ratings  # noqa: E402
from games.models import Game, RoundResult, Seat, Variant  # noqa: E402


def seed(games: int, rounds: int) -> tuple:
    User = get_user_model()
    ann, bob, cat = (
        User.objects.create_user(username=n, password="a-long-pass-phrase-42") for n in ("ann", "bob", "cat")
    )
    start = datetime(2026, 1, 1, tzinfo=UTC)
    who_sits: list[dict[str, Any]] = [
        {"user": ann},
        {"user": bob},
        {"user": cat},
        {"bot_level": "hard", "bot_name": "Ada"},
    ]
    for i in range(games):
        game = Game.objects.create(
            variant_name="Classic",
            rules=Rules().to_dict(),
            seed=i,
            seat_count=4,
            status=Game.Status.FINISHED,
            finished_at=start + timedelta(hours=i),
        )
        points = [[(i * 7 + r * 3 + s * 5) % 30 for s in range(4)] for r in range(rounds)]
        for r in range(rounds):
            points[r][r % 4] = 0
        Seat.objects.bulk_create(
            [
                Seat(game=game, position=s, total_score=sum(p[s] for p in points), **who)
                for s, who in enumerate(who_sits)
            ]
        )
        RoundResult.objects.bulk_create(
            [
                RoundResult(
                    game=game,
                    round_number=r + 1,
                    seat=s,
                    hand_size=3 + r % 11,
                    points=points[r][s],
                    went_out=points[r][s] == 0,
                    went_out_first=r % 4 == s,
                )
                for r in range(rounds)
                for s in range(4)
            ]
        )
        ratings.game_rate(game_id=game.pk)
    classic = Variant.objects.get(slug="classic")
    old = play_out(services.game_create(creator=ann, variant=classic, seat_count=4, bot_count=3, seed=7), ann)
    fair = play_out(services.game_create(creator=ann, variant=classic, seat_count=4, bot_count=3), ann)
    return ann, old, fair


def play_out(game: Game, ann: Any) -> Game:
    """Play seat 0 (ann) with the bot's choices to the end; the other seats are bots."""
    while True:
        game.refresh_from_db()
        assert game.state is not None  # dealt at creation: every seat is taken
        if game.status != Game.Status.ACTIVE:
            return game
        action = bots.choose_action(view(GameState.from_dict(game.state), 0))
        services.game_play(game_id=game.pk, user=ann, action=action, expected_version=game.version)


def measure(client: Client, url: str, repeat: int = 5) -> tuple[float, int]:
    client.get(url)  # warm-up
    times, queries = [], 0
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as captured:
            began = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - began)
        assert response.status_code == 200, (url, response.status_code)
        queries = len(captured)
    return statistics.median(times), queries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    call_command("migrate", verbosity=0)
    began = time.perf_counter()
    ann, game, fair = seed(args.games, args.rounds)
    print(
        f"seeded {args.games} finished games x {args.rounds} rounds, plus two classic games of "
        f"{game.moves.count()} and {fair.moves.count()} moves (shuffle versions 1 and 2), "
        f"in {time.perf_counter() - began:.1f} s"
    )
    client = Client()
    client.force_login(ann)
    moves = game.moves.count()
    for name, url in [
        ("history, page 1", "/players/ann/games/"),
        ("history, filtered", "/players/ann/games/?opponent=bot:hard&page=3"),
        ("stats", "/players/ann/"),
        ("leaderboard", "/leaderboard/"),
        ("record", f"/games/{game.pk}/record/"),
        ("record, fair check", f"/games/{fair.pk}/record/"),
        ("record export (JSON)", f"/games/{fair.pk}/record.json"),
        ("replay, first move", f"/games/{game.pk}/replay/?step=1"),
        ("replay, last move", f"/games/{game.pk}/replay/?step={moves}"),
    ]:
        seconds, queries = measure(client, url)
        print(f"{name:22} {seconds * 1000:8.1f} ms  {queries:3d} queries")


if __name__ == "__main__":
    main()
