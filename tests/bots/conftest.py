"""The bot tests search with a small expert budget: the same code paths, a few rollouts a decision."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games.bots import expert

#: Enough to search every kind of decision (several candidates, several deals, a truncated rollout).
SMALL = expert.Budget(rollouts=4, min_samples=2, discards=3, policy="greedy", cycles=1)


@pytest.fixture(autouse=True)
def small_expert_budget(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(expert, "BUDGET", SMALL)
    yield
