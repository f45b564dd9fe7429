"""Browser tests: one headless Debian chromium for the whole run, against the site
served by a real ASGI server (``manage.py runserver``, i.e. daphne, serving
HTTP, WebSockets and the static files) on a free loopback port.

The server process uses the test database of this pytest process (SQLite or PostgreSQL); the
tests are transactional so that what they create is committed and visible to
it.  As with ``make run``, the move clock runs inside that server process
(``GAMECLOCK_IN_SERVER=1``; the pytest process itself keeps it off).
Playwright's own browser download does not work here: Debian's chromium
is launched (``.ci/run`` installs it with apt-get).

Playwright's sync API marks its event loop as running on this thread between
calls, so once the browser is up, Django's async-safety check would refuse
the tests' plain ORM calls: the browser tests run last in the session and
``DJANGO_ALLOW_ASYNC_UNSAFE`` is set while the browser lives (no Django code
runs inside that loop).  Services, which send on the channel layer after
commit, are called on a worker thread (``off_loop``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from tests.servers import REPO, free_port, server_env, stop, wait_until_serving

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]


#: The server's log file, once ``live_url`` has started it (a failed browser test's report shows its part).
SERVER_LOG: list[Path] = []
#: What the pages of the test in progress did that a failure should tell: navigations and failed answers.
PAGE_EVENTS: list[str] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    """A failed browser test's report ends with what its pages navigated to and were refused, and with
    what the server logged meanwhile: a rare failure in CI is then explained by its own report."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not report.failed or not hasattr(item, "server_log_start"):
        return
    if PAGE_EVENTS:
        report.sections.append(("the pages' navigations and failed answers", "\n".join(PAGE_EVENTS)))
    if SERVER_LOG:
        with open(SERVER_LOG[0], "rb") as log:
            log.seek(item.server_log_start)
            text = log.read().decode("utf-8", "replace")
        report.sections.append(("the server's log during the test", text[-30_000:]))


@pytest.fixture(autouse=True)
def _mark_the_server_log(request: pytest.FixtureRequest) -> None:
    PAGE_EVENTS.clear()
    request.node.server_log_start = SERVER_LOG[0].stat().st_size if SERVER_LOG else 0


def _watch_page(page: Any) -> None:
    """Keep the page's main-frame navigations and its answers of 400 or more in PAGE_EVENTS."""

    def navigated(frame: Any) -> None:
        if frame == page.main_frame:
            PAGE_EVENTS.append(f"navigated to {frame.url}")

    def answered(response: Any) -> None:
        if response.status >= 400:
            PAGE_EVENTS.append(f"{response.request.method} {response.url}: {response.status}")

    page.on("framenavigated", navigated)
    page.on("response", answered)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests last (a stable sort keeps every other order as it was)."""
    here = Path(__file__).resolve().parent
    items.sort(key=lambda item: Path(str(item.path)).resolve().is_relative_to(here))


def off_loop(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Run ``function`` on a thread of its own (no event loop there) and return its result."""
    from django.db import connection

    def run() -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            connection.close()  # the thread's own connection, which would otherwise outlive it

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


@pytest.fixture(scope="session")
def live_url(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: Any) -> Iterator[str]:
    """The site served by ``manage.py runserver`` (daphne: HTTP, WebSockets, static files)."""
    from django.db import connection

    with django_db_blocker.unblock():
        database = dict(connection.settings_dict)  # the test database, SQLite or PostgreSQL
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "runserver.log"
    SERVER_LOG[:] = [log]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", "--skip-checks", f"127.0.0.1:{port}"],
            cwd=REPO,
            # The move clock runs inside the server, as with `make run` (games.live.clock).
            env=server_env(database, GAMECLOCK_IN_SERVER="1"),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(url + "/rules/", process, log)
        yield url
    finally:
        stop(process)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One chromium process for every browser test."""
    import asyncio

    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: install Debian's chromium (`.ci/run` does it with apt-get)")
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                yield chromium
            finally:
                chromium.close()
        if threading.current_thread() is threading.main_thread():
            asyncio._set_running_loop(None)  # Playwright is gone: nothing runs that loop any more
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def signed_in(browser: Any, live_url: str):
    """``signed_in(user, **context_options)``: a new browser context with ``user``'s session cookie."""
    contexts = []

    def make(user: Any, **options: Any):
        client = Client()
        client.force_login(user)
        context = browser.new_context(base_url=live_url, **options)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_url}])
        context.set_default_timeout(15_000)
        context.on("page", _watch_page)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def timed_game(make_user: Any, classic: Any) -> Any:
    """An active two-person classic game (ann, bob; 2 rounds) with a day to move.

    Only a deadline a test moves can time the turn out, and a page's own
    countdown (its re-check safety net) stays far from zero.
    """
    from games import services

    ann, bob = make_user("ann"), make_user("bob")
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=2,
        invitees=[bob],
        seed=11,
        time_limit_seconds=24 * 3600,
        options={"rounds": [3, 4]},
    )
    assert game.in_play
    return game


def game_between(make_user: Any, classic: Any, *, rounds: list[int], seed: int = 31) -> tuple[Any, Any, Any]:
    """An active classic game between ann (seat 0) and bob, created off the browser's loop: (game, ann, bob)."""
    from games import services

    ann, bob = make_user("ann"), make_user("bob")
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=2,
        invitees=[bob],
        seed=seed,
        options={"rounds": rounds},
    )
    game.refresh_from_db()
    return game, ann, bob


@pytest.fixture
def against_a_bot(make_user: Any, classic: Any) -> tuple[Any, Any]:
    """Ann against a medium bot, two rounds, a day a move; at her turn (the bot plays at once at the deal,
    outside a request)."""
    from games import services

    ann = make_user("ann")
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=2,
        bot_count=1,
        seed=17,
        time_limit_seconds=24 * 3600,
        options={"rounds": [3, 4]},
    )
    return game, ann


def play_until_a_round_is_scored(game: Any, user: Any) -> None:
    """The person draws from the stock and throws the card back; the bot plays its own turns, after the
    answer to each of hers on the server's thread, so her next move waits until it is her turn again (a
    move read before the bot's had logged was refused as stale).  Off the event loop (``off_loop``)."""
    from games import services
    from games.engine import GameState, Phase

    moves, polls = 0, 0
    while moves < 400:
        game.refresh_from_db()
        if game.round_results.exists():
            return
        assert game.state is not None
        state = GameState.from_dict(game.state)
        if state.current_seat != 0:
            polls += 1
            assert polls < 3000, "the bot never played its turn"
            time.sleep(0.01)
            continue
        moves += 1
        if state.phase == Phase.DRAW:
            action = {"type": "draw", "source": "stock" if state.stock else "discard"}
        else:
            hand = state.hands[0]
            card = next(c for c in reversed(hand) if c != state.taken_from_discard)
            action = {"type": "discard", "card": card.code}
        services.game_play(game_id=game.pk, user=user, action=action, expected_version=game.version)
    raise AssertionError("no round was scored in 400 moves")
