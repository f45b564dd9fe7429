"""The sign-up and password pages and the password-reset e-mail speak the reader's language.

Django supplies the help texts and errors of its auth forms; its Croatian catalog lags behind
Django's wording and its Czech one lacks a plural form, so these pages showed English there.
The site carries those messages in its own catalogs (accounts/django_messages.py).
"""

from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client
from django.utils import translation
from django.utils.html import escape

from accounts.django_messages import MESSAGES

from .conftest import logged_in

pytestmark = pytest.mark.django_db

LANGUAGES = ["hr", "af", "cs"]
TOO_SHORT = next(message for message in MESSAGES if "too short" in str(message))
#: Django's own English for what these pages show: none of it may reach a reader of hr, af or cs.
ENGLISH = [
    "Required. 150 characters or fewer",
    "Enter a valid username",
    "didn’t match",
    "Your password can’t be",
    "This password is too",
    "The password is too similar",
    "In case you’ve forgotten",
    "Thanks for using our site",
]


def _english(page: str) -> list[str]:
    return [words for words in ENGLISH if words in page or escape(words) in page]


def _in(language: str, message: str) -> str:
    """A message of accounts.django_messages (marked, not translated, there) as ``language`` says it."""
    with translation.override(language):
        translated = translation.gettext(message)
    assert translated != message, (language, message)
    return translated


def _english_short() -> str:
    with translation.override("en"):
        return str(TOO_SHORT) % 8


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_sign_up_page_and_its_refusals_are_in_the_readers_language(language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    page = client.get("/accounts/signup/").content.decode()
    assert _english(page) == []
    response = client.post(
        "/accounts/signup/", {"username": "x y", "email": "xy@example.com", "password1": "123", "password2": "1234"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert _english(page) == []
    for shown in (
        "Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters.",
        "The two password fields didn’t match.",
    ):
        assert escape(_in(language, shown)) in page
    response = client.post(
        "/accounts/signup/", {"username": "xy", "email": "xy@example.com", "password1": "1234", "password2": "1234"}
    )
    page = response.content.decode()
    assert response.status_code == 400 and _english(page) == []
    with translation.override(language):  # too short (a plural: 8 characters), too common, all digits
        short = str(TOO_SHORT) % 8
    assert escape(short) in page and short != _english_short()
    assert escape(_in(language, "This password is too common.")) in page


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_password_change_page_is_in_the_readers_language(make_user, language):
    ann = make_user("ann")
    ann.language = language
    ann.save(update_fields=["language"])
    client = logged_in(ann)
    page = client.get("/accounts/password_change/").content.decode()
    help_text = "Your password can’t be too similar to your other personal information."
    assert _english(page) == [] and escape(_in(language, help_text)) in page
    response = client.post(
        "/accounts/password_change/",
        {"old_password": "a-long-pass-phrase-42", "new_password1": "ann", "new_password2": "ann"},
    )
    assert response.status_code == 200 and _english(response.content.decode()) == []
    ann.refresh_from_db()
    assert ann.check_password("a-long-pass-phrase-42")  # refused: nothing changed


@pytest.mark.parametrize("asker", ["en", "af"])
def test_the_password_reset_e_mail_is_in_the_accounts_language_whoever_asks(make_user, asker):
    """Written in the language on the account's profile, not in that of the browser that asked."""
    ann = make_user("ann")
    ann.language = "hr"
    ann.save(update_fields=["language"])
    response = Client(HTTP_ACCEPT_LANGUAGE=asker).post("/accounts/password_reset/", {"email": "ann@example.com"})
    assert response.status_code == 302 and len(mail.outbox) == 1
    message = mail.outbox[0]
    with translation.override("hr"):
        hello = translation.gettext("Hello %(name)s,") % {"name": "ann"}
        ignore = translation.gettext("If you did not ask for this, ignore this e-mail: your password stays as it is.")
    assert hello != "Hello ann," and message.body.startswith(hello)
    assert ignore in message.body and "/accounts/reset/" in message.body
    assert _english(message.body) == [] and "Three Thirteen" in message.subject
    with translation.override("en"):
        english_subject = translation.gettext("Reset your Three Thirteen password at %(domain)s") % {
            "domain": "testserver"
        }
    assert message.subject != english_subject


def test_an_account_without_a_language_gets_the_e_mail_in_the_askers_language(make_user):
    ann = make_user("ann")
    assert not ann.language
    Client(HTTP_ACCEPT_LANGUAGE="cs").post("/accounts/password_reset/", {"email": "ann@example.com"})
    with translation.override("cs"):
        hello = translation.gettext("Hello %(name)s,") % {"name": "ann"}
    assert hello != "Hello ann," and mail.outbox[0].body.startswith(hello)
