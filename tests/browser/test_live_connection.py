"""Every change reaches the open table, and "Live" tells the truth.

- The clock case: a turn that times out while the table is open is played by
  the move clock, which in the default set-up (in-memory channel layer) runs
  inside the server process (tests/browser/conftest.py serves the site as
  `make run` does); the page shows the bot's move without a reload.
- The offline case: a move posted while the server cannot be reached keeps
  the table on screen with a notice, "Live" goes off, and once back online
  the move goes through and the table catches up.
- The failing-fetch case: the table's fetch fails again and again (a restart):
  the page says it is catching up and tries until it succeeds.
"""

from __future__ import annotations

import datetime
import time
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from games import services
from games.engine import GameState
from games.models import Game
from threethirteen_site import after_response

from .conftest import off_loop

pytestmark = pytest.mark.django_db(transaction=True)

#: Generous: the clock passes every 2 s; nothing here asserts a duration.
WAIT_MS = 30_000
NOT_RELOADED = "window.__sameDocument === true"


def open_table(context: Any, game: Game) -> Page:
    page = context.new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    page.evaluate("window.__sameDocument = true")
    return page


def version_of(page: Page) -> int:
    return int(page.locator("#table").get_attribute("data-version") or "0")


def test_a_turn_the_clock_plays_shows_on_the_open_table_without_a_reload(timed_game, signed_in):
    game = timed_game
    mover = game.seats.get(position=game.current_seat).user
    watcher = game.seats.exclude(user=mover).get().user
    page = open_table(signed_in(watcher), game)
    shown = version_of(page)
    assert shown == game.version

    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - datetime.timedelta(seconds=1))

    expect(page.locator("#table")).not_to_have_attribute("data-version", str(shown), timeout=WAIT_MS)
    assert page.evaluate(NOT_RELOADED)
    game.refresh_from_db()
    assert game.seats.get(user=mover).timeouts_in_row == 1  # the clock's bot played the turn
    assert version_of(page) > shown
    # Now it is the watcher's turn: the table offers them the draw.
    expect(page.get_by_role("button", name="Draw from stock")).to_be_visible()
    expect(page.locator("[data-live-status]")).to_have_text("Live")


def test_a_move_posted_offline_keeps_the_table_and_goes_through_when_back_online(timed_game, signed_in):
    game = timed_game
    mover = game.seats.get(position=game.current_seat).user
    context = signed_in(mover)
    page = open_table(context, game)
    shown = version_of(page)
    status = page.locator("[data-live-status]")
    notice = page.locator("[data-connection-notice]")
    expect(notice).to_be_hidden()

    context.set_offline(True)
    expect(status).to_have_text("Reconnecting…")
    expect(status).to_have_attribute("data-state", "reconnecting")
    page.get_by_role("button", name="Draw from stock").click()

    expect(notice).to_be_visible()
    expect(notice).to_have_text("Connection lost, retrying…")
    expect(page.locator("#table")).to_have_attribute("data-version", str(shown))  # the table stays
    expect(page.get_by_role("button", name="Draw from stock")).to_be_visible()
    assert page.evaluate(NOT_RELOADED)
    game.refresh_from_db()
    assert game.version == shown  # nothing reached the server

    context.set_offline(False)
    expect(notice).to_be_hidden(timeout=WAIT_MS)
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(shown), timeout=WAIT_MS)
    expect(status).to_have_text("Live", timeout=WAIT_MS)
    assert page.evaluate(NOT_RELOADED)
    game.refresh_from_db()
    assert game.version == version_of(page) > shown  # the draw went through, once, and the table caught up
    expect(page.get_by_role("button", name="Draw from stock")).to_have_count(0)


