"""A game's status moves only along ``Game.STATUS_PIPELINE``, through ``Game.set_status``."""

from __future__ import annotations

import datetime
import itertools

import pytest

from games.models import Game, InvalidGameStatus

Status = Game.Status
NOW = datetime.datetime(2026, 3, 1, 12, 0, tzinfo=datetime.UTC)
ALLOWED = {
    (Status.OPEN, Status.ACTIVE),
    (Status.OPEN, Status.ABORTED),
    (Status.ACTIVE, Status.FINISHED),
    (Status.ACTIVE, Status.ABORTED),
}
FORBIDDEN = sorted(set(itertools.product(Status.values, Status.values)) - ALLOWED)


def game_in(status: str) -> Game:
    """An unsaved game part-way through a turn (set_status never saves: the caller does)."""
    return Game(
        pk=7,
        status=status,
        variant_name="Classic",
        rules={},
        seed=1,
        seat_count=2,
        current_seat=1,
        turn_deadline=NOW + datetime.timedelta(days=1),
    )


def fields_of(game: Game) -> dict:
    return {f.attname: getattr(game, f.attname) for f in Game._meta.concrete_fields}


def test_the_pipeline_names_every_status_and_only_the_allowed_moves():
    assert set(Game.STATUS_PIPELINE) == set(Status.values)
    assert {(old, new) for old, targets in Game.STATUS_PIPELINE.items() for new in targets} == ALLOWED


def test_an_open_game_becomes_active_with_its_start_time():
    game = game_in(Status.OPEN)
    changed = game.set_status(Status.ACTIVE, now=NOW)
    assert game.status == Status.ACTIVE and game.in_play
    assert game.started_at == NOW and game.finished_at is None
    assert set(changed) == {"status", "started_at"}


@pytest.mark.parametrize("old, new", [(Status.ACTIVE, Status.FINISHED), (Status.ACTIVE, Status.ABORTED)])
def test_an_active_game_ends_with_its_finish_time_and_no_turn_left(old, new):
    game = game_in(old)
    changed = game.set_status(new, now=NOW)
    assert game.status == new
    assert game.finished_at == NOW and game.current_seat is None and game.turn_deadline is None
    assert set(changed) == {"status", "finished_at", "current_seat", "turn_deadline"}


def test_an_open_game_may_be_aborted():
    game = game_in(Status.OPEN)
    game.set_status(Status.ABORTED, now=NOW)
    assert game.is_aborted and game.finished_at == NOW and game.started_at is None


def test_set_status_takes_the_clock_time_when_no_time_is_given():
    game = game_in(Status.OPEN)
    game.set_status(Status.ACTIVE)
    assert game.started_at is not None


@pytest.mark.parametrize("old, new", FORBIDDEN)
def test_a_forbidden_move_raises_and_changes_nothing(old, new):
    game = game_in(old)
    before = fields_of(game)
    with pytest.raises(InvalidGameStatus) as refused:
        game.set_status(new, now=NOW)
    assert fields_of(game) == before
    assert repr(old) in str(refused.value) and repr(new) in str(refused.value)


def test_an_unknown_status_is_refused():
    game = game_in(Status.ACTIVE)
    with pytest.raises(InvalidGameStatus):
        game.set_status("paused", now=NOW)
    assert game.status == Status.ACTIVE
