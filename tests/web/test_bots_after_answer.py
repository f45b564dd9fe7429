"""The bots' turns after a person's move are played after the answer, and never lost or played twice.

In a request the services save the person's move and hand the bots' turns to
``after_response.later`` (``services.turns.play_bots``); the site's ASGI
handler runs them once the answer is sent (``tests/live/test_http_handler.py``
drives that through the application). Here the collecting is done by hand,
as the handler does it, to check what each step leaves behind: the move
saved with a bot to play, the work that plays the bots, a refused move that
leaves none, the work run twice or after the game was called off, and the
clock finding bot turns that a stopped server never ran.
"""

from __future__ import annotations

import datetime
import threading
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone

from games import services
from games.integrity import log_replay_problem
from games.models import Game, Seat
from tests.races import race
from tests.web.conftest import engine_view
from threethirteen_site import after_response

pytestmark = pytest.mark.django_db(transaction=True)

SECOND = datetime.timedelta(seconds=1)


@pytest.fixture
def game(make_user, classic) -> Game:
    """Ann against two hard bots, at her turn."""
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, bot_level="hard", seed=11, options={"rounds": [3, 4]}
    )
    assert game.status == Game.Status.ACTIVE and game.current_seat == 0
    return game


def ann(game: Game) -> Any:
    return game.seats.get(position=0).user


def first_card(game: Game) -> str:
    hand = engine_view(game, 0).hand
    assert hand
    return hand[0].code


def end_anns_turn(game: Game) -> list[Any]:
    """Ann draws from the stock and throws her first card, in a request: the work it left until after."""
    services.game_play(
        game_id=game.pk, user=ann(game), action={"type": "draw", "source": "stock"}, expected_version=game.version
    )
    card = first_card(game)
    with after_response.collecting() as work:
        services.game_play(
            game_id=game.pk, user=ann(game), action={"type": "discard", "card": card}, expected_version=game.version
        )
    game.refresh_from_db()
    return work


def test_in_a_request_the_persons_move_is_saved_and_the_bots_play_after_it(game):
    turn = game.turn_number
    work = end_anns_turn(game)
    # The answer would show ann's move with the first bot to play: nothing of the bots' yet.
    assert game.current_seat == 1 and game.turn_number == turn + 1
    assert not game.moves.filter(by_bot=True).exists()
    assert len(work) == 1
    version = game.version

    assert after_response.run(work) == []  # done in one piece: the round goes on at ann's turn
    game.refresh_from_db()
    assert game.current_seat == 0 and game.turn_number == turn + 3  # both bots played a whole turn
    assert set(game.moves.filter(by_bot=True).values_list("seat", flat=True)) == {1, 2}
    assert game.version > version
    assert log_replay_problem(game) is None


def test_a_move_that_is_refused_leaves_no_work(game):
    stale = game.version - 1
    with after_response.collecting() as work, pytest.raises(services.GameError):
        services.game_play(
            game_id=game.pk, user=ann(game), action={"type": "draw", "source": "stock"}, expected_version=stale
        )
    assert work == []


def test_a_move_after_which_it_is_the_persons_turn_again_leaves_no_work(game):
    with after_response.collecting() as work:
        services.game_play(
            game_id=game.pk, user=ann(game), action={"type": "draw", "source": "stock"}, expected_version=game.version
        )
    assert work == []  # a draw: still ann's turn
    game.refresh_from_db()
    assert game.current_seat == 0


def test_the_work_run_twice_plays_the_bots_once(game):
    work = end_anns_turn(game)
    after_response.run(work)
    game.refresh_from_db()
    version, moves = game.version, game.moves.count()

    after_response.run(work)
    assert services.play_waiting_bots(game.pk) == (0, False)  # ann's turn: nothing for a bot to play
    game.refresh_from_db()
    assert (game.version, game.moves.count()) == (version, moves)


def test_a_game_called_off_before_the_work_runs_is_left_alone(game):
    work = end_anns_turn(game)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ABORTED)
    after_response.run(work)
    assert not game.moves.filter(by_bot=True).exists()


def test_work_that_fails_is_logged_and_the_next_piece_still_runs(game, caplog):
    done = []

    def broken() -> None:
        raise RuntimeError("a bug in one piece")

    assert after_response.run([broken, lambda: done.append("next")]) == []
    assert done == ["next"]
    assert "work left until after an answer failed" in caplog.text


