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
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from games.engine import (
    JOKER,
    Action,
    Card,
    Discard,
    Draw,
    GameState,
    GoOut,
    Phase,
    Rules,
    SeatView,
    apply,
    best_arrangement,
    discard_penalties,
    unmelded_count,
    view,
)
from games.engine.game import DISCARD_PILE, STOCK

from . import hard, medium
from .position import Position, going_out, lay_off_discard, redemption_last_discard
from .sampling import Knowledge

__all__ = [
    "Policy",
    "POLICIES",
    "policy_action",
    "greedy_action",
    "play_out",
    "rollout",
    "evaluate",
    "evaluate_samples",
    "solver_answers",
]

Policy = Literal["hard", "medium", "greedy"]
POLICIES: tuple[Policy, ...] = ("hard", "medium", "greedy")

#: A rollout longer than this many moves is cut short and scored as the hands stand.
MAX_MOVES = 2000


def policy_action(seen: SeatView, policy: Policy, memory: hard.Memory) -> Action:
    """The action of the bot ``policy`` for the seat whose view ``seen`` is (as ``choose_action``)."""
    legal = seen.legal_actions
    if len(legal) == 1:
        return legal[0]
    pos = Position(seen)
    out = going_out(pos, legal)
    if out is not None:
        return out
    laid_off = redemption_last_discard(pos, legal)
    if laid_off is not None:
        return laid_off
    if policy == "medium":
        return medium.choose(pos, legal)
    return hard.choose(pos, legal, memory)


def greedy_action(state: GameState, seat: int) -> Action:
    """What ``medium`` would play for the seat in turn, worked out straight from the state.

    The same choices as ``medium`` (take the discard when it lowers the
    penalty, go out at once, discard the leftover card that scores most) but
    without building the seat's view: about half the solver calls, for
    rollouts.  It reads only the seat's hand and the top discard.
    """
    rules, size = state.rules, state.hand_size
    hand = state.hands[seat]  # sorted, as the engine keeps every hand
    solved = solver_answers(rules, size)

    def points(card: Card) -> int:
        return rules.card_points(card, size)

    if state.phase == Phase.DRAW:
        top = state.top_discard
        if top is None:
            return Draw(STOCK)
        if not state.stock or rules.is_wild(top, size):
            return Draw(DISCARD_PILE)
        now, deadwood = solved.arrange(hand)
        if _isolated(top, hand, rules, size) and (not deadwood or points(top) >= max(map(points, deadwood))):
            return Draw(STOCK)
        kinds = set(hand)
        allowed = kinds - {top} if kinds != {top} else kinds
        held, held_deadwood = solved.arrange(tuple(sorted(hand + (top,))))
        lefts = [held - points(c) for c in held_deadwood if c in allowed]
        if not lefts:
            lefts = [left for c, left in discard_penalties(hand + (top,), rules, size).items() if c in allowed]
        return Draw(DISCARD_PILE if lefts and min(lefts) < now else STOCK)
    taken = state.taken_from_discard
    forbidden = taken if taken is not None and any(c != taken for c in hand) else None
    card, goes_out = solved.greedy_discard(hand, forbidden)
    if not goes_out and rules.redemption and state.final_lap:
        # The redemption variant's last turn is scored after laying off onto the table (as the bots play it).
        candidates = [c for c in hand if c != forbidden]
        card = lay_off_discard(hand, [t.meld for t in state.table], rules, size, candidates) or card
    return GoOut(card) if goes_out else Discard(card)


