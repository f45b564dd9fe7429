"""Many games at once on the multi-process set-up, with both pages listening, and faults; prints figures.

    python bench/load.py [--games 20] [--seconds 60] [--think 10] [--servers 2]
                         [--fault kill-server|restart-redis|restart-postgres] [--outage 0] [--rate-seconds 3]

Starts the set-up of ``bench/cluster.py`` (PostgreSQL, ``redis-server``,
``--servers`` daphne processes with ``DEBUG=0`` and ``manage.py gameclock``),
and ``--games`` two-person games between people of their own.  Each player
has a page, simulated in this one process with asyncio the way
``games/static/games/live.js`` behaves: the person's WebSocket open
(``/ws/user/``, which hears "games waiting on you" counts) and the game's (reconnected
with pauses growing from 0.5 to 5 s, jittered; a ping after 15 s of silence,
dropped without an answer in 8 s), the table fetched
(``/games/<id>/table/``) whenever the socket says a newer version than the one
shown (tried again with pauses growing from 0.5 to 10 s until it works; every
10 s while the socket is down), and, when the table says it is this player's
turn, after a pause of about ``--think`` seconds (uniformly half to one and a
half times), the move POSTed with the version shown as live.js posts it (answered with the
table itself, which it swaps in).  A POST that meets no server or a 502-504 is posted again
with pauses growing from 1 to 15 s; a retry of a move that did arrive is
refused as stale (409) and shows the current table.  The two pages of a game
are on different server processes, so every move crosses the channel layer;
a page whose server cannot be reached goes to the next one (as a proxy would).
The moves are worked out beforehand with the engine from the dealt game (the
easy bot chooses for both seats): the version shown says which is next.

It plays for ``--seconds``.  With ``--fault``, a third of the way in it kills
the first server process (``SIGKILL``) and starts it again, or restarts Redis
(which forgets every group), or restarts PostgreSQL (every connection ends;
``--outage`` keeps it down that many seconds first); the pages carry on by
themselves.  Then it stops making moves, waits for
every page to show its game's stored version, and checks every game: its
move log replays to its stored state (``games.integrity``), its version is
its number of moves (nothing applied twice), and every move that was
answered (with the table, or a redirect) is in the log (nothing lost).

Prints, as a table: the move POST's time to its answer and the time from a
move's POST starting until the other page's socket hears its version
(median, 95th, 99th percentile; before the fault when there is one), the
other page's table fetch after hearing it; the failed requests (a 500, the
designed 503 "try again", 502-504, and no connection at all), before and
after the fault; how long pages took to catch up after the fault (until
every page showed at least the version its game had when the fault was
over) and the longest pause of any game; the memory of each process (PSS);
and, after the games (sockets closed), ``--rate-seconds`` each of a trivial
page, a table page and move POSTs as fast as 32 keep-alive clients get them
(``bench/throughput.py``'s measurement), as requests/s and ratios.

Every figure here is from one process driving hundreds of sockets on the
same machine as the servers and the databases: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import json
import math
import os
import random
import re
import resource
import secrets
import sys
import time
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.cluster import Cluster, read_response, request_bytes  # noqa: E402

FAULTS = ("kill-server", "restart-redis", "restart-postgres")
PASSWORD = "a-long-pass-phrase-42"
TABLE_VERSION = re.compile(rb'id="table"[^>]*?data-version="(\d+)"')

#: live.js's pauses (seconds): socket reconnects, table fetches, move posts; heartbeat.
SOCKET_RETRY = (0.5, 5.0)
FETCH_RETRY = (0.5, 10.0)
POST_RETRY = (1.0, 15.0)
HEARTBEAT_AFTER, HEARTBEAT_GRACE, POLL_WHILE_DOWN = 15.0, 8.0, 10.0

T = TypeVar("T")


# -- figures ---------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 < q <= 100): the smallest value with at least q% of them at or
    below it.  NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def spread(values: Sequence[float]) -> str:
    """Median, p95 and p99 in milliseconds, and how many values."""
    if not values:
        return f"{'-':>8} {'-':>8} {'-':>8} {0:>7}"
    return " ".join(f"{percentile(values, q) * 1000:8.1f}" for q in (50, 95, 99)) + f" {len(values):>7}"


def failure_name(status: int | None) -> str | None:
    """How a request failed: None if it did not (below 500), else its class."""
    if status is None:
        return "no connection"
    if status < 500:
        return None
    if status == 503:
        return "503 try again"
    if status == 500:
        return "500"
    return "502-504" if status in (502, 504) else str(status)


def backoff(attempt: int, limits: tuple[float, float]) -> float:
    """live.js's pause before try ``attempt`` (1, 2, ...): doubling from the first limit up to the second."""
    low, high = limits
    return min(high, low * 2 ** (attempt - 1))