def test_outside_a_request_the_bots_play_at_once(game):
    assert after_response.later(lambda: None) is False  # nothing collecting: the caller does it now
    services.game_play(
        game_id=game.pk, user=ann(game), action={"type": "draw", "source": "stock"}, expected_version=game.version
    )
    card = first_card(game)
    played = services.game_play(
        game_id=game.pk, user=ann(game), action={"type": "discard", "card": card}, expected_version=game.version
    )
    assert played.current_seat == 0 and game.moves.filter(by_bot=True).exists()


def test_the_clock_plays_bot_turns_a_stopped_server_left_waiting(game):
    end_anns_turn(game)  # the work is dropped: the server stopped before it ran it
    started = game.updated_at
    assert game.current_seat == 1

    assert services.clock_tick(now=started + services.BOTS_WAITING_AFTER - SECOND)["bots"] == 0
    game.refresh_from_db()
    assert game.current_seat == 1  # a moment ago: the server may still be running it

    assert services.clock_tick(now=started + services.BOTS_WAITING_AFTER)["bots"] == 1
    game.refresh_from_db()
    assert game.current_seat == 0 and game.moves.filter(by_bot=True).exists()
    assert services.clock_tick(now=timezone.now() + services.BOTS_WAITING_AFTER)["bots"] == 0
    assert log_replay_problem(game) is None


def test_the_clock_leaves_a_persons_waiting_turn_to_the_deadline(game):
    game.refresh_from_db()
    assert game.current_seat == 0
    assert services.clock_tick(now=game.updated_at + services.BOTS_WAITING_AFTER)["bots"] == 0
    assert not game.moves.exists()


def test_the_clock_and_the_work_after_the_answer_at_once_play_the_bots_once(game):
    work = end_anns_turn(game)
    late = game.updated_at + services.BOTS_WAITING_AFTER

    def after_answer() -> str:
        after_response.run(work)
        return "after"

    # Started together (the clock skips a row it finds held, on PostgreSQL, so it never queues on the lock).
    outcomes = race([after_answer, lambda: services.clock_tick(now=late)["bots"]])
    game.refresh_from_db()
    assert sorted(outcomes, key=str) in ([0, "after"], [1, "after"])
    # Whoever came second found ann's turn, or (the clock) the row held: each bot played its turn once.
    bot_moves = list(game.moves.filter(by_bot=True).values_list("seat", "action__type"))
    assert sorted(bot_moves) == [(1, "discard"), (1, "draw"), (2, "discard"), (2, "draw")]
    assert game.current_seat == 0
    assert log_replay_problem(game) is None


def test_a_seat_handed_to_a_bot_counts_as_a_bot_for_the_clock(game):
    """A person whose seat a bot took over (timeouts, resignation) is played like any bot seat."""
    end_anns_turn(game)
    seat = game.seats.get(position=0)
    Seat.objects.filter(pk=seat.pk).update(bot_level="hard", bot_name="Zed")
    late = game.updated_at + services.BOTS_WAITING_AFTER
    assert services.clock_tick(now=late)["bots"] == 1
    game.refresh_from_db()
    assert game.moves.filter(by_bot=True, seat=0).exists()


def test_while_the_bot_thinks_the_table_says_so_and_shows_no_clock(game, client):
    end_anns_turn(game)  # the answer's table: the first bot to play
    client.force_login(ann(game))
    page = client.get(f"/games/{game.pk}/table/").content.decode()
    name = game.seats.get(position=1).name
    assert f"{name} (bot) is thinking…" in page
    assert "Move before" not in page and "Waiting for" not in page
    full = client.get(f"/games/{game.pk}/").content.decode()
    assert "data-bot-thinking" in full  # live.js re-checks the table while it is there
    refresh = f'<noscript><meta http-equiv="refresh" content="2; url=/games/{game.pk}/"></noscript>'
    assert refresh in full  # and without JavaScript, by the table's own address
    client.cookies["django_language"] = "hr"
    assert f"{name} (bot) razmišlja…" in client.get(f"/games/{game.pk}/table/").content.decode()


def test_a_persons_turn_still_shows_whom_the_table_waits_for_and_their_clock(make_user, classic, client):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=21)
    waiting = bob if game.current_seat == 0 else ann
    mover = game.seats.get(position=game.current_seat)
    client.force_login(waiting)
    page = client.get(f"/games/{game.pk}/table/").content.decode()
    assert f"Waiting for {mover.name}." in page and "is thinking" not in page
    # The deadline is told as the mover's, not as an order to the one waiting (a play-test read it so).
    assert "The move is due before" in page and "Move before" not in page
    client.force_login(mover.user)
    assert "Move before" in client.get(f"/games/{game.pk}/table/").content.decode()
    full = client.get(f"/games/{game.pk}/").content.decode()
    assert "data-bot-thinking" not in full and 'http-equiv="refresh"' not in full


