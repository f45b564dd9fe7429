"""Turn alerts in a browser: when the other player's move hands the turn over, the waiting
player's tab title and icon say so, a notification shows while the tab is hidden (asked for
only after the player pressed the button), and the chime plays only when sound is on.

The browser's Notification and HTMLMediaElement.play are replaced by recorders before any
page script runs; the other player moves by clicking on their own page, as a second person would.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User

from .conftest import game_between, off_loop
from .test_live_table import discard_first_card, draw_from_stock

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

RECORDERS = """
window.__notes = [];
window.__asked = 0;
window.__plays = 0;
window.__sockets = 0;
function FakeNotification(title, options) {
  window.__notes.push({ title: title, body: (options || {}).body, hidden: document.visibilityState });
}
FakeNotification.prototype.close = function () {};
FakeNotification.permission = "default";
FakeNotification.requestPermission = function () {
  window.__asked += 1;
  FakeNotification.permission = "granted";
  return Promise.resolve("granted");
};
window.Notification = FakeNotification;
HTMLMediaElement.prototype.play = function () { window.__plays += 1; return Promise.resolve(); };
var RealWebSocket = window.WebSocket;
window.WebSocket = function (url, protocols) {
  var socket = new RealWebSocket(url, protocols);
  socket.addEventListener("open", function () { window.__sockets += 1; });
  return socket;
};
window.WebSocket.prototype = RealWebSocket.prototype;
window.__hide = function () {
  Object.defineProperty(document, "visibilityState", { configurable: true, get: function () { return "hidden"; } });
  Object.defineProperty(document, "hidden", { configurable: true, get: function () { return true; } });
  document.dispatchEvent(new Event("visibilitychange"));
};
"""


def pass_the_turn(mover: Page) -> None:
    """The player on turn draws from the stock and throws a card back, by clicking (their own page:
    the server process that serves the pages sends the updates)."""
    draw_from_stock(mover)
    discard_first_card(mover)


@pytest.fixture
def waiting_player(make_user: Any, classic: Any, signed_in: Any):
    """A two-player game and the player who waits for the first move, with the recorders installed."""
    game, _ann, _bob = game_between(make_user, classic, rounds=[7, 8])
    waiter = off_loop(lambda: game.seats.get(position=1 - game.current_seat).user)
    mover = off_loop(lambda: game.seats.get(position=game.current_seat).user)

    def open_page(path: str) -> Page:
        context = signed_in(waiter, permissions=["notifications"])
        context.add_init_script(RECORDERS)
        page = context.new_page()
        page.goto(path)
        # Both sockets (the table's and the person's) are open: nothing sent from now on is missed.
        wait_until(page, f"window.__sockets >= {2 if path.startswith('/games/') else 1}")
        return page

    def mover_page() -> Page:
        page = signed_in(mover).new_page()
        page.goto(f"/games/{game.pk}/")
        expect(page.locator("[data-live-status]")).to_have_text("Live")
        return page

    return game, waiter, open_page, mover_page


def recorded(page: Page, name: str) -> Any:
    return page.evaluate(f"window.{name}")


def wait_until(page: Page, condition: str, timeout_ms: int = 15_000) -> None:
    """Poll ``condition`` in the page (wait_for_function compiles it with eval, which the CSP forbids)."""
    for _ in range(timeout_ms // 100):
        if page.evaluate(condition):
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"still not true after {timeout_ms} ms: {condition}")


@pytest.mark.slow
def test_the_turn_shows_in_the_title_and_icon_and_notifies_a_hidden_tab(waiting_player):
    game, _, open_page, mover_page = waiting_player
    page = open_page(f"/games/{game.pk}/")
    name = f"{game.variant_label} #{game.pk}"
    icon = page.locator('link[rel="icon"]')
    assert page.title() == f"{name} · Three Thirteen"
    expect(icon).to_have_attribute("href", re.compile(r"/favicon\.svg$"))

    # Nothing is asked of the browser until the player presses the button.
    button = page.locator("[data-notify-toggle]")
    expect(button).to_have_text("Notifications: off")
    assert recorded(page, "__asked") == 0
    button.click()
    expect(button).to_have_text("Notifications: on")
    assert recorded(page, "__asked") == 1

    page.evaluate("window.__hide()")
    pass_the_turn(mover_page())

    expect(page).to_have_title(f"(1) Your turn — {name} · Three Thirteen")
    expect(icon).to_have_attribute("href", re.compile(r"/favicon-turn\.svg$"))
    wait_until(page, "window.__notes.length > 0")
    assert recorded(page, "__notes") == [
        {"title": f"Your turn in {name}", "body": "Three Thirteen", "hidden": "hidden"}
    ]
    assert recorded(page, "__plays") == 0  # sound is off


@pytest.mark.slow
def test_no_notification_without_the_button_and_none_while_the_tab_is_shown(waiting_player):
    game, _, open_page, mover_page = waiting_player
    quiet = open_page(f"/games/{game.pk}/")  # never pressed the button
    shown = open_page(f"/games/{game.pk}/")  # pressed it, but the tab stays in view
    shown.locator("[data-notify-toggle]").click()
    expect(shown.locator("[data-notify-toggle]")).to_have_text("Notifications: on")
    quiet.evaluate("window.__hide()")

    pass_the_turn(mover_page())

    for page in (quiet, shown):
        expect(page).to_have_title(re.compile(r"^\(1\) Your turn — "))
    assert recorded(quiet, "__asked") == 0 and recorded(quiet, "__notes") == []
    assert recorded(shown, "__notes") == []


@pytest.mark.slow
def test_the_chime_plays_only_once_the_player_turned_sound_on(waiting_player):
    game, waiter, open_page, mover_page = waiting_player
    page = open_page(f"/games/{game.pk}/")
    toggle = page.locator("[data-sound-toggle] button")
    expect(toggle).to_have_text("Sound: off")
    assert recorded(page, "__plays") == 0
    toggle.click()
    expect(toggle).to_have_text("Sound: on")
    assert off_loop(lambda: User.objects.get(pk=waiter.pk).turn_sound) is True
    assert recorded(page, "__plays") == 1  # the click plays it once, so the player knows the sound

    # On any other page of the site, the count going up brings the chime and the title.
    other = open_page("/rules/")
    assert other.title().startswith("Rules")
    pass_the_turn(mover_page())
    expect(other).to_have_title(re.compile(r"^\(1\) Rules"))
    expect(other.locator('link[rel="icon"]')).to_have_attribute("href", re.compile(r"/favicon-turn\.svg$"))
    wait_until(other, "window.__plays === 1")
    expect(page).to_have_title(re.compile(r"^\(1\) Your turn — "))
    wait_until(page, "window.__plays === 2")
    assert recorded(other, "__notes") == [] and recorded(other, "__asked") == 0
