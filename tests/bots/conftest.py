"""The bot tests search with a small expert budget: the same code paths, a few deals a decision."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games.bots import expert

#: Enough to search every kind of decision (several candidates, several deals of a few turns).
SMALL = expert.Budget(deals=8, turns=4, discards=3, refine=24, refine_work=2_000)


@pytest.fixture(autouse=True)
def small_expert_budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(expert, "BUDGET", SMALL)
    yield
