"""From decisions to a verdict: one decision analysed, turns graded, accuracy.

Every figure is in expected points of the round (lower is better for the
player).  A decision's *cost* is what the choice made adds to the expected
points of the round over the best choice found, counted only beyond the
estimates' noise (:func:`confident_cost`): each option's expected points
come from a few sampled deals, and the lowest of several noisy estimates is
low by chance, so the plain difference would charge the player for noise at
almost every decision, and a round's many small charges would add up to
more than the round scored.  A turn (a draw and the discard after it) costs
the sum of its two decisions; the turn is then graded by fixed thresholds,
stated on the page:

- an **inaccuracy** costs :data:`INACCURACY` points or more,
- a **mistake** :data:`MISTAKE` or more,
- a **blunder** :data:`BLUNDER` or more.

**Accuracy** of a player over a round or the game: each turn with a choice
scores 100% when it costs nothing, 0% when it costs a blunder's worth or
more, and in proportion between; the accuracy is the average of those.

**Points lost** in a round are the sum of its turns' costs, but never more
than the points the player scored in it (:func:`round_lost`): no play
scores less than 0, so no choice can have lost more than that.

A person's verdict counts only the turns they played (:func:`players_turns`):
the turns a bot played for them (their time ran out, or they had left the
game) are the bot's choices, and would otherwise make the accuracy of
someone who resigned in the first round that of the hard bot.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import Action

from .evaluate import MAX_CANDIDATES, SAMPLES, candidates, choice_samples
from .walk import Decision

__all__ = [
    "INACCURACY",
    "MISTAKE",
    "BLUNDER",
    "GRADES",
    "Turn",
    "accuracy",
    "MORE_DEALS",
    "NOISE",
    "SETTLING_ROUNDS",
    "analyse_decision",
    "confident_cost",
    "decision_seed",
    "grade",
    "most_deals",
    "noise_decides_grade",
    "players_turns",
    "round_lost",
    "summary",
    "turns",
]

INACCURACY = 2.0
MISTAKE = 5.0
BLUNDER = 10.0
#: The grades, mildest first, with their thresholds.
GRADES = (("inaccuracy", INACCURACY), ("mistake", MISTAKE), ("blunder", BLUNDER))
#: Standard errors of the estimated difference a choice's extra points must clear before they count.
NOISE = 2.0
#: While the noise alone decides a choice's grade (:func:`noise_decides_grade`), every option meets this
#: many times the first deals again (:data:`SAMPLES` × 3 = 48 more),
MORE_DEALS = 3
#: at most this many times (16 deals, then 64, 112, 160, 208 at most).
SETTLING_ROUNDS = 4


def most_deals(samples: int = SAMPLES) -> int:
    """The most deals a decision's options meet: the first ``samples``, and every settling round's."""
    return samples * (1 + MORE_DEALS * SETTLING_ROUNDS)


def confident_cost(chosen: Sequence[float], best: Sequence[float]) -> float:
    """What the chosen option loses against ``best``, beyond the estimates' noise (0 when within it).

    ``chosen`` and ``best`` are the seat's points on the same deals, one
    each (common random numbers), so the noise of their difference is that
    of the deal-by-deal differences: the cost is their mean less
    :data:`NOISE` standard errors of that mean, and 0 when that is not more
    than 0.  A lower bound of the loss at about 97.5 % confidence: a choice
    is charged only for what it surely lost, and a difference that chance
    could make is not charged at all.  With one deal there is no noise to
    measure: nothing is charged.
    """
    differences = [c - b for c, b in zip(chosen, best, strict=True)]
    n = len(differences)
    if n < 2:
        return 0.0
    mean = sum(differences) / n
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1)
    return max(0.0, mean - NOISE * math.sqrt(variance / n))


def decision_seed(analysis_seed: str, seq: int) -> str:
    """The seed of one decision's sampling: the game's analysis seed and the move's number."""
    return f"{analysis_seed}:{seq}"


def analyse_decision(
    decision: Decision, analysis_seed: str, *, samples: int = SAMPLES, limit: int = MAX_CANDIDATES
) -> dict[str, Any]:
    """One decision as stored: the options compared, the best one, the chosen one's expected points and cost.

    A forced decision (one legal action) is stored without figures; so is a
    plain one (the chosen action is the only candidate), which costs 0.  Where
    the noise of ``samples`` deals alone decides the choice's grade
    (:func:`noise_decides_grade`), every option is played on
    :data:`MORE_DEALS` times as many deals again, up to
    :data:`SETTLING_ROUNDS` times, and the figures are those of all the deals.
    """
    row: dict[str, Any] = {
        "seq": decision.seq,
        "seat": decision.seat,
        "round_number": decision.round_number,
        "turn": decision.turn,
        "kind": decision.kind,
        "by_bot": decision.by_bot,
        "total_before": decision.total_before,
        "chosen": decision.chosen.to_dict(),
        "top": top.code if decision.kind == "draw" and (top := decision.view.discard_top) is not None else "",
        "forced": decision.forced,
        "best": None,
        "options": [],
        "expected": None,
        "best_expected": None,
        "cost": 0.0,
    }
    if decision.forced:
        return row
    actions = candidates(decision.view, decision.history, decision.chosen, limit)
    if len(actions) == 1:  # the plain choice (a wild card taken, say): nothing to weigh it against
        row.update(best=decision.chosen.to_dict())
        return row
    seed = decision_seed(analysis_seed, decision.seq)
    points = choice_samples(decision.view, decision.history, actions, seed, samples=samples)
    costs = {a: sum(row) / len(row) for a, row in points.items()}
    best = min(actions, key=lambda a: (costs[a], actions.index(a)))
    for more in range(1, SETTLING_ROUNDS + 1):  # until the grade rests on the choice, not on chance
        if best == decision.chosen or not noise_decides_grade(points[decision.chosen], points[best]):
            break
        deals = samples * MORE_DEALS
        extra = choice_samples(decision.view, decision.history, actions, f"{seed}:more{more}", samples=deals)
        points = {a: [*points[a], *extra[a]] for a in actions}
        costs = {a: sum(row) / len(row) for a, row in points.items()}
        best = min(actions, key=lambda a: (costs[a], actions.index(a)))
    ranked: list[tuple[float, int, Action]] = sorted((costs[a], i, a) for i, a in enumerate(actions))
    row.update(
        best=best.to_dict(),
        options=[{"action": a.to_dict(), "expected": round(v, 2)} for v, _, a in ranked],
        expected=round(costs[decision.chosen], 2),
        best_expected=round(costs[best], 2),
        cost=round(confident_cost(points[decision.chosen], points[best]), 2),
    )
    return row


