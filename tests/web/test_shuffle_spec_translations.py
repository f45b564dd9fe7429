"""The fair-shuffle specification in the players' languages: each translation carries everything a
checker types exactly as the English does, and the fairness panel links the reader's own copy, with
the English reference beside it.

Only the English is held to the engine (``test_shuffle_spec.py`` writes a verifier from it); a
translation is held to the English: every code line, every backticked token (field names, byte
strings, hex values, commands, the worked example's cards), every double-quoted string and every
number of its prose, section by section and in the same order.  A changed constant, a dropped step
or a dropped line of a formula is a difference; the prose around them is the translator's.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import translation

from games import services
from games.history.shuffle_spec import ENGLISH, TRANSLATED, specification_for
from tests.history.conftest import finish_with_bot_moves
from tests.web.conftest import logged_in

STATIC = Path(__file__).resolve().parents[2] / "games" / "static"
BOM = "\ufeff"

#: The words each translation uses for the specification's terms: the glossary's and the catalog's
#: (seed, commitment, stock, dealer, discard pile), so that the text and the pages name them alike.
TERMS = {
    "hr": ["sjeme", "otisak", "doprinos", "talon", "djelitelj", "hrpa odbačenih karata", "runda"],
    "af": ["saadwaarde", "verbintenis", "bydrae", "trekstapel", "deler", "weggooistapel", "rondte"],
    "cs": ["seed", "otisk", "příspěv", "talon", "rozdávající", "odhazovací balíček", "kolo"],
}

#: The words of the panel's link (the untranslated copy's say "(in English)" after them).
LINK_WORDS = "How to check every deal yourself, without this site's code: the complete specification"

# a backticked span, a double-quoted string, or a number, in the order they come
INLINE = re.compile(r"`[^`]*`|\"[^\"]*\"|\d+")


def spec_text(path: str) -> str:
    return (STATIC / path).read_text(encoding="utf-8")


def body(translation_text: str) -> str:
    """A translation without its BOM and its first line (the note that the English wins)."""
    note, blank, rest = translation_text.removeprefix(BOM).partition("\n\n")
    assert blank and "\n" not in note, "a translation starts with a one-line note, then a blank line"
    return rest


def sections(text: str) -> list[list[str]]:
    """The lines of the text, cut at each heading."""
    found: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("#") and found[-1]:
            found.append([])
        found[-1].append(line)
    return found


def verbatim_tokens(lines: list[str]) -> list[str]:
    """What a translation must keep exactly: each code line (indented four spaces) whole, and in the
    prose each backticked span, double-quoted string and number.  A span broken across lines counts
    as one (its line break as one space), so a translation may wrap its lines as it likes."""
    tokens: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        tokens.extend(re.sub(r"\s*\n\s*", " ", found) for found in INLINE.findall("\n".join(prose)))
        prose.clear()

    for line in lines:
        if line.startswith("    "):
            flush()
            tokens.append(line.rstrip())
        else:
            prose.append(line)
    flush()
    return tokens


def differences(english: str, translated: str) -> list[str]:
    """Where the translated text's verbatim tokens part from the English's, section by section."""
    ours, theirs = sections(english), sections(translated)
    if len(ours) != len(theirs):
        return [f"{len(theirs)} sections, the English has {len(ours)}"]
    found = []
    for mine, other in zip(ours, theirs, strict=True):
        a, b = verbatim_tokens(mine), verbatim_tokens(other)
        if a != b:
            diff = [line for line in difflib.unified_diff(a, b, lineterm="", n=0) if line[:1] in "+-"]
            found.append(f"{mine[0]!r} / {other[0]!r}: {diff[2:]}")
    return found


# -- the texts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_translation_keeps_every_code_line_constant_and_number_of_the_english(language):
    english = spec_text(ENGLISH)
    translated = body(spec_text(specification_for(language).path))
    assert differences(english, translated) == []
    # and the comparison had something to compare: the formulas, the worked example's vectors
    tokens = verbatim_tokens(translated.splitlines())
    assert '        lp("threethirteen/shuffle/v2")' in tokens
    assert "`630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd`" in tokens
    assert "`python -m games.engine.verify threethirteen-game-N.json --commitment HEX`" in tokens


def test_the_comparison_catches_a_changed_constant_a_dropped_step_and_a_moved_token():
    english = spec_text(ENGLISH)
    good = body(spec_text("games/fair-shuffle.hr.txt"))
    assert differences(english, good) == []
    changed = {
        # one digit of the worked example's commitment
        "hex": good.replace("630dcd2966c4", "630dcd2966c5"),
        # the domain label of a formula's line
        "code line": good.replace('lp("threethirteen/shuffle/v2")', 'lp("threethirteen/shuffle/v3")'),
        # a number of the prose: the contributions' highest character
        "number": good.replace("od 32 do 126", "od 32 do 127"),
        # the third step of the deal (the up-card), dropped
        "step": re.sub(r"\n3\. .*?(?=\n4\. )", "", good, flags=re.S),
        # rebuilding from the stream of the deal (rebuild 0) instead of the rebuild's own
        "field": good.replace("(`deal`, `r`, `rebuild`)", "(`deal`, `r`, 0)"),
        # two tokens swapped: the dealt cards in another order
        "order": good.replace("mjesto 0 dobiva `AS`, mjesto 1 `5D`", "mjesto 0 dobiva `5D`, mjesto 1 `AS`"),
        # a section merged into the one before
        "section": good.replace("\n## Prvi djelitelj\n", "\n"),
    }
    for what, text in changed.items():
        assert text != good, what
        assert differences(english, text), f"a changed {what} passed"


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_translation_says_the_english_wins_and_reads_as_utf8_anywhere(language):
    text = spec_text(specification_for(language).path)
    # Served as text/plain with no charset (Django's static files, and nginx's without a `charset`),
    # a browser reads a file without a BOM as windows-1252: "Å¡" for "š".  The BOM makes it UTF-8.
    assert text.startswith(BOM)
    note = text.removeprefix(BOM).splitlines()[0]
    assert "fair-shuffle.txt" in note  # the English reference, named where the reader starts


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_translation_is_in_its_language_and_uses_the_sites_words(language):
    text = body(spec_text(specification_for(language).path))
    english_headings = [line for line in spec_text(ENGLISH).splitlines() if line.startswith("#")]
    assert not [heading for heading in english_headings if heading in text]
    lowered = text.lower()
    assert [term for term in TERMS[language] if term not in lowered] == []


def test_the_english_is_linked_where_a_language_has_no_copy():
    assert specification_for("en") == specification_for(None)
    assert specification_for("en").path == ENGLISH and not specification_for("en").english_for_another_language
    assert specification_for("hr-hr").path == "games/fair-shuffle.hr.txt"
    other = specification_for("de")
    assert other.path == ENGLISH and other.reference is None and other.english_for_another_language
    with translation.override("en"):
        panel = render_to_string("games/_fair_check.html", {"fairness": {"specification": other, "checks": []}})
    assert 'href="/static/games/fair-shuffle.txt" hreflang="en"' in panel
    assert f"{LINK_WORDS} (in English)" in panel


# -- the panel ------------------------------------------------------------------------------------------

SPEC_LINKS = re.compile(r'<p class="specification">(.*?)</p>', re.S)
HREF = re.compile(r'href="/static/([^"]+)" hreflang="([^"]+)"')


@pytest.mark.django_db
def test_the_record_page_links_the_readers_copy_and_the_english_beside_a_translation(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]})
    finish_with_bot_moves(game)
    client = logged_in(ann)
    for language, _name in settings.LANGUAGES:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        page = client.get(f"/games/{game.pk}/record/").content.decode()
        (block,) = SPEC_LINKS.findall(page)
        links = HREF.findall(block)
        expected = [(f"games/fair-shuffle.{language}.txt", language)] if language in TRANSLATED else []
        assert links == [*expected, (ENGLISH, "en")], language
        for path, _hreflang in links:  # each linked file is one the static files serve
            assert finders.find(path) == str(STATIC / path)
        with translation.override(language):
            in_english = translation.gettext(f"{LINK_WORDS} (in English)")
            own = translation.gettext(LINK_WORDS)
        assert in_english not in page and own in block, language
