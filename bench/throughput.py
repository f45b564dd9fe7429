"""Requests per second of a move and of the table page against a trivial page; prints figures, never fails.

    python bench/throughput.py [--clients 32] [--seconds 8] [--rounds 3] [--servers 2] [--memory-layer]

Starts the set-up of ``bench/cluster.py``: a PostgreSQL server of its own
(Debian's ``initdb`` and ``pg_ctl``, in a temporary directory, on a free
loopback port; as root they run as the ``postgres`` user) with a migrated
database, and ``--servers`` daphne processes (``bench.site``: the site plus a
trivial page; ``DEBUG=0``) sharing a ``redis-server`` of its own as the
channel layer (or each with the in-memory layer: ``--memory-layer``).  The
clients are shared out among the processes, as a proxy in front of them would.

Then, ``--rounds`` times, each for ``--seconds`` (after a second of warm-up),
``--clients`` concurrent clients, each on its own keep-alive connection, ask
as fast as the server answers for:

* trivial: ``/bench/trivial/`` without a cookie (no database);
* signed-in: ``/bench/signed-in/`` as the seated player, the person's name (their session and user row read:
  the least a page that knows who asks costs);
* empty: ``/bench/empty-page/`` as the seated player, the site's base template around nothing (header with the
  count of games waiting, menu, messages: the least a page of the site costs);
* table: a seated player's table page ``/games/<id>/`` (each client its own game);
* move: the move form's POST (draw, discard or go out; answered by the redirect,
  which is not followed), each client playing its own two-person games, both
  seats, with moves worked out beforehand with the engine (so every post is a
  legal move at the right version).

Prints each round's requests per second, the median over rounds, the
ratios to the trivial page's rate of the same round (their median), the CPU
time per request of the server process and of PostgreSQL, and the database
queries of a move (a draw, a discard, and a discard after which two bots play,
BEGIN and COMMIT included), counted in this process with Django's test client
on the same database.

Run it on a quiet machine, the same way for the figures you compare: the
load generator shares the machine's cores with the server and PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.cluster import Cluster, read_response, request_bytes  # noqa: E402

PASSWORD = "a-long-pass-phrase-42"
#: Signed-in pages that do less than any page of the site: the floor under the table page's ratio.
FLOORS = {"signed-in": "/bench/signed-in/", "empty": "/bench/empty-page/"}
KINDS = ("trivial", "signed-in", "empty", "table", "move")


# -- the load --------------------------------------------------------------------------------


@dataclass
class Client:
    """One simulated browser: its own keep-alive connection, its sessions, its games and their moves."""

    table_path: str
    table_cookie: str
    #: (path, cookie, body) of each move post, in order (the next one is ``moves[next_move]``).
    moves: list[tuple[str, str, bytes]] = field(default_factory=list)
    next_move: int = 0


async def drive(
    kind: str, client: Client, port: int, until: float, counting_from: float, counts: dict[str, int]
) -> None:
    """Ask for ``kind`` again and again until ``until``; count the answers that came after ``counting_from``."""
    host = f"127.0.0.1:{port}"
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        while time.monotonic() < until:
            if kind == "trivial":
                expected, data = 200, request_bytes("GET", "/bench/trivial/", host)
            elif kind in FLOORS:
                expected, data = 200, request_bytes("GET", FLOORS[kind], host, client.table_cookie)
            elif kind == "table":
                expected, data = 200, request_bytes("GET", client.table_path, host, client.table_cookie)
            else:
                if client.next_move >= len(client.moves):
                    counts["ran_out"] += 1
                    return
                path, cookie, body = client.moves[client.next_move]
                expected, data = 302, request_bytes("POST", path, host, cookie, body)
            writer.write(data)
            status, _headers, _body = await read_response(reader)
            if kind == "move":
                client.next_move += 1
            if status != expected:
                counts["errors"] += 1
                if kind == "move":
                    return  # this client's moves are out of step with its games now
            else:
                counts["all"] += 1
                if time.monotonic() >= counting_from:
                    counts["done"] += 1
    finally:
        writer.close()


async def measure(kind: str, clients: list[Client], ports: list[int], seconds: float) -> dict[str, int]:
    """Ask for ``kind`` for a second of warm-up and ``seconds`` more: the answers counted ("done", after
    the warm-up; "all"), the unexpected ones ("errors") and the clients that ran out of prepared moves."""
    start = time.monotonic()
    counts = {"done": 0, "all": 0, "errors": 0, "ran_out": 0}
    await asyncio.gather(
        *(
            drive(kind, client, ports[index % len(ports)], start + 1 + seconds, start + 1, counts)
            for index, client in enumerate(clients)
        )
    )
    return counts


# -- the games and their moves ---------------------------------------------------------------


def prepare_clients(count: int, moves_each: int) -> list[Client]:
    """``count`` clients, each with two people of its own and enough two-person games for ``moves_each``
    moves, worked out with the engine from the dealt states (easy bots choose for both seats)."""
    from django.contrib.auth import get_user_model
    from django.test import Client as TestClient

    from games import bots, services
    from games.engine import GameState, apply, view
    from games.models import Variant

    user_model = get_user_model()
    classic = Variant.objects.get(slug="classic")
    csrf = secrets.token_hex(16)  # a CSRF secret of our own: the cookie and the form's token
    clients = []
    for index in range(count):
        people = [user_model.objects.create_user(username=f"p{index}-{seat}", password=PASSWORD) for seat in (0, 1)]
        cookies = []
        for person in people:
            test_client = TestClient()
            test_client.force_login(person)
            cookies.append(f"sessionid={test_client.cookies['sessionid'].value}; csrftoken={csrf}")
        client: Client | None = None
        game_number = 0
        while client is None or len(client.moves) < moves_each:
            game = services.game_create(
                creator=people[0], variant=classic, seat_count=2, invitees=[people[1]], seed=index * 1000 + game_number
            )
            game_number += 1
            game.refresh_from_db()
            if client is None:
                client = Client(table_path=f"/games/{game.pk}/", table_cookie=cookies[0])
            assert game.state is not None
            state, version = GameState.from_dict(game.state), game.version
            while not state.is_over and len(client.moves) < moves_each:
                seat = state.current_seat
                assert seat is not None  # a game in play
                action = bots.choose_action(view(state, seat), "easy")
                fields = {"csrfmiddlewaretoken": csrf, "version": str(version), **action.to_dict()}
                client.moves.append((f"/games/{game.pk}/play/", cookies[seat], urllib.parse.urlencode(fields).encode()))
                state, _events = apply(state, seat, action)
                version += 1
        assert client is not None
        clients.append(client)
    return clients


def count_move_queries() -> dict[str, int]:
    """The queries of one move POST, counted in this process (the test client, the same database):
    a draw and a discard between two people, and a discard after which two bots play their turns."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client as TestClient
    from django.test.utils import CaptureQueriesContext

    from games import bots, services
    from games.engine import GameState, view
    from games.models import Game, Variant

    user_model = get_user_model()
    classic = Variant.objects.get(slug="classic")
    ann, bob = (user_model.objects.create_user(username=name, password=PASSWORD) for name in ("q-ann", "q-bob"))
    counts: dict[str, int] = {}

    def post(game: Game, player: Any, action: dict[str, Any]) -> int:
        game.refresh_from_db()
        client = TestClient()
        client.force_login(player)
        with CaptureQueriesContext(connection) as queries:
            response = client.post(f"/games/{game.pk}/play/", {"version": game.version, **action})
        assert response.status_code == 302, response.status_code
        return len(queries.captured_queries)

    def next_action(game: Game, seat: int) -> dict[str, Any]:
        game.refresh_from_db()
        assert game.state is not None
        return bots.choose_action(view(GameState.from_dict(game.state), seat), "easy").to_dict()

    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=7)
    game.refresh_from_db()
    seat = game.current_seat
    assert seat is not None
    mover = (ann, bob)[seat]
    counts["draw"] = post(game, mover, {"type": "draw", "source": "stock"})
    counts["discard"] = post(game, mover, next_action(game, seat))
    for level in ("medium", "hard"):
        with_bots = services.game_create(
            creator=ann, variant=classic, seat_count=3, bot_count=2, bot_level=level, seed=3
        )
        while True:
            with_bots.refresh_from_db()
            assert with_bots.current_seat == 0
            action = next_action(with_bots, 0)
            if action["type"] == "draw":
                post(with_bots, ann, action)
                continue
            counts[f"discard, then two {level} bots play"] = post(with_bots, ann, action)
            break
    return counts


