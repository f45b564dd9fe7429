"""The site hands a bot nothing but its seat's view and the round's public events."""

from __future__ import annotations

import pytest

from games import bots, services
from games.engine import GameState, Rules, action_from_dict, apply, new_game, view
from games.models import Game, Move

pytestmark = pytest.mark.django_db


def test_services_give_a_bot_only_its_seats_view_and_public_events(make_user, classic, monkeypatch):
    calls = []
    real = bots.choose_action

    def spy(seat_view, level="medium", history=()):
        calls.append((seat_view, list(history)))
        return real(seat_view, level, history)

    monkeypatch.setattr(bots, "choose_action", spy)
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, bot_level="hard", seed=11, options={"rounds": [3, 4]}
    )
    for _ in range(200):  # ann plays the medium bot's choice until the game ends
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        state = GameState.from_dict(game.state)
        services.game_play(game_id=game.pk, user=ann, action=real(view(state, 0)), expected_version=game.version)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and calls

    # Every move a bot made was chosen from a view of its own seat, and that view
    # is exactly what the engine's visibility policy gives that seat: replaying
    # the log, the view before each bot move equals what the bot was handed.
    state = new_game(Rules.from_dict(game.rules), game.seat_count, game.engine_shuffle())
    handed = iter(calls)
    for move in Move.objects.filter(game=game).order_by("seq"):
        if move.by_bot:
            seat_view, history = next(handed)
            assert seat_view == view(state, move.seat)
            assert "hands" not in seat_view.to_dict() and "stock" not in seat_view.to_dict()
            for event in history:  # public events only: no card drawn from the stock
                assert not (
                    event["kind"] == "drew" and event["data"].get("source") == "stock" and "card" in event["data"]
                )
        state, _ = apply(state, move.seat, action_from_dict(move.action))
    assert next(handed, None) is None
