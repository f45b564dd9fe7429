"""Choosing a language: the browser's first, then the switcher; a player's choice follows them."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import User
from tests.web.conftest import logged_in

pytestmark = pytest.mark.django_db

SWITCHER = re.compile(
    r'<form action="/i18n/setlang/" method="post"[^>]*>.*?name="next" type="hidden" value="([^"]*)"', re.S
)


def lang(html: str) -> str:
    found = re.search(r'<html lang="([^"]+)">', html)
    assert found
    return found.group(1)


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("cs-CZ,cs;q=0.9,en;q=0.8", "cs"),
        ("hr-HR,hr;q=0.9", "hr"),
        ("af-ZA,af;q=0.9,en;q=0.5", "af"),
        ("de-DE,cs;q=0.5", "cs"),
        ("fr-FR,fr;q=0.9", "en"),
        ("", "en"),
    ],
)
def test_the_first_visit_speaks_the_browsers_language(header, language):
    response = Client().get("/rules/", HTTP_ACCEPT_LANGUAGE=header)
    assert lang(response.content.decode()) == language
    assert response["Content-Language"] == language


@pytest.mark.parametrize(
    "path", ["/", "/rules/", "/leaderboard/", "/accounts/login/", "/accounts/signup/", "/games/mine/"]
)
def test_the_switcher_is_on_every_page_and_keeps_the_page(make_user, path):
    client = logged_in(make_user("ann")) if path == "/games/mine/" else Client()
    html = client.get(path + "?page=1").content.decode()
    switcher = SWITCHER.search(html)
    assert switcher and switcher.group(1) == path + "?page=1"
    for code, _name in settings.LANGUAGES:
        assert f'<option value="{code}"' in html


def test_the_switcher_names_each_language_in_itself_with_a_capital():
    html = Client().get("/").content.decode()
    names = re.findall(r'<option value="[a-z-]+"[^>]*>([^<]+)</option>', html)
    # Django calls Czech "česky", in lower case, beside "English", "Hrvatski" and "Afrikaans"
    assert sorted(names) == ["Afrikaans", "English", "Hrvatski", "Česky"]


def test_switching_goes_back_to_the_same_page_in_the_new_language():
    client = Client()
    response = client.post("/i18n/setlang/", {"language": "hr", "next": "/rules/?x=1"})
    assert response.status_code == 302 and response["Location"] == "/rules/?x=1"
    assert (
        lang(client.get("/rules/", HTTP_ACCEPT_LANGUAGE="cs").content.decode()) == "hr"
    )  # the choice beats the browser


@pytest.mark.parametrize("next_url", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)"])
def test_a_next_address_off_the_site_is_not_followed(next_url):
    response = Client().post("/i18n/setlang/", {"language": "cs", "next": next_url})
    assert (
        response.status_code == 302 and "evil" not in response["Location"] and "javascript" not in response["Location"]
    )


def test_a_bad_language_changes_nothing_and_is_no_error(make_user):
    ann = make_user("ann")
    client = logged_in(ann)
    response = client.post("/i18n/setlang/", {"language": "xx", "next": "/rules/"})
    assert response.status_code == 302
    assert User.objects.get(pk=ann.pk).language == ""
    assert Client().get("/i18n/setlang/").status_code == 405


def test_a_signed_in_players_choice_is_saved_and_follows_them_to_another_device(make_user):
    ann = make_user("ann")
    phone = logged_in(ann)
    assert phone.post("/i18n/setlang/", {"language": "cs", "next": "/"}).status_code == 302
    assert User.objects.get(pk=ann.pk).language == "cs"
    laptop = logged_in(User.objects.get(pk=ann.pk))  # no language cookie there; the browser asks for Afrikaans
    assert lang(laptop.get("/rules/", HTTP_ACCEPT_LANGUAGE="af").content.decode()) == "cs"
    # switching again on the laptop wins over the saved choice
    laptop.post("/i18n/setlang/", {"language": "hr", "next": "/"})
    assert lang(laptop.get("/rules/").content.decode()) == "hr"
    assert User.objects.get(pk=ann.pk).language == "hr"


def test_the_javascript_catalog_follows_the_profiles_language(make_user):
    ann = make_user("ann")
    ann.language = "cs"
    ann.save()
    response = logged_in(ann).get("/i18n/js/", HTTP_ACCEPT_LANGUAGE="en")
    assert response["Content-Language"] == "cs"


def test_the_language_a_browser_reads_the_site_in_is_kept_for_the_persons_notices(make_user, django_assert_num_queries):
    """Found by a tester: someone who read every page in Croatian, never having chosen a language, got their
    e-mails and push notices in English (``User.notice_language``)."""
    ann = make_user("ann")
    assert ann.notice_language == settings.LANGUAGE_CODE
    browser = Client(HTTP_ACCEPT_LANGUAGE="hr-HR,hr;q=0.9")
    browser.force_login(ann)
    browser.get("/rules/")
    ann.refresh_from_db()
    assert (ann.language, ann.browser_language, ann.notice_language) == ("", "hr", "hr")
    with django_assert_num_queries(2):  # the session and the person: nothing written while it stays the same
        browser.get("/i18n/js/")
    browser.get("/rules/", HTTP_ACCEPT_LANGUAGE="cs")
    ann.refresh_from_db()
    assert ann.notice_language == "cs"
    ann.language = "af"  # a language chosen on the profile wins, and the browser's is no longer followed
    ann.save()
    browser.get("/rules/", HTTP_ACCEPT_LANGUAGE="hr")
    ann.refresh_from_db()
    assert (ann.browser_language, ann.notice_language) == ("cs", "af")


def test_two_browsers_reading_two_languages_write_the_persons_row_once_each(make_user, django_assert_num_queries):
    """A review: signed in on a Croatian phone and a Czech desktop, a person's row was written on every request
    of either: now once a session, the last browser to start writing it."""
    ann = make_user("ann")
    phone, desktop = Client(HTTP_ACCEPT_LANGUAGE="hr"), Client(HTTP_ACCEPT_LANGUAGE="cs")
    phone.force_login(ann)
    desktop.force_login(ann)
    phone.get("/i18n/js/")
    desktop.get("/i18n/js/")
    ann.refresh_from_db()
    assert ann.browser_language == "cs"
    for browser in (phone, desktop, phone, desktop):
        with django_assert_num_queries(2):  # the session and the person: nothing written
            browser.get("/i18n/js/")
