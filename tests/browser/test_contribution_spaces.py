"""A seed contribution is shown with its spaces as typed, on the table and on the record page: a copy
from the page is the exact text the shuffles hashed (found by a tester: "my  lucky   seed" showed, and
copied, as "my lucky seed", which verifies nothing)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from tests.history.conftest import finish_with_bot_moves

from .conftest import off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

TYPED = "my  lucky   seed"


def test_a_contribution_keeps_its_spaces_on_the_table_and_the_record(make_user, classic, signed_in):
    ann = make_user("ann")
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=2,
        bot_count=1,
        options={"rounds": [3]},
        seed_contribution=TYPED,
    )
    page = signed_in(ann, viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"/games/{game.pk}/")
    shown = page.locator("#fairness .contribution-text").first
    # innerText is what the page shows and what a copy takes: it collapses spaces unless the CSS keeps them
    assert shown.evaluate("el => el.innerText") == TYPED
    off_loop(finish_with_bot_moves, game)
    page.goto(f"/games/{game.pk}/record/")
    shown = page.locator("#fairness .contribution-text").first
    assert shown.evaluate("el => el.innerText") == TYPED
    # on a phone, the field for the noted commitment (64 digits wide) does not widen the page
    assert page.locator("#id_commitment").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
