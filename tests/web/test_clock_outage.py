"""The turns' clocks stop while the database is out of reach (``games.services.outage``): a turn that ran out
while nobody could move is given its time back, not played by the bot and counted against its person.

Time is injected (``now=``) or frozen, never slept on; the outage is a clock pass whose first query raises what a
lost PostgreSQL connection raises.
"""

from __future__ import annotations

import datetime
import logging
from unittest import mock

import psycopg
import pytest
import time_machine
from django.core.cache import cache
from django.db import OperationalError, connection

from games import services
from games.models import Game, Move
from games.services import outage

from .conftest import logged_in, post_action
from .test_clock import frozen_at, person_to_move, two_player_game

pytestmark = pytest.mark.django_db

SECOND = datetime.timedelta(seconds=1)


def database_down(*args: object) -> None:
    """A query of a database that cannot be reached (``connection.execute_wrapper``): what psycopg raises, wrapped
    by Django, when PostgreSQL is down."""
    raise OperationalError("connection to server failed: Connection refused")


def pass_that_loses_the_database(at: datetime.datetime) -> None:
    """A clock pass at ``at`` whose every query fails: the database is down."""
    with connection.execute_wrapper(database_down), pytest.raises(OperationalError):
        services.clock_tick(now=at)


def pass_that_fails_with(at: datetime.datetime, error: Exception) -> None:
    """A clock pass at ``at`` that fails with ``error`` while the database answers."""
    with mock.patch.object(services.away, "settle_due", side_effect=error), pytest.raises(type(error)):
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
    pass_that_fails_with(game.turn_started_at + 7 * SECOND, RuntimeError("a bug"))
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


@pytest.mark.django_db(transaction=True)  # (the in-server clock's pass closes the connection it found, as a request)
@pytest.mark.parametrize("runner", ["gameclock", "in-server", "gameclock's analyses", "in-server analyses"])
def test_a_clock_that_lost_the_database_logs_one_line_a_pass_not_a_traceback(runner, caplog):
    from games.live import clock
    from games.management.commands.gameclock import Command

    with connection.execute_wrapper(database_down), caplog.at_level(logging.WARNING):
        if runner == "gameclock":
            Command().clock_pass(once=False)
        elif runner == "in-server":
            assert clock.one_pass() is None
        elif runner == "gameclock's analyses":
            Command().analysis_pass(1.0, once=False)
        else:
            assert clock.analysis_pass(1.0) == 0
    assert [(r.levelno, r.exc_info) for r in caplog.records] == [(logging.WARNING, None)]
    assert "Connection refused" in caplog.records[0].getMessage()
    if "analyses" not in runner:
        assert outage.memory.down_since is not None  # and its next whole pass gives the turns back


def test_a_pass_that_loses_the_database_again_after_giving_time_back_freezes_those_turns_again(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)  # 25 s left
    pass_that_loses_the_database(start + 7 * SECOND)
    back = start + 100 * SECOND
    lost = {"again": False}

    def down_again(execute, *args):
        if lost["again"]:
            database_down()
        return execute(*args)

    def settle_as_it_goes(**kwargs):
        lost["again"] = True  # the time given back, then the database lost again
        database_down()

    with connection.execute_wrapper(down_again), mock.patch.object(services.away, "settle_due", settle_as_it_goes):
        with pytest.raises(OperationalError):
            services.clock_tick(now=back)
    game.refresh_from_db()
    assert game.turn_deadline == back + 25 * SECOND

    again = back + 60 * SECOND
    assert services.clock_tick(now=again)["paused"] == 1
    game.refresh_from_db()
    assert game.turn_deadline == again + 25 * SECOND  # still the 25 s it had when the site went down


