"""The analyses players asked for run beside the move clock, never in its way.

A pass of the analysis always finishes the decision it began, and one decision can take half a minute
of CPU (``bench/analysis.py``: 26 s at worst in a four-player game).  When the analysis ran inside the
clock's pass, a live game's timed-out turn waited for it, and the separate clock's heartbeat stopped, so
``/healthz`` and the pages said the clock was not running.  Here a decision that does not end until the
test lets it go stands for one of those.
"""

from __future__ import annotations

import asyncio
import datetime
import io
import threading
import time

import pytest
from asgiref.sync import async_to_sync
from django.utils import timezone

from games import services
from games.live import clock, heartbeat
from games.management.commands.gameclock import Command
from games.models import Game

from .test_server_clock import timed_game

pytestmark = pytest.mark.django_db(transaction=True)

#: How long the clock is given to play a timed-out turn before the test fails (its passes are 0.1 s apart).
PATIENCE = 10.0


class Decision:
    def __init__(self) -> None:
        self.begun, self.release = threading.Event(), threading.Event()


@pytest.fixture
def endless_decision(monkeypatch):
    """``services.analysis_tick`` as a decision that runs until ``release`` is set (at the latest when the
    test ends); ``begun`` is set once it began."""
    decision = Decision()

    def one_long_decision(*, seconds: float) -> int:
        decision.begun.set()
        decision.release.wait(60)
        return 1

    monkeypatch.setattr(services, "analysis_tick", one_long_decision)
    yield decision
    decision.release.set()


def run_out_of_time(game: Game) -> None:
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - datetime.timedelta(seconds=1))


def played_for(game: Game) -> bool:
    """Whether the clock has played the turn of the person to move (their timeouts in a row count it)."""
    return game.seats.filter(timeouts_in_row=1).exists()


def test_the_server_process_plays_a_timed_out_turn_while_an_analysis_decision_runs(
    make_user, classic, settings, endless_decision
):
    settings.ANALYSIS_SECONDS_PER_PASS = "0.5"
    game = timed_game(make_user, classic)
    ticking = clock.ServerClock(interval=0.1)

    async def scenario() -> bool:
        ticking.start()
        try:
            assert await asyncio.to_thread(endless_decision.begun.wait, PATIENCE), "the analysis never began"
            await asyncio.to_thread(run_out_of_time, game)
            deadline = time.monotonic() + PATIENCE
            while time.monotonic() < deadline:
                if await asyncio.to_thread(played_for, game):
                    return True
                await asyncio.sleep(0.1)
            return False
        finally:
            endless_decision.release.set()  # the event loop's end waits for the thread it runs on
            await ticking.stop()

    assert async_to_sync(scenario)(), "the timed-out turn waited for the analysis"


def test_the_server_process_runs_no_analysis_when_told_none(settings, monkeypatch):
    settings.ANALYSIS_SECONDS_PER_PASS = "0"
    monkeypatch.setattr(services, "clock_tick", lambda: None)
    ticking = clock.ServerClock(interval=0.1)

    async def scenario() -> list[str]:
        ticking.start()
        try:
            return sorted(task.get_name() for task in ticking.tasks)
        finally:
            await ticking.stop()

    assert async_to_sync(scenario)() == ["gameclock"]


def test_the_gameclock_process_plays_timed_out_turns_and_beats_while_an_analysis_decision_runs(
    make_user, classic, endless_decision
):
    game = timed_game(make_user, classic)
    stopping = threading.Event()
    out = io.StringIO()
    command = threading.Thread(
        target=Command(stdout=out).serve, kwargs={"interval": 0.1, "analysis_seconds": 2.0, "stopping": stopping}
    )
    command.start()
    try:
        assert endless_decision.begun.wait(PATIENCE), "the analysis never began"
        run_out_of_time(game)
        deadline = time.monotonic() + PATIENCE
        while not played_for(game) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert played_for(game), "the timed-out turn waited for the analysis"
        beat = heartbeat.seconds_since_beat()
        assert beat is not None and beat < 1.0  # /healthz: the clock is alive, a decision running or not
        stopping.set()
        command.join(0.5)
        assert command.is_alive()  # a stop waits for the decision in hand, which a restart would lose
    finally:
        endless_decision.release.set()
        stopping.set()
        command.join(PATIENCE)
    assert not command.is_alive()
    assert "1 timed-out turn(s) played" in out.getvalue()


def test_the_analysis_thread_goes_on_after_a_pass_that_failed(monkeypatch):
    """The database gone in the middle of an analysis pass (an error the pass itself does not catch): it is
    logged, and the thread tries again at its next pass while the clock's passes go on."""
    from django.db import OperationalError

    calls, ticks = [], []
    done = threading.Event()

    def failing_once(*, seconds: float) -> int:
        calls.append(seconds)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        done.set()
        return 0

    monkeypatch.setattr(services, "analysis_tick", failing_once)
    nothing_due = {"timeouts": 0, "emails": 0, "pushes": 0, "bots": 0, "paused": 0}
    monkeypatch.setattr(services, "clock_tick", lambda: ticks.append(1) or nothing_due)
    stopping = threading.Event()
    serve = {"interval": 0.05, "analysis_seconds": 1.0, "stopping": stopping}
    command = threading.Thread(target=Command(stdout=io.StringIO()).serve, kwargs=serve)
    command.start()
    try:
        assert done.wait(PATIENCE), "the analysis thread stopped after its failed pass"
    finally:
        stopping.set()
        command.join(PATIENCE)
    assert len(calls) >= 2 and len(ticks) >= 2 and not command.is_alive()
