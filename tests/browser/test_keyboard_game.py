"""ISSUE 13.5: a whole game played with the keyboard alone (Tab, Shift+Tab, Enter and Space; no
click), against a bot, and the keyboard focus stays on the hand after every move."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games import services
from games.models import Game

from .conftest import off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

#: How many Tab presses may separate the focus from what it looks for.
TAB_LIMIT = 60

DRAW = "el => el.matches('#table .piles button') && el.textContent.trim() === 'Draw from stock'"
GO_OUT = "el => el.matches('#table .go-out-button')"
BEST_CARD = "el => el.matches('#table form[data-hand] button.card.best')"
IN_HAND = "el => !!el.closest('#table [data-hand]')"


def tab_to(page: Page, wanted: str) -> None:
    """Press Tab until the focused element is ``wanted`` (a JavaScript predicate), else Shift+Tab."""
    for key in ("Tab", "Shift+Tab"):
        for _ in range(TAB_LIMIT):
            if page.evaluate(f"({wanted})(document.activeElement)"):
                return
            page.keyboard.press(key)
    raise AssertionError(f"the keyboard never reached {wanted}")


def version(page: Page) -> str:
    value = page.locator("#table").get_attribute("data-version")
    assert value is not None
    return value


def press_and_wait(page: Page, key: str) -> None:
    """Press ``key`` on the focused move button and wait for the table the move brings."""
    before = version(page)
    page.keyboard.press(key)
    expect(page.locator("#table")).not_to_have_attribute("data-version", before)
    expect(page.locator("#table")).not_to_have_attribute("aria-busy", "true")


@pytest.mark.slow
def test_a_whole_game_against_a_bot_with_the_keyboard_alone(make_user: Any, classic: Any, signed_in: Any) -> None:
    ann = make_user("ann")
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=2,
        bot_levels=["easy"],
        coach=True,  # the coach marks the card to discard ("best"): the game moves on
        seed=21,
        options={"rounds": [3, 4]},
    )
    page = signed_in(ann).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    page.evaluate("window.__sameDocument = true")
    moves = 0
    while moves < 200:
        # The bot plays after each of ann's turns, and its moves come to the page live.
        expect(page.locator("#table .turn-line")).to_contain_text(re.compile("Your turn|Game over"))
        turn = page.locator("#table .turn-line").inner_text()
        if "Game over." in turn:
            break
        if page.locator("#table .piles button", has_text="Draw from stock").count():
            tab_to(page, DRAW)
            press_and_wait(page, "Enter")
            # The focus went to the hand: the card just drawn, ready to be discarded.
            assert page.evaluate(f"({IN_HAND})(document.activeElement)")
            assert page.evaluate("document.activeElement.matches('button.card:not([disabled])')")
            # The new turn line is read out (without the ticking clock).
            expect(page.locator("[data-announce]")).to_contain_text("discard it")
            expect(page.locator("[data-announce]")).not_to_contain_text("Move before")
        elif page.locator("#table .go-out-button").count():
            tab_to(page, GO_OUT)
            press_and_wait(page, "Space")
        else:
            tab_to(page, BEST_CARD)
            press_and_wait(page, "Space")
        moves += 1
        # After every move the focus is on the hand (or, with the hand gone at the end of a
        # round or of the game, on the line that says what happened): never lost on the page.
        focused = page.evaluate(
            "document.activeElement.matches('#table [data-hand], #table [data-hand] *, .turn-line')"
        )
        assert focused, page.evaluate("document.activeElement.outerHTML.slice(0, 200)")
    else:
        raise AssertionError("the game did not end")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and moves >= 4
    assert page.evaluate("window.__sameDocument === true")  # every move was swapped in, no reload
    # From the final standings to the record of the game, still by keyboard.
    tab_to(page, "el => el.textContent.trim() === 'The whole game, round by round'")
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{page.url.split('/games/')[0]}/games/{game.pk}/record/")