# -- the games -------------------------------------------------------------------------------


@dataclass
class Plan:
    """One game: its two players' cookies, its version when dealt and its moves, worked out beforehand."""

    pk: int
    dealt_version: int
    cookies: tuple[str, str]
    #: (seat, action) of each move from the deal: the move at version ``dealt_version + i`` is ``moves[i]``.
    moves: list[tuple[int, dict[str, Any]]]

    def move_at(self, version: int) -> tuple[int, dict[str, Any]] | None:
        index = version - self.dealt_version
        return self.moves[index] if 0 <= index < len(self.moves) else None


def set_up_games(count: int, moves_each: int, csrf: str) -> list[Plan]:
    """``count`` two-person games between people of their own (signed in, with sessions), each with up to
    ``moves_each`` moves chosen by the easy bot for both seats, from the deal onwards."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.test import Client as TestClient

    from games import bots, services
    from games.engine import GameState, apply, view
    from games.models import Variant

    user_model = get_user_model()
    hashed = make_password(PASSWORD)  # once: hashing a password per person would take minutes
    tag = secrets.token_hex(3)
    people = [user_model.objects.create(username=f"load-{tag}-{index}", password=hashed) for index in range(2 * count)]
    classic = Variant.objects.get(slug="classic")
    plans = []
    for index in range(count):
        pair = people[2 * index : 2 * index + 2]
        cookies = []
        for person in pair:
            client = TestClient()
            client.force_login(person)
            cookies.append(f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}")
        game = services.game_create(creator=pair[0], variant=classic, seat_count=2, invitees=[pair[1]], seed=index)
        game.refresh_from_db()
        assert game.state is not None, "an invited game is dealt at once"
        state = GameState.from_dict(game.state)
        moves: list[tuple[int, dict[str, Any]]] = []
        while not state.is_over and len(moves) < moves_each:
            seat = state.current_seat
            assert seat is not None
            action = bots.choose_action(view(state, seat), "easy")
            moves.append((seat, action.to_dict()))
            state, _events = apply(state, seat, action)
        plans.append(Plan(game.pk, game.version, (cookies[0], cookies[1]), moves))
    return plans


# -- the run ---------------------------------------------------------------------------------


class NoConnection(Exception):
    """A request that got no answer: refused, reset or cut mid-way."""


@dataclass
class Run:
    cluster: Cluster
    plans: list[Plan]
    csrf: str
    think: float
    started: float = 0.0
    fault_at: float | None = None  # time.monotonic() when the fault began, and when it was over
    recovered_at: float | None = None
    moves_allowed: bool = True
    stopping: bool = False
    in_flight: int = 0
    #: (game, version after the move) -> (when its first POST started, the mover's seat)
    posted: dict[tuple[int, int], tuple[float, int]] = field(default_factory=dict)
    #: (game, version after the move) -> the action, for every move answered (the table, or a redirect)
    acknowledged: dict[tuple[int, int], tuple[int, dict[str, Any]]] = field(default_factory=dict)
    #: game -> when each of its moves was acknowledged (for the longest pause)
    move_times: dict[int, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    figures: dict[str, list[float]] = field(default_factory=lambda: collections.defaultdict(list))
    failures: collections.Counter[tuple[str, str, str]] = field(default_factory=collections.Counter)
    events: collections.Counter[str] = field(default_factory=collections.Counter)
    pages: list[Page] = field(default_factory=list)
    go: asyncio.Event = field(default_factory=asyncio.Event)  # the pages start playing

    def phase(self) -> str:
        return "before" if self.fault_at is None else "after"

    def fail(self, kind: str, status: int | None) -> None:
        name = failure_name(status)
        if name is not None:
            self.failures[(self.phase(), kind, name)] += 1


class Page:
    """One player's table page, as live.js runs it."""

    def __init__(self, run: Run, plan: Plan, seat: int):
        self.run, self.plan, self.seat = run, plan, seat
        self.server = (plan.pk + seat) % len(run.cluster.ports)  # the two pages on different processes
        self.shown = self.latest = plan.dealt_version
        self.changed = asyncio.Event()
        self.socket_up = False
        self.ready = asyncio.Event()  # socket open and table shown once
        self.connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.heard_at: dict[int, float] = {}

    @property
    def cookie(self) -> str:
        return self.plan.cookies[self.seat]

    def next_server(self) -> None:
        self.server = (self.server + 1) % len(self.run.cluster.ports)

    # -- HTTP

    async def request(
        self, method: str, path: str, body: bytes = b"", *, by_fetch: bool = True
    ) -> tuple[int, dict[str, str], bytes]:
        """One request on this page's keep-alive connection (reconnected when needed, and once more when a kept
        connection turns out closed before answering, as browsers do); NoConnection when no answer came.
        ``by_fetch``: sent by live.js (every request but opening the page)."""
        for fresh_try in (False, True):
            reused = self.connection is not None
            try:
                if self.connection is None:
                    self.connection = await asyncio.wait_for(
                        asyncio.open_connection("127.0.0.1", self.run.cluster.ports[self.server]), 10
                    )
                reader, writer = self.connection
                host = f"127.0.0.1:{self.run.cluster.ports[self.server]}"
                writer.write(request_bytes(method, path, host, self.cookie, body, by_fetch=by_fetch))
                return await asyncio.wait_for(read_response(reader), 60)
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError, IndexError) as error:
                self.close_http()
                if reused and not fresh_try and isinstance(error, (asyncio.IncompleteReadError, ConnectionError)):
                    continue  # a kept connection the server had closed: a browser tries a new one at once
                self.next_server()
                raise NoConnection(str(error)) from None
        raise AssertionError("unreachable")

    def close_http(self) -> None:
        if self.connection is not None:
            self.connection[1].close()
            self.connection = None

    def show(self, content: bytes) -> bool:
        """Swap in a table (as live.js: only a table at least as new as the one shown); whether it had one."""
        found = TABLE_VERSION.search(content)
        if found is None:
            return False
        version = int(found.group(1))
        self.learn(version, by_socket=False)
        self.shown = max(self.shown, version)
        return True

    async def refresh(self) -> None:
        """Fetch this page's table until a fetch works (live.js's refresh and fetchFailed)."""
        failures = 0
        while not self.run.stopping:
            wanted, started = self.latest, time.monotonic()
            try:
                status, _headers, content = await self.request("GET", f"/games/{self.plan.pk}/table/")
            except NoConnection:
                status, _headers, content = None, {}, b""
            self.run.fail("table fetch", status)
            if status == 200 and self.show(content):
                if wanted in self.heard_at and self.run.fault_at is None:
                    self.run.figures["table fetch after hearing"].append(time.monotonic() - started)
                if failures:
                    self.run.events["table fetches that worked after failing"] += 1
                return
            failures += 1
            await asyncio.sleep(backoff(failures, FETCH_RETRY) * random.uniform(0.5, 1.0))

    async def open_table_page(self, path: str = "") -> bool:
        """GET the table page itself (opening it), or ``path`` (where a move's redirect leads); whether it came."""
        try:
            status, _headers, content = await self.request(
                "GET", path or f"/games/{self.plan.pk}/", by_fetch=bool(path)
            )
        except NoConnection:
            status, _headers, content = None, {}, b""
        self.run.fail("table page", status)
        return status == 200 and self.show(content)

    async def post_move(self, seat: int, action: dict[str, Any], version: int) -> None:
        """POST the move with the version shown; again after a lost answer or a 502-504 (live.js's postMove)."""
        run = self.run
        key = (self.plan.pk, version + 1)
        body = urllib.parse.urlencode({"csrfmiddlewaretoken": run.csrf, "version": str(version), **action}).encode()
        attempt = 0
        run.in_flight += 1
        try:
            while not run.stopping:
                started = time.monotonic()
                run.posted.setdefault(key, (started, seat))
                phase = run.phase()
                try:
                    status, headers, content = await self.request("POST", f"/games/{self.plan.pk}/play/", body)
                except NoConnection:
                    status, headers, content = None, {}, b""
                run.fail("move POST", status)
                # live.js's post is answered with the table (a plain form's with a redirect to the page).
                if status == 302 or (status == 200 and TABLE_VERSION.search(content)):
                    now = time.monotonic()
                    if phase == "before" and run.phase() == "before":
                        run.figures["move POST"].append(now - started)
                    elif phase == "after":
                        run.figures["move POST, after the fault began"].append(now - started)
                    run.acknowledged[key] = (seat, action)
                    run.move_times[self.plan.pk].append(now)
                    if status == 200:
                        self.show(content)
                    elif not await self.open_table_page(headers.get("location", "")):
                        await self.refresh()
                    return
                if status == 409 and self.show(content):  # a retry of a move that did arrive: the current table
                    run.events["move retries refused as stale (the first had arrived)"] += 1
                    return
                if status is None or 502 <= status <= 504:
                    attempt += 1
                    await asyncio.sleep(backoff(attempt, POST_RETRY))
                    continue
                # A 500 or an unexpected refusal: the page shows it; the person reloads the table.
                run.events[f"move POSTs answered {status}"] += 1
                await asyncio.sleep(2)
                if not await self.open_table_page():
                    await self.refresh()
                return
        finally:
            run.in_flight -= 1

    # -- the socket

    def learn(self, version: int, *, by_socket: bool) -> None:
        """The page knows of ``version`` now, from its socket or from a table it was given."""
        now = time.monotonic()
        for later in range(self.latest + 1, version + 1):
            self.heard_at[later] = now
            posted = self.run.posted.get((self.plan.pk, later))
            if posted is None or posted[1] == self.seat:
                continue  # not the other player's move
            post_started, _seat = posted
            if not by_socket:
                self.run.events["moves the other page learnt of from a fetch, not its socket"] += 1
            elif self.run.fault_at is None:
                self.run.figures["heard by the other page"].append(now - post_started)
            elif post_started >= self.run.fault_at:
                self.run.figures["heard by the other page, moves posted after the fault began"].append(
                    now - post_started
                )
        if version > self.latest:
            self.latest = version
            self.changed.set()

    def connect_socket(self, port: int, path: str) -> Any:
        """A WebSocket to ``path`` on the server at ``port`` with this page's cookie (live.js's options)."""
        from websockets.asyncio.client import connect

        return connect(
            f"ws://127.0.0.1:{port}{path}",
            origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
            additional_headers={"Cookie": self.cookie},
            open_timeout=60,
            ping_interval=None,
            close_timeout=2,
        )

    async def listen_as_person(self) -> None:
        """The person's socket (``/ws/user/``) that every signed-in page opens beside the game's: it hears
        "games waiting on you" counts when a turn moves (reconnected after a pause when it closes)."""
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        while not self.run.stopping:
            port = self.run.cluster.ports[self.server]
            try:
                async with self.connect_socket(port, "/ws/user/") as socket:
                    while not self.run.stopping:
                        try:
                            raw = await asyncio.wait_for(socket.recv(), HEARTBEAT_AFTER)
                        except TimeoutError:
                            await socket.send(json.dumps({"type": "ping"}))
                            continue
                        if json.loads(raw).get("type") == "turns":
                            self.run.events["turn counts heard on the people's own sockets"] += 1
            except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake):
                pass
            if not self.run.stopping:
                await asyncio.sleep(random.uniform(*SOCKET_RETRY))

    async def listen(self) -> None:
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        retries = 0
        while not self.run.stopping:
            port = self.run.cluster.ports[self.server]
            opened = False
            try:
                async with self.connect_socket(port, f"/ws/games/{self.plan.pk}/") as socket:
                    opened, retries = True, 0
                    self.socket_up = True
                    pinged = False
                    while not self.run.stopping:
                        try:
                            raw = await asyncio.wait_for(socket.recv(), HEARTBEAT_GRACE if pinged else HEARTBEAT_AFTER)
                        except TimeoutError:
                            if pinged:
                                self.run.events["sockets dropped after an unanswered heartbeat"] += 1
                                break
                            await socket.send(json.dumps({"type": "ping"}))
                            pinged = True
                            continue
                        pinged = False
                        message = json.loads(raw)
                        if message.get("type") == "version":
                            self.learn(int(message["version"]), by_socket=True)
            except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake) as error:
                if not self.run.stopping:
                    what = "closed" if opened else "failed to open"
                    code = getattr(getattr(error, "rcvd", None), "code", None)
                    with_code = f" code {code}" if code else ""
                    self.run.events[f"sockets {what} ({self.run.phase()} the fault){with_code}"] += 1
            self.socket_up = False
            self.changed.set()
            if self.run.stopping:
                return
            if not opened:
                self.next_server()
            retries += 1
            await asyncio.sleep(backoff(retries, SOCKET_RETRY) * random.uniform(0.8, 1.2))

    # -- the page

    async def play(self) -> None:
        if not await self.open_table_page():
            await self.refresh()
        self.ready.set()
        await self.run.go.wait()
        while not self.run.stopping:
            self.changed.clear()
            if self.latest > self.shown:
                await self.refresh()
                continue
            move = self.plan.move_at(self.shown)
            if move is not None and move[0] == self.seat and self.run.moves_allowed:
                await asyncio.sleep(self.run.think * random.uniform(0.5, 1.5))
                if self.run.moves_allowed and not self.run.stopping and self.latest <= self.shown:
                    await self.post_move(move[0], move[1], self.shown)
                continue
            try:
                await asyncio.wait_for(self.changed.wait(), None if self.socket_up else POLL_WHILE_DOWN)
            except TimeoutError:
                await self.refresh()  # live.js: every 10 s while the socket is down