class Solved:
    """The solver's answers for one round's rules and hand size, by sorted hand.

    Rollouts meet the same hands again and again: every candidate is played
    on the same deals, so the other seats hold the same cards until the
    candidates' rounds part ways.
    """

    def __init__(self, rules: Rules, size: int) -> None:
        self.rules, self.size = rules, size
        self.arranged: dict[tuple[Card, ...], tuple[int, tuple[Card, ...]]] = {}
        self.outs: dict[tuple[tuple[Card, ...], Card | None], Card | None] = {}
        # A card's points depend on its rank alone (a joker's rank is 0): looked up, not worked out, in the
        # rollouts' hottest loop.
        self._rank_points = [rules.card_points(JOKER if rank == 0 else Card(rank, "C"), size) for rank in range(14)]

    def arrange(self, hand: tuple[Card, ...]) -> tuple[int, tuple[Card, ...]]:
        """Least penalty of ``hand`` and the leftover cards of a best arrangement."""
        found = self.arranged.get(hand)
        if found is None:
            arrangement = best_arrangement(hand, self.rules, self.size)
            found = self.arranged[hand] = (arrangement.points, tuple(arrangement.deadwood))
        return found

    def best_out(self, hand: tuple[Card, ...], forbidden: Card | None = None) -> Card | None:
        """The highest-scoring card of ``hand`` but ``forbidden`` (the highest code among equals) whose
        discard leaves every other card melded, or None: the best of ``go_out_discards``, found by asking
        about the cards best first and stopping at the first that goes out."""
        key = (hand, forbidden)
        if key in self.outs:
            return self.outs[key]
        found = self.outs[key] = self._best_out(hand, forbidden)
        return found

    def _best_out(self, hand: tuple[Card, ...], forbidden: Card | None) -> Card | None:
        least, deadwood = self.arrange(hand)
        # Going out by throwing a card leaves an arrangement whose only leftover is that card: it scores at
        # least ``least``.  The lone leftover of a best arrangement is one such card, known without a search.
        known = deadwood[0] if len(deadwood) == 1 else None
        if known is None and unmelded_count(hand, self.rules, self.size) >= 2:
            return None
        candidates = sorted(
            {c for c in hand if c != forbidden and self.points(c) >= least},
            key=lambda c: (self.points(c), c.code),
            reverse=True,
        )
        for card in candidates:
            if card == known:
                return card
            rest = list(hand)
            rest.remove(card)
            if unmelded_count(rest, self.rules, self.size) == 0:
                return card
        return None

    def points(self, card: Card) -> int:
        return self._rank_points[card.rank]

    def greedy_discard(self, hand: tuple[Card, ...], forbidden: Card | None = None) -> tuple[Card, bool]:
        """The medium bot's discard from ``hand`` (sorted, the draw among them; never ``forbidden``), and
        whether it goes out: the highest-scoring card that goes out, if one does (the highest code among
        equals); else the highest-scoring leftover card of a best arrangement (the lowest code among
        equals); else the card that leaves the least penalty (then the highest-scoring, the lowest code)."""
        least, deadwood = self.arrange(hand)
        # Going out by discarding a card leaves an arrangement whose only leftover is that card, so a hand
        # whose best arrangement leaves more than any card it may throw scores cannot go out: most hands
        # are answered without the second search.
        points = self._rank_points
        most = (
            max((points[c.rank] for c in hand), default=-1)
            if forbidden is None
            else max((points[c.rank] for c in hand if c != forbidden), default=-1)
        )
        if least <= most:
            out = self.best_out(hand, forbidden)
            if out is not None:
                return out, True
        options = [c for c in deadwood if c != forbidden]
        if options:
            return min(options, key=lambda c: (-self.points(c), c.code)), False
        left = discard_penalties(hand, self.rules, self.size)
        return min((c for c in left if c != forbidden), key=lambda c: (left[c], -self.points(c), c.code)), False


_SOLVED: dict[tuple[Rules, int], Solved] = {}
#: Answers kept in all (a server process plays expert bots and analyses for days): some tens of MB at most.
_SOLVED_LIMIT = 100_000
#: ``_SOLVED`` is shared by the threads of a process: the bots' turns and the analysis beside them (a review:
#: counting its answers while another thread added a key raised "dictionary changed size during iteration").
_SOLVED_LOCK = threading.Lock()


def solver_answers(rules: Rules, size: int) -> Solved:
    """The answers kept for ``rules`` and ``size`` (all forgotten once they grow past a limit in all)."""
    key = (rules, size)
    with _SOLVED_LOCK:
        if sum(len(kept.arranged) + len(kept.outs) for kept in _SOLVED.values()) > _SOLVED_LIMIT:
            _SOLVED.clear()
        solved = _SOLVED.get(key)
        if solved is None:
            solved = _SOLVED[key] = Solved(rules, size)
        return solved


def _isolated(card: Card, hand: Sequence[Card], rules: Rules, size: int) -> bool:
    """No meld can hold ``card`` with cards of ``hand`` (as ``position.isolated``)."""
    if rules.is_wild(card, size):
        return False
    for other in hand:
        if rules.is_wild(other, size) or other.rank == card.rank:
            return False
        if other.suit == card.suit and (
            abs(other.rank - card.rank) == 1 or (rules.aces_high and {other.rank, card.rank} == {1, 13})
        ):
            return False
    return True


def play_out(
    state: GameState,
    policy: Policy = "hard",
    taken: Mapping[int, Sequence[str]] | None = None,
    *,
    results: int | None = None,
) -> tuple[float, ...]:
    """Play ``state`` to the end of its round with ``policy`` at every seat; each seat's round points.

    ``taken``: the cards each seat took from the discard pile so far this
    round (what the hard policy remembers; ``hard.Memory(view,
    history).taken``).  ``results``: the number of round results before the
    round being played (default: ``state``'s), so that a state whose round
    has just ended answers that round's points at once.  The round is played
    to its end (at most ``MAX_MOVES`` moves, never reached under the shipped
    rules, whose stock rebuilds are bounded; then every seat scores the hand
    it holds).
    """
    if state.is_over and results is None:
        raise ValueError("the game is over: there is no round to play out")
    done = len(state.results) if results is None else results
    memory = hard.Memory.of(-1, [], {seat: list(codes) for seat, codes in (taken or {}).items()})
    moves = 0
    while len(state.results) == done:
        seat = state.current_seat
        if seat is None or moves >= MAX_MOVES:
            return _hands_points(state)
        if policy == "greedy":
            action = greedy_action(state, seat)
        else:
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
) -> tuple[float, ...]:
    """Play ``action`` for the seat in turn in ``state``, then the round out (see :func:`play_out`)."""
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
) -> list[list[float]]:
    """The seat's round points for each candidate (rows) on each of ``samples`` determinizations (columns).

    ``seen`` is the seat's own view, with the seat in turn; every candidate
    must be one of its legal actions (``ValueError`` otherwise).  Every
    candidate is played on the same determinizations, drawn from ``rng``;
    ``policy`` plays the rest of the round (:func:`play_out`).
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
    points: list[list[float]] = [[] for _ in candidates]
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
    rows = evaluate_samples(seen, history, candidates, rng, samples, policy)
    return [sum(row) / len(row) for row in rows]


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
