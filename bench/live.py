"""How fast a move reaches the other player's page; prints figures, never passes or fails.

    python bench/live.py [--moves 200] [--redis]

Starts one ASGI server (daphne) on a loopback port, or with ``--redis`` a
``redis-server`` and two daphne processes sharing it, on a fresh SQLite
database in a temporary directory.  Two people play a game: each move is
posted over HTTP (to the first server) by the player whose turn it is, while
the other player's WebSocket (on the last server) waits for the version.
Prints, in milliseconds, the median and 95th percentile of

  * post: the form post and the redirected table page (what the mover waits for);
  * heard: from the start of the post until the other page's socket hears the version
    (the post runs on a thread meanwhile);
  * table: the other page's fetch of its own table after that (``/games/<id>/table/``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--redis", action="store_true", help="two server processes sharing redis-server")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="threethirteen-bench-"))
    database = workdir / "bench.sqlite3"
    os.environ.update(
        {"DATABASE_URL": f"sqlite:///{database}", "DEBUG": "1", "DJANGO_SETTINGS_MODULE": "threethirteen_site.settings"}
    )
    os.environ.pop("REDIS_URL", None)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=REPO, check=True)

    import django

    django.setup()
    from tests.servers import free_port, server_env, stop, wait_until_serving

    processes: list[subprocess.Popen] = []
    try:
        extra = {}
        if args.redis:
            redis_port = free_port()
            processes.append(
                subprocess.Popen(
                    [
                        shutil.which("redis-server") or "redis-server",
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        str(redis_port),
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        str(workdir),
                    ],
                    stdout=subprocess.DEVNULL,
                )
            )
            extra["REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
            time.sleep(0.3)
        urls = []
        for index in range(2 if args.redis else 1):
            port = free_port()
            log = workdir / f"daphne-{index}.log"
            with open(log, "wb") as out:
                processes.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "daphne",
                            "-b",
                            "127.0.0.1",
                            "-p",
                            str(port),
                            "threethirteen_site.asgi:application",
                        ],
                        cwd=REPO,
                        env=server_env({"ENGINE": "django.db.backends.sqlite3", "NAME": str(database)}, **extra),
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )
            urls.append(f"http://127.0.0.1:{port}")
            wait_until_serving(urls[-1] + "/rules/", processes[-1], log)
        figures = play(urls[0], urls[-1], args.moves)
    finally:
        for process in reversed(processes):
            stop(process)
        shutil.rmtree(workdir, ignore_errors=True)

    setup = "two daphne processes + redis-server" if args.redis else "one daphne process, in-memory channel layer"
    print(f"{len(figures['post'])} moves, {setup}, SQLite")
    for name, values in figures.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"{name:>6}: median {statistics.median(ordered) * 1000:6.1f} ms   p95 {p95 * 1000:6.1f} ms")


def play(post_to: str, listen_on: str, moves: int) -> dict[str, list[float]]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client
    from websockets.sync.client import connect
    from websockets.typing import Origin

    from games import bots, services
    from games.engine import GameState, view
    from games.models import Game, Variant
    from tests.servers import post_form, table_form

    call_command("load_variants", stdout=open(os.devnull, "w"))
    User = get_user_model()
    people = [User.objects.create_user(username=name, password="a-long-pass-phrase-42") for name in ("ann", "bob")]
    sessions = []
    for person in people:
        client = Client()
        client.force_login(person)
        sessions.append(client.cookies["sessionid"].value)
    figures: dict[str, list[float]] = {"post": [], "heard": [], "table": []}
    host = urllib.parse.urlparse(listen_on)
    game = None
    while len(figures["post"]) < moves:
        if game is None or game.status != Game.Status.ACTIVE:
            game = services.game_create(
                creator=people[0],
                variant=Variant.objects.get(slug="classic"),
                seat_count=2,
                invitees=[people[1]],
                seed=len(figures["post"]),
            )
        game.refresh_from_db()
        mover = game.current_seat
        assert mover is not None and game.state is not None  # an active game: dealt, a seat to play
        watcher = 1 - mover
        action = bots.choose_action(view(GameState.from_dict(game.state), mover)).to_dict()
        opener, fields = table_form(post_to, sessions[mover], game.pk)
        with connect(
            f"ws://{host.netloc}/ws/games/{game.pk}/",
            origin=Origin(listen_on),
            additional_headers={"Cookie": f"sessionid={sessions[watcher]}"},
        ) as socket:
            json.loads(socket.recv(timeout=10))
            done: dict[str, float] = {}

            def post(opener=opener, fields=fields, game=game, action=action, done=done) -> None:
                post_form(post_to, opener, fields, game.pk, action)
                done["posted"] = time.perf_counter()

            start = time.perf_counter()
            poster = threading.Thread(target=post)
            poster.start()
            json.loads(socket.recv(timeout=10))
            heard = time.perf_counter()
            poster.join()
            posted = done["posted"]
        request = urllib.request.Request(
            f"{listen_on}/games/{game.pk}/table/", headers={"Cookie": f"sessionid={sessions[watcher]}"}
        )
        urllib.request.urlopen(request, timeout=10).read()
        fetched = time.perf_counter()
        figures["post"].append(posted - start)
        figures["heard"].append(heard - start)
        figures["table"].append(fetched - heard)
        game.refresh_from_db()
    return figures


if __name__ == "__main__":
    main()