# -- main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--servers", type=int, default=2, help="daphne processes (the clients are shared out)")
    parser.add_argument("--memory-layer", action="store_true", help="the in-memory channel layer instead of Redis")
    args = parser.parse_args()

    with Cluster(servers=args.servers, redis=not args.memory_layer, clock=False) as cluster:
        cluster.setup_django()
        queries = count_move_queries()
        # Enough prepared moves for every round at well above the rates expected here.
        clients = prepare_clients(args.clients, moves_each=int(args.rounds * (args.seconds + 1) * 400 / args.clients))
        ports = cluster.ports

        rates: dict[str, list[float]] = {kind: [] for kind in KINDS}
        server_cpu: dict[str, float] = dict.fromkeys(KINDS, 0.0)
        db_cpu: dict[str, float] = dict.fromkeys(KINDS, 0.0)
        served: dict[str, float] = dict.fromkeys(KINDS, 0.0)
        problems: list[str] = []
        for round_number in range(args.rounds):
            for kind in KINDS:
                cpu_before, db_before = cluster.server_cpu(), cluster.postgres_cpu()
                counts = asyncio.run(measure(kind, clients, ports, args.seconds))
                # CPU per request over the whole run of the kind, warm-up included.
                server_cpu[kind] += cluster.server_cpu() - cpu_before
                db_cpu[kind] += cluster.postgres_cpu() - db_before
                served[kind] += counts["all"]
                rates[kind].append(counts["done"] / args.seconds)
                if counts["errors"] or counts["ran_out"]:
                    problems.append(
                        f"round {round_number + 1} {kind}: {counts['errors']} unexpected answers,"
                        f" {counts['ran_out']} clients ran out of moves"
                    )
            line = "  ".join(f"{kind} {rates[kind][-1]:7.1f}/s" for kind in KINDS)
            print(f"round {round_number + 1}: {line}", flush=True)

    print(
        f"\n{args.clients} clients, {args.seconds:g} s x {args.rounds} rounds, {args.servers} daphne process(es), "
        + "PostgreSQL, "
        + ("in-memory channel layer" if args.memory_layer else "Redis channel layer")
    )
    print(f"{'':>9} {'requests/s':>11} {'x trivial':>10} {'server CPU':>11} {'PostgreSQL CPU':>15}")
    for kind in KINDS:
        ratios = [rate / trivial for rate, trivial in zip(rates[kind], rates["trivial"], strict=True)]
        print(
            f"{kind:>9} {statistics.median(rates[kind]):11.1f} {statistics.median(ratios):10.2f}"
            f" {server_cpu[kind] / served[kind] * 1000:8.2f} ms {db_cpu[kind] / served[kind] * 1000:12.2f} ms"
        )
    print(
        "queries per move POST (BEGIN and COMMIT included): "
        + ", ".join(f"{name} {count}" for name, count in queries.items())
    )
    for problem in problems:
        print("!", problem)


if __name__ == "__main__":
    main()
