"""Croatian, Czech and Afrikaans words are longer than English ones: the tables of numbers still fit a
phone.  Each table sits in a box that scrolls sideways, so a table wider than the phone hides its last
columns (the points each turn lost on the analysis, the stats' "went out first") until the reader
thinks of swiping."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Game
from tests.history.conftest import finish_with_bot_moves

from .conftest import off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

TABLES_WIDER_THAN_THEIR_BOX = """() => [...document.querySelectorAll("table.data")]
  .filter((table) => table.offsetParent)  // shown, not in a closed disclosure
  .filter((table) => table.getBoundingClientRect().width > table.parentElement.clientWidth + 1)
  .map((table) => `${table.className}: ${Math.round(table.getBoundingClientRect().width)}px in `
    + `${table.parentElement.clientWidth}px: ${table.querySelector("thead")?.innerText.replace(/\\s+/g, " ")}`)"""


@pytest.mark.parametrize("language", ["hr", "cs", "af"])
def test_the_analysis_and_stats_tables_fit_a_phone_in_every_language(make_user, classic, signed_in, language):
    ann = make_user("ann")
    ann.language = language
    ann.save(update_fields=["language"])
    game = off_loop(
        services.game_create, creator=ann, variant=classic, seat_count=2, bot_count=1, seed=7, options={"rounds": [3]}
    )
    game = off_loop(finish_with_bot_moves, game)
    assert game.status == Game.Status.FINISHED
    assert off_loop(services.analyse_game, game_id=game.pk).is_done
    page = signed_in(ann, viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"/games/{game.pk}/analysis/")
    expect(page.locator("table.analysis-table")).to_be_visible()
    assert page.evaluate(TABLES_WIDER_THAN_THEIR_BOX) == []
    page.goto("/players/ann/")
    page.locator("details.chart-data summary").first.click()  # the numbers behind the chart of hand sizes
    expect(page.locator("details.chart-data table.data").first).to_be_visible()
    assert page.evaluate(TABLES_WIDER_THAN_THEIR_BOX) == []
