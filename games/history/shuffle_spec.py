"""Which copy of the fair-shuffle specification the fairness panel links for a reader.

The specification (``games/static/games/fair-shuffle.txt``) is what a player checks a deal with
without the site's code, and the English text is the reference: a test implements a verifier
from it alone (``tests/web/test_shuffle_spec.py``).  The site speaks Croatian, Afrikaans and
Czech too, so a translation of each sits beside it as ``fair-shuffle.<language>.txt``.  Its
first line says that the English wins where the two differ, and every constant, hex value,
formula, field name, command and test vector in it is the English's, byte for byte
(``tests/web/test_shuffle_spec_translations.py`` compares them): those are what a checker types.

A reader whose language has a copy is linked to it, with the English reference beside it; an
English reader gets the English alone; a reader of a language without a copy gets the English,
and the link says that it is in English.  The languages with a copy are listed here rather than
looked for on disk at each page: a listed copy that is missing fails a test, not a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["ENGLISH", "TRANSLATED", "SpecificationLink", "specification_for"]

#: The reference: the text the verifier test is written from, at the address the record pages
#: have always linked.
ENGLISH: Final = "games/fair-shuffle.txt"
#: The languages the specification is translated into, each a file beside the English.
TRANSLATED: Final = ("hr", "af", "cs")


@dataclass(frozen=True)
class SpecificationLink:
    """The copy a reader is linked to (a static path), and the English reference beside a translation."""

    path: str
    #: The language the linked copy is written in (the link's ``hreflang``).
    language: str
    #: The English reference, linked next to a translation; ``None`` when ``path`` is the English.
    reference: str | None = None
    #: The reader's language has no copy: the link must say that the text is in English.
    english_for_another_language: bool = False


def specification_for(language: str | None) -> SpecificationLink:
    """The copy of the specification for a reader of ``language`` (a code such as ``"cs"`` or ``"hr-hr"``)."""
    base = (language or "en").lower().split("-")[0]
    if base in TRANSLATED:
        return SpecificationLink(path=f"games/fair-shuffle.{base}.txt", language=base, reference=ENGLISH)
    return SpecificationLink(path=ENGLISH, language="en", english_for_another_language=base != "en")
