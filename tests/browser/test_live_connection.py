"""Every change reaches the open table, and "Live" tells the truth.

- The clock case: a turn that times out while the table is open is played by
  the move clock, which in the default set-up (in-memory channel layer) runs
  inside the server process (tests/browser/conftest.py serves the site as
  `make run` does); the page shows the bot's move without a reload.
- The offline case: a move posted while the server cannot be reached keeps
  the table on screen with a notice, "Live" goes off, and once back online
  the move goes through and the table catches up.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Page, expect

from games.models import Game

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
