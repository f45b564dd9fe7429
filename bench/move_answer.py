"""How long a person waits for the answer to a move at a table of bots; prints figures, never fails.

    python bench/move_answer.py [--bots expert] [--rounds 11] [--seed 1] [--bots-in-request] [--next-table]

Builds a throwaway SQLite database in a temporary directory and deals one
game: Ann against three bots of ``--bots``'s level.  Through the site's ASGI
application (the HTTP handler of ``threethirteen_site/http.py``, driven by
Channels' ``HttpCommunicator`` on one event loop, as daphne would), Ann posts
each move as her page's script does (``X-Requested-With: fetch``, answered
with the table), choosing what the medium bot would.  For each move that
hands the turn to the bots it measures:

* the answer: from sending the POST to the table's last byte;
* the bots done: from sending the POST until every bot's turn is saved and
  it is Ann's turn again (or the round or game is over).

``--bots-in-request`` plays the bots inside the request instead, as the site
did before ``after_response`` (the answer then waits for them): run both to
compare.  ``--next-table`` seats Bob and Cy at another table of the same
server, two people playing each other (game after game) as fast as their answers come, all the
while Ann's game lasts, and measures their answers too: what the bots'
thinking costs the rest of the site (on SQLite a transaction holds the one
write lock).  Run it on a quiet machine: the bots' thinking is CPU time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import time
import urllib.parse
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench.throwaway import django_on_a_throwaway_database  # noqa: E402

django_on_a_throwaway_database(GAMECLOCK_IN_SERVER="0")  # nothing but the posts and the bots on the machine

from asgiref.sync import async_to_sync, sync_to_async  # noqa: E402
from channels.testing import HttpCommunicator  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from games import bots, services  # noqa: E402
from games.engine import GameState, view  # noqa: E402
from games.models import Game, Variant  # noqa: E402
from threethirteen_site import after_response  # noqa: E402
from threethirteen_site.asgi import application, django_asgi_app  # noqa: E402

HOST = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]


def session_of(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def deal(level: str, rounds: int, seed: int) -> tuple[int, str]:
    """Ann's game against three bots of ``level``, and her session cookie."""
    call_command("migrate", verbosity=0)
    ann = get_user_model().objects.create_user(username="ann", password="a-long-pass-phrase-42")
    game = services.game_create(
        creator=ann,
        variant=Variant.objects.get(slug="classic"),
        seat_count=4,
        bot_count=3,
        bot_level=level,
        seed=seed,
        options={"rounds": list(range(3, 3 + rounds))},
    )
    return game.pk, session_of(ann)


def next_table() -> list[Any]:
    """Bob and Cy, who play each other at the next table."""
    return [get_user_model().objects.create_user(username=n, password="a-long-pass-phrase-42") for n in ("bob", "cy")]


def next_tables_game(people: list[Any], seed: int) -> int:
    """A new classic game of Bob and Cy's, dealt."""
    game = services.game_create(
        creator=people[0], variant=Variant.objects.get(slug="classic"), seat_count=2, seed=seed, options={}
    )
    services.game_join(game_id=game.pk, user=people[1])
    return game.pk


def next_move(game_id: int, seat: int | None = 0) -> tuple[int, int, dict[str, Any], bool] | None:
    """(the seat to play, version, the medium bot's move for it, whether it ends the turn), or None once the
    game is over; ``seat``: the seat whose turn it must be (``None``: whoever's it is)."""
    game = Game.objects.get(pk=game_id)
    if game.status != Game.Status.ACTIVE or game.state is None:
        return None
    state = GameState.from_dict(game.state)
    if seat is not None and state.current_seat != seat:
        raise RuntimeError("the bots have not played: it is not Ann's turn")
    playing = state.current_seat
    assert playing is not None  # a game in play has a seat to play
    action = bots.choose_action(view(state, playing), "medium").to_dict()
    return playing, game.version, action, action["type"] != "draw"


async def request(method: str, path: str, cookie: str, body: bytes = b"") -> dict[str, Any]:
    headers = [*HOST, (b"cookie", cookie.encode()), (b"x-requested-with", b"fetch")]
    if body:
        headers.append((b"content-type", b"application/x-www-form-urlencoded"))
    return await HttpCommunicator(application, method, path, body=body, headers=headers).get_response(timeout=120)


