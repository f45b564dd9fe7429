"""A person plays a round against a bot by clicking, with the hand arranged into its best
melds (kept through every live swap), sees the round's summary when it ends, and moves on
to the next deal with "Next deal" (issue 13, points 2 and 3)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games.engine import GameState, best_arrangement, view
from games.models import Seat

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

NOT_RELOADED = "window.__sameDocument === true"


def version_of(page: Page) -> str:
    version = page.locator("#table").get_attribute("data-version")
    assert version is not None
    return version


def click_and_wait(page: Page, locator: Any) -> None:
    """Click a move's button and wait until the answer (the fresh table, bots' turns included) is swapped in."""
    before = version_of(page)
    locator.click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", before)


def arranged_codes(page: Page) -> list[str]:
    return page.locator("#table [data-hand-melds] [data-card]").evaluate_all("cards => cards.map(c => c.dataset.card)")


@pytest.mark.slow
def test_a_round_against_a_bot_in_best_melds_ends_in_its_summary_and_next_deal_moves_on(against_a_bot, signed_in):
    game, ann = against_a_bot
    page = signed_in(ann).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    page.get_by_role("link", name="best melds").click()
    expect(page.locator("#table [data-hand-melds]")).to_be_visible()  # the new page, in best melds
    # ... and its scripts have run (live.js says "Live" once its socket is open): a click before that is a
    # plain form post, which reloads the page as it should without JavaScript.
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    page.evaluate("window.__sameDocument = true")

    summary = page.locator("#table .round-end")
    for _move in range(200):
        # The bot plays after each of ann's turns; its moves come live: wait for ann's turn or the round's end.
        expect(page.locator("#table .round-end, #table .turn-line:has-text('Your turn')").first).to_be_visible()
        if summary.count():
            break
        draw = page.get_by_role("button", name="Draw from stock")
        if draw.count():
            click_and_wait(page, draw)
            # The drawn card is in the arranged view, swapped in without a reload, as the engine arranges it.
            game.refresh_from_db()
            assert game.state is not None
            seen = view(GameState.from_dict(game.state), 0)
            if seen.hand and seen.current_seat == 0:
                assert sorted(arranged_codes(page)) == sorted(c.code for c in seen.hand)
                points = best_arrangement(seen.hand, seen.rules, seen.hand_size).points
                expect(page.locator("#table .arranged-points")).to_contain_text(
                    f"{points} point" if points else "Every card fits in a meld."
                )
            continue
        go_out = page.locator("#table .go-out-button")
        if go_out.count():
            click_and_wait(page, go_out.first)
            continue
        click_and_wait(page, page.locator("#table [data-hand-melds] button.card:not([disabled])").first)
    else:
        raise AssertionError("the round did not end in 200 moves")

    # The summary: every hand in its melds, each player's points and total, the story, above round 2's table.
    expect(summary.get_by_role("heading")).to_contain_text("Round 1 is over")
    expect(summary.locator(".result-row")).to_have_count(2)
    expect(summary.locator(".result-total").first).to_contain_text("total")
    expect(summary.locator(".round-story")).to_contain_text("went out")
    expect(page.locator("#table .round-bar")).to_contain_text("Round 2 of 2")
    expect(page.locator("#table [data-hand-melds]")).to_be_visible()  # still arranged in the new deal
    assert page.evaluate(NOT_RELOADED)

    # A bot that opens round 2 plays after the answer that ended round 1: its move comes live first.
    expect(page.locator("#table .turn-line:has-text('Your turn')")).to_be_visible()

    # "Next deal", pressed on a phone at the foot of the summary.
    phone = signed_in(ann, viewport={"width": 390, "height": 844}).new_page()
    phone.goto(f"/games/{game.pk}/")
    expect(phone.locator("[data-live-status]")).to_have_text("Live")
    phone.evaluate("window.__sameDocument = true")
    version = version_of(phone)
    next_deal = phone.get_by_role("button", name="Next deal")
    # read down to the button, which is near the top of the screen as it is pressed
    next_deal.evaluate("b => window.scrollTo(0, b.getBoundingClientRect().top + window.scrollY - 150)")
    next_deal.click()
    expect(phone.locator("#table .round-end")).to_have_count(0)
    expect(phone.locator("#table .last-round")).to_contain_text("Round 1 result")
    assert phone.evaluate(NOT_RELOADED) and version_of(phone) == version  # swapped in; the game did not change
    # The new deal is shown from its top (the round and wild rank, then the piles), not from where the
    # summary's foot was, with the piles under the turn line that stays at the top.
    top = phone.locator("#table .round-bar").evaluate("bar => bar.getBoundingClientRect().top")

    assert 0 <= top < 844 / 2, top
    assert Seat.objects.get(game=game, position=0).summary_dismissed_round == 1
    page.reload()
    expect(page.locator("#table .round-bar")).to_contain_text("Round 2 of 2")
    expect(summary).to_have_count(0)
