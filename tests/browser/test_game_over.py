"""At the end of a game a player's next step, the rematch, is on the first screen, on a phone too.

Found by a tester at 390 px: the finished table showed the final standings with
"The whole game, round by round" as its one main button, then the last round's
hands; "Rematch" (and, once asked for, the seat held in it) came in a side
panel below all of that, past the first screen, where a player who wanted
another game had to look for it.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.models import Game
from tests.history.conftest import finish_with_bot_moves

from .conftest import game_between, off_loop

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}


def on_first_screen(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= page.viewport_size["height"]


def test_the_rematch_is_on_a_phones_first_screen_for_both_players(make_user, classic, signed_in):
    game, ann, bob = game_between(make_user, classic, rounds=[3, 4])
    off_loop(finish_with_bot_moves, game)

    first = signed_in(ann, viewport=PHONE).new_page()
    first.goto(f"/games/{game.pk}/")
    expect(first.locator(".turn-line")).to_contain_text("Game over.")
    rematch = first.get_by_role("button", name="Rematch", exact=True)
    expect(rematch).to_have_count(1)  # one way to ask, not two
    assert on_first_screen(first, rematch)
    rematch.click()
    expect(first).not_to_have_url(re.compile(rf"/games/{game.pk}/$"))

    other = signed_in(bob, viewport=PHONE).new_page()
    other.goto(f"/games/{game.pk}/")
    # Ann's click asked Bob, it did not seat him: he takes the seat held for him (or goes to look first).
    take_seat = other.get_by_role("button", name="Take your seat in the rematch")
    expect(take_seat).to_have_count(1)
    assert on_first_screen(other, take_seat)
    expect(other.get_by_role("link", name="Go to the rematch")).to_have_count(1)
    take_seat.click()
    expect(other).to_have_url(first.url)
    expect(other.locator(".alert")).to_contain_text("Same players, same options, new cards")
    assert off_loop(lambda: Game.objects.get(rematch_of=game).status) == Game.Status.ACTIVE  # the last seat dealt