def test_a_bots_turn_past_its_deadline_is_no_timeout_the_clock_plays_it_as_that_bot(game, monkeypatch):
    end_anns_turn(game)  # dropped, and the clock finds it only once the turn's deadline has passed
    levels = []
    real = services.turns.bots.choose_action

    def spy(seat_view, level="medium", history=()):
        levels.append(level)
        return real(seat_view, level, history)

    monkeypatch.setattr(services.turns.bots, "choose_action", spy)
    done = services.clock_tick(now=game.turn_deadline + SECOND)
    assert done["timeouts"] == 0 and done["bots"] == 1
    assert set(levels) == {"hard"} and Seat.objects.filter(game=game, timeouts_in_row__gt=0).count() == 0
    with pytest.raises(services.GameError) as refused:
        services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline + SECOND)
    assert refused.value.code == "not_due"  # nor can a timeout be asked for a bot's turn


def test_a_game_its_people_left_is_played_a_round_at_a_time_each_round_queued_behind_other_work(game):
    with after_response.collecting() as work:
        services.game_resign(game_id=game.pk, user=ann(game))  # at ann's turn: no person left at the table
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and not game.moves.exists() and len(work) == 1

    rest = after_response.run(work)  # the first round, to its end; the next handed back
    game.refresh_from_db()
    assert len(rest) == 1 and game.status == Game.Status.ACTIVE
    assert game.round_results.values("round_number").distinct().count() == 1
    assert after_response.run(rest) == []  # the second and last round
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert log_replay_problem(game) is None


def test_the_clock_leaves_a_game_that_changed_since_it_made_its_list(game):
    end_anns_turn(game)
    before_the_change = game.updated_at - SECOND  # the list was made before the last round was played
    slice_ = services.play_waiting_bots(game.pk, skip_locked=True, unchanged_since=before_the_change)
    assert slice_ == (0, False)
    game.refresh_from_db()
    assert game.current_seat == 1 and not game.moves.filter(by_bot=True).exists()


