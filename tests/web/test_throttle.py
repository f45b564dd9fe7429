"""Log-ins, password resets and sign-ups are throttled (accounts/throttle.py).

Time moves with time-machine (it moves the clock django-axes and django-ratelimit read), never by
sleeping.  Addresses are from the documentation ranges (RFC 5737): only REMOTE_ADDR, no traffic.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from axes.models import AccessLog
from django.core import mail
from django.test import Client

from accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-pass-phrase-42"
LIMIT = 5  # settings.AXES_FAILURE_LIMIT
START = datetime(2030, 1, 7, 12, 0, tzinfo=UTC)
LOCKED_WORDS = "Too many failed log-in attempts"


def from_address(address: str, **headers: Any) -> Client:
    return Client(REMOTE_ADDR=address, **headers)


def log_in(client: Client, username: str, password: str, url: str = "/accounts/login/"):
    return client.post(url, {"username": username, "password": password})


def is_logged_in(client: Client) -> bool:
    return client.get("/").context["user"].is_authenticated


def assert_refused_page(response, words: str) -> None:
    assert response.status_code == 429
    page = response.content.decode()
    assert words in page
    assert "<html" in page and "Try again in about" in page  # the site's page, not a bare text
    assert "registration/throttled.html" in [t.name for t in response.templates]
    assert int(response["Retry-After"]) > 0


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def ann(make_user):
    return make_user("ann", password=PASSWORD)


# -- log-ins ---------------------------------------------------------------------


def test_failures_below_the_limit_do_not_lock_and_the_right_password_works(clock, ann):
    client = from_address("192.0.2.1")
    for _ in range(LIMIT - 1):
        assert log_in(client, "ann", "wrong").status_code == 200
    response = log_in(client, "ann", PASSWORD)
    assert response.status_code == 302 and is_logged_in(client)


def test_a_log_in_and_out_keeps_no_record_of_the_address_and_browser(clock, ann):
    """Axes wrote a row for every log-in (the address and the browser's name, kept for ever) that nothing
    read: the lock counts failures (``AccessAttempt``), which run out with the cool-off."""
    client = from_address("192.0.2.1", HTTP_USER_AGENT="Ann's phone")
    assert log_in(client, "ann", PASSWORD).status_code == 302
    client.post("/accounts/logout/")
    assert not AccessLog.objects.exists()


def test_an_account_locks_after_failures_from_many_addresses(clock, ann):
    for n in range(LIMIT - 1):
        response = log_in(from_address(f"198.51.100.{n + 1}"), "ann", "wrong")
        assert response.status_code == 200 and "correct username and password" in response.content.decode()
    # The fifth failure is answered with the lock (django-axes locks on reaching the limit).
    assert_refused_page(log_in(from_address("198.51.100.5"), "ann", "wrong"), LOCKED_WORDS)
    # A new address, the right password: still refused, with the page that says why.
    client = from_address("203.0.113.9")
    response = log_in(client, "ann", PASSWORD)
    assert_refused_page(response, LOCKED_WORDS)
    assert not is_logged_in(client)
    # The account is locked whatever the case the name is typed in.
    assert log_in(from_address("203.0.113.10"), "ANN", PASSWORD).status_code == 429
    # Someone else, from the same new address, is not affected.
    User.objects.create_user("bob", "bob@example.com", PASSWORD)
    assert log_in(from_address("203.0.113.9"), "bob", PASSWORD).status_code == 302


def test_a_browser_the_owner_logged_in_on_is_spared_the_lock_others_put_on_the_account(clock, ann):
    """Anyone could keep ann out with five wrong passwords a quarter of an hour (before her turn, say):
    her own browser still lets her in, while guesses from elsewhere still meet the account's lock."""
    home = from_address("203.0.113.20")
    assert log_in(home, "ann", PASSWORD).status_code == 302  # the browser is now known to her account
    assert home.cookies["known_device"].value
    assert home.post("/accounts/logout/").status_code == 302
    for n in range(LIMIT):  # a stranger locks the account
        log_in(from_address(f"198.51.100.{n + 1}"), "ann", "wrong")
    assert_refused_page(log_in(from_address("203.0.113.21"), "ann", PASSWORD), LOCKED_WORDS)  # a new browser
    # Her own browser, on another network even: let in.
    home.defaults["REMOTE_ADDR"] = "203.0.113.99"
    assert log_in(home, "ANN", PASSWORD).status_code == 302 and is_logged_in(home)
    # A cookie it did not sign, or one of another account's, spares nothing.
    forged = from_address("203.0.113.22")
    forged.cookies["known_device"] = str(ann.pk)
    assert log_in(forged, "ann", PASSWORD).status_code == 429
    bob = User.objects.create_user("bob", "bob@example.com", PASSWORD)
    bobs = from_address("203.0.113.23")
    assert log_in(bobs, "bob", PASSWORD).status_code == 302 and bob.pk
    bobs.post("/accounts/logout/")
    assert log_in(bobs, "ann", PASSWORD).status_code == 429
    # On her browser her own failures still count, by its address.
    home.post("/accounts/logout/")
    for _ in range(LIMIT):
        log_in(home, "ann", "wrong")
    assert_refused_page(log_in(home, "ann", PASSWORD), LOCKED_WORDS)


def test_an_address_locks_after_failures_against_many_accounts(clock, ann):
    attacker = from_address("192.0.2.66")
    for n in range(LIMIT):
        # Accounts that may not exist count too; the fifth failure is answered with the lock.
        assert log_in(attacker, f"someone{n}", "wrong").status_code == (200 if n < LIMIT - 1 else 429)
    assert_refused_page(log_in(attacker, "ann", PASSWORD), LOCKED_WORDS)
    assert not is_logged_in(attacker)
    # ann herself, from her own address, logs in: her account had no failure.
    own = from_address("192.0.2.7")
    assert log_in(own, "ann", PASSWORD).status_code == 302 and is_logged_in(own)


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_a_name_longer_than_any_account_is_a_failed_log_in_that_still_counts(clock, ann, url):
    """axes keeps the name in 255 characters: a longer one was a 500 on PostgreSQL."""
    attacker = from_address("192.0.2.77")
    for n in range(LIMIT - 1):
        response = log_in(attacker, f"{n}" + "x" * 300, "wrong", url)
        assert response.status_code == 200 and "correct username and password" in response.content.decode()
    # The long names count against the address like any other failure.
    assert log_in(attacker, "y" * 5000, "wrong", url).status_code == 429


def test_the_lock_lifts_after_the_cool_off_and_not_before(clock, ann):
    client = from_address("192.0.2.1")
    for _ in range(LIMIT):
        log_in(client, "ann", "wrong")
    clock.shift(timedelta(minutes=14))
    assert log_in(client, "ann", PASSWORD).status_code == 429
    # Tries during the lock do not push its end further away.
    clock.shift(timedelta(minutes=1, seconds=1))
    response = log_in(client, "ann", PASSWORD)
    assert response.status_code == 302 and is_logged_in(client)


def test_failures_spread_over_more_than_the_cool_off_never_lock(clock, ann):
    client = from_address("192.0.2.1")
    for _ in range(3 * LIMIT):
        assert log_in(client, "ann", "wrong").status_code == 200
        clock.shift(timedelta(minutes=16))
    assert log_in(client, "ann", PASSWORD).status_code == 302


def test_a_success_does_not_reset_anyone_elses_failures(clock, ann):
    User.objects.create_user("mallory", "mallory@example.com", PASSWORD)
    attacker = from_address("192.0.2.66")
    # Four guesses at ann, a log-in to an account of the attacker's own, one more guess: the
    # address has made five failures and is locked; the success wiped nothing.
    for _ in range(LIMIT - 1):
        log_in(attacker, "ann", "wrong")
    assert log_in(attacker, "mallory", PASSWORD).status_code == 302
    attacker.logout()
    log_in(attacker, "ann", "wrong")
    assert log_in(attacker, "ann", PASSWORD).status_code == 429
    # ann's account (five failures) is locked from everywhere; her own success elsewhere after the
    # cool-off does not lift the address's lock early for others either.
    assert log_in(from_address("192.0.2.7"), "ann", PASSWORD).status_code == 429


def test_a_locked_account_cannot_be_unlocked_by_another_account_logging_in(clock, ann):
    for n in range(LIMIT):
        log_in(from_address(f"198.51.100.{n + 1}"), "ann", "wrong")
    User.objects.create_user("bob", "bob@example.com", PASSWORD)
    for n in range(LIMIT):
        assert log_in(from_address(f"198.51.100.{n + 1}"), "bob", PASSWORD).status_code == 302
    assert log_in(from_address("203.0.113.1"), "ann", PASSWORD).status_code == 429


def test_the_admin_log_in_is_throttled_too(clock, django_user_model):
    django_user_model.objects.create_superuser("boss", "boss@example.com", PASSWORD)
    client = from_address("192.0.2.1")
    for n in range(LIMIT):
        response = log_in(client, "boss", "wrong", url="/admin/login/")
        assert response.status_code == (200 if n < LIMIT - 1 else 429)
    response = log_in(client, "boss", PASSWORD, url="/admin/login/")
    assert_refused_page(response, LOCKED_WORDS)
    assert client.get("/admin/").status_code == 302  # still not in
    # Failures on the site's form and the admin's add up: they guess the same password.
    other = from_address("192.0.2.2")
    clock.shift(timedelta(minutes=16))
    for _ in range(LIMIT - 1):
        log_in(other, "boss", "wrong")
    assert log_in(other, "boss", "wrong", url="/admin/login/").status_code == 429
    clock.shift(timedelta(minutes=16))
    assert log_in(other, "boss", PASSWORD, url="/admin/login/").status_code == 302
    assert other.get("/admin/").status_code == 200


def test_behind_a_proxy_the_configured_header_names_the_client(clock, ann, settings):
    settings.CLIENT_IP_HEADER = "HTTP_X_FORWARDED_FOR"
    settings.CLIENT_IP_PROXY_COUNT = 1
    # Every request comes from the proxy (one REMOTE_ADDR); the proxy appends the client's address.
    proxy = "192.0.2.250"
    for _ in range(LIMIT):
        # The attacker forges a left-hand entry: it proves nothing, the right-most one counts.
        client = from_address(proxy, HTTP_X_FORWARDED_FOR=f"203.0.113.{_ + 1}, 198.51.100.66")
        log_in(client, f"someone{_}", "wrong")
    assert log_in(from_address(proxy, HTTP_X_FORWARDED_FOR="198.51.100.66"), "ann", PASSWORD).status_code == 429
    # Another client behind the same proxy is not locked out with them.
    other = from_address(proxy, HTTP_X_FORWARDED_FOR="198.51.100.7")
    assert log_in(other, "ann", PASSWORD).status_code == 302


def test_without_a_proxy_setting_a_forged_header_changes_nothing(clock, ann):
    for n in range(LIMIT):
        log_in(from_address("192.0.2.66", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}"), f"someone{n}", "wrong")
    assert log_in(from_address("192.0.2.66", HTTP_X_FORWARDED_FOR="203.0.113.200"), "ann", PASSWORD).status_code == 429


def test_ipv6_clients_count_per_64_network(clock, ann):
    for n in range(LIMIT):
        log_in(from_address(f"2001:db8:1:2::{n + 1}"), f"someone{n}", "wrong")
    assert log_in(from_address("2001:db8:1:2:ffff::9"), "ann", PASSWORD).status_code == 429
    assert log_in(from_address("2001:db8:1:3::1"), "ann", PASSWORD).status_code == 302


# -- password resets and sign-ups ------------------------------------------------


def test_password_resets_are_limited_per_address(clock, ann):
    client = from_address("192.0.2.1")
    for n in range(5):
        assert client.post("/accounts/password_reset/", {"email": f"x{n}@example.com"}).status_code == 302
    response = client.post("/accounts/password_reset/", {"email": "ann@example.com"})
    assert_refused_page(response, "Too many password reset requests")
    assert mail.outbox == []  # nothing sent for the refused request (the others had no account)
    assert from_address("192.0.2.2").post("/accounts/password_reset/", {"email": "ann@example.com"}).status_code == 302
    assert len(mail.outbox) == 1
    # The window passes: the first address may ask again.
    clock.shift(timedelta(minutes=16))
    assert client.post("/accounts/password_reset/", {"email": "ann@example.com"}).status_code == 302


def test_password_resets_are_limited_per_email_whatever_the_address(clock, ann):
    for n in range(3):
        response = from_address(f"198.51.100.{n + 1}").post("/accounts/password_reset/", {"email": "ann@example.com"})
        assert response.status_code == 302
    assert len(mail.outbox) == 3
    response = from_address("198.51.100.9").post("/accounts/password_reset/", {"email": "ANN@example.com"})
    assert_refused_page(response, "Too many password reset requests")
    assert len(mail.outbox) == 3  # the inbox is not flooded
    clock.shift(timedelta(hours=1, minutes=1))
    assert from_address("198.51.100.9").post("/accounts/password_reset/", {"email": "ann@example.com"}).status_code
    assert len(mail.outbox) == 4


def test_the_reset_form_page_itself_is_never_throttled(clock, ann):
    client = from_address("192.0.2.1")
    for _ in range(6):
        client.post("/accounts/password_reset/", {"email": "ann@example.com"})
    assert client.get("/accounts/password_reset/").status_code == 200


def signup_data(name: str) -> dict[str, str]:
    return {"username": name, "email": f"{name}@example.com", "password1": PASSWORD, "password2": PASSWORD}


def test_sign_ups_are_limited_per_address(clock):
    for n in range(10):
        client = from_address("192.0.2.1")
        data = signup_data(f"player{n}") if n % 2 else {**signup_data(f"player{n}"), "password2": "typo"}
        assert client.post("/accounts/signup/", data).status_code in (302, 400)
    client = from_address("192.0.2.1")
    response = client.post("/accounts/signup/", signup_data("mara"))
    assert_refused_page(response, "Too many sign-up attempts")
    assert not User.objects.filter(username="mara").exists()
    assert from_address("192.0.2.2").post("/accounts/signup/", signup_data("mara")).status_code == 302
    clock.shift(timedelta(hours=1, minutes=1))
    assert client.post("/accounts/signup/", signup_data("nina")).status_code == 302
    assert User.objects.filter(username="nina").exists()


def test_guessing_the_current_password_on_the_change_form_counts_towards_the_lock(clock, ann):
    """Twelve wrong guesses in a signed-in browser went uncounted; the thirteenth, right, changed it."""
    client = from_address("192.0.2.44")
    client.force_login(ann)
    change = {"new_password1": "another-long-phrase-77", "new_password2": "another-long-phrase-77"}
    for _ in range(LIMIT - 1):
        response = client.post("/accounts/password_change/", {"old_password": "wrong", **change})
        assert response.status_code == 200 and response.context["form"].errors["old_password"]
    # The last failure is answered with the lock, as a log-in's is; then even the right password waits.
    assert_refused_page(client.post("/accounts/password_change/", {"old_password": "wrong", **change}), LOCKED_WORDS)
    response = client.post("/accounts/password_change/", {"old_password": PASSWORD, **change})
    assert response.status_code == 200 and response.context["form"].errors["old_password"] == [
        "Too many failed log-in attempts for this account or from your address. "
        "Logging in is paused for a while to keep accounts safe."
    ]
    ann.refresh_from_db()
    assert ann.check_password(PASSWORD)  # unchanged
    # After the cool-off the right password changes it.
    clock.shift(timedelta(minutes=16))
    assert client.post("/accounts/password_change/", {"old_password": PASSWORD, **change}).status_code == 302