def noise_decides_grade(chosen: Sequence[float], best: Sequence[float]) -> bool:
    """Whether the estimates' noise alone keeps a choice from the grade its plain difference earns: the mean
    difference is an inaccuracy's worth or more, and what surely lost (:func:`confident_cost`) grades lower.

    Then every option meets :data:`MORE_DEALS` times as many deals again, until the grades agree or
    :data:`SETTLING_ROUNDS` times (:func:`analyse_decision`), and the best is the best on all of them: on
    the first deals
    alone, a choice that loses about four points (a card of a set thrown away) was graded an inaccuracy
    in only two of twenty sets of sixteen deals, and shown as losing half a point.
    """
    plain = sum(c - b for c, b in zip(chosen, best, strict=True)) / len(chosen)
    return grade(plain) != grade(confident_cost(chosen, best))


def grade(cost: float) -> str:
    """``""``, ``"inaccuracy"``, ``"mistake"`` or ``"blunder"`` for a turn that cost ``cost`` points."""
    found = ""
    for name, threshold in GRADES:
        if cost >= threshold:
            found = name
    return found


@dataclass
class Turn:
    """One seat's turn: its decisions (a draw, then a discard or going out), graded together."""

    turn: int
    seat: int
    round_number: int
    decisions: list[Mapping[str, Any]] = field(default_factory=list)

    @property
    def cost(self) -> float:
        return round(sum(float(d["cost"]) for d in self.decisions), 2)

    @property
    def grade(self) -> str:
        return grade(self.cost)

    @property
    def has_choice(self) -> bool:
        return any(not d["forced"] for d in self.decisions)

    @property
    def first_seq(self) -> int:
        return min(int(d["seq"]) for d in self.decisions)

    @property
    def by_bot(self) -> bool:
        return any(d["by_bot"] for d in self.decisions)

    @property
    def expected_total(self) -> float | None:
        """The seat's total expected at the end of the round, as its last analysed decision of the turn saw it."""
        for d in reversed(self.decisions):
            if d["expected"] is not None:
                return float(d["total_before"]) + float(d["expected"])
        return None

    @property
    def score(self) -> float:
        """This turn's share of accuracy: 1 when it cost nothing, 0 from a blunder's cost on."""
        return max(0.0, 1.0 - self.cost / BLUNDER)


def turns(rows: Iterable[Mapping[str, Any]]) -> list[Turn]:
    """The stored decisions (in ``seq`` order) grouped into turns."""
    out: list[Turn] = []
    for row in rows:
        if not out or out[-1].turn != row["turn"]:
            out.append(Turn(turn=int(row["turn"]), seat=int(row["seat"]), round_number=int(row["round_number"])))
        out[-1].decisions.append(row)
    return out


def accuracy(graded: Sequence[Turn]) -> float | None:
    """Average of the turns' scores in percent (turns without a choice left out); ``None`` without any."""
    scored = [t.score for t in graded if t.has_choice]
    if not scored:
        return None
    return round(100.0 * sum(scored) / len(scored), 1)


def players_turns(graded: Iterable[Turn], people: Collection[int]) -> list[Turn]:
    """The turns that are the choices of their seat's player: all of a bot's seat, and those of the
    ``people`` (the seats a person holds) that the person played, not a bot for them."""
    return [t for t in graded if not (t.by_bot and t.seat in people)]


def round_lost(graded: Iterable[Turn], scored: int | None) -> float:
    """The points a player's turns of one round lost: their costs added up, but never more than the
    ``scored`` points of the round (None: not known, no cap)."""
    lost = sum(t.cost for t in graded)
    return round(lost if scored is None else min(lost, max(scored, 0)), 1)


def summary(
    graded: Sequence[Turn],
    seat_count: int,
    scored: Mapping[tuple[int, int], int] | None = None,
    people: Collection[int] = (),
) -> list[dict[str, Any]]:
    """Each seat's verdict over the game: accuracy, points lost, turns with a choice, turns of each grade.

    ``scored``: each (seat, round)'s points, the cap of what the round lost (:func:`round_lost`).
    ``people``: the seats a person holds, whose turns a bot played for them are left out
    (:func:`players_turns`).
    """
    scored = scored or {}
    out = []
    played = players_turns(graded, people)
    for seat in range(seat_count):
        own = [t for t in played if t.seat == seat]
        rounds = sorted({t.round_number for t in own})
        out.append(
            {
                "accuracy": accuracy(own),
                "lost": round(
                    sum(round_lost([t for t in own if t.round_number == r], scored.get((seat, r))) for r in rounds), 1
                ),
                "turns": sum(1 for t in own if t.has_choice),
                "counts": [sum(1 for t in own if t.grade == name) for name, _threshold in GRADES],
            }
        )
    return out