def test_a_failure_while_the_database_answers_is_no_outage(make_user, classic):
    """A deadlock, a statement timeout or a lock refused is a lost connection's kind of error, but people can move
    through it: the clock must not stop their turns (a review froze a 30 s turn for minutes with one)."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    services.clock_tick(now=game.turn_started_at + 5 * SECOND)
    pass_that_fails_with(game.turn_started_at + 7 * SECOND, OperationalError("deadlock detected"))
    assert outage.memory.down_since is None
    done = services.clock_tick(now=game.turn_started_at + 100 * SECOND)
    assert done["paused"] == 0 and done["timeouts"] == 1


def test_two_clocks_that_saw_the_outage_give_a_turn_its_time_back_once(make_user, classic, monkeypatch):
    """Each clock remembers the outage in its own process: the second to pass finds the turn given back (a review
    saw a turn with 1 s left get 15 s from one clock, then its whole 30 s from the other)."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    other = outage.Memory()  # the other process's clock, which passed a second later and lost the database too
    other.passed(start + 30 * SECOND)
    other.lost_database(start + 32 * SECOND)
    services.clock_tick(now=start + 29 * SECOND)  # 1 s left
    pass_that_loses_the_database(start + 31 * SECOND)
    back = start + 60 * SECOND
    assert services.clock_tick(now=back)["paused"] == 1
    game.refresh_from_db()
    deadline, version = game.turn_deadline, game.version
    assert deadline == back + outage.GRACE

    monkeypatch.setattr(outage, "memory", other)
    assert services.clock_tick(now=back + 2 * SECOND)["paused"] == 0
    game.refresh_from_db()
    assert (game.turn_deadline, game.version) == (deadline, version)


@pytest.mark.parametrize("restarted", ["while the database is down", "once it is back"])
def test_a_clock_restarted_after_the_outage_began_learns_of_it_from_the_shared_cache(make_user, classic, restarted):
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)
    pass_that_loses_the_database(start + 7 * SECOND)
    outage.memory.forget()  # the process is restarted
    if restarted == "while the database is down":
        pass_that_loses_the_database(start + 40 * SECOND)
    back = start + 100 * SECOND
    assert services.clock_tick(now=back)["paused"] == 1
    game.refresh_from_db()
    assert game.turn_deadline == back + 25 * SECOND  # the time it had when the first clock lost the database
    assert outage.memory.down_since is None and cache.get(outage.SHARED_KEY) is None  # forgotten once given


def test_one_game_that_cannot_be_given_its_time_keeps_no_other_from_theirs(make_user, classic, caplog):
    first, *_ = two_player_game(make_user, classic, limit=30)
    second, *_ = two_player_game_of(make_user, classic, ("cy", "dee"), limit=30)
    start = max(first.turn_started_at, second.turn_started_at)
    services.clock_tick(now=start + 5 * SECOND)
    pass_that_loses_the_database(start + 7 * SECOND)
    real = outage.announce

    def broken_for_the_first(game):
        if game.pk == first.pk:
            raise RuntimeError("a bug at one table")
        real(game)

    with mock.patch.object(outage, "announce", side_effect=broken_for_the_first) as announced:
        done = services.clock_tick(now=start + 100 * SECOND)
    assert done["paused"] == 1 and "a bug at one table" in caplog.text
    assert {call.args[0].pk for call in announced.call_args_list} == {first.pk, second.pk}  # the pages hear
    second.refresh_from_db()
    assert second.turn_deadline > start + 100 * SECOND
    assert outage.memory.down_since is None  # the outage is over: the broken game is not retried every pass


def test_the_pages_move_sent_again_before_the_clocks_next_pass_is_not_late(make_user, classic):
    """The database is back, and the page's move, sent again, comes before the clock's next pass: the turn ran
    out while the clock could not play it, so the move is the person's (it was refused as late, "the bot plays
    this turn for you", and then the clock gave the turn back)."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    seat = person_to_move(game)
    start = game.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)
    pass_that_loses_the_database(start + 7 * SECOND)
    client = logged_in(seat.user)
    back = start + 100 * SECOND
    with frozen_at(back):
        assert post_action(client, game, {"type": "draw", "source": "stock"}).status_code == 302
    game.refresh_from_db()
    assert game.current_seat == seat.position and Move.objects.filter(game=game, by_bot=False).count() == 1

    assert services.clock_tick(now=back + SECOND)["paused"] == 1  # the rest of the turn: its time back
    game.refresh_from_db()
    assert game.turn_deadline == back + SECOND + 25 * SECOND
    outage.memory.forget()
    cache.delete(outage.SHARED_KEY)
    with frozen_at(game.turn_deadline + SECOND):  # no outage to give back: late is late again
        response = post_action(client, game, {"type": "discard", "card": hand_card(game, seat)})
    assert response.status_code == 409 and "Your time for this turn ran out" in response.content.decode()


def hand_card(game, seat):
    from games import selectors

    return next(face["code"] for face in selectors.game_table(game=game, user=seat.user)["hand"] if face["can_discard"])


def test_a_database_that_hung_is_an_outage_too(make_user, classic):
    """A stopped server or a stalled disk raises nothing: the pass's first query simply answers late (a fault
    tester froze PostgreSQL for 40 s, and the pass then played the turn as timed out)."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)  # 25 s left
    hung = iter([1000.0, 1000.0 + outage.HUNG_AFTER + 35])  # the first query's start and end
    with mock.patch.object(outage.time, "monotonic", side_effect=lambda: next(hung, 2000.0)):
        done = services.clock_tick(now=start + 45 * SECOND)
    assert done["paused"] == 1 and done["timeouts"] == 0
    game.refresh_from_db()
    assert game.turn_deadline == start + 45 * SECOND + 25 * SECOND


