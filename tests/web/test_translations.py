"""The translations stay complete, and every word of the site's scripts goes through the catalog.

``test_every_message_is_translated`` is the standing check of the catalogs: it fails while any
message of the project (extracted afresh from the sources, tests/i18n_catalogs.py) is missing
from a language's catalog, has an empty translation (any plural form), or is marked fuzzy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container, Iterator
from pathlib import Path

import polib
import pytest
from django.conf import settings

from tests.i18n_catalogs import Message, extract, python_file_messages, source_files

LANGUAGES = [code for code, _ in settings.LANGUAGES if code != "en"]
DOMAINS = ["django", "djangojs"]


def catalog_path(language: str, domain: str) -> Path:
    return Path(settings.LOCALE_PATHS[0]) / language / "LC_MESSAGES" / f"{domain}.po"


def key(entry: polib.POEntry) -> Message:
    return entry.msgctxt or "", entry.msgid, entry.msgid_plural or ""


def catalog_problems(po: polib.POFile, wanted: set[Message]) -> dict[str, list[str]]:
    """What keeps ``po`` from translating every message of ``wanted``, by kind."""
    entries = {key(e): e for e in po if not e.obsolete}
    nplurals_match = re.search(r"nplurals\s*=\s*(\d+)", po.metadata.get("Plural-Forms", ""))
    nplurals = int(nplurals_match.group(1)) if nplurals_match else 0
    problems: dict[str, list[str]] = {"missing": [], "empty": [], "fuzzy": [], "header": []}
    if not nplurals:
        problems["header"].append("no Plural-Forms with nplurals")
    if po.metadata_is_fuzzy:
        problems["header"].append("the header is marked fuzzy (msgfmt would drop it)")
    for message in sorted(wanted):
        entry = entries.get(message)
        shown = " | ".join(part for part in message if part)
        if entry is None:
            problems["missing"].append(shown)
            continue
        if "fuzzy" in entry.flags:
            problems["fuzzy"].append(shown)
        if entry.msgid_plural:
            forms = [entry.msgstr_plural.get(i, "") for i in range(max(nplurals, len(entry.msgstr_plural), 1))]
            if not all(form.strip() for form in forms):
                problems["empty"].append(shown)
        elif not entry.msgstr.strip():
            problems["empty"].append(shown)
    return {kind: found for kind, found in problems.items() if found}


@pytest.fixture(scope="module")
def project_messages() -> dict[str, set[Message]]:
    return {domain: extract(domain) for domain in DOMAINS}


def test_the_extraction_reads_python_templates_and_scripts():
    django_messages = extract("django")
    assert ("", "Draw from stock", "") in django_messages  # a template
    assert ("", "It is not your turn.", "") in django_messages  # Python
    assert ("", "%(counter)s game waits on you", "%(counter)s games wait on you") in django_messages  # a plural
    assert ("", "Move left %(card)s", "") in extract("djangojs")
    assert not any("test" in str(path.relative_to(settings.BASE_DIR)).split("/")[0] for path in source_files((".py",)))


def test_the_check_finds_missing_empty_fuzzy_and_half_translated_plurals():
    po = polib.POFile()
    po.metadata = {"Plural-Forms": "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;"}
    po.append(polib.POEntry(msgid="Done", msgstr="Hotovo"))
    po.append(polib.POEntry(msgid="Empty", msgstr=""))
    po.append(polib.POEntry(msgid="Guess", msgstr="Odhad", flags=["fuzzy"]))
    po.append(polib.POEntry(msgid="%(n)s card", msgid_plural="%(n)s cards", msgstr_plural={0: "a", 1: "b", 2: ""}))
    po.append(polib.POEntry(msgid="%(n)s deck", msgid_plural="%(n)s decks", msgstr_plural={0: "a", 1: "b", 2: "c"}))
    po.append(polib.POEntry(msgid="Old", msgstr="Staré", obsolete=True))
    wanted = {
        ("", "Done", ""),
        ("", "Empty", ""),
        ("", "Guess", ""),
        ("", "Old", ""),
        ("", "New", ""),
        ("", "%(n)s card", "%(n)s cards"),
        ("", "%(n)s deck", "%(n)s decks"),
    }
    assert catalog_problems(po, wanted) == {
        "missing": ["New", "Old"],
        "empty": ["%(n)s card | %(n)s cards", "Empty"],
        "fuzzy": ["Guess"],
    }
    po.metadata = {}
    assert catalog_problems(po, {("", "Done", "")})["header"] == ["no Plural-Forms with nplurals"]


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated(project_messages, language, domain):
    """Fails until the translators' work (and the second round of new strings) is merged."""
    wanted = project_messages[domain]
    assert wanted, f"nothing extracted for {domain}"
    path = catalog_path(language, domain)
    assert path.exists(), f"{path.relative_to(settings.BASE_DIR)} is missing: run makemessages for {domain}"
    problems = catalog_problems(polib.pofile(str(path)), wanted)
    summary = {kind: f"{len(found)}, e.g. {found[:5]}" for kind, found in problems.items()}
    assert problems == {}, f"{language}/{domain}: {summary}"


