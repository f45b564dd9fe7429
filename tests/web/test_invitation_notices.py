"""A person a seat is held for hears of it once: by e-mail and Web Push, as for their turns.

Invited by name, or asked to a rematch, a person had to look at the lobby to know: a table over days then
waited days on someone who never knew. The clock tells them once the seat has been held as long as a turn
waits for its notice (one watching the lobby takes it before then), and never again for that seat.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.core import mail
from django.db.models import QuerySet
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from games import services
from games.models import Game

from .conftest import NOTICE_DUE

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
SECOND = datetime.timedelta(seconds=1)


def wants_emails(*people: Any) -> None:
    for person in people:
        person.notify_by_email = True
        person.save()


def table_holding_a_seat(make_user, classic, **options: Any) -> tuple[Game, Any, Any]:
    """Ann's table over days, a seat held there for Bob, who asked for e-mail notices."""
    ann, bob = make_user("ann"), make_user("bob")
    wants_emails(ann, bob)
    table = services.game_create(
        creator=ann, variant=classic, seat_count=3, time_limit_seconds=DAY, invited=[bob], **options
    )
    return table, ann, bob


def emails_sent(at: datetime.datetime) -> int:
    return services.clock_tick(now=at)["emails"]


def test_the_person_invited_hears_of_it_once_when_the_seat_has_waited(make_user, classic, settings):
    settings.SITE_URL = "https://cards.example.com"
    table, _ann, bob = table_holding_a_seat(make_user, classic, is_private=True)
    due = table.created_at + NOTICE_DUE

    assert emails_sent(due - SECOND) == 0  # one watching the lobby takes it before then
    assert emails_sent(due) == 1
    assert emails_sent(due + SECOND) == 0 and emails_sent(due + DAY * SECOND) == 0  # once for the seat
    (message,) = mail.outbox
    assert message.to == [bob.email]
    assert message.subject == f"ann asks you to a game: Classic #{table.pk}"
    assert f"ann holds a seat for you at Classic #{table.pk} (1 day a move)." in message.body
    assert f"https://cards.example.com/games/{table.pk}/\n" in message.body
    assert table.invite_token not in message.body  # the seat is held for him: no link that lets others in
    assert table.seats.get(reserved_for=bob).invitation_sent_at == due


def take(table: Game, bob: Any, ann: Any) -> None:
    services.game_join(game_id=table.pk, user=bob)


def decline(table: Game, bob: Any, ann: Any) -> None:
    services.game_decline(game_id=table.pk, user=bob)


def start_without_him(table: Game, bob: Any, ann: Any) -> None:
    services.game_start(game_id=table.pk, user=ann)


def creator_leaves(table: Game, bob: Any, ann: Any) -> None:
    services.game_leave(game_id=table.pk, user=ann)


def opted_out(table: Game, bob: Any, ann: Any) -> None:
    bob.notify_by_email = False
    bob.save()


def no_address(table: Game, bob: Any, ann: Any) -> None:
    bob.email = ""
    bob.save()


def deactivated(table: Game, bob: Any, ann: Any) -> None:
    bob.is_active = False
    bob.save()


@pytest.mark.parametrize(
    "meanwhile", [take, decline, start_without_him, creator_leaves, opted_out, no_address, deactivated]
)
def test_nobody_hears_of_a_seat_no_longer_held_for_them_or_who_did_not_ask(
    meanwhile: Callable[[Game, Any, Any], None], make_user, classic
):
    table, ann, bob = table_holding_a_seat(make_user, classic)
    meanwhile(table, bob, ann)
    assert emails_sent(table.created_at + NOTICE_DUE) == 0
    assert not mail.outbox


