"""The engine's tests are pure Python: ``make test-fast`` runs them without Django.

The property tests that play many whole games are marked ``slow`` here (by
name, so that the test modules stay as they are); deselect them with
``-m "not slow"``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SLOW = {
    "test_game_properties.py": {
        "test_random_actions_are_either_legal_or_raise_and_change_nothing",
        "test_random_games_conserve_cards_end_and_score_by_the_rules_and_replay_exactly",
    },
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        path = Path(str(item.path)).resolve()
        if path.parent == HERE and isinstance(item, pytest.Function) and item.originalname in SLOW.get(path.name, ()):
            item.add_marker(pytest.mark.slow)