def test_a_bot_that_fails_is_tried_again_after_the_wait_not_at_every_pass(game, monkeypatch, caplog):
    end_anns_turn(game)
    calls = []

    def broken(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("a bug in the bot")

    monkeypatch.setattr(services.turns.bots, "choose_action", broken)
    late = game.updated_at + services.BOTS_WAITING_AFTER
    assert services.clock_tick(now=late)["bots"] == 0 and len(calls) == 1
    assert "could not play their waiting turns" in caplog.text
    game.refresh_from_db()
    assert game.current_seat == 1 and not game.moves.filter(by_bot=True).exists()  # nothing half-played

    services.clock_tick(now=late + 2 * SECOND)  # the next pass: not tried again yet
    assert len(calls) == 1
    services.clock_tick(now=late + services.BOTS_WAITING_AFTER)
    assert len(calls) == 2


def test_the_clock_never_plays_the_bots_of_a_game_the_after_answer_work_holds(game, monkeypatch, caplog):
    """While the after-answer thread holds a game (its bots thinking), the clock does not play it too.

    On PostgreSQL it passes by the held row without waiting and goes on with the other games. SQLite has
    one write lock and no row locks: there the clock waits for it, and once the bots have played and let
    go it leaves the game, which changed after it made its list.
    """
    end_anns_turn(game)
    turn = game.turn_number
    late = game.updated_at + services.BOTS_WAITING_AFTER
    listed = threading.Event()
    list_games = services.clock.bots_left_waiting

    def listing(since):
        games = list_games(since)
        listed.set()
        return games

    monkeypatch.setattr(services.clock, "bots_left_waiting", listing)
    rescued: list[int] = []
    clock = threading.Thread(target=lambda: rescued.append(race([lambda: services.clock_tick(now=late)["bots"]])[0]))
    with transaction.atomic():
        Game.objects.select_for_update().get(pk=game.pk)  # as the after-answer thread holds it
        clock.start()
        assert listed.wait(timeout=30), "the clock never listed the waiting games"
        clock.join(timeout=0.5 if connection.vendor == "sqlite" else 30)
        if connection.vendor == "postgresql":
            assert not clock.is_alive() and rescued == [0]  # it passed by, the row still held
        else:
            assert clock.is_alive()  # waiting for the write lock
        assert services.play_waiting_bots(game.pk).moves == 4  # the after-answer work: two bots draw and throw
    clock.join(timeout=60)
    assert not clock.is_alive() and rescued == [0]
    assert "could not play their waiting turns" not in caplog.text  # not a second log refused by the database
    game.refresh_from_db()
    assert game.current_seat == 0 and game.turn_number == turn + 2  # each bot played one turn, once
    assert log_replay_problem(game) is None


def in_another_thread(call: Any) -> Any:
    """``call()`` on a thread of its own, with its own database connection: its result, or what it raised."""
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except Exception as error:
            outcome.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert outcome, "the other thread never finished"
    return outcome[0]


def test_the_bots_think_with_nothing_locked_so_other_moves_go_on_meanwhile(game, monkeypatch):
    """While a bot chooses its move, another request can lock the game (PostgreSQL: its row, at once) or
    take the write lock (SQLite: every table's moves need it)."""
    work = end_anns_turn(game)
    choose = services.turns.bots.choose_action
    meanwhile: list[Any] = []

    def lock_it() -> bool:
        with transaction.atomic():  # on SQLite: BEGIN IMMEDIATE, the one write lock
            Game.objects.select_for_update(nowait=True).get(pk=game.pk)  # on PostgreSQL: the game's row
        return True

    def thinking(*args: Any, **kwargs: Any) -> Any:
        if not meanwhile:
            meanwhile.append(in_another_thread(lock_it))
        return choose(*args, **kwargs)

    monkeypatch.setattr(services.turns.bots, "choose_action", thinking)
    assert after_response.run(work) == []
    assert meanwhile == [True]
    game.refresh_from_db()
    assert game.current_seat == 0 and log_replay_problem(game) is None


def test_a_game_that_changes_while_its_bots_think_has_them_think_again(game, monkeypatch):
    """Ann resigns while the first bot thinks: the moves worked out for two bots and her turn are dropped,
    nothing is logged and the work is queued again (not thought again holding the lock); then, her seat a
    bot's now, the three play the round out."""
    work = end_anns_turn(game)
    round_number = engine_view(game, 0).round
    choose = services.turns.bots.choose_action
    seats_asked: list[int] = []

    def resign() -> Any:
        with after_response.collecting():  # as in a request: her seat's bot plays after the answer
            return services.game_resign(game_id=game.pk, user=ann(game))

    def thinking(seen: Any, *args: Any, **kwargs: Any) -> Any:
        if not seats_asked:
            assert isinstance(in_another_thread(resign), Game)
        seats_asked.append(seen.seat)
        return choose(seen, *args, **kwargs)

    monkeypatch.setattr(services.turns.bots, "choose_action", thinking)
    again = after_response.run(work)
    game.refresh_from_db()
    assert len(again) == 1 and 0 not in seats_asked and not game.moves.filter(by_bot=True).exists()
    rest = after_response.run(again)
    game.refresh_from_db()
    assert 0 in seats_asked  # her seat's bot was asked: the bots thought again, with the seat a bot's
    assert game.moves.filter(seat=0, by_bot=True).exists()
    assert game.round_results.filter(round_number=round_number).count() == 3  # the round played out
    assert log_replay_problem(game) is None
    assert len(rest) == 1  # the next round, queued behind other tables' work


def test_the_bots_after_a_timed_out_turn_think_with_nothing_locked(game, monkeypatch):
    """The clock plays Ann's timed-out turn in its transaction; the bots after it think outside it."""
    turn = game.turn_number
    choose = services.turns.bots.choose_action
    meanwhile: list[Any] = []

    def lock_it() -> bool:
        with transaction.atomic():
            Game.objects.select_for_update(nowait=True).get(pk=game.pk)
        return True

    def thinking(seen: Any, level: str, *args: Any, **kwargs: Any) -> Any:
        if seen.seat != 0 and not meanwhile:  # a bot of the table, not the takeover bot of Ann's turn
            meanwhile.append(in_another_thread(lock_it))
        return choose(seen, level, *args, **kwargs)

    monkeypatch.setattr(services.turns.bots, "choose_action", thinking)
    assert services.clock_tick(now=game.turn_deadline + SECOND)["timeouts"] == 1
    assert meanwhile == [True]
    game.refresh_from_db()
    assert game.current_seat == 0 and game.turn_number == turn + 3  # her turn, then both bots'
    assert game.seats.get(position=0).timeouts_in_row == 1
    assert log_replay_problem(game) is None


def test_work_that_starts_late_is_left_to_think_and_the_clock_does_not_think_it_too(game, monkeypatch):
    """The after-answer thread was busy: the work starts past BOTS_WAITING_AFTER. Once it thinks, the
    clock's pass leaves the game alone instead of working out the same round."""
    work = end_anns_turn(game)
    Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - 2 * services.BOTS_WAITING_AFTER)
    choose = services.turns.bots.choose_action
    threads: set[str] = set()
    clock: list[Any] = []

    def thinking(*args: Any, **kwargs: Any) -> Any:
        first = not threads
        threads.add(threading.current_thread().name)
        if first:  # the clock's pass while the work thinks (once: not again from the clock's own thinking)
            clock.append(in_another_thread(lambda: services.clock_tick(now=timezone.now())["bots"]))
        return choose(*args, **kwargs)

    monkeypatch.setattr(services.turns.bots, "choose_action", thinking)
    assert services.clock.bots_left_waiting(timezone.now() - services.BOTS_WAITING_AFTER) == [game.pk]  # due
    assert after_response.run(work) == []
    assert clock == [0] and threads == {threading.current_thread().name}  # only this thread thought
    game.refresh_from_db()
    assert game.current_seat == 0 and log_replay_problem(game) is None


