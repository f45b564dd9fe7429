"""A mail server that fails or says nothing: the notice is recorded once, and the clock goes on.

The turn e-mails go out from the clock's pass, after the timeouts it plays: a mail server that does not
answer must not hold that pass (nor the next ones) for long, or the turns of live games would wait.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from unittest import mock

import pytest
from django.core import mail

from games import services
from games.models import Game, TurnNotice

from .conftest import NOTICE_DUE

pytestmark = pytest.mark.django_db

DAY = 24 * 3600


def game_of_one_who_wants_emails(make_user, classic) -> Game:
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, time_limit_seconds=DAY, seed=3, options={"rounds": [3, 4]}
    )
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    for person in (ann, bob):
        person.notify_by_email = True
        person.save()
    return game


def test_a_mail_server_that_refuses_is_logged_and_the_notice_is_not_sent_again(make_user, classic, caplog):
    game = game_of_one_who_wants_emails(make_user, classic)
    due = game.turn_started_at + NOTICE_DUE
    with mock.patch("games.services.notices.send_mail", side_effect=OSError("connection refused")) as send:
        with caplog.at_level(logging.ERROR, logger="games.services.notices"):
            assert services.clock_tick(now=due)["emails"] == 1
        assert services.clock_tick(now=due + NOTICE_DUE)["emails"] == 0  # recorded: not tried at every pass
    assert send.call_count == 1 and TurnNotice.objects.filter(game=game).count() == 1
    assert "could not send the turn notice" in caplog.text


class SilentMailServer:
    """Accepts connections on loopback and never says a word (a mail server that hangs)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _address = self.listener.accept()
            except OSError:
                return
            self.connections.append(connection)

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        self.listener.close()


@pytest.mark.slow  # waits EMAIL_TIMEOUT (10 s)
def test_a_mail_server_that_never_answers_holds_the_clock_only_briefly(make_user, classic, settings):
    """Found by a tester: with no EMAIL_TIMEOUT the SMTP connection waited for ever for the server's
    greeting, so one hung mail server stopped the clock for good: no timeout was played in any game."""
    game = game_of_one_who_wants_emails(make_user, classic)
    server = SilentMailServer()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
    release = threading.Timer(60, server.close)  # without a timeout the send waits until this lets it go
    release.start()
    try:
        began = time.monotonic()
        done = services.clock_tick(now=game.turn_started_at + NOTICE_DUE)
        took = time.monotonic() - began
    finally:
        release.cancel()
        server.close()
    assert done["emails"] == 1 and not mail.outbox
    assert took < 30, f"the clock's pass waited {took:.0f} s for the mail server"


def test_a_slow_mail_server_holds_a_pass_a_few_seconds_and_the_next_passes_send_the_rest(make_user, classic):
    """Found by a tester: every due notice was sent in the one pass, so with a mail server taking its
    EMAIL_TIMEOUT per message, twenty due notices held the clock (and the timeouts of live games) for
    minutes.  A pass now sends for SECONDS_PER_PASS at most; each notice still goes out exactly once."""
    games = []
    for number in range(3):
        ann, bob = make_user(f"ann{number}"), make_user(f"bob{number}")
        game = services.game_create(
            creator=ann, variant=classic, seat_count=2, time_limit_seconds=DAY, seed=3, options={"rounds": [3]}
        )
        services.game_join(game_id=game.pk, user=bob)
        for person in (ann, bob):
            person.notify_by_email = True
            person.save()
        game.refresh_from_db()
        games.append(game)
    due = max(game.turn_started_at for game in games) + NOTICE_DUE
    clock = [1000.0]

    def slow_send(*args, **kwargs):
        clock[0] += 10  # each message takes the mail server's whole EMAIL_TIMEOUT
        return 1

    with (
        mock.patch("games.services.notices.send_mail", side_effect=slow_send) as send,
        mock.patch("games.services.notices.time.monotonic", side_effect=lambda: clock[0]),
    ):
        sent = [services.clock_tick(now=due)["emails"] for _pass in range(4)]
    assert sent == [1, 1, 1, 0]
    assert send.call_count == 3
    assert [TurnNotice.objects.filter(game=game).count() for game in games] == [1, 1, 1]