# -- the Django admin's own scripts: its two-list picker, its calendar, its actions' warnings ----------------------


def admin_script_messages() -> set[Message]:
    """Every message of the Django admin's scripts, extracted from Django's files as the project's own are."""
    import django

    root = Path(django.__file__).parent / "contrib" / "admin" / "static" / "admin" / "js"
    return extract("djangojs", root)


def served_admin_catalog(language: str) -> dict[str, str | list[str]]:
    """The admin's JavaScript catalog (``/admin/jsi18n/``) as the admin's pages load it in ``language``."""
    from django.contrib import admin
    from django.test import RequestFactory
    from django.utils import translation

    with translation.override(language):
        script = admin.site.i18n_javascript(RequestFactory().get("/admin/jsi18n/")).content.decode()
    found = re.search(r"const newcatalog = (\{.*?\});\n", script, re.S)
    assert found, "the admin's catalog script changed its shape"
    return json.loads(found.group(1))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_admin_scripts_words_are_served_in_every_language(language):
    """Django's own catalogs lack some (58 in Croatian: the calendar's months and days, the picker's arrows):
    the site's carry them (``threethirteen_site/django_admin_js_messages.js``), and the admin serves them."""
    messages = admin_script_messages()
    assert ("", "Remove selected %s", "") in messages and ("one letter Sunday", "S", "") in messages
    served = served_admin_catalog(language)
    untranslated = sorted(
        " | ".join(part for part in message if part)
        for message in messages
        if not all(str(form).strip() for form in _forms(served.get(_catalog_key(message))))
    )
    assert untranslated == [], f"{language}: {len(untranslated)}, e.g. {untranslated[:5]}"


def _catalog_key(message: Message) -> str:
    """A message's key in Django's JavaScript catalog: its context and a \\x04 before the message, if it has one."""
    context, msgid, _plural = message
    return f"{context}\x04{msgid}" if context else msgid


def _forms(value: str | list[str] | None) -> list[str]:
    if value is None:
        return [""]
    return value if isinstance(value, list) else [value]


# -- the form of address: "vi" in Croatian, "vy" in Czech, "jy" in Afrikaans ------------------------

# The other form's pronouns and verb forms, as whole words: Croatian and Czech formal, so no "ti"-form;
# Afrikaans informal, so no "u".  (Czech "ti" is also "those", so it is not listed.)
OTHER_ADDRESS = {
    "hr": re.compile(r"\b(tvoj\w*|tvog\w*|tebi|tebe|imaš|možeš|želiš|jesi)\b", re.I),
    "cs": re.compile(r"\b(tvůj|tvoj\w*|tvé\w*|tvou|tobě|tebe|máš|jsi|můžeš|chceš)\b", re.I),
    "af": re.compile(r"(?<![\w'’-])u(?![\w'’-])", re.I),
}


def translations(po: polib.POFile, leave_out: Container[str] = ()) -> Iterator[tuple[polib.POEntry, list[str]]]:
    """Each live entry of ``po`` whose msgid is not in ``leave_out``, with its translations (every plural form)."""
    for entry in po:
        if entry.msgid not in leave_out and not entry.obsolete:
            yield entry, [entry.msgstr, *entry.msgstr_plural.values()]