def test_a_table_fetch_that_keeps_failing_is_tried_again_until_the_page_catches_up(timed_game, signed_in):
    """A server or database that is restarting fails the table's fetch for a while (the connection drops, or a 503):
    the page keeps its table, says it is catching up, tries again with growing pauses, and catches up unreloaded."""
    game = timed_game
    mover = game.seats.get(position=game.current_seat).user
    watcher = game.seats.exclude(user=mover).get().user
    page = open_table(signed_in(watcher), game)
    shown = version_of(page)
    status = page.locator("[data-live-status]")
    failures: list[str] = []
    healed: list[bool] = []

    def flaky(route: Any) -> None:
        if healed:
            route.continue_()
        elif len(failures) % 2:
            failures.append("503")
            route.fulfill(status=503, body="Try again in a moment", headers={"Retry-After": "5"})
        else:
            failures.append("dropped")
            route.abort("connectionreset")

    page.route(f"**/games/{game.pk}/table/", flaky)
    off_loop(
        services.game_play,
        game_id=game.pk,
        user=mover,
        action={"type": "draw", "source": "stock"},
        expected_version=game.version,
    )
    expect(status).to_have_text("Catching up…", timeout=WAIT_MS)
    expect(status).to_have_attribute("data-state", "catching-up")
    deadline = time.monotonic() + WAIT_MS / 1000
    while len(failures) < 4:  # the old page gave up after three tries in a row
        assert time.monotonic() < deadline, failures
        page.wait_for_timeout(100)  # lets Playwright answer the page's next fetch
    expect(page.locator("#table")).to_have_attribute("data-version", str(shown))  # the table stays meanwhile
    expect(status).to_have_text("Catching up…")

    healed.append(True)
    expect(page.locator("#table")).to_have_attribute("data-version", str(shown + 1), timeout=WAIT_MS)
    expect(status).to_have_text("Live")
    assert page.evaluate(NOT_RELOADED)
    assert "503" in failures and "dropped" in failures


def test_a_bots_move_whose_announcement_never_came_still_reaches_the_table(against_a_bot, signed_in):
    """While a bot thinks the page re-checks its table now and then (live.js ``watchBots``), so a lost
    announcement of the bot's move (here: the bots play in this test's process, whose channel layer
    is not the server's) leaves no one staring at "… is thinking" with a live socket."""
    game, ann = against_a_bot
    assert game.current_seat == 0
    draw = {"type": "draw", "source": "stock"}
    off_loop(services.game_play, game_id=game.pk, user=ann, action=draw, expected_version=game.version)
    game.refresh_from_db()
    hand = GameState.from_dict(game.state).hands[0]

    def discard_in_a_request_whose_work_is_lost() -> None:
        with after_response.collecting():  # the work is dropped with the block: nobody plays the bot
            discard = {"type": "discard", "card": hand[0].code}
            services.game_play(game_id=game.pk, user=ann, action=discard, expected_version=game.version)

    off_loop(discard_in_a_request_whose_work_is_lost)
    page = open_table(signed_in(ann), game)
    expect(page.locator("#table .turn-line")).to_contain_text("(bot) is thinking")

    assert off_loop(services.play_waiting_bots, game.pk).moves == 2  # heard by no page
    expect(page.locator("#table .turn-line")).to_contain_text("Your turn", timeout=8_000)
    expect(page.locator("[data-live-status]")).to_have_text("Live")  # the socket stayed open all along
    assert page.evaluate(NOT_RELOADED)


def test_a_countdown_long_past_zero_says_the_clock_is_late(timed_game, signed_in):
    """The page's countdown says what the server would say of a turn long past its deadline: the clock is
    late (a stopped clock worker left "the bot plays this turn" on screen for as long as it was down). A
    copy of the table's countdown, as the server rendered it, is set to a turn whose time is up and that
    counts as late two seconds on, and put beside the table (whose own countdown the page re-checks with
    the server: this server's clock would play a real overdue turn at once); the script does the rest."""
    game = timed_game
    page = open_table(signed_in(game.seats.get(position=0).user), game)
    expect(page.locator("#table time.countdown")).to_contain_text("left")
    page.evaluate(
        """() => {
          const probe = document.querySelector("#table time.countdown").cloneNode(true);
          probe.id = "probe";
          probe.dataset.secondsLeft = "0";
          probe.dataset.lateIn = "2";
          delete probe.dataset.loadedAt;
          document.body.append(probe);
        }"""
    )
    probe = page.locator("#probe")
    expect(probe).to_have_text("time is up: the bot plays this turn")
    expect(probe).to_contain_text("the site’s clock is running late", timeout=WAIT_MS)


