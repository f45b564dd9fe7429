"""What each choice of a decision is worth: the one place the analysis asks the search.

:func:`choice_samples` answers, for a seat's view and the round's public
history, the points of the round for that seat after each candidate action
on each of ``samples`` deals: ``games.bots.rollout`` deals the cards the seat
could not see, consistently with what it had seen (``games.bots.sampling``),
plays each candidate on every deal and the round out to its end with the
hard bot's play at every seat (every candidate meets the same deals: common
random numbers, so the grading compares them deal by deal).

:func:`candidates` picks the few actions worth that work: the one chosen,
and those the expert bot would weigh (the hard bot's choice first: going
out whenever it can, any going out scoring the same; then its next best
discards; a draw from either pile unless one is plainly right).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.bots import expert, hard
from games.bots.position import Position
from games.bots.rollout import Policy, evaluate_samples
from games.engine import Action, SeatView

__all__ = ["MAX_CANDIDATES", "POLICY", "SAMPLES", "candidates", "choice_samples"]

#: Deals of the cards the seat could not see, per decision (every candidate plays each of them).
SAMPLES = 16
#: Actions compared per decision: the chosen one and the best others (a draw has two).
MAX_CANDIDATES = 3
#: The bot whose play finishes the round in every rollout, at every seat.
POLICY: Policy = "hard"


def candidates(
    view: SeatView, history: Sequence[Mapping[str, Any]], chosen: Action, limit: int = MAX_CANDIDATES
) -> list[Action]:
    """The actions to compare at this decision, ``chosen`` first; all of them legal, at most ``limit``.

    The expert bot's candidates (``expert.candidates``: the hard bot's choice
    first, then its next best discards; both draws, unless one is plainly
    right: a wild card on the pile, or a card that could only replace a
    lower leftover card) with the chosen action in front.  A single
    candidate means the choice made was the plain one: nothing to search.
    """
    pos = Position(view)
    legal = list(view.legal_actions)
    found = expert.candidates(pos, legal, hard.Memory(view, history), expert.Budget(discards=max(1, limit - 1)))
    others = [a for a in found if a != chosen]
    return [chosen, *others][: max(limit, 1 if chosen in found else 2)]


def choice_samples(
    view: SeatView,
    history: Sequence[Mapping[str, Any]],
    actions: Sequence[Action],
    seed: str,
    samples: int = SAMPLES,
) -> dict[Action, list[float]]:
    """The seat's points of the round after each of ``actions`` on each of ``samples`` deals (lower is better).

    Every action meets the same deals, in the same order (common random
    numbers), so two actions' lists compare deal by deal.  ``seed`` fixes
    every deal (the same seed, the same figures).  Only ``view`` and
    ``history`` are read: what the seat could see then.
    """
    rows = evaluate_samples(view, history, actions, random.Random(seed), samples, policy=POLICY)
    return dict(zip(actions, rows, strict=True))
