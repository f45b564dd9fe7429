"""The turns' clocks stop while the database is out of reach (``games.services.outage``): a turn that ran out
while nobody could move is given its time back, not played by the bot and counted against its person.

Time is injected (``now=``) or frozen, never slept on; the outage is a clock pass whose first query raises what a
lost PostgreSQL connection raises.
"""

from __future__ import annotations

import datetime
import logging
from unittest import mock

import pytest
from django.db import OperationalError, connection

from games import services
from games.models import Move
from games.services import outage

from .conftest import logged_in, post_action
from .test_clock import frozen_at, person_to_move, two_player_game

pytestmark = pytest.mark.django_db

SECOND = datetime.timedelta(seconds=1)


def pass_that_loses_the_database(at: datetime.datetime, error: Exception | None = None) -> None:
    """A clock pass at ``at`` whose every query fails with ``error``: by default what psycopg raises, wrapped by
    Django, when PostgreSQL is down."""
    error = error or OperationalError("connection to server failed: Connection refused")

    def down(*args: object) -> None:
        raise error

    with connection.execute_wrapper(down), pytest.raises(type(error)):
        services.clock_tick(now=at)


def test_a_turn_that_ran_out_while_the_database_was_down_gets_back_the_time_it_had_left(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    seat = person_to_move(game)
    start, deadline, version = game.turn_started_at, game.turn_deadline, game.version
    services.clock_tick(now=start + 5 * SECOND)  # the last whole pass: 25 s of the turn left
    pass_that_loses_the_database(start + 7 * SECOND)
    pass_that_loses_the_database(start + 40 * SECOND)  # (the outage began at the first)
    back = start + 100 * SECOND

    done = services.clock_tick(now=back)

    assert done["paused"] == 1 and done["timeouts"] == 0
    game.refresh_from_db()
    assert game.current_seat == seat.position and not Move.objects.filter(game=game).exists()
    assert game.turn_deadline == back + 25 * SECOND
    assert game.turn_deadline - game.turn_started_at == deadline - start  # a discard after the draw keeps it
    assert game.version > version and game.only_notices_since(version)  # the page hears; its move is not stale
    seat.refresh_from_db()
    assert seat.timeouts_in_row == 0

    client = logged_in(seat.user)
    with frozen_at(back + 20 * SECOND):  # the page's move, sent again from the table it showed before
        assert post_action(client, game, {"type": "draw", "source": "stock"}, version=version).status_code == 302
    assert Move.objects.filter(game=game, by_bot=False).count() == 1


def test_the_turn_then_runs_out_as_any_other(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    seat = person_to_move(game)
    start = game.turn_started_at
    services.clock_tick(now=start + 29 * SECOND)  # a second left
    pass_that_loses_the_database(start + 31 * SECOND)
    back = start + 60 * SECOND
    assert services.clock_tick(now=back)["paused"] == 1
    game.refresh_from_db()
    assert game.turn_deadline == back + outage.GRACE  # time for the page to come back, at least

    assert services.clock_tick(now=back + outage.GRACE - SECOND)["timeouts"] == 0
    assert services.clock_tick(now=back + outage.GRACE)["timeouts"] == 1
    seat.refresh_from_db()
    assert seat.timeouts_in_row == 1


def test_a_clock_that_did_not_run_is_no_outage(make_user, classic):
    """A stopped clock process: people could move all along, and the turn it finds out of time is played."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    seat = person_to_move(game)
    services.clock_tick(now=game.turn_started_at + 5 * SECOND)
    done = services.clock_tick(now=game.turn_started_at + 100 * SECOND)
    assert done["paused"] == 0 and done["timeouts"] == 1
    seat.refresh_from_db()
    assert seat.timeouts_in_row == 1


def test_a_pass_that_fails_for_another_reason_is_no_outage(make_user, classic):
    """A bug in the clock is not the site being down: the moves could be made."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    services.clock_tick(now=game.turn_started_at + 5 * SECOND)
    pass_that_loses_the_database(game.turn_started_at + 7 * SECOND, error=RuntimeError("a bug"))
    done = services.clock_tick(now=game.turn_started_at + 100 * SECOND)
    assert done["paused"] == 0 and done["timeouts"] == 1


def test_only_the_turns_the_outage_ran_out_are_touched(make_user, classic):
    live, ann, bob = two_player_game(make_user, classic, limit=30)
    slow, cy, dee = two_player_game_of(make_user, classic, ("cy", "dee"), limit=24 * 3600)
    start = live.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)
    pass_that_loses_the_database(start + 7 * SECOND)
    slow_version = slow.version
    assert services.clock_tick(now=start + 100 * SECOND)["paused"] == 1
    slow.refresh_from_db()
    assert slow.version == slow_version  # a day's turn keeps its deadline: a minute of it is not worth a notice
    # The next clock to pass (another process's, or this one's) finds nothing more to give back.
    outage.memory.lost_database(start + 5 * SECOND)
    live.refresh_from_db()
    version = live.version
    assert services.clock_tick(now=start + 101 * SECOND)["paused"] == 0
    live.refresh_from_db()
    assert live.version == version


def test_a_bot_turn_is_not_given_time(make_user, classic):
    """A bot's turn has no time limit to give back: it is played after the answer, or by the clock."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    game.seats.filter(position=game.current_seat).update(bot_level="easy")  # as a takeover leaves it
    services.clock_tick(now=game.turn_started_at + 5 * SECOND)
    pass_that_loses_the_database(game.turn_started_at + 7 * SECOND)
    assert services.clock_tick(now=game.turn_started_at + 100 * SECOND)["paused"] == 0


def two_player_game_of(make_user, classic, names, *, limit):
    first, second = make_user(names[0]), make_user(names[1])
    game = services.game_create(
        creator=first, variant=classic, seat_count=2, time_limit_seconds=limit, seed=4, options={"rounds": [3]}
    )
    services.game_join(game_id=game.pk, user=second)
    game.refresh_from_db()
    return game, first, second


@pytest.mark.parametrize("runner", ["gameclock", "in-server"])
def test_a_clock_that_lost_the_database_logs_one_line_a_pass_not_a_traceback(runner, caplog):
    from games.live import clock
    from games.management.commands.gameclock import Command

    with mock.patch.object(services.away, "settle_due", side_effect=OperationalError("server closed the connection")):
        with caplog.at_level(logging.WARNING):
            if runner == "gameclock":
                Command().clock_pass(once=False)
            else:
                assert clock.one_pass() is None
    assert [(r.levelno, r.exc_info) for r in caplog.records] == [(logging.WARNING, None)]
    assert "server closed the connection" in caplog.records[0].getMessage()
    assert outage.memory.down_since is not None  # and its next whole pass gives the turns back


def test_a_pass_that_loses_the_database_again_after_giving_time_back_freezes_those_turns_again(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)  # 25 s left
    pass_that_loses_the_database(start + 7 * SECOND)
    back = start + 100 * SECOND
    with mock.patch.object(services.away, "settle_due", side_effect=OperationalError("gone again")):
        with pytest.raises(OperationalError):
            services.clock_tick(now=back)  # the time given back, then the database lost again
    game.refresh_from_db()
    assert game.turn_deadline == back + 25 * SECOND

    again = back + 60 * SECOND
    assert services.clock_tick(now=again)["paused"] == 1
    game.refresh_from_db()
    assert game.turn_deadline == again + 25 * SECOND  # still the 25 s it had when the site went down
