"""The built-in variants' names are read in the reader's language; names staff typed are shown as typed."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.utils import translation

from games.engine import PRESETS
from games.models import Game, Variant, variant_label
from games.models.play import BUILT_IN_VARIANT_NAMES


def msgstr(language: str, msgid: str) -> str:
    """The translation of ``msgid`` in the project's own catalog (not empty, or the test says so)."""
    entry = polib.pofile(str(Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po")).find(msgid)
    assert entry is not None and entry.msgstr, f"{msgid!r} is not translated into {language}"
    return entry.msgstr


def test_every_built_in_variant_name_has_a_translatable_label():
    assert set(BUILT_IN_VARIANT_NAMES) == {name for name, _rules in PRESETS.values()}


@pytest.mark.parametrize("language", ["hr", "af", "cs"])
def test_the_built_in_names_follow_the_language_and_typed_names_do_not(language):
    with translation.override(language):
        assert variant_label("Classic") == msgstr(language, "Classic")
        assert variant_label("Jokers") == msgstr(language, "Jokers")
        assert variant_label("Ann's house rules") == "Ann's house rules"
        assert str(Variant(name="Classic")) == msgstr(language, "Classic")
        assert Game(variant_name="Redemption").variant_label == msgstr(language, "Redemption")
