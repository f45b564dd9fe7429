"""What the site keeps only for a while is deleted once it has run out: expired sessions, old invitation notices.

Nothing ran Django's ``clearsessions``, so every browser that ever signed in left its session row for ever, and
one invitation notice was kept for every invitation told, though only the last day's are read.  The clock
deletes them, once an hour in each of its processes.
"""

from __future__ import annotations

import datetime
import logging
import time
from typing import Any

import pytest
from axes.models import AccessLog
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import InvitationNotice
from games.services import tidy
from tests.races import race

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


@pytest.fixture
def fresh_clock(monkeypatch):
    """A clock process that has not tidied yet, and an hour nobody has taken."""
    monkeypatch.setattr(tidy, "_next_at", None)
    monkeypatch.setattr(tidy, "_unfinished", False)
    cache.delete(tidy.TAKEN_KEY)
    yield
    cache.delete(tidy.TAKEN_KEY)


def test_a_clock_tidies_once_an_hour(fresh_clock):
    assert tidy.tidy_if_due(monotonic=1000.0) is not None
    now = timezone.now()
    session(now - datetime.timedelta(seconds=1))

    assert tidy.tidy_if_due(monotonic=1000.0 + HOUR - 1) is None  # not due: the expired session waits
    assert Session.objects.count() == 1
    cache.delete(tidy.TAKEN_KEY)  # (the shared cache's hour is over too)
    done = tidy.tidy_if_due(monotonic=1000.0 + HOUR)
    assert done is not None and done["sessions"] == 1 and done["done"]
    assert Session.objects.count() == 0


def test_of_several_clocks_one_tidies_an_hour(fresh_clock, monkeypatch):
    """A review: each server process with the clock inside deleted the same rows each hour."""
    assert tidy.tidy_if_due(monotonic=1000.0) is not None
    monkeypatch.setattr(tidy, "_next_at", None)  # another process, which has not tidied yet
    session(timezone.now() - datetime.timedelta(seconds=1))
    assert tidy.tidy_if_due(monotonic=1000.0) is None
    assert Session.objects.count() == 1  # the first one's hour


def test_a_first_tidy_of_many_rows_goes_in_batches_over_several_passes(fresh_clock, monkeypatch):
    """A review: the first tidy of a site deletes every session that ever expired, in one statement inside a
    clock pass, and every table's timed-out turn waited.  A pass deletes for a few seconds, the next goes on."""
    monkeypatch.setattr(tidy, "BATCH", 3)
    monkeypatch.setattr(tidy, "SECONDS_PER_PASS", 0.0)  # one batch a pass
    for minutes in range(1, 8):
        session(timezone.now() - datetime.timedelta(minutes=minutes))
    first = tidy.tidy_if_due(monotonic=1000.0)
    assert first is not None and first["sessions"] == 3 and not first["done"]
    second = tidy.tidy_if_due(monotonic=1002.0)  # the next pass, though another clock holds the hour
    assert second is not None and second["sessions"] == 3 and not second["done"]
    third = tidy.tidy_if_due(monotonic=1004.0)
    assert third is not None and third["sessions"] == 1 and third["done"]
    assert Session.objects.count() == 0
    assert tidy.tidy_if_due(monotonic=1006.0) is None  # done: the next hour


def test_axes_log_in_records_kept_before_are_deleted(make_user):
    """The setting stopped new rows; those of every log-in before it are deleted too (a review)."""
    AccessLog.objects.create(
        username="ann", ip_address="192.0.2.1", user_agent="Ann's phone", attempt_time=timezone.now()
    )
    assert tidy.tidy()["access_log"] == 1
    assert not AccessLog.objects.exists()


def test_the_clock_tidies(fresh_clock):
    session(timezone.now() - datetime.timedelta(seconds=1))

    services.clock_tick()
    assert Session.objects.count() == 0


def test_a_tidy_that_fails_is_one_warning_and_is_tried_again_minutes_later(fresh_clock, monkeypatch, caplog):
    """A fault: the delete fails (a lock held long, the database gone for a moment).  The clock's pass goes on;
    one warning line; tried again after a few minutes, not at every pass of two seconds with a traceback (a
    review)."""
    session(timezone.now() - datetime.timedelta(seconds=1))
    calls = []

    def fails(**_: Any) -> None:
        calls.append(1)
        raise RuntimeError("lock timeout")

    with monkeypatch.context() as patched:
        patched.setattr(tidy, "tidy", fails)
        assert services.clock_tick()["timeouts"] == 0  # the pass goes on
        assert tidy.tidy_if_due(monotonic=time.monotonic() + 2) is None
    assert len(calls) == 1  # not again at the next pass
    warned = [record for record in caplog.records if "tidying failed" in record.getMessage()]
    assert len(warned) == 1 and not warned[0].exc_info and warned[0].levelno == logging.WARNING
    assert Session.objects.count() == 1
    assert tidy.tidy_if_due(monotonic=time.monotonic() + tidy.RETRY_AFTER.total_seconds() + 1) is not None
    assert Session.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_two_clocks_tidying_at_once_each_delete_their_own_rows(monkeypatch):
    """Two processes that tidy at once (an hour taken by both, the cache gone): on PostgreSQL each skips the rows
    the other has locked, so neither waits on the other nor deadlocks, and every row is deleted once."""
    monkeypatch.setattr(tidy, "BATCH", 10)
    now = timezone.now()
    for n in range(200):
        Session.objects.create(session_key=f"racing-{n:04d}-xxxx", session_data="", expire_date=now)
    results = race([lambda: tidy.tidy(seconds=60), lambda: tidy.tidy(seconds=60)])
    assert [result["done"] for result in results] == [True, True]
    assert sum(result["sessions"] for result in results) == 200 and not Session.objects.exists()
