from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.utils import translation

from .conftest import logged_in

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_sign_up_logs_in_and_lands_on_a_page_with_the_name():
    client = Client()
    assert client.get("/accounts/signup/").status_code == 200
    response = client.post(
        "/accounts/signup/",
        {
            "username": "marija",
            "email": "marija@example.com",
            "password1": "kartanje-uvecer-42",
            "password2": "kartanje-uvecer-42",
        },
        follow=True,
    )
    assert response.status_code == 200
    assert response.wsgi_request.user.is_authenticated
    assert "marija" in response.content.decode()
    user = get_user_model().objects.get(username="marija")
    assert user.email == "marija@example.com"


def test_sign_up_with_mismatched_passwords_says_so():
    response = Client().post(
        "/accounts/signup/",
        {
            "username": "marija",
            "email": "marija@example.com",
            "password1": "kartanje-uvecer-42",
            "password2": "something-else-42",
        },
    )
    assert response.status_code == 400
    assert "didn’t match" in response.content.decode() or "didn't match" in response.content.decode()
    assert not get_user_model().objects.filter(username="marija").exists()


def autofocused(html: str) -> list[str]:
    return re.findall(r'<(?:input|select|textarea)[^>]*\bautofocus\b[^>]*\bname="([^"]+)"', html) + re.findall(
        r'<(?:input|select|textarea)[^>]*\bname="([^"]+)"[^>]*\bautofocus\b', html
    )


def test_a_form_shown_again_puts_the_cursor_in_the_first_field_to_correct(make_user):
    """An accessibility tester: with the passwords not matching, the cursor was in the user name, and on a
    phone the error below the fold."""
    assert autofocused(Client().get("/accounts/signup/").content.decode()) == ["username"]
    mismatched = {"username": "marija", "email": "marija@example.com", "password1": "kartanje-42x", "password2": "x"}
    assert autofocused(Client().post("/accounts/signup/", mismatched).content.decode()) == ["password2"]
    client = logged_in(make_user("ann", password="a-long-pass-phrase-42"))
    changed = {"old_password": "a-long-pass-phrase-42", "new_password1": "kartanje-uvecer-42", "new_password2": "no"}
    assert autofocused(client.post("/accounts/password_change/", changed).content.decode()) == ["new_password2"]
    # A new password chosen through a reset link (a review: the same form, missed).
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    bob = make_user("bob", password="a-long-pass-phrase-42")
    link = f"/accounts/reset/{urlsafe_base64_encode(force_bytes(bob.pk))}/{default_token_generator.make_token(bob)}/"
    reader = Client()
    form_page = reader.get(link, follow=True)
    assert "new_password2" in form_page.content.decode()
    mismatched_new = {"new_password1": "kartanje-uvecer-42", "new_password2": "no"}
    shown_again = reader.post(form_page.redirect_chain[-1][0], mismatched_new).content.decode()
    assert autofocused(shown_again) == ["new_password2"]


def test_log_in_and_log_out(make_user):
    make_user("ann", password="a-long-pass-phrase-42")
    client = Client()
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "ann", "password": "a-long-pass-phrase-42"})
    assert response.status_code == 302
    assert client.get("/").context["user"].is_authenticated
    assert client.post("/accounts/logout/").status_code == 302
    assert not client.get("/").context["user"].is_authenticated


def test_profile_saves_display_name_language_and_notices(make_user):
    user = make_user("ann")
    client = logged_in(user)
    response = client.post(
        "/accounts/profile/",
        {"display_name": "Ann the Bold", "email": "ann@example.com", "language": "hr", "notify_by_email": "on"},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.display_name, user.language, user.notify_by_email) == ("Ann the Bold", "hr", True)
    page = client.get("/accounts/profile/")
    assert "Ann the Bold" in page.content.decode()
    assert page["Content-Language"] == "hr"


