"""Move-by-move analysis of a finished game, in pure Python (no Django), beside the bots.

- :mod:`.walk`: the game's decisions replayed from its move log, each with
  the seat's own view and the round's public history at that moment;
- :mod:`.evaluate`: the candidate actions of a decision and their expected
  points for the rest of the round (the one place that calls the search:
  ``games.bots.sampling`` and ``games.bots.rollout``);
- :mod:`.grading`: one decision analysed as stored, turns graded
  (inaccuracy, mistake, blunder), accuracy;
- :mod:`.explain`: why a flagged turn was flagged (the hand, and what the
  choice made and the better one leave).

The site stores and shows the results (``games.services.analysis``,
``games.history.analysis``); ``bench/analysis.py`` times a whole game.
"""

from __future__ import annotations

import hashlib

from .evaluate import MAX_CANDIDATES, SAMPLES, candidates, choice_samples
from .explain import EXPLAIN_VERSION, explain, worst_decision
from .grading import (
    BLUNDER,
    GRADES,
    INACCURACY,
    MISTAKE,
    MORE_DEALS,
    NOISE,
    SETTLING_ROUNDS,
    Turn,
    accuracy,
    analyse_decision,
    confident_cost,
    decision_seed,
    grade,
    most_deals,
    noise_decides_grade,
    players_turns,
    round_lost,
    summary,
    turns,
)
from .walk import Decision, LoggedMove, decisions, extend_history

__all__ = [
    "VERSION",
    "EXPLAIN_VERSION",
    "SAMPLES",
    "MAX_CANDIDATES",
    "INACCURACY",
    "MISTAKE",
    "BLUNDER",
    "GRADES",
    "MORE_DEALS",
    "NOISE",
    "SETTLING_ROUNDS",
    "Decision",
    "LoggedMove",
    "Turn",
    "accuracy",
    "analyse_decision",
    "analysis_seed",
    "candidates",
    "choice_samples",
    "confident_cost",
    "decision_seed",
    "decisions",
    "explain",
    "extend_history",
    "grade",
    "most_deals",
    "noise_decides_grade",
    "players_turns",
    "round_lost",
    "summary",
    "turns",
    "worst_decision",
]

#: Goes up whenever the figures of an analysis would change (the search, the samples, the candidates):
#: an analysis stored under another version is made again when asked for.
# 5: where the noise alone decides a choice's grade, more deals settle it;
# 4: in a redemption last turn the rollouts discard as that turn is scored (after laying off);
# 3: a choice is charged only beyond the estimates' noise; a round loses at most what it scored.
VERSION = 5


def analysis_seed(game_id: int, version: int = VERSION) -> str:
    """The seed of a game's analysis: fixed by the game (and the analysis version), so it is reproducible."""
    return hashlib.sha256(f"threethirteen/analysis/v{version}/game/{game_id}".encode()).hexdigest()[:32]
