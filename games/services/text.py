"""Text a person typed, as the site keeps it: one line of plain text that hides nothing.

For what others read of it: a chat message, a report's note, a moderator's reason.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

#: Format characters kept in a message: the zero-width joiner of emoji sequences and the non-joiner that
#: Persian and several Indic scripts write words with.  Every other one is dropped (direction overrides
#: and marks, zero-width spaces, soft hyphens: they reorder, split or hide text).
_KEEP_FORMAT = {"\u200c", "\u200d"}
#: A flag of England, Scotland or Wales: the black flag, then tag letters ending with the cancel tag.
_FLAG_BASE, _TAGS, _CANCEL_TAG = "\U0001f3f4", range(0xE0020, 0xE007F), "\U000e007f"


def _flag_tags_at(text: str, start: int) -> int:
    """How many characters from ``start`` (just after a black flag) make a subdivision flag's tags (0: none)."""
    end = start
    while end < len(text) and ord(text[end]) in _TAGS:
        end += 1
    return end - start + 1 if end > start and text[end : end + 1] == _CANCEL_TAG else 0


def clean_text(text: Any) -> str:
    """The text as it will be stored: one line of plain text, whitespace collapsed.

    Control characters become spaces; invisible format characters are dropped (but for ``_KEEP_FORMAT``
    and the tags of a subdivision flag, which hide nothing). Markup is kept as typed and escaped when
    shown: a message is text, never HTML.
    """
    if not isinstance(text, str):
        return ""
    kept: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        category = unicodedata.category(ch)
        if ch == _FLAG_BASE and (tags := _flag_tags_at(text, i + 1)):
            kept.append(text[i : i + 1 + tags])
            i += 1 + tags
            continue
        if category in ("Cc", "Cs", "Co", "Cn", "Zl", "Zp"):
            kept.append(" ")
        elif category != "Cf" or ch in _KEEP_FORMAT:
            kept.append(ch)
        i += 1
    return " ".join("".join(kept).split())


#: Two full stops where a sentence ends on a name that ends in its own ("Waiting for Jana Š.."): not an
#: ellipsis of three, nor two inside a name ("A..B", a review), only before a space, a tag or the end.
_DOUBLED_STOP = re.compile(r"(?<!\.)\.\.(?=\s|<|$)")


def one_full_stop(text: str) -> str:
    """A sentence that ends on a name ending in a full stop ("Hrvoje Č.", as hr and cs shorten a surname)
    with one full stop, not two: "Čeká se na hráče Hrvoje Č." (found by a tester, in every language)."""
    return _DOUBLED_STOP.sub(".", text)


#: Letters that show as nothing: the Hangul fillers and the blank Braille pattern.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def shows_something(text: str) -> bool:
    """Whether ``text`` (as ``clean_text`` keeps it) has a character a reader sees: not only spaces, joiners,
    combining marks with nothing to sit on, or letters that show blank (a tester posted chat lines of a
    zero-width joiner, a Hangul filler or a blank Braille pattern alone, and everyone read an empty line)."""
    return any(
        ch not in _BLANK_LETTERS and unicodedata.category(ch) not in ("Zs", "Cf", "Mn", "Me", "Cc") for ch in text
    )
