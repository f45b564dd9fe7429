"""Rollouts: play a determinized round to its end with a bot policy, and compare actions by them.

:func:`play_out` plays a full :class:`~games.engine.GameState` (a
determinization from :mod:`.sampling`, where every hidden card has a
place) to the end of its round, every seat choosing with a bot level's
policy from its own view and the round's public record (the discard pile,
who took what), exactly as that level plays on the site; it answers each
seat's points for the round.  A rollout is deterministic: the policies are,
and a rebuilt stock comes from the state's own (sampled) shuffle.

:func:`evaluate` estimates what each candidate action of a seat costs:
for each of ``samples`` determinizations of the seat's view it plays every
candidate then the round out, and averages the seat's round points.  All
candidates meet the same samples (common random numbers), so their
difference is measured with much less noise than their values.
:func:`evaluate_samples` gives the points of every sample.

Speed (``bench/expert_speed.py``): a hard-policy rollout from the middle of a
round of a classic four-player game takes a few milliseconds; ``medium``
plays about twice as fast and a little worse.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from games.engine import Action, Draw, GameState, GoOut, SeatView, apply, best_arrangement, view
from games.engine.game import DISCARD_PILE

from . import hard, medium
from .position import Position
from .sampling import Knowledge

__all__ = ["Policy", "POLICIES", "policy_action", "play_out", "rollout", "evaluate", "evaluate_samples"]

Policy = Literal["hard", "medium"]
POLICIES: tuple[Policy, ...] = ("hard", "medium")

#: A rollout longer than this many moves is cut short and scored as the hands stand.
MAX_MOVES = 2000


def policy_action(seen: SeatView, policy: Policy, memory: hard.Memory) -> Action:
    """The action of the bot ``policy`` for the seat whose view ``seen`` is (as ``choose_action``)."""
    legal = seen.legal_actions
    if len(legal) == 1:
        return legal[0]
    pos = Position(seen)
    go_outs = [a for a in legal if isinstance(a, GoOut)]
    if go_outs:
        return max(go_outs, key=lambda a: (pos.points(a.discard), a.discard.code))
    if policy == "medium":
        return medium.choose(pos, legal)
    return hard.choose(pos, legal, memory)


def play_out(
    state: GameState,
    policy: Policy = "hard",
    taken: Mapping[int, Sequence[str]] | None = None,
    *,
    results: int | None = None,
    max_moves: int = MAX_MOVES,
) -> tuple[int, ...]:
    """Play ``state`` to the end of its round with ``policy`` at every seat; each seat's round points.

    ``taken``: the cards each seat took from the discard pile so far this
    round (what the hard policy remembers; ``hard.Memory(view,
    history).taken``).  ``results``: the number of round results before the
    round being played (default: ``state``'s), so that a state whose round
    has just ended answers that round's points at once.  A round that runs
    past ``max_moves`` moves is scored as the hands stand (never reached
    under the shipped rules, whose stock rebuilds are bounded).
    """
    if state.is_over and results is None:
        raise ValueError("the game is over: there is no round to play out")
    done = len(state.results) if results is None else results
    memory = hard.Memory.of(-1, [], {seat: list(codes) for seat, codes in (taken or {}).items()})
    moves = 0
    while len(state.results) == done:
        seat = state.current_seat
        if seat is None or moves >= max_moves:
            return _hands_points(state)
        if policy == "hard":
            memory.pile = [card.code for card in state.discard_pile]
        action = policy_action(view(state, seat), policy, memory)
        state, events = apply(state, seat, action)
        if isinstance(action, Draw) and action.source == DISCARD_PILE:
            memory.taken.setdefault(seat, []).append(events[0].data["card"])
        moves += 1
    return state.results[done].points


def rollout(
    state: GameState,
    action: Action,
    policy: Policy = "hard",
    taken: Mapping[int, Sequence[str]] | None = None,
) -> tuple[int, ...]:
    """Play ``action`` for the seat in turn in ``state``, then the round out; each seat's round points."""
    seat = state.current_seat
    if seat is None:
        raise ValueError("the game is over: no seat is in turn")
    done = len(state.results)
    after, events = apply(state, seat, action)
    if isinstance(action, Draw) and action.source == DISCARD_PILE:
        taken = {**(taken or {}), seat: [*(taken or {}).get(seat, ()), events[0].data["card"]]}
    return play_out(after, policy, taken, results=done)


def evaluate_samples(
    seen: SeatView,
    history: Iterable[Mapping[str, Any]],
    candidates: Sequence[Action],
    rng: random.Random,
    samples: int,
    policy: Policy = "hard",
) -> list[list[int]]:
    """The seat's round points for each candidate (rows) on each of ``samples`` determinizations (columns).

    ``seen`` is the seat's own view, with the seat in turn; every candidate
    must be one of its legal actions (``ValueError`` otherwise).  Every
    candidate is played on the same determinizations, drawn from ``rng``.
    """
    if seen.seat is None or seen.current_seat != seen.seat:
        raise ValueError("only the seat in turn has actions to evaluate")
    illegal = [a for a in candidates if a not in seen.legal_actions]
    if illegal:
        raise ValueError(f"not legal actions of this seat now: {illegal!r}")
    if samples < 1:
        raise ValueError("evaluate at least one sample")
    history = list(history)
    knowledge = Knowledge(seen, history)
    taken = hard.Memory(seen, history).taken
    seat = seen.seat
    points: list[list[int]] = [[] for _ in candidates]
    for _ in range(samples):
        state = knowledge.sample(rng)
        for row, action in zip(points, candidates, strict=True):
            row.append(rollout(state, action, policy, taken)[seat])
    return points


def evaluate(
    seen: SeatView,
    history: Iterable[Mapping[str, Any]],
    candidates: Sequence[Action],
    rng: random.Random,
    samples: int,
    policy: Policy = "hard",
) -> list[float]:
    """The seat's expected round points after each candidate action (lower is better).

    The mean of :func:`evaluate_samples` over the samples; the same
    determinizations for every candidate (common random numbers).
    """
    return [sum(row) / len(row) for row in evaluate_samples(seen, history, candidates, rng, samples, policy)]


def _hands_points(state: GameState) -> tuple[int, ...]:
    """Each seat's points if the round ended now (settled seats keep their result)."""
    rules, size = state.rules, state.hand_size
    points = []
    for seat, hand in enumerate(state.hands):
        settled = state.settled[seat] if state.settled else None
        if settled is not None:
            points.append(settled.points)
        else:
            penalty = state.penalties[seat] if state.penalties else 0
            points.append(best_arrangement(hand, rules, size).points * rules.round_multiplier(size) + penalty)
    return tuple(points)
