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


#: Where each line of the final standings starts its name, against its place: (place's top, name's top).
STANDINGS_LINES = """() => Array.from(document.querySelectorAll(".standings li")).map((li) => {
  const place = li.querySelector(".place");
  const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      !place.contains(node) && node.textContent.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP,
  });
  const name = document.createRange();
  name.selectNodeContents(walker.nextNode());
  return [li.textContent.trim().replace(/\\s+/g, " "), place.getBoundingClientRect().top, name.getClientRects()[0].top];
})"""


def test_the_final_standings_keep_each_place_beside_its_long_name_on_a_phone(make_user, classic, signed_in):
    """Found by a tester at an eight-seat table on a phone: in the finished table's standings a name too long
    for the line went under its place, "7." left alone on a line, then the name, then the points on a third
    (the record's standings keep the name in a box of its own beside the place; the table's did not)."""
    from games import services

    ann = make_user("ann")
    long_names = ["Maximiliana Wolkenstein-Przybyszewska", "Bartholomew Featherstonehaugh-Smythe"]
    people = []
    for number, name in enumerate(long_names):
        person = make_user(f"p{number}")
        person.display_name = name
        person.save(update_fields=["display_name"])
        people.append(person)
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=8,
        invitees=people,
        bot_count=5,
        bot_level="easy",
        seed=31,
        options={"rounds": [3]},
    )
    off_loop(finish_with_bot_moves, game)

    page = signed_in(ann, viewport=PHONE).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator(".standings li")).to_have_count(8)
    lines = page.evaluate(STANDINGS_LINES)
    assert any(name in text for text, _place, _name in lines for name in long_names)
    for text, place_top, name_top in lines:
        assert abs(place_top - name_top) < 4, f"{text!r}: its name starts {name_top - place_top:.0f}px below its place"