def test_a_prompt_database_is_no_outage(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)
    prompt = iter([1000.0, 1000.0 + outage.HUNG_AFTER - 1])
    with mock.patch.object(outage.time, "monotonic", side_effect=lambda: next(prompt, 2000.0)):
        done = services.clock_tick(now=start + 45 * SECOND)
    assert done["paused"] == 0 and done["timeouts"] == 1


def test_the_time_given_back_counts_from_when_the_database_answered(make_user, classic):
    """The pass waited for a connection (the pool tries again each second while the database comes back): the
    15 s are counted from its answer, not from the pass's start (a fault tester was left 5 s of them)."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 29 * SECOND)  # 1 s left
    pass_that_loses_the_database(start + 31 * SECOND)
    back = start + 60 * SECOND
    with time_machine.travel(back, tick=False) as traveller:
        waited, calls = 10 * SECOND, []

        def wait_for_a_connection():
            if not calls:  # the first time: the connection comes 10 s later (every query asks again)
                traveller.shift(waited)
            calls.append(1)

        with mock.patch.object(outage.connection, "ensure_connection", side_effect=wait_for_a_connection):
            assert services.clock_tick()["paused"] == 1
    game.refresh_from_db()
    assert game.turn_deadline == back + waited + outage.GRACE


def test_a_second_outage_at_the_pass_after_a_give_back_is_given_back_too(make_user, classic):
    """A restart that flaps: the database comes back, the clock gives the turn its time back (a moment after its
    pass began, in real time), and the next pass loses the database again.  The turn was skipped as paid, and
    the bot played it (a review)."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 29 * SECOND)
    pass_that_loses_the_database(start + 31 * SECOND)
    back = start + 60 * SECOND
    with time_machine.travel(back, tick=False) as traveller:
        shift = mock.patch.object(outage.connection, "ensure_connection", side_effect=lambda: traveller.shift(0.3))
        with shift:
            assert services.clock_tick()["paused"] == 1
    pass_that_loses_the_database(back + 2 * SECOND)  # down again, at the very next pass
    done = services.clock_tick(now=back + 40 * SECOND)
    assert done["paused"] == 1 and done["timeouts"] == 0


def connection_refused() -> OperationalError:
    """What Django raises when psycopg cannot reach PostgreSQL: its OperationalError, with no SQLSTATE."""
    error = OperationalError("connection failed: Connection refused")
    error.__cause__ = psycopg.OperationalError("connection failed: Connection refused")
    return error


def deadlock() -> OperationalError:
    error = OperationalError("deadlock detected")
    error.__cause__ = psycopg.errors.DeadlockDetected("deadlock detected")
    return error


@pytest.mark.parametrize("kind", ["connection refused", "deadlock"])
def test_a_lost_connection_is_an_outage_even_if_the_database_answers_a_moment_later(make_user, classic, kind):
    """The database came back while the clock asked again (a short restart): a connection refused is still an
    outage.  A deadlock is none, whatever the second question says (a review)."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)
    pass_that_fails_with(start + 7 * SECOND, connection_refused() if kind == "connection refused" else deadlock())
    done = services.clock_tick(now=start + 40 * SECOND)
    assert (done["paused"], done["timeouts"]) == ((1, 0) if kind == "connection refused" else (0, 1))


def test_a_database_that_answers_the_second_question_only_late_was_down(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    services.clock_tick(now=start + 5 * SECOND)
    # The pass's first query, prompt; then the question asked again after the failure, and its late answer.
    late = iter([1000.0, 1000.1, 1000.2, 1000.2 + outage.HUNG_AFTER + 1])
    with mock.patch.object(outage.time, "monotonic", side_effect=lambda: next(late, 2000.0)):
        pass_that_fails_with(start + 7 * SECOND, OperationalError("server closed the connection unexpectedly"))
    assert services.clock_tick(now=start + 40 * SECOND)["paused"] == 1


def test_a_database_slow_every_few_passes_does_not_keep_a_turn_alive(make_user, classic):
    """A hang gives back the time it took, not 15 s at least: a first query slower than HUNG_AFTER every seventh
    pass kept a 30 s turn alive for two minutes (a review).  Here the turn runs out, later than 30 s."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    timeouts = []
    for number in range(60):  # a pass every 2 s for two minutes
        slow = iter([1000.0, 1000.0 + outage.HUNG_AFTER + 0.5] if number % 7 == 6 else [1000.0, 1000.1])
        with mock.patch.object(outage.time, "monotonic", side_effect=lambda: next(slow, 2000.0)):  # noqa: B023
            if services.clock_tick(now=start + 2 * number * SECOND)["timeouts"]:
                timeouts.append(2 * number)
    assert timeouts and 30 < timeouts[0] < 60, timeouts


