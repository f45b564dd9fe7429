"""What the site keeps only for a while is deleted once it has run out: expired sessions, old invitation notices.

Nothing ran Django's ``clearsessions``, so every browser that ever signed in left its session row for ever, and
one invitation notice was kept for every invitation told, though only the last day's are read.  The clock
deletes them, once an hour in each of its processes.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import InvitationNotice
from games.services import tidy

pytestmark = pytest.mark.django_db

HOUR = tidy.TIDY_EVERY.total_seconds()


def session(expires: datetime.datetime) -> str:
    key = f"key-{expires.timestamp()}-xxxx"
    return Session.objects.create(session_key=key, session_data="", expire_date=expires).pk


def notice(make_user: Any, sent_at: datetime.datetime) -> InvitationNotice:
    return InvitationNotice.objects.create(
        user=make_user(f"asked-{sent_at.timestamp():.0f}"),
        inviter=make_user(f"asker-{sent_at.timestamp():.0f}"),
        sent_at=sent_at,
    )


def test_expired_sessions_are_deleted_and_the_others_kept():
    now = timezone.now()
    expired, live = session(now - datetime.timedelta(seconds=1)), session(now + datetime.timedelta(days=14))

    assert tidy.tidy(now=now)["sessions"] == 1
    assert list(Session.objects.values_list("pk", flat=True)) == [live]
    assert expired not in Session.objects.values_list("pk", flat=True)


def test_a_person_signed_in_stays_signed_in_through_a_tidy(make_user):
    client = Client()
    client.force_login(make_user("ann"))

    tidy.tidy()
    assert client.get(reverse("profile")).status_code == 200  # not sent to the log-in page


def test_invitation_notices_of_the_last_day_are_kept_for_the_one_a_day_rule(make_user):
    now = timezone.now()
    old = notice(make_user, now - services.notices.INVITATIONS_FROM_ONE_PERSON_EVERY)
    recent = notice(make_user, now - services.notices.INVITATIONS_FROM_ONE_PERSON_EVERY + datetime.timedelta(minutes=1))

    assert tidy.tidy(now=now)["invitation_notices"] == 1
    assert list(InvitationNotice.objects.all()) == [recent]
    assert not InvitationNotice.objects.filter(pk=old.pk).exists()


def test_a_process_tidies_once_an_hour(monkeypatch):
    monkeypatch.setattr(tidy, "_last_tidied", None)
    assert tidy.tidy_if_due(monotonic=1000.0) is not None
    now = timezone.now()
    session(now - datetime.timedelta(seconds=1))

    assert tidy.tidy_if_due(monotonic=1000.0 + HOUR - 1) is None  # not due: the expired session waits
    assert Session.objects.count() == 1
    assert tidy.tidy_if_due(monotonic=1000.0 + HOUR) == {"sessions": 1, "invitation_notices": 0}
    assert Session.objects.count() == 0


def test_the_clock_tidies(monkeypatch):
    monkeypatch.setattr(tidy, "_last_tidied", None)
    session(timezone.now() - datetime.timedelta(seconds=1))

    services.clock_tick()
    assert Session.objects.count() == 0


def test_a_tidy_that_fails_is_logged_and_the_clock_goes_on_and_tries_again(monkeypatch, caplog):
    """A fault: the delete fails (a lock timeout, the database gone for a moment).  The clock's pass still
    returns what it played, and the next pass tries again rather than waiting an hour."""
    monkeypatch.setattr(tidy, "_last_tidied", None)
    session(timezone.now() - datetime.timedelta(seconds=1))

    def fails(**_: Any) -> None:
        raise RuntimeError("lock timeout")

    with monkeypatch.context() as patched:
        patched.setattr(tidy, "tidy", fails)
        assert services.clock_tick()["timeouts"] == 0
    assert "tidying expired sessions" in caplog.text and Session.objects.count() == 1
    services.clock_tick()
    assert Session.objects.count() == 0
