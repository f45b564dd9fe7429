"""The time left until a deadline, in the countdown's own compact format, translated (the same text as clock.js)."""

from __future__ import annotations

import datetime

import polib
import pytest
from django.conf import settings
from django.template import Context, Template
from django.utils import timezone, translation

from games.templatetags.game_time import time_left_text

HOUR, DAY = 3_600, 86_400


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0:00"),
        (59, "0:59"),
        (60, "1:00"),
        (2 * 60 + 30, "2:30"),
        (HOUR, "1h 00m"),
        (23 * HOUR + 59 * 60 + 30, "23h 59m"),
        (DAY + 5 * 60, "1d 0h 05m"),
        (3 * DAY + 2 * HOUR, "3d 2h 00m"),
        (-5, "0:00"),
    ],
)
def test_the_countdown_format_in_english(seconds, text):
    with translation.override("en"):
        assert time_left_text(seconds) == text


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("cs", ["1 h 00 min", "23 h 59 min", "3 d 2 h 00 min", "0:45"]),
        ("hr", ["1 h 00 min", "23 h 59 min", "3 d 2 h 00 min", "0:45"]),
        ("af", ["1u 00m", "23u 59m", "3d 2u 00m", "0:45"]),
    ],
)
def test_each_language_uses_the_countdowns_translation(language, text):
    seconds = [HOUR, 23 * HOUR + 59 * 60, 3 * DAY + 2 * HOUR, 45]
    with translation.override(language):
        assert [time_left_text(s) for s in seconds] == text


def test_the_server_uses_the_very_msgids_and_translations_of_the_scripts_countdown():
    """clock.js formats with these msgids from the djangojs catalog; the server's must be the same strings."""
    clock_js = (settings.BASE_DIR / "games" / "static" / "games" / "clock.js").read_text()
    for msgid in ("%(days)sd %(hours)sh %(minutes)sm", "%(hours)sh %(minutes)sm"):
        assert f'gettext("{msgid}")' in clock_js
        for language in ("hr", "af", "cs"):
            folder = settings.BASE_DIR / "locale" / language / "LC_MESSAGES"
            server = polib.pofile(str(folder / "django.po")).find(msgid)
            script = polib.pofile(str(folder / "djangojs.po")).find(msgid)
            assert server is not None and script is not None, (language, msgid)
            assert server.msgstr == script.msgstr, (language, msgid)
    assert 'gettext("%(left)s left")' in clock_js  # and the server's template says "{{ left }} left"


def test_the_filter_counts_from_now_and_is_empty_without_a_deadline():
    template = Template("{% load game_time %}[{{ deadline|time_left }}]")
    soon = timezone.now() + datetime.timedelta(hours=2, minutes=10, seconds=30)
    with translation.override("en"):
        assert template.render(Context({"deadline": soon})) == "[2h 10m]"
        assert template.render(Context({"deadline": None})) == "[]"
