"""A watcher's page follows ``may_watch`` live: when the game closes to them, the page says so.

A stranger may look at an open players-only game (to take a seat); when the
last seat is taken and the cards are dealt, their socket is closed with
``CLOSE_FORBIDDEN`` and the page reloads to the refusal, without ever
showing the dealt table.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games import services

from .conftest import off_loop

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_watcher_of_a_players_only_game_is_shown_the_refusal_when_it_starts(make_user, classic, signed_in):
    ann, bob, dan = make_user("ann"), make_user("bob"), make_user("dan")
    game = off_loop(services.game_create, creator=ann, variant=classic, seat_count=2, seed=8, spectators_allowed=False)
    watcher = signed_in(dan).new_page()
    watcher.goto(f"/games/{game.pk}/")
    expect(watcher.locator("[data-live-status]")).to_have_text("Live")
    expect(watcher.get_by_role("button", name="Take a seat")).to_be_visible()

    joiner = signed_in(bob).new_page()
    joiner.goto(f"/games/{game.pk}/")
    joiner.get_by_role("button", name="Take a seat").click()
    expect(joiner.locator("#table [data-hand] [data-card]").first).to_be_visible()

    expect(watcher.get_by_text("Only the players of this game may look at it")).to_be_visible()
    expect(watcher.locator("#table")).to_have_count(0)


def test_signing_out_in_one_tab_takes_the_other_tabs_to_the_log_in_page(make_user, classic, signed_in):
    """Their sockets are closed as signed out: before, each tab's socket went on trying to reconnect."""
    ann = make_user("ann")
    game = off_loop(services.game_create, creator=ann, variant=classic, seat_count=2, bot_count=1, seed=8)
    browser = signed_in(ann)
    table, lobby = browser.new_page(), browser.new_page()
    table.goto(f"/games/{game.pk}/")
    expect(table.locator("[data-live-status]")).to_have_text("Live")
    lobby.goto("/")
    lobby.locator("form[action='/accounts/logout/'] button").click()
    expect(table).to_have_url(re.compile(rf"/accounts/login/\?next=/games/{game.pk}/$"))
