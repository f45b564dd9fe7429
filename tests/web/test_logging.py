"""What the ``games`` loggers record at INFO: game finishes, timeouts (and takeovers), moderation.

The lines are written once the change commits (``django_capture_on_commit_callbacks`` runs the
on-commit callbacks of these transactional-free tests), so a change that is rolled back logs nothing.
"""

from __future__ import annotations

import logging

import pytest
from django.db import transaction

from games import services
from games.models import Game

pytestmark = pytest.mark.django_db

REASON = "Testing the log."


def messages(caplog, logger: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == logger and r.levelno == logging.INFO]


def test_the_settings_send_the_apps_loggers_at_info_to_the_console():
    from django.conf import settings

    assert settings.LOGGING["loggers"]["games"]["level"] == "INFO"
    assert settings.LOGGING["loggers"]["accounts"]["level"] == "INFO"
    assert logging.getLogger("games.services.turns").isEnabledFor(logging.INFO)
    assert logging.getLogger("accounts").isEnabledFor(logging.INFO)


def test_a_game_finish_is_logged_with_the_game_id(make_user, classic, caplog, django_capture_on_commit_callbacks):
    caplog.set_level(logging.INFO, logger="games")
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]})
    assert messages(caplog, "games.services.turns") == []
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game_id=game.pk, user=ann)  # the bots play the round to its end
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert messages(caplog, "games.services.turns") == [
        f"game {game.pk} finished: total scores by seat {[s.total_score for s in game.seats.order_by('position')]}"
    ]


def test_timeouts_and_the_takeover_are_logged_with_game_seat_and_user(
    two_player_game, caplog, django_capture_on_commit_callbacks
):
    caplog.set_level(logging.INFO, logger="games")
    game, ann, bob = two_player_game
    sleeper = game.seats.get(position=game.current_seat)
    while not game.seats.get(pk=sleeper.pk).bot_level:
        with django_capture_on_commit_callbacks(execute=True):
            services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
        game.refresh_from_db()
    logged = messages(caplog, "games.services.clock")
    mine = [m for m in logged if f"seat {sleeper.position} (user {sleeper.user_id}) timed out" in m]
    assert [m.startswith(f"game {game.pk}: turn ") for m in mine] == [True] * 3
    assert mine[-1].endswith("(3 in a row); the bot played it")
    assert logged[-1] == (
        f"game {game.pk}: a bot keeps seat {sleeper.position}; user {sleeper.user_id} has left after timeouts"
    )


def test_each_moderation_action_is_logged_with_the_moderator(
    two_player_game, make_user, classic, role_client, caplog, django_capture_on_commit_callbacks
):
    caplog.set_level(logging.INFO, logger="games")
    _client, moderator = role_client("moderator")
    _client, superuser = role_client("superuser")
    game, ann, bob = two_player_game
    carl = make_user("carl")
    waiting = services.game_create(creator=carl, variant=classic, seat_count=3)
    with django_capture_on_commit_callbacks(execute=True):
        services.seat_hand_to_bot(game_id=game.pk, position=1, moderator=moderator, reason=REASON)
        services.game_abort(game_id=game.pk, moderator=moderator, reason=REASON)
        services.user_deactivate(user_id=carl.pk, moderator=superuser, reason=REASON)
    seat1 = game.seats.get(position=1)
    assert messages(caplog, "games.services.moderation") == [
        f"moderator {moderator.pk} handed seat 1 of game {game.pk} (user {seat1.user_id}) to a medium bot",
        f"moderator {moderator.pk} aborted game {game.pk}",
        f"moderator {superuser.pk} deactivated user {carl.pk}",
        f"moderator {superuser.pk}: seat_vacate in game {waiting.pk} for deactivated user {carl.pk}",
    ]


def test_a_change_that_is_rolled_back_logs_nothing(
    two_player_game, role_client, caplog, django_capture_on_commit_callbacks
):
    caplog.set_level(logging.INFO, logger="games")
    _client, moderator = role_client("moderator")
    game, _ann, _bob = two_player_game
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        services.game_abort(game_id=game.pk, moderator=moderator, reason=REASON)
        raise RuntimeError("something later in the same transaction fails")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert messages(caplog, "games.services.moderation") == []
    with django_capture_on_commit_callbacks(execute=True):
        services.game_abort(game_id=game.pk, moderator=moderator, reason=REASON)
    assert messages(caplog, "games.services.moderation") == [f"moderator {moderator.pk} aborted game {game.pk}"]
