"""Proof of issue 12: a player in Czech, in Auckland, plays a turn and reads the table, the round
summary and the rules page, all in Czech and with the deadline in their own zone.

The Czech words asserted are read from locale/cs/LC_MESSAGES/django.po at test time (polib), so
this test fails until the Czech translation is merged, and then checks what translators wrote.
"""

from __future__ import annotations

import re
from pathlib import Path
from zoneinfo import ZoneInfo

import polib
import pytest
from django.conf import settings
from django.utils import formats, timezone, translation
from playwright.sync_api import expect

from accounts.models import User
from games import services

from .conftest import off_loop, play_until_a_round_is_scored

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

DAY = 24 * 3600
ZONE = "Pacific/Auckland"


def czech(msgid: str) -> str:
    """The Czech msgstr of ``msgid`` in the site's catalog: it must be translated, and not fuzzy."""
    po = polib.pofile(str(Path(settings.LOCALE_PATHS[0]) / "cs" / "LC_MESSAGES" / "django.po"))
    entry = po.find(msgid)
    assert entry is not None, f"{msgid!r} is not in the Czech catalog"
    assert entry.msgstr and "fuzzy" not in entry.flags, f"{msgid!r} is not translated into Czech yet"
    return entry.msgstr


@pytest.mark.slow
def test_a_czech_player_in_auckland_plays_and_reads_in_czech(make_user, classic, signed_in):
    draw, your_hand, back, rules = (
        czech("Draw from stock"),
        czech("Your hand"),
        czech("Back to the table"),
        czech("Rules"),
    )
    ann = make_user("ann")
    User.objects.filter(pk=ann.pk).update(language="cs")  # the time zone comes from her browser
    game = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=2,
        bot_count=1,
        time_limit_seconds=DAY,
        seed=5,
        options={"rounds": [3, 4]},
    )
    context = signed_in(off_loop(User.objects.get, pk=ann.pk), timezone_id=ZONE, locale="en-US")
    page = context.new_page()
    page.goto("/rules/")  # the first page: the browser's zone goes into the cookie
    expect(page.locator("html")).to_have_attribute("lang", "cs")
    expect(page.locator(".site-nav")).to_contain_text(rules)
    assert f"tz={ZONE}" in page.evaluate("document.cookie")

    # The table: her turn, in Czech, the deadline in Auckland time.
    page.goto(f"/games/{game.pk}/")
    expect(page.locator(".hand-area h2")).to_contain_text(your_hand)
    game.refresh_from_db()
    if game.current_seat != 0:
        raise AssertionError("the bot should have moved already: seat 0 moves first or after the bot")
    with translation.override("cs"):
        deadline = formats.date_format(timezone.localtime(game.turn_deadline, ZoneInfo(ZONE)), "DATETIME_FORMAT")
    clock = page.locator(".clock").first
    expect(clock).to_contain_text(deadline)
    expect(clock).to_contain_text("(Auckland)")  # the zone named by its city (the page is in Czech: the same)
    assert off_loop(lambda: User.objects.get(pk=ann.pk).time_zone) == ZONE  # saved on her profile, once

    # She plays a turn by clicking, as a person would.
    before = page.locator("#table").get_attribute("data-version")
    page.get_by_role("button", name=draw).click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(before))
    card = page.locator("#table form[data-hand] button.card:not([disabled])").first
    before = page.locator("#table").get_attribute("data-version")
    card.click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(before))

    # The round summary, in Czech.
    off_loop(play_until_a_round_is_scored, game, off_loop(User.objects.get, pk=ann.pk))
    page.goto(f"/games/{game.pk}/rounds/1/")
    expect(page.locator("html")).to_have_attribute("lang", "cs")
    expect(page.get_by_role("link", name=re.compile(re.escape(back)))).to_be_visible()

    # The rules page, in Czech: its heading is not the English one.
    page.goto("/rules/")
    expect(page.locator("html")).to_have_attribute("lang", "cs")
    heading = page.locator("main h1").first.inner_text().strip()
    assert heading and heading != "How to play Three Thirteen", heading
