"""The countdown shows the same text as the server rendered: clock.js takes over without changing the format.

The server's text (games/templatetags/game_time.py ``time_left_text``) is read from the
page with JavaScript off; the script's from the same page with it on. Seconds pass
between the two, so the script's text must be the server's format for *some* number
of seconds a little below what the page said (nothing here asserts a duration).
"""

from __future__ import annotations

import pytest
from django.utils import translation
from playwright.sync_api import expect

from games.templatetags.game_time import time_left_text

pytestmark = pytest.mark.django_db(transaction=True)

COUNTDOWN = "time.countdown[data-seconds-left]"


def _texts_near(language: str, seconds: int) -> set[str]:
    """What the page may show within ten minutes below ``seconds`` left, in ``language``."""
    with translation.override(language):
        left = translation.gettext("%(left)s left")
        return {left % {"left": time_left_text(seconds - k)} for k in range(0, 600)}


@pytest.mark.parametrize(("language", "locale"), [("en", "en-US"), ("cs", "cs-CZ"), ("hr", "hr-HR")])
def test_the_script_keeps_the_servers_format(timed_game, signed_in, language, locale):
    ann = timed_game.created_by
    without_script = signed_in(ann, java_script_enabled=False, locale=locale).new_page()
    without_script.goto(f"/games/{timed_game.pk}/")
    server = without_script.locator(COUNTDOWN)
    server_text = server.inner_text().strip()
    assert server_text in _texts_near(language, int(server.get_attribute("data-seconds-left") or "0"))

    page = signed_in(ann, locale=locale).new_page()
    page.goto(f"/games/{timed_game.pk}/")
    countdown = page.locator(COUNTDOWN)
    seconds = int(countdown.get_attribute("data-seconds-left") or "0")
    page.wait_for_function("document.querySelector('time.countdown').dataset.loadedAt !== undefined")
    expect(countdown).not_to_have_text("")
    script_text = countdown.inner_text().strip()
    assert script_text in _texts_near(language, seconds), (script_text, server_text)