def other_address(language: str, po: polib.POFile, leave_out: set[str]) -> list[str]:
    """The translations of ``po`` that address the reader in the form the site does not use in ``language``."""
    found = []
    for entry, texts in translations(po, leave_out):
        if any(OTHER_ADDRESS[language].search(text) for text in texts):
            found.append(f"{entry.msgid[:60]!r}: {(entry.msgstr or entry.msgstr_plural[0])[:80]!r}")
    return found


def test_the_address_check_finds_the_other_form():
    po = polib.POFile()
    po.append(polib.POEntry(msgid="You may leave.", msgstr="U kan weggaan."))
    po.append(polib.POEntry(msgid="Your hand", msgstr="Jou hand"))
    po.append(polib.POEntry(msgid="Admin's", msgstr="Dankie vir u geduld."))
    assert other_address("af", po, leave_out={"Admin's"}) == ["'You may leave.': 'U kan weggaan.'"]


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_translation_addresses_the_reader_as_the_site_does(language, domain):
    """Croatian and Czech say "vi"/"vy", Afrikaans "jy" (a player read "u kan ook weggaan" on the analysis page).

    Left out: the Django admin's messages the site's catalogs carry with Django's own Afrikaans words
    (threethirteen_site/django_admin_messages.py), which say "u" throughout the admin.
    """
    listed = python_file_messages(Path(settings.BASE_DIR) / "threethirteen_site" / "django_admin_messages.py")
    djangos = {msgid for _context, msgid, _plural in listed}
    found = other_address(language, polib.pofile(str(catalog_path(language, domain))), djangos)
    assert found == [], f"{language}/{domain}: {found}"


# -- the game's terms: as the glossary at the top of each django.po (and docs/glossary.md) has them ----------

# English term -> the stem each language's glossary uses for it.  "Go out" is a move of the game, not "leave":
# a Croatian refusal offered "izaći" (to exit) beside "vući" and "odbaciti", where every other page says "zatvoriti".
GLOSSARY = {
    r"\bgo(es|ing)? out\b|\b(went|gone) out\b|\bgo-out\b": {"hr": "zatv", "cs": "vyj|vyš|venku|vych", "af": "uit"},
    r"\bmelds?\b|\bmelded\b": {"hr": "kombinac", "cs": "kombinac", "af": "kombinas"},
    r"\bwild\b": {"hr": "divlj", "cs": "žolí", "af": "wild"},
    r"\bstock\b": {"hr": "talon", "cs": "talon", "af": "trekstapel"},
    r"\bdiscard pile\b": {"hr": "odbačen", "cs": "odhazovac", "af": "weggooi"},
}
# The table's draw button, right under the stock's label ("Trekstapel: 87 kaarte"): "Trek 'n kaart", draw a card.
GLOSSARY_EXCEPTIONS = {("af", "Draw from stock")}


def off_glossary(language: str, po: polib.POFile) -> list[str]:
    """Translations of a message that names one of the game's terms without the glossary's word for it."""
    found = []
    for entry, texts in translations(po, {msgid for lang, msgid in GLOSSARY_EXCEPTIONS if lang == language}):
        for english, stems in GLOSSARY.items():
            if not re.search(english, entry.msgid, re.I):
                continue
            for text in texts:
                if text and not re.search(stems[language], text, re.I):
                    found.append(f"{entry.msgid[:60]!r}: {text[:80]!r}")
    return found


def test_the_glossary_check_finds_another_word():
    po = polib.POFile()
    po.append(polib.POEntry(msgid="You may go out.", msgstr="Možete izaći."))
    po.append(polib.POEntry(msgid="Go out", msgstr="Zatvori"))
    assert off_glossary("hr", po) == ["'You may go out.': 'Možete izaći.'"]


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_games_terms_are_the_glossarys(language, domain):
    found = off_glossary(language, polib.pofile(str(catalog_path(language, domain))))
    assert found == [], f"{language}/{domain}: {found}"