def test_a_refusal_stays_on_screen_while_the_page_rechecks_a_countdown_past_zero(timed_game, signed_in):
    """Found by a fault tester: with the clock worker down, a move made after the deadline was refused with its
    reason, and a moment later the page's re-check of its expired countdown swapped the same table in again,
    wiping the reason: the click looked as if it had done nothing.  The re-check swaps only a newer table."""
    game = timed_game
    page = open_table(signed_in(game.seats.get(position=game.current_seat).user), game)
    shown = version_of(page)
    # A move from a page that missed a change (here: its version put one back) is refused with the table.
    page.evaluate("document.querySelectorAll('#table input[name=version]').forEach(i => { i.value = i.value - 1; })")
    page.get_by_role("button", name="Draw from stock").click()
    refusal = page.locator("#table").get_by_text("The table has changed since your page was loaded")
    expect(refusal).to_be_visible()
    assert version_of(page) == shown

    # Its countdown ran out ten seconds ago and the clock has not played the turn: the page checks its table.
    with page.expect_response(lambda r: "/table/" in r.url and r.status == 200, timeout=WAIT_MS):
        page.evaluate(
            """() => {
              const countdown = document.querySelector('#table time.countdown');
              countdown.dataset.secondsLeft = '0';
              countdown.dataset.loadedAt = String(Date.now() - 10000);
            }"""
        )
    # The next check (3 s on) starts only once the first one's answer was handled.
    with page.expect_response(lambda r: "/table/" in r.url and r.status == 200, timeout=WAIT_MS):
        pass
    expect(refusal).to_be_visible()
    assert page.evaluate(NOT_RELOADED)


@pytest.mark.parametrize("status", [503, 504])  # the site's "try again"; nginx's, of a process that hangs
def test_a_move_the_site_cannot_save_for_a_moment_says_so_and_goes_through_after(timed_game, signed_in, status):
    """A fault tester: with PostgreSQL down, a move's 503 "try again" said "Connection lost", which blamed the
    player's connection.  The notice says the site cannot save moves for a moment; the move is sent again."""
    game = timed_game
    page = open_table(signed_in(game.seats.get(position=game.current_seat).user), game)
    shown = version_of(page)
    refused = []

    def database_down_once(route: Any) -> None:
        if refused:
            route.continue_()
            return
        refused.append(route.request.url)
        route.fulfill(status=status, headers={"Retry-After": "5"}, body="<h1>Try again in a moment</h1>")

    page.route(f"**/games/{game.pk}/play/", database_down_once)
    page.get_by_role("button", name="Draw from stock").click()
    notice = page.locator("[data-connection-notice]")
    expect(notice).to_have_text("The site cannot save moves for a moment: your move is sent again until it can…")
    expect(page.locator("#table")).to_have_attribute("data-version", str(shown))  # the table stays

    expect(notice).to_be_hidden(timeout=WAIT_MS)  # sent again: played once
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(shown))
    game.refresh_from_db()
    assert game.version == version_of(page) == shown + 1 and len(refused) == 1
    assert page.evaluate(NOT_RELOADED)


def test_a_move_the_site_is_slow_to_answer_says_it_is_on_its_way(timed_game, signed_in):
    """A fault tester clicked during an outage and saw nothing for 10 s (the server waited for the database
    before its "try again"), and clicked again.  A move not answered within 3 s says it is on its way."""
    game = timed_game
    page = open_table(signed_in(game.seats.get(position=game.current_seat).user), game)
    shown = version_of(page)
    held: list[Any] = []
    page.route(f"**/games/{game.pk}/play/", lambda route: held.append(route))  # it goes on only when let go
    page.get_by_role("button", name="Draw from stock").click()
    notice = page.locator("[data-connection-notice]")
    expect(notice).to_have_text("Your move is on its way: the site is slow to answer…")
    assert len(held) == 1
    held[0].continue_()
    expect(notice).to_be_hidden(timeout=WAIT_MS)  # answered: the notice goes, the table is the new one
    expect(page.locator("#table")).to_have_attribute("data-version", str(shown + 1))
    assert page.evaluate(NOT_RELOADED)