def test_a_long_round_of_thinking_keeps_its_game_marked_and_the_clock_never_thinks_it_too(game, monkeypatch):
    """A round whose thinking outlasts BOTS_WAITING_AFTER (an all-bot round of experts with big hands): the
    work marks its game changed between the decisions, so a clock pass late in the round leaves it alone."""
    work = end_anns_turn(game)
    monkeypatch.setattr(services.turns, "THINKING_MARK_EVERY", datetime.timedelta(0))  # at every decision
    choose = services.turns.bots.choose_action
    worker = threading.current_thread()
    decisions: list[datetime.datetime] = []  # the game's mark as each of the work's decisions starts
    clock: list[Any] = []

    def thinking(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread() is worker:
            decisions.append(Game.objects.get(pk=game.pk).updated_at)
            if len(decisions) == 2:  # late in the round: a clock pass, the game marked long ago but for the work
                clock.append(in_another_thread(lambda: services.clock_tick(now=timezone.now())["bots"]))
            # each decision "takes" twice the clock's wait: the mark it made is that old when the next starts
            Game.objects.filter(pk=game.pk).update(updated_at=timezone.now() - 2 * services.BOTS_WAITING_AFTER)
        return choose(*args, **kwargs)

    monkeypatch.setattr(services.turns.bots, "choose_action", thinking)
    started = timezone.now()
    assert after_response.run(work) == []
    assert clock == [0]  # the clock played nothing: the work had marked the game as its second decision began
    assert len(decisions) >= 3 and all(mark >= started for mark in decisions)  # each mark renewed by the work
    game.refresh_from_db()
    assert game.current_seat == 0 and log_replay_problem(game) is None


def test_the_thinking_mark_is_renewed_at_most_every_few_seconds_and_a_failed_mark_stops_no_thinking(
    game, monkeypatch, caplog
):
    now = [timezone.now()]
    monkeypatch.setattr(services.turns.timezone, "now", lambda: now[0])
    mark = services.turns._ThinkingMark(game.pk)
    every = services.turns.THINKING_MARK_EVERY

    def marked_at() -> datetime.datetime:
        return Game.objects.get(pk=game.pk).updated_at

    mark()
    first = now[0]
    assert marked_at() == first
    now[0] = first + every - SECOND / 10
    mark()
    assert marked_at() == first  # too soon: no write
    now[0] = first + every
    mark()
    assert marked_at() == now[0]

    class Locked:
        """A query whose update meets a database that refuses it (SQLite's write lock held too long)."""

        def update(self, **fields: Any) -> int:
            raise services.turns.DatabaseError("database is locked")

    monkeypatch.setattr(services.turns.Game.objects, "filter", lambda **kwargs: Locked())
    now[0] += every
    mark()  # logged, not raised: the bots think on
    assert "could not mark game" in caplog.text


def test_a_notice_of_time_away_while_the_bots_think_keeps_their_moves(make_user, classic, monkeypatch):
    """A review: the bots' moves worked out before a new version were thrown away even when that version only
    told the table of someone's time away (nothing they saw had changed), and they waited for the clock."""
    from games.services import turns

    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, bot_level="hard", seed=11,
        time_limit_seconds=24 * 3600, options={"rounds": [3, 4]},
    )  # fmt: skip
    end_anns_turn(game)
    real = turns.plan_bot_turns

    def think_while_ann_goes_away(*args: Any, **kwargs: Any) -> Any:
        plan = real(*args, **kwargs)
        services.away_declare(user=ann, days=1)  # her tables hear of it: a new version
        return plan

    monkeypatch.setattr(turns, "plan_bot_turns", think_while_ann_goes_away)
    version = Game.objects.get(pk=game.pk).version
    assert services.play_waiting_bots(game.pk) == (4, False)  # two bots drew and threw: ann's turn
    assert Game.objects.get(pk=game.pk).version == version + 1 + 4
