"""A move from an out-of-date page is refused in words: what happened, never version numbers."""

from __future__ import annotations

import re

import pytest

from games import services

from .conftest import engine_view, post_action, state_fingerprint

pytestmark = pytest.mark.django_db


def _refusal(response, before, game) -> str:
    assert response.status_code == 409
    assert state_fingerprint(game) == before
    return response.content.decode()


def _a_discard(game, position) -> dict:
    view = engine_view(game, position).to_dict()
    return {"type": "discard", "card": view["hand"][0]}


def test_someone_else_moved_first(table):
    game, mover, waiter, position = table
    seen = game.version
    assert post_action(mover, game, {"type": "draw", "source": "stock"}).status_code == 302
    assert post_action(mover, game, _a_discard(game, position)).status_code == 302
    before = state_fingerprint(game)
    text = _refusal(post_action(waiter, game, {"type": "draw", "source": "stock"}, version=seen), before, game)
    assert "Someone else moved first" in text
    assert "already played" not in text


def test_a_repeated_submission_says_it_was_already_played(table):
    game, mover, _, position = table
    seen = game.version
    assert post_action(mover, game, {"type": "draw", "source": "stock"}).status_code == 302
    before = state_fingerprint(game)
    text = _refusal(post_action(mover, game, {"type": "draw", "source": "stock"}, version=seen), before, game)
    assert "That move was already played" in text
    assert "Someone else" not in text


def test_own_different_move_since_is_not_called_a_repeat_nor_someone_else(table):
    game, mover, _, position = table
    seen = game.version
    assert post_action(mover, game, {"type": "draw", "source": "stock"}).status_code == 302
    before = state_fingerprint(game)
    text = _refusal(post_action(mover, game, _a_discard(game, position), version=seen), before, game)
    assert "The table has changed since your page was loaded" in text
    assert "already played" not in text and "Someone else" not in text


def test_the_refusal_names_no_version_numbers(table):
    game, _, _, position = table
    before = state_fingerprint(game)
    with pytest.raises(services.GameError) as refused:
        services.game_play(
            game_id=game.pk,
            user=game.seats.get(position=position).user,
            action={"type": "draw", "source": "stock"},
            expected_version=game.version + 5,
        )
    assert refused.value.code == "stale_version"
    assert not re.search(r"\d", str(refused.value.message))
    assert "table has changed" in str(refused.value.message)
    assert state_fingerprint(game) == before