def test_password_change_and_reset_pages(make_user):
    user = make_user("ann", password="a-long-pass-phrase-42")
    client = logged_in(user)
    assert client.get("/accounts/password_change/").status_code == 200
    response = client.post(
        "/accounts/password_change/",
        {
            "old_password": "a-long-pass-phrase-42",
            "new_password1": "another-pass-phrase-7",
            "new_password2": "another-pass-phrase-7",
        },
    )
    assert response.status_code == 302
    anonymous = Client()
    assert anonymous.get("/accounts/password_reset/").status_code == 200
    assert anonymous.post("/accounts/password_reset/", {"email": "ann@example.com"}).status_code == 302
    assert len(mail.outbox) == 1 and "/accounts/reset/" in mail.outbox[0].body


def test_pages_render_for_visitors():
    client = Client()
    for url in ("/", "/rules/", "/rules/?variant=jokers", "/accounts/login/", "/accounts/password_reset/"):
        assert client.get(url).status_code == 200, url


def test_production_settings_refuse_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "SECRET_KEY"}
    env.update(DEBUG="0", DJANGO_SETTINGS_MODULE="threethirteen_site.settings")
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0 and "SECRET_KEY" in result.stderr


def import_settings(**env_vars: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    env.update(env_vars)
    return subprocess.run(
        [sys.executable, "-c", "import threethirteen_site.settings as s; print(s.SECRET_KEY)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("secret_key", ["", "   "])
def test_settings_without_a_secret_key_refuse_to_load_with_debug_off(secret_key):
    result = import_settings(DEBUG="0", SECRET_KEY=secret_key)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "Set SECRET_KEY when DEBUG is off" in result.stderr


def test_the_development_key_is_refused_with_debug_off_even_when_set_by_hand():
    from threethirteen_site.settings import DEVELOPMENT_SECRET_KEY

    generated = "django-insecure-another-generated-key-0123456789"  # what startproject writes
    for key in (DEVELOPMENT_SECRET_KEY, f" {DEVELOPMENT_SECRET_KEY} ", generated):
        result = import_settings(DEBUG="0", SECRET_KEY=key)
        assert result.returncode != 0, key
        assert "ImproperlyConfigured" in result.stderr and "development key" in result.stderr, key


def test_the_development_key_serves_with_debug_on_and_a_real_key_with_debug_off():
    from threethirteen_site.settings import DEVELOPMENT_SECRET_KEY

    result = import_settings()  # DEBUG defaults to on
    assert result.returncode == 0 and result.stdout.strip() == DEVELOPMENT_SECRET_KEY, result.stderr
    real = "k" * 30 + "-a-real-production-secret-0123456789"
    result = import_settings(DEBUG="0", SECRET_KEY=real, DATABASE_URL="sqlite:///unused.sqlite3")
    assert result.returncode == 0 and result.stdout.strip() == real, result.stderr


@pytest.mark.parametrize("url", ["/accounts/logout/", "/accounts/turn-sound/", "/i18n/setlang/"])
@pytest.mark.parametrize("signed_in", [True, False])
def test_a_typed_address_of_a_button_gets_a_page_in_the_readers_language(make_user, url, signed_in):
    """Not Django's empty 405, which a browser shows as an error page of its own."""
    client = logged_in(make_user("ann")) if signed_in else Client()
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="cs")
    if not signed_in and response.status_code == 302:  # a page for people signed in: the log-in page first
        assert "/accounts/login/" in response["Location"]
        return
    assert response.status_code == 405 and "POST" in response["Allow"]
    page = response.content.decode()
    assert '<html lang="cs">' in page and "This address belongs to a button" not in page
    with translation.override("cs"):
        assert translation.gettext("Back to the lobby") in page
    assert response.wsgi_request.user.is_authenticated is signed_in  # a GET logs nobody out


def test_a_message_waiting_for_the_next_page_is_shown_on_the_405_page_once(make_user):
    client = logged_in(make_user("ann"))
    data = {"display_name": "Ann", "email": "ann@example.com", "language": "", "time_zone": ""}
    assert client.post("/accounts/profile/", data).status_code == 302  # "Your profile is saved." waits
    assert "Your profile is saved." in client.get("/accounts/logout/").content.decode()
    assert "Your profile is saved." not in client.get("/rules/").content.decode()