# -- the site's scripts: words only through gettext ---------------------------------------------

GETTEXT_CALL = re.compile(r"(?<![\w$.])(?:window\.)?(?:gettext|ngettext|pgettext|npgettext|gettext_noop)\s*\(")
# API words that look like English words but are read by the browser, not by people (key names too)
API_WORDS = {"DOMContentLoaded", "POST", "GET", "X-Requested-With", "use strict", "Secure", "Home", "End"}


def _literals(source: str) -> list[tuple[int, str]]:
    """String literals of a script with their offsets, skipping comments and regular expressions."""
    found, i, n = [], 0, len(source)
    previous = ""  # the last significant character, to tell a regular expression from a division
    while i < n:
        ch = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif ch in "\"'`":
            j = i + 1
            while j < n and source[j] != ch:
                j += 2 if source[j] == "\\" else 1
            found.append((i, source[i + 1 : j]))
            i, previous = j + 1, ch
        elif ch == "/" and (previous == "" or previous in "(,=:[!&|?{};+-*%<>~^"):
            j = i + 1
            in_class = False
            while j < n and (in_class or source[j] != "/"):
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            i, previous = j + 1, "/"
        else:
            if not ch.isspace():
                previous = ch
            i += 1
    return found


def _gettext_spans(source: str) -> list[tuple[int, int]]:
    spans = []
    for match in GETTEXT_CALL.finditer(source):
        depth, j = 1, match.end()
        while j < len(source) and depth:
            depth += {"(": 1, ")": -1}.get(source[j], 0)
            j += 1
        spans.append((match.start(), j))
    return spans


def _person_readable(text: str) -> bool:
    if text in API_WORDS or not any(ch.isalpha() for ch in text):
        return False
    if any(ch.isalpha() and not ch.isascii() for ch in text):
        return True
    selector = any(ch in text for ch in "[]#.>") and not re.search(r"[A-Za-z]{2,}[.!?…]\s", text)
    if re.search(r"[A-Za-z]\s|\s[A-Za-z]", text) and not selector:
        return True  # words with spaces: a sentence, or units like "d " and " min"
    return bool(re.fullmatch(r"[A-Z][a-z]+\W*", text))  # a capitalised word ("Live"), not a name like "ArrowLeft"


def untranslated_script_words(source: str) -> list[str]:
    """Literals a person would read that do not go through the JavaScript catalog."""
    spans = _gettext_spans(source)
    return [
        text
        for at, text in _literals(source)
        if _person_readable(text) and not any(start <= at < end for start, end in spans)
    ]


def test_the_script_scan_finds_bare_words_and_passes_gettext():
    assert untranslated_script_words('el.textContent = "Reconnecting…";') == ["Reconnecting…"]
    assert untranslated_script_words('return d + "d " + h + "h " + m + "m";') == ["d ", "h "]
    assert untranslated_script_words('status.textContent = "Live";') == ["Live"]
    assert untranslated_script_words('alert("Could not save");') == ["Could not save"]
    assert untranslated_script_words('b.setAttribute("aria-label", "Zavřít");') == ["Zavřít"]
    assert (
        untranslated_script_words(
            '"use strict"; // "Hello there"\n'
            'var x = interpolate(gettext("Move %(card)s left"), v, true) /* "Not me" */;\n'
            't.querySelector("#table [data-hand] .hand-slot"); t.closest("#table .sort-links a");\n'
            'var r = /"(\\w+) x"/g; fetch(u, { method: "POST" }); e.key === "ArrowLeft" ? "ArrowRight" : "";\n'
            'ngettext("%(n)s card", "%(n)s cards", n); document.addEventListener("DOMContentLoaded", f);'
        )
        == []
    )


def test_every_script_says_its_words_through_gettext():
    scripts = sorted((Path(settings.BASE_DIR) / "games" / "static").rglob("*.js"))
    assert any(p.name == "clock.js" for p in scripts)
    bare = {
        str(p.relative_to(settings.BASE_DIR)): words
        for p in scripts
        if (words := untranslated_script_words(p.read_text(encoding="utf-8")))
    }
    assert bare == {}