def test_a_rematch_asks_in_the_persons_own_language(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    wants_emails(ann, bob)
    bob.language = "cs"
    bob.save()
    finished = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], time_limit_seconds=DAY, round_count=1
    )
    for person in (ann, bob):
        services.game_resign(game_id=finished.pk, user=person)
    rematch = services.game_rematch(game_id=finished.pk, user=ann)
    assert rematch.status == Game.Status.OPEN

    assert emails_sent(rematch.created_at + NOTICE_DUE) == 1  # to bob only: ann asked
    (message,) = mail.outbox
    assert message.to == [bob.email]
    names = {"name": "ann", "game": "Klasická", "number": rematch.pk}
    with translation.override("cs"):
        czech = gettext("%(name)s asks you to a rematch: %(game)s #%(number)s") % names
        assert gettext("Hello %(name)s,") % {"name": "bob"} in message.body
    assert message.subject == czech and czech != f"ann asks you to a rematch: Klasická #{rematch.pk}"


def test_a_mail_server_that_refuses_is_logged_and_the_invitation_not_sent_again(make_user, classic, caplog):
    table, _ann, _bob = table_holding_a_seat(make_user, classic)
    due = table.created_at + NOTICE_DUE
    with mock.patch("games.services.notices.send_mail", side_effect=OSError("connection refused")) as send:
        assert emails_sent(due) == 1  # the clock's pass goes on
        assert emails_sent(due + NOTICE_DUE) == 0
    assert send.call_count == 1
    assert "could not send the invitation to game" in caplog.text


def test_a_seat_taken_between_the_list_and_the_claim_is_not_told(make_user, classic, monkeypatch):
    """The claim checks the seat's own row again: a seat taken after the pass read its list is left alone."""
    table, _ann, bob = table_holding_a_seat(make_user, classic)
    real_update = QuerySet.update

    def taken_first(queryset: QuerySet, **fields: Any) -> int:
        if "invitation_sent_at" in fields:  # the claim
            take(table, bob, None)
        return real_update(queryset, **fields)

    monkeypatch.setattr(QuerySet, "update", taken_first)
    assert emails_sent(table.created_at + NOTICE_DUE) == 0 and not mail.outbox


def test_the_invitation_names_who_held_the_seat_only_while_they_sit_there(make_user, classic):
    """Ann holds a seat for Bob, Carl sits down, Ann leaves: Carl is the table's creator now, and the
    invitation said "carl asks you to a game", from someone who never asked Bob (a review)."""
    table, ann, bob = table_holding_a_seat(make_user, classic)
    services.game_join(game_id=table.pk, user=make_user("carl"))
    services.game_leave(game_id=table.pk, user=ann)
    table.refresh_from_db()
    assert table.status == Game.Status.OPEN and table.created_by.username == "carl"

    assert emails_sent(table.created_at + NOTICE_DUE) == 1
    (message,) = mail.outbox
    assert message.subject == f"A seat is held for you: Classic #{table.pk}"
    assert f"A seat is held for you at Classic #{table.pk} (1 day a move)." in message.body
    assert "carl" not in message.body and "ann" not in message.body


