"""Site-wide page hygiene: every template's words go through translation; pages name an icon that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.test import RequestFactory
from django.views.defaults import server_error

# blocks whose words are translated (blocktranslate), unseen (comment) or CSS class names (the admin's bodyclass)
BLOCK_TRANSLATE = re.compile(
    r"\{%\s*(blocktranslate|blocktrans|comment|block bodyclass)\b.*?\{%\s*end(?:\1|block)\s*%\}", re.S
)
ENTITY = re.compile(r"&\w+;")
# (a comment ``{# #}`` ends on its own line, as in Django: one over two lines is shown on the page)
TAGS = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#[^\n]*?#\}", re.S)
CODE = re.compile(r"<(script|style)\b.*?</\1>", re.S)
TEXT = re.compile(r">([^<>]*)<")
ATTRS = re.compile(r'\b(?:title|placeholder|aria-label|alt)="([^"]*)"')
WORD = re.compile(r"[A-Za-z]{2,}")


def _templates(pattern: str = "*.html") -> list[Path]:
    dirs = settings.TEMPLATES[0]["DIRS"]
    assert isinstance(dirs, list)
    roots = [Path(d) for d in dirs]
    roots += [Path(settings.BASE_DIR) / app / "templates" for app in ("accounts", "games")]
    return sorted(p for root in roots for p in root.rglob(pattern))


def untranslated(source: str) -> list[str]:
    """Words a person would read that are neither inside a translate tag nor a variable."""
    rest = ENTITY.sub("", CODE.sub("", TAGS.sub("", BLOCK_TRANSLATE.sub("", source))))
    found = [text.strip() for text in TEXT.findall(rest) + ATTRS.findall(rest)]
    return [text for text in found if WORD.search(text)]


def test_the_scan_finds_a_bare_word_and_passes_marked_ones():
    assert untranslated("<p>Hello there</p>") == ["Hello there"]
    assert untranslated('<b title="Hi">{% translate "Hi" %}</b>') == ["Hi"]
    assert (
        untranslated(
            '<b>{% translate "Hi" %} {{ name }}</b><i>{% blocktranslate %}x <a>y</a>{% endblocktranslate %}</i>'
        )
        == []
    )


def test_every_template_marks_its_words_for_translation():
    templates = _templates()
    assert any(p.name == "500.html" for p in templates) and len(templates) > 30
    bare = {str(p.relative_to(settings.BASE_DIR)): words for p in templates if (words := untranslated(p.read_text()))}
    assert bare == {}


def test_the_server_error_page_follows_the_language():
    from django.utils import translation

    with translation.override("cs"):
        html = server_error(RequestFactory().get("/")).content.decode()
        back = translation.gettext("Back to the lobby")
    assert back != "Back to the lobby"  # the Czech catalog has it
    assert '<html lang="cs">' in html and back in html and "Back to the lobby" not in html


@pytest.mark.django_db
def test_pages_name_a_site_icon_that_exists(client):
    html = client.get("/").content.decode()
    icon = re.search(r'<link rel="icon" href="/static/([^"]+)"', html)
    assert icon and finders.find(icon.group(1))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "request_kwargs, bad_character",
    [
        ({"path": "/rules/?variant=%00"}, True),  # refused before any view: PostgreSQL cannot hold a NUL
        ({"path": "/", "HTTP_HOST": "evil.example"}, False),  # a host this site does not serve
        ({"path": "/accounts/login/", "data": {f"f{n}": "x" for n in range(1100)}}, False),  # too many fields
    ],
)
def test_the_bad_request_page_says_what_went_wrong_only_when_it_knows(client, request_kwargs, bad_character):
    """The 400 page blames a character only for the NUL byte; a bad host or a form too big gets the
    general sentence, in the reader's language."""
    from django.utils import translation

    kwargs = {**request_kwargs, "HTTP_ACCEPT_LANGUAGE": "cs"}
    path, data = kwargs.pop("path"), kwargs.pop("data", None)
    response = client.post(path, data, **kwargs) if data is not None else client.get(path, **kwargs)
    assert response.status_code == 400
    page = response.content.decode()
    with translation.override("cs"):
        character = translation.gettext(
            "Part of the address or the form holds a character this site does not accept. Nothing was changed."
        )
        general = translation.gettext("The address or the form is not one this site can read. Nothing was changed.")
    assert '<html lang="cs">' in page
    assert (character in page, general in page) == (bad_character, not bad_character)


@pytest.mark.django_db
def test_the_not_found_page_gives_the_readers_reason_and_never_djangos(make_user, classic):
    """A view's reason for the reader ("This invite link is not valid.") is on the 404 page, in their
    language; Django's own message for developers ("No Game matches the given query.") is not."""
    from django.test import Client
    from django.utils import translation

    from games import services

    game = services.game_create(creator=make_user("ann"), variant=classic, seat_count=2, is_private=True)
    client = Client(HTTP_ACCEPT_LANGUAGE="hr")
    wrong = client.get(f"/games/{game.pk}/invite/wrong-token/")
    missing = client.get("/games/999999/invite/wrong-token/")
    with translation.override("hr"):
        reason = translation.gettext("This invite link is not valid.")
        general = translation.gettext("There is nothing at this address: the game or page may never have existed.")
    assert reason != "This invite link is not valid."
    assert wrong.status_code == 404 and reason in wrong.content.decode() and general not in wrong.content.decode()
    assert missing.status_code == 404 and general in missing.content.decode()
    assert "matches the given query" not in missing.content.decode()


def test_every_template_comment_ends_on_its_line():
    """Django's ``{# #}`` is one line: a longer one is no comment, and the table showed its words to every player."""
    texts = _templates("*.txt")  # the e-mails' subjects and bodies
    assert len(texts) >= 4, texts
    open_comments = [
        f"{path.name}:{number}"
        for path in [*_templates(), *texts]
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if re.search(r"\{#(?![^\n]*#\})", line)
    ]
    assert open_comments == []
