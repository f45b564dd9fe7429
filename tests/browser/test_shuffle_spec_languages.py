"""On a phone, the fairness panel of a Croatian, Afrikaans or Czech reader links the specification in
their language, with the English reference beside it, and the served copy reads in its own letters:
the static files go out as text/plain with no charset, which a browser reads as windows-1252 unless
the file starts with a UTF-8 byte-order mark ("provjera" fine, "Ä\x8d" for "č")."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from games import services
from games.history.shuffle_spec import ENGLISH, TRANSLATED, specification_for
from tests.history.conftest import finish_with_bot_moves

from .conftest import off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

STATIC = Path(__file__).resolve().parents[2] / "games" / "static"


def test_the_panel_links_the_readers_copy_which_reads_in_its_own_letters(make_user, classic, signed_in, live_url):
    ann = make_user("ann")
    game = off_loop(
        services.game_create, creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]}
    )
    off_loop(finish_with_bot_moves, game)
    context = signed_in(ann, viewport={"width": 390, "height": 844})
    page = context.new_page()
    for language in TRANSLATED:
        context.add_cookies([{"name": "django_language", "value": language, "url": live_url}])
        page.goto(f"/games/{game.pk}/record/")
        links = page.locator("#fairness .specification a")
        expect(links).to_have_count(2)
        expect(links.first).to_be_visible()
        expect(links.last).to_be_visible()
        assert links.first.get_attribute("href") == f"/static/{specification_for(language).path}"
        assert links.last.get_attribute("href") == f"/static/{ENGLISH}"
        # the panel's link words wrap on a phone rather than widen the page
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        links.first.click()
        page.wait_for_url(f"**/fair-shuffle.{language}.txt")
        shown = page.locator("body").inner_text()
        written = (STATIC / specification_for(language).path).read_text(encoding="utf-8").removeprefix("\ufeff")
        assert shown.splitlines()[:3] == written.splitlines()[:3], language
