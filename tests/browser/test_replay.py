"""The replay steps through a finished game one page a move: a keyboard or screen-reader player keeps their place.

An accessibility tester: each step put the focus back at the top of the page (a dozen Tabs from "Next"), and the
move it showed was never read out (a live region is not read on a page that loads).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.history.conftest import finish_with_bot_moves

from .conftest import game_between, off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

#: What the replay's live region says once the page has loaded (its parsing is not a change that is read).
HEARD = """
window.__said = [];
new MutationObserver((records) => {
  const region = document.querySelector("[data-replay-said]");
  const changed = region && records.some((record) => region.contains(record.target));
  if (changed && document.readyState !== "loading" && region.textContent.trim()) {
    window.__said.push(region.textContent.replace(/\\s+/g, " ").trim());
  }
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def test_each_step_keeps_the_focus_on_its_control_and_says_the_move(make_user, classic, signed_in):
    game, ann, _bob = game_between(make_user, classic, rounds=[3], seed=7)
    off_loop(finish_with_bot_moves, game)
    context = signed_in(ann)
    context.add_init_script(HEARD)
    page = context.new_page()
    page.goto(f"/games/{game.pk}/replay/?step=0")
    page.wait_for_load_state("load")
    assert page.evaluate("window.__said") == []  # a page opened by its address says nothing of itself

    page.locator("#replay-next").click()
    expect(page.locator(".replay-count")).to_contain_text("Move 1 of")
    expect(page.locator("#replay-next")).to_be_focused()
    expect(page.locator("[data-replay-said]")).not_to_be_empty()
    said = page.evaluate("window.__said").pop()
    shown = page.locator(".replay-event").inner_text()
    # The move, said with its card by name ("drew from the stock" names none: then as shown).
    assert said.split() == shown.split() or " of " in said, (said, shown)
    assert not set(said) & set("♠♥♦♣"), said

    page.keyboard.press("ArrowRight")  # the arrow keys as the links
    expect(page.locator(".replay-count")).to_contain_text("Move 2 of")
    expect(page.locator("#replay-next")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.locator("#replay-prev")).to_be_focused()  # the controls around it, a Tab away
    page.keyboard.press("Enter")
    expect(page.locator(".replay-count")).to_contain_text("Move 1 of")
    expect(page.locator("#replay-prev")).to_be_focused()
    # Each hand's score is a number of points, not a bare number.
    expect(page.locator(".replay-score").first).to_contain_text("pts")
