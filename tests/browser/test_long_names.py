"""A user name may be 150 characters without a space: the pages a player sees never grow wider than
the window for it (no sideways scroll on a phone or on a desktop), in the lobby, at an open table
(the fair shuffle's contributions), and at a table in play (the header, the seats, the chat).  The
header cuts the name short, with the whole name in its title."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games import services

from .conftest import off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

LONG = "L" * 150
WIDE = "W" * 150  # the widest letter: the worst case for a name that cannot wrap

NO_SIDEWAYS_SCROLL = "document.documentElement.scrollWidth <= window.innerWidth"


def wider_than_the_window(page: Page) -> list[str]:
    """What sticks out past the window's right edge (outside a box that scrolls or clips it), for the
    failure's message."""
    return page.evaluate(
        """() => {
          const width = window.innerWidth, out = [];
          const clipped = (el) => { for (let p = el.parentElement; p; p = p.parentElement) {
            if (getComputedStyle(p).overflowX !== "visible") return true; } return false; };
          for (const el of document.querySelectorAll("body *")) {
            const box = el.getBoundingClientRect();
            if (box.width && box.right > width + 1 && !clipped(el))
              out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join(".")}: ${Math.round(box.right)}px`);
          }
          return out.slice(0, 10);
        }"""
    )


def assert_no_sideways_scroll(page: Page, what: str) -> None:
    assert page.evaluate(NO_SIDEWAYS_SCROLL), (
        f"{what} is {page.evaluate('document.documentElement.scrollWidth')}px wide "
        f"in a {page.evaluate('window.innerWidth')}px window: {wider_than_the_window(page)}"
    )


@pytest.mark.parametrize("width", [390, 1366])
def test_a_150_character_name_never_widens_the_page(width, make_user, classic, signed_in):
    long, wide = make_user(LONG), make_user(WIDE)
    # A table in play: both, and a bot; both have said something at it.
    game = off_loop(
        services.game_create,
        creator=long,
        variant=classic,
        seat_count=3,
        bot_count=1,
        invitees=[wide],
        time_limit_seconds=24 * 3600,
        options={"rounds": [3, 4]},
        seed_contribution="x" * 64,
    )
    off_loop(services.chat_post, game_id=game.pk, user=long, channel="players", text="Good luck")
    off_loop(services.chat_post, game_id=game.pk, user=wide, channel="players", text="You too")
    # A table waiting for players, in the lobby's open tables, with the creator's contribution.
    waiting = off_loop(services.game_create, creator=wide, variant=classic, seat_count=3, seed_contribution="y" * 64)

    context = signed_in(long, viewport={"width": width, "height": 844})
    page = context.new_page()

    page.goto("/")
    expect(page.locator("#my-games")).to_contain_text(WIDE)
    expect(page.locator("#open-games")).to_contain_text(WIDE)
    assert_no_sideways_scroll(page, "The lobby")
    header_name = page.locator(".site-nav .user-name")
    assert header_name.get_attribute("title") == LONG  # cut short on screen, whole in its title
    header_box = header_name.bounding_box()
    assert header_box is not None and header_box["width"] < width / 2

    page.goto(f"/games/{waiting.pk}/")
    expect(page.locator("#fairness .contribution-name")).to_have_text([WIDE])
    assert_no_sideways_scroll(page, "The open table")

    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    expect(page.locator("#chat .chat-text")).to_have_text(["Good luck", "You too"])
    expect(page.locator(".player-name").first).to_have_attribute("title", LONG)
    # Cut short, the name keeps its "(you)" in sight, inside the seat.
    you, seat = page.locator(".player.me .player-you"), page.locator(".player.me")
    expect(you).to_be_visible()
    you_box, seat_box = you.bounding_box(), seat.bounding_box()
    assert you_box is not None and seat_box is not None
    assert you_box["x"] + you_box["width"] <= seat_box["x"] + seat_box["width"]
    assert_no_sideways_scroll(page, "The table")
    # The chat's quick phrases wrap onto lines instead of running out of sight.
    phrases = page.locator("#chat .quick-phrases")
    assert phrases.evaluate("form => form.scrollWidth <= form.clientWidth")
    last = phrases.get_by_role("button").last.bounding_box()
    box = phrases.bounding_box()
    assert last is not None and box is not None and last["x"] + last["width"] <= box["x"] + box["width"] + 1


def test_a_short_name_is_not_cut_for_the_score_beside_it_on_a_phone(make_user, classic, signed_in):
    """ "teste… (jy) 65 punte": in Afrikaans the score's longer label squeezed a nine-letter name."""
    person = make_user("tester_af")
    person.language = "af"
    off_loop(person.save)
    game = off_loop(
        services.game_create, creator=person, variant=classic, seat_count=4, bot_count=3, bot_level="easy", seed=5
    )
    page = signed_in(person, viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"/games/{game.pk}/")
    name = page.locator(".player.me .player-name-text")
    expect(name).to_have_text("tester_af")
    assert name.evaluate("text => text.scrollWidth <= text.clientWidth"), "the name is cut short"
    expect(page.locator(".player.me .player-score")).to_be_visible()
    assert_no_sideways_scroll(page, "The table")
