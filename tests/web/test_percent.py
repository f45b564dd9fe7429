"""Percentages in the reader's language: the sign apart from the number where the language sets it apart."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.templatetags.percent import percent


@pytest.mark.parametrize(
    "language, whole, tenths",
    [("en", "88%", "87.5%"), ("af", "88%", "87,5%"), ("hr", "88\xa0%", "87,5\xa0%"), ("cs", "88\xa0%", "87,5\xa0%")],
)
def test_a_percentage_is_written_as_the_readers_language_writes_it(language, whole, tenths):
    with translation.override(language):
        assert percent(87.5) == whole
        assert percent(87.5, 1) == tenths


def test_no_value_is_no_percentage():
    assert percent(None) == "" and percent("") == ""
