"""Wild cards are marked by more than a tint: the big cards of the table carry the word ("wild",
translated), and the small cards of a round's result, where the word has no room, a star on a gold
disc in their corner; a card that is not wild has neither."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game

from .conftest import off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

# The small cards' corner marks, read from the page: whether each card is wild, and its ::after's content.
SMALL_MARKS = """() => [...document.querySelectorAll(".cards.small .card")].map(card => {
  const mark = getComputedStyle(card, "::after");
  return [card.classList.contains("wild"), mark.content, mark.display, mark.backgroundColor];
})"""


def play_out_by_timeouts(game_id: int) -> Game:
    """Every turn of the person times out (the bot plays it, then keeps the seat): the game ends."""
    for _ in range(100):
        game = Game.objects.get(pk=game_id)
        if game.is_finished:
            return game
        services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
    raise AssertionError("the game did not end")


def test_the_small_cards_of_a_round_result_mark_their_wilds_with_a_star(make_user, classic, signed_in):
    ann = make_user("ann")
    game = off_loop(
        services.game_create, creator=ann, variant=classic, seat_count=3, bot_count=2, seed=11, options={"rounds": [3]}
    )
    off_loop(play_out_by_timeouts, game.pk)

    page = signed_in(ann, viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator(".cards.small .card").first).to_be_visible()
    marks = page.evaluate(SMALL_MARKS)
    wild = [mark for mark in marks if mark[0]]
    assert wild, "this deal's result shows no wild card: choose another seed"
    assert len(wild) < len(marks)
    for is_wild, content, display, background in marks:
        if is_wild:
            assert "✦" in content and display != "none" and background not in ("", "rgba(0, 0, 0, 0)")
        else:
            assert content in ("none", "normal")
