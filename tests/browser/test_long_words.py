"""Croatian, Czech and Afrikaans words are longer than English ones: the tables of numbers still fit a
phone.  Each table sits in a box that scrolls sideways, so a table wider than the phone hides its last
columns (the points each turn lost on the analysis, the stats' "went out first") until the reader
thinks of swiping."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games import analysis, services
from games.models import AnalysedDecision, Game, GameAnalysis
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


def _flag_a_last_turn(game: Game, went_out: int) -> None:
    """Make one of seat 0's turns a flagged last turn, with its "why" lines stored as the analysis stores
    them (the figures and the lines' content do not matter here, their width does)."""
    job = GameAnalysis.objects.get(game=game)
    row = job.decisions.filter(seat=0, kind="discard", forced=False).order_by("-seq").first()
    assert row is not None
    AnalysedDecision.objects.filter(pk=row.pk).update(cost=12.0)
    # its draw: a take another choice beat by no more than the noise, the longest words a decision shows
    AnalysedDecision.objects.filter(analysis=job, seq=row.seq - 1).update(
        chosen={"type": "draw", "source": "discard"}, top="5D", best={"type": "draw", "source": "stock"}, cost=0.0
    )
    leaves = {"melds": [["AS", "AH", "AD"]], "laid_off": [], "deadwood": ["KS"], "points": 10}
    why = {"hand": ["AS", "AH", "AD", "KS"], "went_out": went_out, "chosen": leaves, "best": leaves}
    GameAnalysis.objects.filter(pk=job.pk).update(
        explanations={"version": analysis.EXPLAIN_VERSION, "turns": {str(row.seq): why}}
    )


@pytest.mark.parametrize("language", ["hr", "cs", "af"])
def test_the_why_lines_under_a_flagged_turn_wrap_on_a_phone(make_user, classic, signed_in, language):
    # Found by a tester at 390 px in Croatian: "Posljednji potez: Ada već je zatvorio/la rundu." did not
    # wrap (the data tables' no-wrap rule won over the why rows' own), so the table was 344 px wide in a
    # 334 px box and the points each turn lost sat past the edge; a longer name, wider still.
    ann, other = make_user("ann"), make_user("bartholomew")
    ann.language = language
    ann.save(update_fields=["language"])
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=2,
        invitees=[other],
        seed=7,
        options={"rounds": [3]},
    )
    game = off_loop(finish_with_bot_moves, game)
    assert off_loop(services.analyse_game, game_id=game.pk).is_done
    off_loop(_flag_a_last_turn, game, 1)
    page = signed_in(ann, viewport={"width": 390, "height": 844}).new_page()
    page.goto(f"/games/{game.pk}/analysis/")
    expect(page.locator("tr.analysis-why")).to_be_visible()
    assert page.evaluate(TABLES_WIDER_THAN_THEIR_BOX) == []
    # everyone's flagged turns, with a column more (found by a tester: 352 px in a 334 px box in Croatian)
    page.goto(f"/games/{game.pk}/analysis/?show=flagged")
    expect(page.locator("tr.analysis-why")).to_be_visible()
    assert page.evaluate(TABLES_WIDER_THAN_THEIR_BOX) == []
    expect(page.locator("table.analysis-table tbody th .turn-player").first).to_have_text("ann")