@pytest.mark.django_db(transaction=True)
def test_seats_held_before_the_clock_sent_invitations_count_as_told():
    """The migration that brings the invitations marks the seats already held: the clock's first pass after it
    would otherwise e-mail every invitation waiting, however old (a review)."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    accounts = ("accounts", "0008_invitation_notices")
    before, after = [("games", "0021_seat_reserved_for"), accounts], [("games", "0022_invitation_notices"), accounts]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        old = executor.loader.project_state(before).apps
        user_model, variant_model = old.get_model("accounts", "User"), old.get_model("games", "Variant")
        ann, bob = (user_model.objects.create(username=name, username_key=name) for name in ("ann", "bob"))
        variant = variant_model.objects.create(slug="old", name="Old")
        table = old.get_model("games", "Game").objects.create(
            variant=variant, seat_count=2, created_by=ann, version=1, rules={}, shuffle_version=1, seed=1
        )
        seat_model = old.get_model("games", "Seat")
        seat_model.objects.create(game=table, position=0, user=ann)
        held = seat_model.objects.create(game=table, position=1, reserved_for=bob)

        executor = MigrationExecutor(connection)
        executor.migrate(after)
        new = executor.loader.project_state(after).apps.get_model("games", "Seat")
        assert new.objects.get(pk=held.pk).invitation_sent_at is not None
        assert new.objects.get(pk=held.pk).reserved_by_id == ann.pk  # (held by the table's creator then)
        assert new.objects.get(game_id=table.pk, position=0).invitation_sent_at is None  # a seat taken: not held
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_a_person_who_left_the_language_to_the_browser_is_asked_in_the_one_they_read(make_user, classic):
    """Found by a tester: signed up with a Croatian browser, every page in Croatian, the profile's language
    left to the browser, and the invitation came in English."""
    table, _ann, bob = table_holding_a_seat(make_user, classic)
    browser = Client(HTTP_ACCEPT_LANGUAGE="hr")
    browser.force_login(bob)
    assert browser.get("/").status_code == 200
    assert emails_sent(table.created_at + NOTICE_DUE) == 1
    (message,) = mail.outbox
    with translation.override("hr"):
        croatian = gettext("%(name)s asks you to a game: %(game)s #%(number)s") % {
            "name": "ann",
            "game": gettext("Classic"),
            "number": table.pk,
        }
    assert message.subject == croatian and croatian != f"ann asks you to a game: Classic #{table.pk}"


def test_one_person_tells_another_of_one_invitation_a_day_however_often_they_hold_a_seat(make_user, classic):
    """Found by a tester: a table made naming someone, left (called off) and made again held a seat anew
    each time, and each was mailed five minutes later: one account could have the site mail anyone, with
    its chosen name in the subject, about 575 times a day.  The next waits for the day to pass, still held;
    another person's invitation still goes out."""
    table, ann, bob = table_holding_a_seat(make_user, classic)
    first_due = table.created_at + NOTICE_DUE
    assert emails_sent(first_due) == 1
    services.game_leave(game_id=table.pk, user=ann)  # alone at it: called off, bob's seat let go
    with mock.patch("django.utils.timezone.now", return_value=first_due + SECOND):
        again = services.game_create(creator=ann, variant=classic, seat_count=2, time_limit_seconds=DAY, invited=[bob])
    assert emails_sent(again.created_at + NOTICE_DUE) == 0
    assert again.seats.get(reserved_for=bob).invitation_sent_at is None  # it waits, still held
    cid = make_user("cid")
    other = services.game_create(creator=cid, variant=classic, seat_count=2, time_limit_seconds=DAY, invited=[bob])
    assert emails_sent(other.created_at + NOTICE_DUE) == 1  # one a day from each person, not from all
    assert emails_sent(first_due + DAY * SECOND - SECOND) == 0
    assert emails_sent(first_due + DAY * SECOND + SECOND) == 1  # a day after ann's first: told
    assert [m.subject.split(" asks")[0] for m in mail.outbox] == ["ann", "cid", "ann"]


def test_a_second_rematch_of_the_same_day_is_told(make_user, classic):
    """A review: the limit of one a day held back the second rematch two friends asked for in a day, for ever.
    A rematch asks the people of a game just played: it is always told."""
    ann, bob = make_user("ann"), make_user("bob")
    wants_emails(bob)
    rematches = []
    for _ in range(2):
        game = services.game_create(
            creator=ann, variant=classic, seat_count=2, invitees=[bob], time_limit_seconds=DAY, round_count=1
        )
        for person in (ann, bob):
            services.game_resign(game_id=game.pk, user=person)
        rematches.append(services.game_rematch(game_id=game.pk, user=ann))
    assert emails_sent(rematches[-1].created_at + NOTICE_DUE) == 2
    assert [m.to for m in mail.outbox] == [[bob.email], [bob.email]]


def test_a_person_away_hears_of_the_seat_held_for_them_once_back(make_user, classic):
    """Found by a tester: turn notices wait while a person is away, and invitations, from anyone, did not."""
    table, _ann, bob = table_holding_a_seat(make_user, classic)
    services.away_declare(user=bob, days=3, now=table.created_at)
    due = table.created_at + NOTICE_DUE
    assert emails_sent(due) == 0 and table.seats.get(reserved_for=bob).invitation_sent_at is None
    assert emails_sent(due + DAY * SECOND) == 0  # still away the next day
    services.away_come_back(user=bob, now=due + DAY * SECOND)
    assert emails_sent(due + (DAY + 1) * SECOND) == 1  # back: the next pass tells him
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [bob.email]
