"""The message catalogs are compiled in pure Python (no msgfmt) and the site reads what they say."""

from __future__ import annotations

import gettext as gnu_gettext
import io
import shutil
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings
from django.utils import translation

from threethirteen_site.catalogs import catalogs, compile_catalogs, is_stale

CZECH_PLURALS = "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;"


def _write_po(path: Path, entries: list[polib.POEntry], plural_forms: str = CZECH_PLURALS) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Plural-Forms": plural_forms, "Language": "cs"}
    for entry in entries:
        po.append(entry)
    po.save(str(path))


def test_a_compiled_catalog_keeps_plural_forms_and_leaves_fuzzy_guesses_out(tmp_path):
    po = tmp_path / "cs" / "LC_MESSAGES" / "django.po"
    _write_po(
        po,
        [
            polib.POEntry(msgid="Stock", msgstr="Balíček"),
            polib.POEntry(msgid="Guess", msgstr="Odhad", flags=["fuzzy"]),
            polib.POEntry(
                msgid="%(n)s card", msgid_plural="%(n)s cards", msgstr_plural={0: "karta", 1: "karty", 2: "karet"}
            ),
        ],
    )
    assert compile_catalogs([tmp_path]) == [po.with_suffix(".mo")]
    with po.with_suffix(".mo").open("rb") as mo:
        catalog = gnu_gettext.GNUTranslations(mo)
    assert catalog.gettext("Stock") == "Balíček"
    assert catalog.gettext("Guess") == "Guess"  # a fuzzy entry is not shown
    assert [catalog.ngettext("%(n)s card", "%(n)s cards", n) for n in (1, 3, 5)] == ["karta", "karty", "karet"]
    assert not list(po.parent.glob(".*.tmp"))  # written through a temporary file, then renamed


def test_only_stale_catalogs_are_compiled_again(tmp_path):
    po = tmp_path / "hr" / "LC_MESSAGES" / "django.po"
    _write_po(po, [polib.POEntry(msgid="Stock", msgstr="Špil")])
    assert compile_catalogs([tmp_path]) == [po.with_suffix(".mo")]
    assert compile_catalogs([tmp_path]) == [] and not is_stale(po)
    assert compile_catalogs([tmp_path], force=True) == [po.with_suffix(".mo")]


def test_the_command_needs_no_system_tool(tmp_path, monkeypatch):
    po = tmp_path / "af" / "LC_MESSAGES" / "django.po"
    _write_po(po, [polib.POEntry(msgid="Stock", msgstr="Stapel")], "nplurals=2; plural=(n != 1);")
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools-here"))  # no msgfmt, no xgettext
    assert shutil.which("msgfmt") is None
    out = io.StringIO()
    with override_settings(LOCALE_PATHS=[tmp_path]):
        call_command("compile_catalogs", stdout=out)
    assert po.with_suffix(".mo").exists() and "1 catalog(s) compiled" in out.getvalue()


def test_the_site_catalogs_are_compiled_and_up_to_date():
    found = catalogs([Path(p) for p in settings.LOCALE_PATHS])
    assert {p.parent.parent.name for p in found} >= {"hr", "af", "cs"}
    assert [p for p in found if is_stale(p)] == []  # the test session (and make) compiled them


@pytest.mark.parametrize("language", ["hr", "af", "cs"])
def test_the_site_says_what_its_catalog_says(language):
    """Every translated entry of the .po (read with polib) is what Django answers in that language."""
    po = polib.pofile(str(Path(settings.LOCALE_PATHS[0]) / language / "LC_MESSAGES" / "django.po"))
    with translation.override(language):
        for entry in po.translated_entries():
            if entry.msgid_plural and entry.msgctxt:
                said = translation.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, 1)
                assert said == entry.msgstr_plural[0]
            elif entry.msgid_plural:
                assert translation.ngettext(entry.msgid, entry.msgid_plural, 1) == entry.msgstr_plural[0]
            elif entry.msgctxt:
                assert translation.pgettext(entry.msgctxt, entry.msgid) == entry.msgstr
            else:
                assert translation.gettext(entry.msgid) == entry.msgstr


def test_a_translation_filled_in_the_po_reaches_the_pages(tmp_path, client, db):
    """The site's own Czech catalog with one message filled in, compiled: the page says it."""
    po = polib.pofile(str(Path(settings.LOCALE_PATHS[0]) / "cs" / "LC_MESSAGES" / "django.po"))
    entry = po.find("Leaderboard")
    assert entry is not None
    entry.msgstr, entry.flags = "Žebříček", []
    target = tmp_path / "cs" / "LC_MESSAGES" / "django.po"
    target.parent.mkdir(parents=True)
    po.save(str(target))
    compile_catalogs([tmp_path])
    with override_settings(LOCALE_PATHS=[tmp_path]):
        html = client.get("/rules/", HTTP_ACCEPT_LANGUAGE="cs").content.decode()
        with translation.override("cs"):
            assert translation.gettext("Leaderboard") == "Žebříček"
    assert '<html lang="cs">' in html and ">Žebříček</a>" in html


def test_the_javascript_catalog_is_served_in_the_readers_language(tmp_path, client, db):
    po = tmp_path / "cs" / "LC_MESSAGES" / "djangojs.po"
    _write_po(
        po,
        [
            polib.POEntry(msgid="%(hours)sh %(minutes)sm", msgstr="%(hours)s h %(minutes)s min"),
            polib.POEntry(msgid="%(n)s card", msgid_plural="%(n)s cards", msgstr_plural={0: "a", 1: "b", 2: "c"}),
        ],
    )
    compile_catalogs([tmp_path])
    with override_settings(LOCALE_PATHS=[tmp_path]):
        response = client.get("/i18n/js/", HTTP_ACCEPT_LANGUAGE="cs")
    body = response.content.decode()
    assert response.status_code == 200 and "javascript" in response["Content-Type"]
    assert '"%(hours)s h %(minutes)s min"' in body and "django.interpolate" in body
    assert "(n>=2 && n<=4)" in body  # Czech plural forms reach ngettext


def test_every_page_loads_the_javascript_catalog_before_the_sites_scripts(client, db):
    html = client.get("/rules/").content.decode()
    catalog = html.index('<script src="/i18n/js/"')
    assert catalog < html.index("games/clock.js") and catalog < html.index("games/live.js")
