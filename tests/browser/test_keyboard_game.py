"""ISSUE 13.5: a whole game played with the keyboard alone (Tab, Shift+Tab, Enter and Space; no
click), against a bot, and the keyboard focus stays on the hand after every move."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import transaction
from playwright.sync_api import Page, expect

from accounts.models import User
from games import services
from games.models import Game
from games.services.turns import announce, lock_game

from .conftest import off_loop, play_until_a_round_is_scored

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

#: How many Tab presses may separate the focus from what it looks for.
TAB_LIMIT = 60

DRAW = "el => el.matches('#table .piles button') && el.textContent.trim() === 'Draw from stock'"
GO_OUT = "el => el.matches('#table .go-out-button')"
BEST_CARD = "el => el.matches('#table form[data-hand] button.card.best')"
IN_HAND = "el => !!el.closest('#table [data-hand]')"


#: Every announcement the page's live region made, kept as it was said (a later one replaces it on the page).
ANNOUNCEMENTS = """
window.__announced = [];
new MutationObserver(() => {
  const region = document.querySelector("[data-announce]");
  if (region && region.textContent && window.__announced[window.__announced.length - 1] !== region.textContent) {
    window.__announced.push(region.textContent);
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def announced(page: Page, words: str) -> str:
    """The announcement that said ``words`` (the last such), or ""."""
    return next((text for text in reversed(page.evaluate("window.__announced")) if words in text), "")


def tab_to(page: Page, wanted: str) -> None:
    """Press Tab until the focused element is ``wanted`` (a JavaScript predicate), else Shift+Tab."""
    for key in ("Tab", "Shift+Tab"):
        for _ in range(TAB_LIMIT):
            if page.evaluate(f"({wanted})(document.activeElement)"):
                return
            page.keyboard.press(key)
    raise AssertionError(f"the keyboard never reached {wanted}")


def shift_tabs_to(page: Page, wanted: str) -> int:
    """Press Shift+Tab until the focused element is ``wanted`` (a JavaScript predicate); how many presses."""
    for presses in range(TAB_LIMIT):
        if page.evaluate(f"({wanted})(document.activeElement)"):
            return presses
        page.keyboard.press("Shift+Tab")
    raise AssertionError(f"Shift+Tab never reached {wanted}")


def arrow_to(page: Page, wanted: str) -> None:
    """Tab to the hand (one stop: a roving tabindex), then the arrow keys from its first card until the focused
    card is ``wanted`` (a JavaScript predicate)."""
    tab_to(page, "el => el.matches('#table .hand-slot button.card')")
    page.keyboard.press("Home")
    for _ in range(TAB_LIMIT):
        if page.evaluate(f"({wanted})(document.activeElement)"):
            return
        page.keyboard.press("ArrowRight")
    raise AssertionError(f"the arrow keys never reached {wanted}")


def notice(game_id: int) -> None:
    """A new version that only tells the table of time away (as when someone's begins)."""
    with transaction.atomic():
        game = lock_game(game_id)
        game.save(update_fields=game.bump_for_notice())
        announce(game)


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


@pytest.fixture
def coached_game(make_user: Any, classic: Any) -> tuple[Any, Any]:
    """Ann against an easy bot, two rounds, with the coach, which marks the card to discard ("best"): the
    game moves on whatever the deal."""
    ann = make_user("ann")
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=2,
        bot_levels=["easy"],
        coach=True,
        seed=21,
        options={"rounds": [3, 4]},
    )
    return game, ann


@pytest.mark.slow
def test_a_whole_game_against_a_bot_with_the_keyboard_alone(coached_game: Any, signed_in: Any) -> None:
    game, ann = coached_game
    context = signed_in(ann)
    context.add_init_script(ANNOUNCEMENTS)
    page = context.new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    page.evaluate("window.__sameDocument = true")
    moves = shift_tabbed = 0
    while moves < 200:
        # The bot plays after each of ann's turns, and its moves come to the page live.
        expect(page.locator("#table .turn-line")).to_contain_text(re.compile("Your turn|Game over"))
        turn = page.locator("#table .turn-line").inner_text()
        if "Game over." in turn:
            break
        if page.locator("#table .piles button", has_text="Draw from stock").count():
            if moves and page.evaluate(f"({IN_HAND})(document.activeElement)"):
                # From the hand, where the last discard left the focus, the draw is one Shift+Tab away, or two
                # with the discard pile's "Take …" between (the hand's tools come after it: a keyboard tester
                # pressed seven every turn).
                presses = shift_tabs_to(page, DRAW)
                assert presses <= 2, presses
                shift_tabbed += 1
            else:
                tab_to(page, DRAW)
            press_and_wait(page, "Enter")
            # The focus went to the hand: the card just drawn, ready to be discarded.
            assert page.evaluate(f"({IN_HAND})(document.activeElement)")
            assert page.evaluate("document.activeElement.matches('button.card:not([disabled])')")
            # The new turn line is read out (without the ticking clock).
            expect(page.locator("[data-announce]")).to_contain_text("choose a card to discard it")
            # It names no way of pointing: a keyboard or a switch does not "tap".
            assert "tap" not in page.locator("[data-announce]").inner_text()
            expect(page.locator("[data-announce]")).not_to_contain_text("Move before")
        elif page.locator("#table .go-out-button").count():
            tab_to(page, GO_OUT)
            press_and_wait(page, "Space")
        else:
            arrow_to(page, BEST_CARD)
            press_and_wait(page, "Space")
        moves += 1
        # After every move the focus is on the hand (or, with the hand gone at the end of a
        # round or of the game, on the line that says what happened): never lost on the page.
        focused = page.evaluate(
            "document.activeElement.matches('#table [data-hand], #table [data-hand] *, .turn-line, #round-end-title')"
        )
        assert focused, page.evaluate("document.activeElement.outerHTML.slice(0, 200)")
    else:
        raise AssertionError("the game did not end")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and moves >= 4
    assert shift_tabbed >= 2  # the turns came back with the focus in the hand, and the draw was a press or two away
    assert page.evaluate("window.__sameDocument === true")  # every move was swapped in, no reload
    # The last round's end is said too, before the game's (a review: it had no summary to say, and was dropped).
    said = announced(page, "The game is over")
    assert "Round 2 is over" in said and said.index("Round 2 is over") < said.index("The game is over"), said
    # From the final standings to the record of the game, still by keyboard.
    tab_to(page, "el => el.textContent.trim() === 'The whole game, round by round'")
    page.keyboard.press("Enter")
    expect(page).to_have_url(f"{page.url.split('/games/')[0]}/games/{game.pk}/record/")


MELDS_CARD = "el => el.matches('#table form[data-hand-melds] button.card.best')"
IN_MELDS = "el => !!el.closest('#table [data-hand-melds]')"


@pytest.mark.slow
def test_in_the_best_melds_view_the_focus_and_what_is_said_follow_the_game(coached_game: Any, signed_in: Any) -> None:
    """Found by an accessibility play-test: in "best melds" the focus fell to the page after every move (the
    script looked for the other view's hand), the end of a round was never said, nor the bot's moves, and
    "Next deal" left the focus nowhere."""
    game, ann = coached_game
    context = signed_in(ann)
    context.add_init_script(ANNOUNCEMENTS)
    page = context.new_page()
    page.goto(f"/games/{game.pk}/?hand=melds")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    # The first Tab of the page offers to skip the header, and that lands on the content.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.matches('.skip-link')")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    page.evaluate("window.__sameDocument = true")
    bot = page.locator("#table .player:not(.me) .player-name-text").inner_text()
    announce = page.locator("[data-announce]")
    for move in range(100):
        expect(page.locator("#table .round-end, #table .turn-line:has-text('Your turn')").first).to_be_visible()
        if page.locator("#table .round-end").count():
            break
        if page.locator("#table .piles button", has_text="Draw from stock").count():
            if move and page.evaluate(f"({IN_MELDS})(document.activeElement)"):
                assert shift_tabs_to(page, DRAW) <= 2  # (as in "my order")
            else:
                tab_to(page, DRAW)
            press_and_wait(page, "Enter")
            # The card just drawn has the focus, in the melds view too.
            assert page.evaluate(f"({IN_MELDS})(document.activeElement)"), page.evaluate(
                "document.activeElement.outerHTML.slice(0, 200)"
            )
            continue
        if page.locator("#table .go-out-button").count():
            tab_to(page, GO_OUT)
        else:
            arrow_to(page, MELDS_CARD)
        press_and_wait(page, "Space")
        if page.locator("#table .round-end").count():
            break
        # The bot played after the discard: its moves are said before the new turn line, each card by its name
        # ("J♦" was read unevenly, some screen readers saying "J" alone: an accessibility tester).
        expect(announce).to_contain_text(bot)
        expect(announce).to_contain_text(re.compile(r" of (clubs|diamonds|hearts|spades)"))
        expect(announce).to_contain_text("Your turn")
        assert ".." not in announce.inner_text()  # one full stop between two moves (a tester heard two)
        if page.locator("#table .round-end").count():
            break  # the bot went out
        assert page.evaluate(f"({IN_MELDS})(document.activeElement)")
    else:
        raise AssertionError("the round did not end")
    # The round's end: its title has the focus, and what happened in it is said.
    expect(page.locator("#round-end-title")).to_be_focused()
    expect(announce).to_contain_text("Round 1 is over")
    expect(announce).to_contain_text("+")
    # Once, and in the order it happened: the points before the next deal (an accessibility tester heard "Round 1
    # is over. Round 2: 4 cards dealt. Round 1 is over · 3 cards · 3 wild. … +0 …").
    said = announced(page, "Round 1 is over")  # (the next deal's first moves may have been said since)
    assert said.count("Round 1 is over") == 1, said
    assert not set(said) & set("♠♥♦♣"), said  # who went out, with which card, by its name too
    assert "Round 2: 4 cards dealt" not in said or said.index("+") < said.index("Round 2: 4 cards dealt"), said
    # "Next deal": the focus goes to the new deal's first step (or the line saying whose turn it is).
    tab_to(page, "el => el.textContent.trim() === 'Next deal'")
    page.keyboard.press("Enter")  # the person's own step: the game's version stays
    expect(page.locator("#table .round-end")).to_have_count(0)
    assert page.evaluate("document.activeElement.matches('#table .piles button, #table .turn-line')")
    assert page.evaluate("window.__sameDocument === true")


@pytest.mark.slow
def test_the_focus_stays_on_the_round_end_and_the_turn_line_when_the_table_changes(
    against_a_bot: Any, signed_in: Any
) -> None:
    """Found by an accessibility tester: the focus the script puts on the title of a round's end was lost to the
    page when the bots' first moves of the next deal came a moment later (the new table's title had no tabindex
    and was not found again): a keyboard player had to Tab from the top of the page, a screen reader lost its
    place in the summary it was reading."""
    game, ann = against_a_bot
    off_loop(play_until_a_round_is_scored, game, off_loop(User.objects.get, pk=ann.pk))
    page = signed_in(ann).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    for place in ("#round-end-title", "#table .turn-line"):
        # As the script does when a round ends on the person's move (or the hand is gone): focusable, focused.
        page.evaluate(f"(() => {{ const el = document.querySelector('{place}'); el.tabIndex = -1; el.focus(); }})()")
        expect(page.locator(place)).to_be_focused()
        shown = version(page)
        off_loop(notice, game.pk)  # a new version of the table (heard by the test's channel layer: fetched below)
        page.evaluate("window.dispatchEvent(new Event('online'))")
        expect(page.locator("#table")).not_to_have_attribute("data-version", shown)
        expect(page.locator(place)).to_be_focused()


def test_the_arrow_keys_move_between_the_cards_of_the_hand(coached_game: Any, signed_in: Any) -> None:
    game, ann = coached_game
    page = signed_in(ann).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    tab_to(page, DRAW)
    press_and_wait(page, "Enter")
    # The hand is a group whose name says how to move in it (a screen reader says it as the focus comes in).
    hand = page.get_by_role(
        "group", name="Your hand: the arrow keys move between the cards, and with Shift they move the card"
    )
    expect(hand).to_have_attribute("data-hand", "")
    cards = page.locator("#table [data-hand] button.card:not([disabled])")
    codes = [cards.nth(i).get_attribute("data-card") for i in range(cards.count())]
    assert len(codes) == 4  # three dealt and the one drawn, every one a discard button

    def focused() -> str | None:
        return page.evaluate("document.activeElement.getAttribute('data-card')")

    page.keyboard.press("Home")
    assert focused() == codes[0]
    # The hand is one stop of Tab: the next stop is past the hand, and Shift+Tab comes back to the card left.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Tab")
    assert page.evaluate("!document.activeElement.closest('#table [data-hand]')")
    page.keyboard.press("Shift+Tab")
    assert focused() == codes[1]
    tabbable = "Array.from(document.querySelectorAll('#table [data-hand] button.card')).filter(c => c.tabIndex >= 0)"
    assert page.evaluate(f"{tabbable}.length") == 1
    # The table swapped in live while the focus is out of the hand (here a notice of time away): the card left
    # is still the hand's one stop (a review found the first card instead).
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Tab")
    shown = version(page)
    off_loop(notice, game.pk)  # (heard by the test's own channel layer, not the server's: the page fetches it)
    page.evaluate("window.dispatchEvent(new Event('online'))")  # as back from offline: the table is fetched
    expect(page.locator("#table")).not_to_have_attribute("data-version", shown)
    assert page.evaluate(f"{tabbable}.map(c => c.getAttribute('data-card'))") == [codes[2]]
    page.keyboard.press("Shift+Tab")
    assert focused() == codes[2]
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert focused() == codes[1]
    page.keyboard.press("ArrowDown")
    assert focused() == codes[2]
    page.keyboard.press("End")
    assert focused() == codes[-1]
    page.keyboard.press("ArrowRight")  # the last card stays the last: the focus does not leave the hand
    assert focused() == codes[-1]
    page.keyboard.press("ArrowLeft")
    assert focused() == codes[-2]
    # Shift and an arrow move the focused card itself, and say its new place (an accessibility tester arranged a
    # hand blind); the focus stays on it, and nothing is played.
    before = version(page)
    order = "[...document.querySelectorAll('#table [data-hand] [data-card]')].map(c => c.getAttribute('data-card'))"
    page.keyboard.press("Shift+ArrowLeft")
    assert focused() == codes[-2] and page.evaluate(order) == [*codes[:-3], codes[-2], codes[-3], codes[-1]]
    expect(page.locator("[data-announce]")).to_have_text(re.compile(r": place 2 of 4$"))
    page.keyboard.press("Shift+ArrowRight")
    assert page.evaluate(order) == codes and version(page) == before
    expect(page.locator("[data-announce]")).to_have_text(re.compile(r": place 3 of 4$"))
    # Moving the focus is not a move: the table is as it was, and Space then discards the card focused.
    page.keyboard.press("ArrowUp")
    assert focused() == codes[-3] and version(page) == before
    press_and_wait(page, "Space")
    assert page.locator(f"#table [data-hand] [data-card='{codes[-3]}']").count() == codes.count(codes[-3]) - 1
