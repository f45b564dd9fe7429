"""The time left until a deadline, in the site's own translated words (not Django's ``timeuntil``)."""

from __future__ import annotations

import datetime

import pytest
from django.template import Context, Template
from django.utils import timezone, translation

from games.templatetags.game_time import time_left_text

HOUR, DAY = 3_600, 86_400


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "less than a minute"),
        (59, "less than a minute"),
        (60, "1 minute"),
        (2 * 60 + 30, "2 minutes"),
        (HOUR, "1 hour"),
        (23 * HOUR + 59 * 60 + 30, "23 hours, 59 minutes"),
        (DAY + 5 * 60, "1 day"),
        (3 * DAY + 2 * HOUR, "3 days, 2 hours"),
        (-5, "less than a minute"),
    ],
)
def test_the_two_largest_units_are_told_in_english(seconds, text):
    with translation.override("en"):
        assert time_left_text(seconds) == text


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("cs", ["1 hodina", "2 hodiny", "5 hodin", "23 hodin, 59 minut", "3 dny, 2 hodiny"]),
        ("hr", ["1 sat", "2 sata", "5 sati", "23 sata, 59 minuta", "3 dana, 2 sata"]),
        ("af", ["1 uur", "2 uur", "5 uur", "23 uur, 59 minute", "3 dae, 2 uur"]),
    ],
)
def test_each_language_uses_its_own_plural_forms(language, text):
    seconds = [HOUR, 2 * HOUR, 5 * HOUR, 23 * HOUR + 59 * 60, 3 * DAY + 2 * HOUR]
    with translation.override(language):
        assert [time_left_text(s) for s in seconds] == text


def test_the_filter_counts_from_now_and_is_empty_without_a_deadline():
    template = Template("{% load game_time %}[{{ deadline|time_left }}]")
    soon = timezone.now() + datetime.timedelta(hours=2, minutes=10, seconds=30)
    with translation.override("en"):
        assert template.render(Context({"deadline": soon})) == "[2 hours, 10 minutes]"
        assert template.render(Context({"deadline": None})) == "[]"
