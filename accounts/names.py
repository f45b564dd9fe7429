"""What a player's name may be: unique as people see it, and never posing as a bot or staff.

Two names are "the same" when their keys are equal.  ``name_key`` folds what a reader cannot tell
apart: Unicode compatibility forms (NFKC: full-width letters, ligatures, mathematical letters),
case (casefold), invisible characters (zero-width spaces and joiners, soft hyphens, direction marks:
every "format" character), accents, runs of spaces, and the Cyrillic and Greek letters that look like
Latin ones.  It is not a full Unicode confusables skeleton (UTS #39); it covers the look-alikes a
person can type on a common keyboard layout.

``reserved_reason`` refuses names without a letter or digit a reader can see ("..", blank letters),
and names that pose as a bot (the bots' names, alone or with "bot") or as
the site's people, after the same folding with digits read as the letters they imitate ("4dm1n"):
a name is cut into words at spaces, signs and lower-to-upper case changes ("Ada_bot", "SiteAdmin",
"Staff-Anna"; single letters in a row are read as one word, "b.o.t"), and a word that is a reserved
word refuses it; "admin" and "moderator" also refuse a name that starts or ends with them
("siteadmin", "Moderator7").  Words are compared whole so that real names that merely contain one
("Abbott", "Talbot", "Botha", "Staffan", "badminton") stay free.

Both rules apply where people choose names (sign-up, profile); the admin may still create any name.
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.translation import gettext_lazy as _

from games.bots import BOT_NAMES

# Latin look-alikes of Cyrillic and Greek letters (upper and lower case).  Applied after NFKC and
# before casefolding, so that e.g. Cyrillic "В" (which looks like B) is caught before it becomes "в".
_LOOK_ALIKES = str.maketrans(
    {
        # Cyrillic
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
        "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D", "Ү": "Y", "Ӏ": "I",
        "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "i", "ј": "j",
        "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ү": "y", "ԛ": "q", "ԝ": "w", "ɡ": "g",
        # Greek
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
        "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        "ο": "o", "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "α": "a",
    }
)  # fmt: skip

# Digits and signs read as letters ("4dm1n", "b0t", "$taff"), for the reserved-word check only.
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "$": "s", "@": "a", "|": "l"})

RESERVED_WORDS = ("bot", "robot", "admin", "administrator", "moderator", "staff", "system")
#: Reserved words that no name may start or end with either (none is the edge of a real name).
_RESERVED_EDGES = ("admin", "moderator")


def name_key(name: str) -> str:
    """The form of ``name`` that two names must not share (see the module's docstring)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")  # zero-width and other invisibles
    text = text.translate(_LOOK_ALIKES).casefold()
    # Drop accents: decompose, remove the combining marks, compose again.
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = unicodedata.normalize("NFKC", text).translate(_LOOK_ALIKES)
    return " ".join(text.split())


def _words(name: str) -> list[str]:
    """The words of ``name`` as the reserved-word check reads them (see the module's docstring)."""
    text = unicodedata.normalize("NFKC", name)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf").translate(_LOOK_ALIKES)
    text = re.sub(r"(?<=[^\W\d_])(?=[A-Z])", " ", text)  # "SiteAdmin": a word starts at each capital after a letter
    text = name_key(text).translate(_LEET)
    words: list[str] = []
    letters = ""  # single letters in a row ("b.o.t") make one word
    for run in re.findall(r"[^\W\d_]+", text):
        if len(run) == 1:
            letters += run
            continue
        if letters:
            words.append(letters)
            letters = ""
        words.append(run)
    if letters:
        words.append(letters)
    return words


_BOT_WORDS = frozenset(word for bot in BOT_NAMES for word in _words(bot))


#: Letters that show as nothing (the Hangul fillers): a name of them alone looks empty.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")


def reserved_reason(name: str) -> str | None:
    """Why ``name`` may not be chosen, or None if it may."""
    shown = unicodedata.normalize("NFKC", name)
    if not any(ch.isalnum() and ch not in _BLANK_LETTERS for ch in shown):
        # "..", "-", a Braille blank or a Hangul filler: nothing a reader can tell apart, or link to
        return str(_("A name needs at least one visible letter."))
    words = _words(name)
    joined = "".join(words)
    if joined in _BOT_WORDS or any(joined in (bot + "bot", "bot" + bot) for bot in _BOT_WORDS):
        return str(_("That is the name of one of the bots: choose another, so nobody takes you for one."))
    for word in RESERVED_WORDS:
        if word in words or (word in _RESERVED_EDGES and (joined.startswith(word) or joined.endswith(word))):
            return str(
                _("Names may not contain “%(word)s”: they could be taken for a bot or for the site's staff.")
                % {"word": word}
            )
    return None
