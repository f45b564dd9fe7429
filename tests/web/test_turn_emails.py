"""Turn e-mails are plain text: names reach the reader exactly as they were typed.

Names hold whatever people and staff type into them; the e-mail templates must not
HTML-escape them (a plain-text mail shows ``&lt;`` literally), and a line break in a
name must not break the subject header.
"""

from __future__ import annotations

import datetime

import pytest
from django.core import mail
from django.utils import translation

from games import services
from games.models import Game

from .conftest import NOTICE_DUE

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
TRICKY = "<b>&\"' Tom & Jerry's"


def async_game(make_user, classic, *, variant_name: str) -> tuple[Game, object]:
    """A one-day-per-move game; the person to move opted in to e-mails and has a tricky display name."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, time_limit_seconds=DAY, seed=3, options={"rounds": [3, 4]}
    )
    services.game_join(game_id=game.pk, user=bob)
    Game.objects.filter(pk=game.pk).update(variant_name=variant_name)
    game.refresh_from_db()
    assert game.current_seat is not None
    mover = game.seats.get(position=game.current_seat).user
    assert mover is not None
    mover.display_name = TRICKY
    mover.notify_by_email = True
    mover.save()
    return game, mover


def test_the_turn_email_carries_names_verbatim(make_user, classic):
    game, mover = async_game(make_user, classic, variant_name=TRICKY)
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["emails"] == 1
    (message,) = mail.outbox
    assert message.to == [mover.email]
    assert message.subject == f"Your turn in {TRICKY} #{game.pk}"
    assert f"Hello {TRICKY}," in message.body
    assert f"It is your turn in {TRICKY} #{game.pk}." in message.body
    assert message.content_subtype == "plain" and not message.alternatives
    for escaped in ("&lt;", "&gt;", "&amp;", "&quot;", "&#x27;", "&#39;"):
        assert escaped not in message.subject and escaped not in message.body, escaped


def test_the_reminder_carries_names_verbatim_too(make_user, classic):
    game, _mover = async_game(make_user, classic, variant_name=TRICKY)
    at_80 = game.turn_started_at + datetime.timedelta(seconds=DAY * 0.8)
    assert services.clock_tick(now=at_80)["emails"] == 1
    (message,) = mail.outbox
    assert message.subject == f"Reminder: your move in {TRICKY} #{game.pk}"
    assert f"Your move in {TRICKY} #{game.pk} is still waiting" in message.body
    assert "&lt;" not in message.body and "&amp;" not in message.body


def test_a_line_break_in_a_name_keeps_the_subject_on_one_line(make_user, classic):
    game, _mover = async_game(make_user, classic, variant_name="Two\nlines\r\nBcc: x@example.com")
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["emails"] == 1
    (message,) = mail.outbox
    assert message.subject == f"Your turn in Two lines Bcc: x@example.com #{game.pk}"
    assert message.recipients() == [message.to[0]]
    message.message()  # builds the headers: a line break in the subject would raise BadHeaderError


@pytest.mark.parametrize("language", ["hr", "af", "cs"])
def test_a_built_in_variant_is_named_in_the_recipients_language(make_user, classic, language):
    """The turn e-mail and the reminder name the game as its table does, not by the stored English."""
    game, mover = async_game(make_user, classic, variant_name="Classic")
    mover.language = language
    mover.save(update_fields=["language"])
    with translation.override(language):
        label = game.variant_label
    assert label != "Classic"
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["emails"] == 1
    assert services.clock_tick(now=game.turn_started_at + datetime.timedelta(seconds=DAY * 0.8))["emails"] == 1
    for message in mail.outbox:  # (Czech numbers a game "č. 5", not "#5")
        assert label in message.subject and label in message.body
        assert "Classic" not in message.subject + message.body
