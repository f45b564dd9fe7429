"""Many sockets on the Redis channel layer: a burst of connects, a long idle, one move; prints figures.

    python bench/sockets.py [--sockets 1000] [--idle 60] [--layer site|plain] [--handshake-timeout 60]

Starts ``redis-server`` and one ASGI server (daphne, ``REDIS_URL`` set) on
loopback ports, on a fresh SQLite database in a temporary directory, and a
two-person game.  Then:

  * opens ``--sockets`` game sockets at once (half each player's) and counts
    those that connected and heard the version, and how long the burst took;
  * leaves them idle for ``--idle`` seconds and counts the sockets the server
    closed meanwhile (and with which codes);
  * posts one move and counts the sockets that heard its version.

``--layer plain`` runs the server with channels_redis as it comes
(``RedisChannelLayer``, the Redis URL alone: redis-py's own socket timeout and
pool), for the figures before ``threethirteen_site/redis_layer.py``.  Daphne
gives a socket ``--handshake-timeout`` seconds to be accepted (as the README
runs it); with daphne's own 5 s, a burst that takes longer to pass the
database fails as a whole.  ``CONN_MAX_AGE`` and the like pass through.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=60.0, help="seconds the sockets stay idle")
    parser.add_argument("--layer", choices=("site", "plain"), default="site")
    parser.add_argument(
        "--handshake-timeout", type=int, default=60, help="daphne's --websocket_connect_timeout (its default: 5)"
    )
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4 * args.sockets + 256  # both ends of every socket, the server's Redis and database files
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, wanted), hard))

    workdir = Path(tempfile.mkdtemp(prefix="threethirteen-sockets-"))
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
        redis_port = free_port()
        processes.append(
            subprocess.Popen(
                [shutil.which("redis-server") or "redis-server", "--bind", "127.0.0.1", "--port", str(redis_port)]
                + ["--save", "", "--appendonly", "no", "--dir", str(workdir), "--maxclients", "20000"],
                stdout=subprocess.DEVNULL,
            )
        )
        extra = {"REDIS_URL": f"redis://127.0.0.1:{redis_port}/0"}
        if args.layer == "plain":
            extra["DJANGO_SETTINGS_MODULE"] = "bench.plain_redis_settings"
        port = free_port()
        log = workdir / "daphne.log"
        time.sleep(0.3)
        with open(log, "wb") as out:
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port)]
                    + [
                        "--websocket_connect_timeout",
                        str(args.handshake_timeout),
                        "threethirteen_site.asgi:application",
                    ],
                    cwd=REPO,
                    env=server_env({"ENGINE": "django.db.backends.sqlite3", "NAME": str(database)}, **extra),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )
        url = f"http://127.0.0.1:{port}"
        wait_until_serving(url + "/rules/", processes[-1], log)
        game, sessions, move = set_up_game()
        figures = asyncio.run(run(url, game, sessions, move, args.sockets, args.idle))
    finally:
        for process in reversed(processes):
            stop(process)
        shutil.rmtree(workdir, ignore_errors=True)

    print(
        f"{args.sockets} sockets, one daphne process (handshake timeout {args.handshake_timeout} s) + redis-server, "
        f"layer: {args.layer}, SQLite"
    )
    print(f"connect burst: {figures['connected']} connected in {figures['burst']:.1f} s, {figures['failed']} failed")
    if figures["errors"]:
        print(f"  failures: {dict(figures['errors'])}")
    closes = ", ".join(f"{code}: {n}" for code, n in sorted(figures["closes"].items())) or "none"
    print(f"idle {args.idle:.0f} s: {sum(figures['closes'].values())} closed by the server ({closes})")
    print(f"one move: heard by {figures['heard']} of {figures['open']} sockets still open")


def set_up_game() -> tuple[Any, list[str], dict]:
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from games import bots, services
    from games.engine import GameState, view
    from games.models import Variant

    call_command("load_variants", stdout=open(os.devnull, "w"))
    User = get_user_model()
    people = [User.objects.create_user(username=name, password="a-long-pass-phrase-42") for name in ("ann", "bob")]
    sessions = []
    for person in people:
        client = Client()
        client.force_login(person)
        sessions.append(client.cookies["sessionid"].value)
    game = services.game_create(
        creator=people[0], variant=Variant.objects.get(slug="classic"), seat_count=2, invitees=[people[1]], seed=1
    )
    game.refresh_from_db()
    assert game.state is not None and game.current_seat is not None
    move = bots.choose_action(view(GameState.from_dict(game.state), game.current_seat)).to_dict()
    return game, sessions, move


async def run(url: str, game: Any, sessions: list[str], move: dict, count: int, idle: float) -> dict[str, Any]:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    from tests.servers import post_move

    port = url.rsplit(":", 1)[1]
    errors: collections.Counter[str] = collections.Counter()

    async def open_one(index: int) -> Any:
        try:
            socket = await connect(
                f"ws://127.0.0.1:{port}/ws/games/{game.pk}/",
                origin=url,  # type: ignore[arg-type]
                additional_headers={"Cookie": f"sessionid={sessions[index % 2]}"},
                open_timeout=120,
                ping_interval=None,
            )
            first = json.loads(await asyncio.wait_for(socket.recv(), 120))
            assert first == {"type": "version", "version": game.version}, first
            return socket
        except Exception as error:  # counted, not raised: the figure is how many fail
            errors[type(error).__name__ + ": " + str(error)[:80]] += 1
            return None

    started = time.monotonic()
    opened = await asyncio.gather(*(open_one(i) for i in range(count)))
    burst = time.monotonic() - started
    sockets = [s for s in opened if s is not None]

    async def listen(socket: Any, timeout: float) -> Any:
        try:
            return json.loads(await asyncio.wait_for(socket.recv(), timeout))
        except TimeoutError:
            return None
        except ConnectionClosed as closed:
            return ("closed", closed.rcvd.code if closed.rcvd else 1006)

    quiet = await asyncio.gather(*(listen(s, idle) for s in sockets))
    closes = collections.Counter(result[1] for result in quiet if isinstance(result, tuple))
    still_open = [s for s, result in zip(sockets, quiet, strict=True) if not isinstance(result, tuple)]
    mover = sessions[game.current_seat]
    await asyncio.to_thread(post_move, url, mover, game, move)
    heard = await asyncio.gather(*(listen(s, 60) for s in still_open))
    for socket in sockets:
        await socket.close()
    return {
        "connected": len(sockets),
        "failed": count - len(sockets),
        "errors": errors,
        "burst": burst,
        "closes": closes,
        "open": len(still_open),
        "heard": sum(1 for h in heard if h == {"type": "version", "version": game.version + 1}),
    }


if __name__ == "__main__":
    main()