async def signed_in(game_id: int, session: str) -> tuple[str, str]:
    """The cookie header and the CSRF token of a person's table page."""
    page = await request("GET", f"/games/{game_id}/", f"sessionid={session}")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"])
    csrf = next(v.decode() for k, v in page["headers"] if k.lower() == b"set-cookie" and v.startswith(b"csrftoken="))
    if token is None:
        raise RuntimeError("no CSRF token on the table page")
    return f"sessionid={session}; {csrf.split(';', 1)[0]}", token.group(1).decode()


async def post_move(game_id: int, cookie: str, token: str, version: int, action: dict[str, Any]) -> float:
    """Post a move as the page's script does: the seconds until its answer."""
    form = {"csrfmiddlewaretoken": token, "version": version, **action}
    start = time.perf_counter()
    answer = await request("POST", f"/games/{game_id}/play/", cookie, urllib.parse.urlencode(form).encode())
    if answer["status"] != 200:
        raise RuntimeError(f"the move was refused: {answer['status']} {answer['body'][:200]!r}")
    return time.perf_counter() - start


def anns_turn_or_over(game_id: int) -> bool:
    game = Game.objects.only("status", "current_seat").get(pk=game_id)
    return game.status != Game.Status.ACTIVE or game.current_seat == 0


async def bots_done(game_id: int) -> None:
    """Wait for the bots' work after the answer, if any, until it is Ann's turn again or the game is over
    (the work of a round that a bot opens is queued anew when the round before is done)."""
    while True:
        await asyncio.gather(*django_asgi_app.after_tasks)
        if await sync_to_async(anns_turn_or_over)(game_id):
            return
        await asyncio.sleep(0.001)


async def play(game_id: int, session: str, finished: asyncio.Event) -> tuple[list[float], list[float]]:
    cookie, token = await signed_in(game_id, session)
    answers: list[float] = []
    done: list[float] = []
    while (move := await sync_to_async(next_move)(game_id)) is not None:
        _, version, action, hands_over = move
        start = time.perf_counter()
        answered = await post_move(game_id, cookie, token, version, action)
        await bots_done(game_id)
        if hands_over:
            answers.append(answered)
            done.append(time.perf_counter() - start)
    finished.set()
    return answers, done


async def play_next_table(people: list[Any], seed: int, finished: asyncio.Event) -> list[float]:
    """Bob and Cy play each other, game after game, until Ann's game is over: the answers to their moves."""
    sessions = [await sync_to_async(session_of)(person) for person in people]
    answers: list[float] = []
    while not finished.is_set():
        game_id = await sync_to_async(next_tables_game)(people, seed + len(answers))
        pages = [await signed_in(game_id, session) for session in sessions]
        while not finished.is_set() and (move := await sync_to_async(next_move)(game_id, None)) is not None:
            seat, version, action, _ = move
            answers.append(await post_move(game_id, *pages[seat], version, action))
    return answers


async def both(game_id: int, session: str, seed: int, people: list[Any] | None) -> tuple[list[float], ...]:
    finished = asyncio.Event()
    if people is None:
        return await play(game_id, session, finished)
    anns, others = await asyncio.gather(play(game_id, session, finished), play_next_table(people, seed, finished))
    return (*anns, others)


def describe(name: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"{name:>10}: median {statistics.median(ms):7.1f} ms   95% {p95:7.1f} ms   worst {ms[-1]:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="expert", choices=["easy", "medium", "hard", "expert"])
    parser.add_argument("--rounds", type=int, default=11, help="rounds of the game, from 3 cards (1-11)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots-in-request", action="store_true", help="the bots play inside the request (as before)")
    parser.add_argument("--next-table", action="store_true", help="two people play at another table meanwhile")
    args = parser.parse_args()
    if not 1 <= args.rounds <= 11:
        parser.error("--rounds must be between 1 and 11")
    if args.bots_in_request:
        after_response.later = lambda task: False  # nothing collected: the bots play at once
    game_id, session = deal(args.bots, args.rounds, args.seed)
    people = next_table() if args.next_table else None
    answers, done, *others = async_to_sync(both)(game_id, session, args.seed, people)
    where = "inside the request" if args.bots_in_request else "after the answer"
    print(f"Ann against three {args.bots} bots, {args.rounds} round(s), seed {args.seed}; the bots play {where}")
    print(f"{len(answers)} of Ann's moves handed the turn to the bots")
    print(describe("answer", answers))
    print(describe("bots done", done))
    if others:
        print(f"meanwhile {len(others[0])} moves of Bob and Cy at the next table")
        print(describe("next table", others[0]))


if __name__ == "__main__":
    main()