# -- the database, from this process -----------------------------------------------------------


class Database:
    """The ORM on one thread of its own (one connection), made again after a fault closed it."""

    def __init__(self) -> None:
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)

    async def call(self, function: Callable[[], T]) -> T:
        from django.db import InterfaceError, OperationalError, connection

        def guarded() -> T:
            for attempt in range(30):
                try:
                    return function()
                except (OperationalError, InterfaceError):
                    connection.close()
                    if attempt == 29:
                        raise
                    time.sleep(0.5)
            raise AssertionError("unreachable")

        return await asyncio.get_running_loop().run_in_executor(self.executor, guarded)

    def close(self) -> None:
        from django.db import connection

        self.executor.submit(lambda: connection.close()).result()  # that thread's own connection
        self.executor.shutdown()


def versions(pks: list[int]) -> dict[int, int]:
    from games.models import Game

    return dict(Game.objects.filter(pk__in=pks).values_list("pk", "version"))


def check_games(plans: list[Plan], acknowledged: dict[tuple[int, int], tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """Every game's log replays to its state; its version is its moves; every acknowledged move is logged."""
    from games.integrity import log_replay_problem
    from games.models import Game, Move

    problems: list[str] = []
    bad_games: set[int] = set()
    version_mismatch = lost = 0
    dealt = {plan.pk: plan.dealt_version for plan in plans}
    logged: dict[tuple[int, int], tuple[int, dict[str, Any]]] = {
        (game, seq): (seat, action)
        for game, seq, seat, action in Move.objects.filter(game__in=[p.pk for p in plans]).values_list(
            "game", "seq", "seat", "action"
        )
    }
    moves_in_all = 0
    for plan in plans:
        game = Game.objects.get(pk=plan.pk)
        problem = log_replay_problem(game)
        if problem:
            problems.append(problem)
            bad_games.add(plan.pk)
        count = game.moves.count()
        moves_in_all += count
        if game.version - plan.dealt_version != count:
            version_mismatch += 1
            bad_games.add(plan.pk)
            problems.append(f"game {plan.pk}: version {game.version} after {count} moves from {plan.dealt_version}")
    for (pk, version), move in acknowledged.items():
        if logged.get((pk, version - dealt[pk])) != move:
            lost += 1
            bad_games.add(pk)
            problems.append(f"game {pk}: the move answered at version {version} is not in the log")
    return {
        "problems": problems,
        "bad games": len(bad_games),
        "version_mismatch": version_mismatch,
        "lost": lost,
        "moves": moves_in_all,
    }


# -- main ------------------------------------------------------------------------------------


async def loop_lag(lags: list[float], every: float = 0.05) -> None:
    """How late this process's event loop wakes up (its own load would show in every figure as delay)."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(every)
        lags.append(time.monotonic() - before - every)


async def play_games(run: Run, seconds: float, fault: str | None, outage: float = 0.0) -> dict[str, Any]:
    database = Database()
    run.pages = [Page(run, plan, seat) for plan in run.plans for seat in (0, 1)]
    connect_started = time.monotonic()
    listeners = [asyncio.create_task(page.listen()) for page in run.pages]
    listeners += [asyncio.create_task(page.listen_as_person()) for page in run.pages]
    players = [asyncio.create_task(page.play()) for page in run.pages]
    await asyncio.wait_for(asyncio.gather(*(page.ready.wait() for page in run.pages)), 300)
    while not all(page.socket_up for page in run.pages):
        await asyncio.sleep(0.1)
        if time.monotonic() - connect_started > 300:
            raise RuntimeError("the pages' sockets did not all open in 300 s")
    result: dict[str, Any] = {"connect": time.monotonic() - connect_started}
    lag: list[float] = []
    lag_watch = asyncio.create_task(loop_lag(lag))
    cpu_before, db_cpu_before = run.cluster.server_cpu(), run.cluster.postgres_cpu()
    run.started = time.monotonic()
    run.go.set()

    if fault:
        await asyncio.sleep(seconds / 3)
        run.fault_at = time.monotonic()
        if fault == "kill-server":
            run.cluster.kill_server(0)
            await asyncio.to_thread(run.cluster.start_server, 0)
        elif fault == "restart-redis":
            await asyncio.to_thread(run.cluster.restart_redis)
        else:
            await asyncio.to_thread(run.cluster.restart_postgres, outage)
        run.recovered_at = time.monotonic()
        result["fault took"] = run.recovered_at - run.fault_at
        targets = await database.call(lambda: versions([p.pk for p in run.plans]))
        # How long until every page is live again (its socket open) and shows at least the version its game
        # had when the fault was over.
        while any(not page.socket_up or page.shown < targets[page.plan.pk] for page in run.pages):
            if time.monotonic() - run.recovered_at > 120:
                result["caught up"] = None
                break
            await asyncio.sleep(0.02)
        else:
            result["caught up"] = time.monotonic() - run.recovered_at
        await asyncio.sleep(max(0.0, run.started + seconds - time.monotonic()))
    else:
        await asyncio.sleep(seconds)

    run.moves_allowed = False
    stopped = time.monotonic()
    result["played for"] = stopped - run.started
    result["server CPU"] = run.cluster.server_cpu() - cpu_before
    result["PostgreSQL CPU"] = run.cluster.postgres_cpu() - db_cpu_before
    result["memory"] = run.cluster.memory()
    result["clock alive"] = run.cluster.clock_alive()
    while run.in_flight and time.monotonic() - stopped < 60:
        await asyncio.sleep(0.05)
    final = await database.call(lambda: versions([p.pk for p in run.plans]))
    # Every page shows its game's stored version (nothing stalled), within a minute.
    while any(page.shown < final[page.plan.pk] for page in run.pages) and time.monotonic() - stopped < 60:
        await asyncio.sleep(0.05)
    result["stalled pages"] = sum(1 for page in run.pages if page.shown < final[page.plan.pk])
    result["settled"] = time.monotonic() - stopped
    if run.fault_at is not None:
        fault_at = run.fault_at
        across, before_fault = [], []
        for times in run.move_times.values():
            points = [run.started, *times]
            gaps = list(zip(points, points[1:], strict=False))
            before_fault += [b - a for a, b in gaps if b < fault_at]
            across += [b - a for a, b in gaps if b >= fault_at]
        result["longest pause"] = max(across, default=math.nan)
        result["longest pause before"] = max(before_fault, default=math.nan)
    run.stopping = True
    result["loop lag"] = lag
    for task in [*listeners, *players, lag_watch]:
        task.cancel()
    await asyncio.gather(*listeners, *players, return_exceptions=True)
    for page in run.pages:
        page.close_http()
    result["check"] = await database.call(lambda: check_games(run.plans, run.acknowledged))
    result["moves played"] = len(run.acknowledged)
    result["logged errors"] = run.cluster.logged_errors()
    database.close()
    return result


def rates(run: Run, seconds: float, clients_wanted: int = 32) -> dict[str, float]:
    """bench/throughput.py's measurement on the same processes, with games of this run (their next moves)."""
    from django.db import connection

    from bench.throughput import Client, measure
    from games.models import Game

    connection.close()  # this thread's connection may have met a PostgreSQL restart

    stored = dict(Game.objects.filter(pk__in=[p.pk for p in run.plans]).values_list("pk", "version"))
    clients = []
    for plan in run.plans:
        index = stored[plan.pk] - plan.dealt_version
        if len(plan.moves) - index < 5:
            continue
        client = Client(table_path=f"/games/{plan.pk}/", table_cookie=plan.cookies[0])
        for offset, (seat, action) in enumerate(plan.moves[index:]):
            fields = {"csrfmiddlewaretoken": run.csrf, "version": str(stored[plan.pk] + offset), **action}
            client.moves.append(
                (f"/games/{plan.pk}/play/", plan.cookies[seat], urllib.parse.urlencode(fields).encode())
            )
        clients.append(client)
        if len(clients) == clients_wanted:
            break
    figures: dict[str, float] = {}
    for kind in ("trivial", "table", "move"):
        counts = asyncio.run(measure(kind, clients, run.cluster.ports, seconds))
        figures[kind] = counts["done"] / seconds
        if counts["errors"] or counts["ran_out"]:
            figures[f"{kind} problems"] = counts["errors"] + counts["ran_out"]
    figures["clients"] = len(clients)
    return figures


def report(args: argparse.Namespace, run: Run, result: dict[str, Any], rate_figures: dict[str, float]) -> None:
    moves = result["moves played"]
    print()
    print(
        f"{args.games} games ({2 * args.games} pages, each with the game's socket and the person's open),"
        f" {result['played for']:.0f} s of play,"
        f" think {args.think:g} s; {args.servers} daphne + gameclock + redis-server + PostgreSQL"
        f" on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
    )
    cpu = (
        f"; CPU per move: servers {result['server CPU'] / max(moves, 1) * 1000:.1f} ms,"
        f" PostgreSQL {result['PostgreSQL CPU'] / max(moves, 1) * 1000:.1f} ms (the pages' requests included)"
        if not args.fault
        else ""
    )
    print(f"{moves} moves ({moves / result['played for']:.1f}/s), sockets opened in {result['connect']:.1f} s{cpu}")
    print(
        f"this process's event loop woke late by {percentile(result['loop lag'], 50) * 1000:.1f} ms (median),"
        f" {percentile(result['loop lag'], 99) * 1000:.1f} ms (p99), {max(result['loop lag']) * 1000:.0f} ms (most)"
    )
    when = " (before the fault)" if args.fault else ""
    print(f"\n{'ms' + when:<44} {'p50':>8} {'p95':>8} {'p99':>8} {'count':>7}")
    for name in ("move POST", "heard by the other page", "table fetch after hearing"):
        print(f"{name:<44} {spread(run.figures[name])}")
    if args.fault:
        print("moves posted after the fault began:")
        print(f"{'  move POST':<44} {spread(run.figures['move POST, after the fault began'])}")
        name = "heard by the other page, moves posted after the fault began"
        print(f"{'  heard by the other page':<44} {spread(run.figures[name])}")
    if rate_figures:
        trivial = rate_figures["trivial"]
        print(
            f"\nrequests/s ({args.rate_seconds:g} s each, {int(rate_figures['clients'])} keep-alive clients, pages"
            " closed):"
            + "".join(
                f"  {kind} {rate_figures[kind]:.0f}"
                + ("" if kind == "trivial" else f" (x{rate_figures[kind] / trivial:.2f})")
                for kind in ("trivial", "table", "move")
            )
        )
    sizes = ", ".join(f"{name} {size / 2**20:.0f} MB" for name, size in result["memory"].items())
    print(f"\nmemory (PSS) at the end of play: {sizes}")
    if args.fault:
        print(f"\nfault: {args.fault} {result['fault took']:.1f} s (from {args.seconds / 3:.0f} s in)")
        caught = result["caught up"]
        print(
            "caught up: every page live again and showing its game's version of the end of the fault "
            + (f"{caught:.1f} s after it" if caught is not None else "NOT within 120 s")
        )
        print(
            f"longest pause between two moves of a game: {result['longest pause before']:.1f} s before the fault,"
            f" {result['longest pause']:.1f} s from it on"
        )
        print(f"gameclock still running: {'yes' if result['clock alive'] else 'NO'}")
    kinds = sorted({(kind, name) for _phase, kind, name in run.failures})
    print("\nfailed requests" + (" (before / after the fault)" if args.fault else "") + ":")
    if not kinds:
        print("  none")
    for kind, name in kinds:
        before, after = run.failures[("before", kind, name)], run.failures[("after", kind, name)]
        print(f"  {kind:<14} {name:<14} " + (f"{before} / {after}" if args.fault else str(before)))
    for name, count in sorted(run.events.items()):
        print(f"  {name}: {count}")
    check = result["check"]
    print(
        f"\nchecks: {args.games - check['bad games']} of {args.games} games replay to"
        f" their stored state with version = moves; {check['moves']} moves stored, {moves} answered,"
        f" {check['lost']} of those missing from the log; {result['stalled pages']} pages stalled"
        f" (every page showed its game's last version {result['settled']:.1f} s after the moves stopped)"
    )
    for problem in check["problems"][:20]:
        print("!", problem)
    if result["logged errors"]:
        print("\nexceptions the processes logged (the last line of each traceback):")
        for line, count in sorted(result["logged errors"].items()):
            print(f"  {count} x {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60, help="of play (the fault a third of the way in)")
    parser.add_argument("--think", type=float, default=10.0, help="mean pause before each move (seconds)")
    parser.add_argument("--servers", type=int, default=2, help="daphne processes (at least 2)")
    parser.add_argument("--fault", choices=FAULTS)
    parser.add_argument("--outage", type=float, default=0.0, help="seconds PostgreSQL stays down (restart-postgres)")
    parser.add_argument("--rate-seconds", type=float, default=3, help="each rate measured (0: none)")
    args = parser.parse_args()
    if args.servers < 2:
        parser.error("--servers: at least 2 (the two pages of a game are on different processes)")

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 8 * args.games + 1024
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, wanted), hard))

    with Cluster(servers=args.servers) as cluster:
        cluster.setup_django()
        csrf = secrets.token_hex(16)  # a CSRF secret of our own: the cookie and the form's token
        moves_each = int(args.seconds / max(args.think, 0.05) * 1.5) + 60
        plans = set_up_games(args.games, moves_each, csrf)
        run = Run(cluster=cluster, plans=plans, csrf=csrf, think=args.think)
        print(f"{args.games} games set up; playing for {args.seconds:g} s", flush=True)
        result = asyncio.run(play_games(run, args.seconds, args.fault, args.outage))
        rate_figures = rates(run, args.rate_seconds) if args.rate_seconds > 0 else {}
    report(args, run, result, rate_figures)


if __name__ == "__main__":
    main()