def test_a_turn_already_out_of_time_before_the_outage_is_not_given_time_nor_a_late_move(make_user, classic):
    """Its time ran out before the clock's last whole pass (whose timeout failed, say): the outage took nothing
    from it."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    seat = person_to_move(game)
    start = game.turn_started_at
    outage.memory.passed(start + 35 * SECOND)  # the deadline (start + 30 s) was before it
    pass_that_loses_the_database(start + 37 * SECOND)
    with frozen_at(start + 50 * SECOND):
        response = post_action(logged_in(seat.user), game, {"type": "draw", "source": "stock"})
    assert response.status_code == 409 and "Your time for this turn ran out" in response.content.decode()
    done = services.clock_tick(now=start + 60 * SECOND)
    assert (done["paused"], done["timeouts"]) == (0, 1)


@pytest.mark.parametrize("deadline", [2, 100])  # out of time before the outage; moved on past the window
def test_the_give_back_looks_again_under_the_lock(make_user, classic, deadline):
    """The list of turns to give back was read; the turn's deadline is another by the time its row is locked."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    start = game.turn_started_at
    version = game.version
    Game.objects.filter(pk=game.pk).update(turn_deadline=start + deadline * SECOND)
    assert outage._give_back(game.pk, down_since=start + 5 * SECOND, now=start + 40 * SECOND) == 0
    game.refresh_from_db()
    assert game.version == version and game.turn_deadline == start + deadline * SECOND


def test_a_player_away_keeps_the_deadline_their_time_away_gives(make_user, classic):
    """A game over days whose player holds their clock (time away): the outage gives nothing (their return moves
    the deadline on, by the time away, ``away.settle_due``)."""
    game, ann, bob = two_player_game_of(make_user, classic, ("cy", "dee"), limit=12 * 3600)
    mover = person_to_move(game).user
    start = game.turn_started_at
    Game.objects.filter(pk=game.pk).update(turn_deadline=start + 60 * SECOND)  # near its end, as an outage comes
    with frozen_at(start + SECOND):
        services.away_declare(user=mover, days=1)
    services.clock_tick(now=start + 5 * SECOND)
    pass_that_loses_the_database(start + 7 * SECOND)
    assert services.clock_tick(now=start + 70 * SECOND)["paused"] == 0


def test_the_clock_waits_a_few_seconds_for_a_pooled_connection_not_the_servers_ten():
    from games.management.commands.gameclock import POOL_WAIT, wait_less_for_a_connection

    pooled = {"ENGINE": "django.db.backends.postgresql", "OPTIONS": {"pool": {"min_size": 2, "timeout": 10.0}}}
    wait_less_for_a_connection(pooled)
    assert pooled["OPTIONS"]["pool"] == {"min_size": 2, "timeout": POOL_WAIT} and POOL_WAIT < 10
    unpooled = {"ENGINE": "django.db.backends.sqlite3", "OPTIONS": {}}
    wait_less_for_a_connection(unpooled)
    assert unpooled == {"ENGINE": "django.db.backends.sqlite3", "OPTIONS": {}}


def test_a_pass_that_gave_time_back_says_so_in_the_clocks_log():
    nothing = {"called_off": 0, "timeouts": 0, "emails": 0, "pushes": 0, "away": 0, "bots": 0, "paused": 0}
    assert services.pass_summary(nothing) == ""
    line = services.pass_summary({**nothing, "paused": 2})
    assert "0 timed-out turn(s) played" in line and "2 turn(s) given back the time an outage took" in line
