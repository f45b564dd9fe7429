"""``games.integrity.log_replay_problem``: a game whose log replays to its state passes; any tampering is named."""

from __future__ import annotations

import pytest

from games import bots, services
from games.engine import GameState, view
from games.integrity import log_replay_problem
from games.models import Game, Move

pytestmark = pytest.mark.django_db


def play_moves(game: Game, people: dict, count: int) -> None:
    """``count`` moves chosen by the easy bot for whoever's turn it is, through the service (as a POST does)."""
    for _ in range(count):
        game.refresh_from_db()
        assert game.state is not None and game.current_seat is not None
        action = bots.choose_action(view(GameState.from_dict(game.state), game.current_seat), "easy")
        services.game_play(
            game_id=game.pk, user=people[game.current_seat], action=action.to_dict(), expected_version=game.version
        )


@pytest.fixture
def played(two_player_game):
    game, ann, bob = two_player_game
    play_moves(game, {0: ann, 1: bob}, 6)
    game.refresh_from_db()
    assert game.moves.count() == 6
    return game


def test_a_game_played_through_the_service_replays_to_its_state(played):
    assert log_replay_problem(played) is None


def test_a_game_dealt_with_no_moves_yet_replays_to_its_state(two_player_game):
    game, _ann, _bob = two_player_game
    assert log_replay_problem(game) is None


def test_a_move_missing_from_the_log_is_found(played):
    played.moves.get(seq=6).delete()
    assert "replay to a state other than the stored one" in log_replay_problem(played)


def test_a_move_logged_twice_is_found(played):
    last = played.moves.get(seq=6)
    Move.objects.create(game=played, seq=7, seat=last.seat, action=last.action, round_number=last.round_number)
    problem = log_replay_problem(played)
    assert problem is not None and f"game {played.pk}" in problem


def test_a_gap_in_the_numbering_is_found(played):
    played.moves.filter(seq=6).update(seq=8)
    assert "numbered 1-5, 8, not 1 to 6" in log_replay_problem(played)


def test_a_state_that_moved_on_without_its_move_in_the_log_is_found(played, make_user):
    people = {seat.position: seat.user for seat in played.seats.all()}
    play_moves(played, people, 1)
    played.moves.get(seq=7).delete()  # the snapshot has the 7th move, the log not
    assert "replay to a state other than the stored one" in log_replay_problem(played)
