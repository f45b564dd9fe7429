"""Self-draw deals: what a hand is worth by the end of the round, played alone from the stock.

The expert bot's measure of a discard.  A hand's worth is the points it is
expected to score when the round ends, and that depends on two unknowns:
which cards the stock will give and how many more turns the round lasts.
:class:`SelfDraws` deals both at random, ``deals`` times, consistently with
what the seat has seen:

* the cards drawn, in turn, from the cards the seat has not seen (its hand,
  the table, the known discard pile and the cards others are known to hold
  left out: ``sampling.Knowledge``);
* the number of turns left: each of the seat's coming turns is its last
  (someone else went out) with the chance :data:`ROUND_ENDS` gives for the
  round's hand size and how many turns the round has run.

On each deal the hand plays alone: it draws the next card, goes out if it
can (the round then scores 0 for it), and otherwise throws the leftover card
of a best arrangement that scores most, as the medium bot does; after its
last turn the hand scores what it holds.  With a ``tempo``, a deal's value
also counts what the others are left holding when the round ends
(:meth:`SelfDraws.others`), so that going out sooner is worth more.  Every
hand compared meets the same deals (common random numbers), so their
difference is measured far more precisely than their values.  Other players' moves are not played: the
stock draws stand for every card the seat may get.

Pure Python, no Django, like the engine and the bots.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.engine import Card, EventKind

from . import hard
from .position import Position
from .rollout import solver_answers
from .sampling import Knowledge

__all__ = ["HELD_POINTS", "ROUND_ENDS", "SelfDraws", "held_points", "last_turn_chance", "round_turns"]

#: The chance that a seat's turn is its last of the round (someone else went out), by the round's hand size
#: and the number of whole turns of the table played before it (0 for the first).  Measured over 300
#: four-player classic games of the hard bot (``python bench/round_ends.py --games 300``); where fewer than 40
#: turns were seen, pooled with the two turns either side (and, past the fourth turn, kept between 0.3 and
#: 0.95); 0.6 where even those are fewer than 20, and past the table.
ROUND_ENDS: dict[int, tuple[float, ...]] = {
    3: (0.245, 0.417, 0.399, 0.362, 0.510, 0.442, 0.539, 0.593, 0.600),
    4: (0.070, 0.144, 0.193, 0.216, 0.234, 0.280, 0.282, 0.375, 0.324, 0.286, 0.364, 0.398, 0.512, 0.600),
    5: (0.011, 0.034, 0.073, 0.092, 0.135, 0.162, 0.175, 0.294, 0.223, 0.229, 0.338, 0.260, 0.346, 0.326, 0.394)
    + (0.442, 0.440, 0.600),
    6: (0.074, 0.175, 0.250, 0.301, 0.322, 0.318, 0.441, 0.540, 0.505, 0.618, 0.600),
    7: (0.032, 0.094, 0.206, 0.246, 0.290, 0.285, 0.436, 0.414, 0.650, 0.507, 0.667, 0.600),
    8: (0.009, 0.052, 0.089, 0.121, 0.176, 0.310, 0.326, 0.333, 0.346, 0.314, 0.310, 0.348, 0.384, 0.455, 0.600),
    9: (0.046, 0.126, 0.197, 0.255, 0.374, 0.360, 0.425, 0.582, 0.495, 0.618, 0.714, 0.600),
    10: (0.018, 0.080, 0.173, 0.272, 0.237, 0.427, 0.414, 0.392, 0.326, 0.409, 0.425, 0.541, 0.600),
    11: (0.003, 0.036, 0.111, 0.176, 0.246, 0.342, 0.338, 0.510, 0.466, 0.492, 0.475, 0.488, 0.600),
    12: (0.041, 0.139, 0.228, 0.250, 0.386, 0.441, 0.538, 0.497, 0.585, 0.690, 0.600),
    13: (0.019, 0.088, 0.219, 0.348, 0.389, 0.480, 0.550, 0.511, 0.565, 0.600),
}
#: The points a seat's hand holds (its best arrangement) at its draw, by the round's hand size and the whole
#: turns of the table played before it: what the others would score if the round ended then.  Measured over
#: the same 300 games as :data:`ROUND_ENDS` (``python bench/round_ends.py --games 300``), turns seen at least 40
#: times, each figure at most the one before it (the running least: going out later never leaves the others
#: more); past the table, its last figure.  Of the classic rules: with doubled royal rounds the seat's own
#: points count double there and these do not, and with redemption the others lay cards off and hold less.
HELD_POINTS: dict[int, tuple[float, ...]] = {
    3: (19.1, 17.2, 15.7, 14.7, 12.9),
    4: (23.8, 18.3, 14.1, 10.7, 8.5, 7.1, 5.8, 5.2, 4.1, 3.9),
    5: (27.5, 19.8, 14.6, 11.4, 9.0, 6.9, 5.3, 4.3, 3.3, 2.8, 2.5, 2.5, 2.0),
    6: (30.1, 23.4, 18.0, 14.7, 12.8, 10.7, 9.6, 7.8),
    7: (33.2, 25.0, 19.1, 14.8, 12.0, 9.3, 7.2, 5.1, 4.8),
    8: (35.0, 25.3, 18.5, 13.8, 10.7, 8.2, 6.4, 5.2, 4.0, 3.6, 3.1),
    9: (37.2, 27.8, 21.5, 16.6, 13.5, 10.6, 8.2, 7.1),
    10: (39.5, 29.9, 22.7, 17.8, 14.5, 10.8, 8.9, 6.6, 5.3),
    11: (39.8, 29.3, 21.7, 16.4, 12.4, 9.4, 7.1, 4.9, 4.1),
    12: (40.2, 29.5, 22.1, 16.5, 12.5, 9.4, 7.1),
    13: (40.0, 28.6, 21.0, 16.1, 12.5, 10.6, 9.1),
}
#: For hand sizes the table does not hold (variants): the middle of the table.
_DEFAULT_ENDS = ROUND_ENDS[8]


def round_turns(history: Sequence[Mapping[str, Any]], seat_count: int) -> int:
    """Whole turns of the table played this round: its moves (draws, discards, going out) over two a seat."""
    moves = sum(1 for e in history if e.get("kind") in (EventKind.DREW, EventKind.DISCARDED, EventKind.WENT_OUT))
    return moves // (2 * max(1, seat_count))


def last_turn_chance(hand_size: int, turns: int) -> float:
    """The chance that a seat's turn after ``turns`` whole turns of the table is its last (:data:`ROUND_ENDS`)."""
    ends = ROUND_ENDS.get(hand_size, _DEFAULT_ENDS)
    return ends[min(turns, len(ends) - 1)]


def held_points(hand_size: int, turns: int) -> float:
    """The points a hand holds after ``turns`` whole turns of the table (:data:`HELD_POINTS`; past the table,
    its last figure; for a hand size it does not hold, the nearest it does)."""
    held = HELD_POINTS.get(hand_size) or HELD_POINTS[min(HELD_POINTS, key=lambda size: abs(size - hand_size))]
    return held[min(turns, len(held) - 1)]


class SelfDraws:
    """``deals`` deals of the seat's coming stock draws and of the round's end, to value hands by.

    ``pos`` is the seat's position and ``history`` the round's public events
    (what it has seen); ``rng`` draws the deals; ``max_turns`` caps the turns
    a deal plays; ``work`` caps the cards their turns hold (:meth:`values`);
    ``tempo`` weighs the others' points at the round's end against the
    seat's own (:meth:`others`; 0: its own alone).  A history that does not
    add up falls back to the hard bot's count of the unseen cards.
    """

    def __init__(
        self,
        pos: Position,
        history: Sequence[Mapping[str, Any]],
        rng: random.Random,
        deals: int,
        max_turns: int,
        work: int | None = None,
        *,
        tempo: float,
    ) -> None:
        if deals < 1 or max_turns < 1:
            raise ValueError("self-draws need at least one deal of at least one turn")
        #: The most cards the turns of one comparison may hold in all (``None``: no limit); see :meth:`values`.
        self.work = work
        #: How much each point the others score is worth against one of the seat's own (see :meth:`others`).
        self.tempo = tempo
        self.spent = 0
        self.rules, self.size = pos.rules, pos.hand_size
        self.solved = solver_answers(pos.rules, pos.hand_size)
        try:
            unseen = Knowledge(pos.view, history).unseen
        except ValueError:
            unseen = hard._unseen(pos, hard.Memory(pos.view, history))
        self._rng, self._pool, self._max_turns = rng, sorted(unseen.elements()), max_turns
        self._turns, self._seats = round_turns(history, pos.view.seat_count), pos.view.seat_count
        #: Each deal: the number of turns the seat plays, and the cards it draws (one more, for a draw's choice).
        self.deals: list[tuple[int, list[Card]]] = []
        #: How many deals the last :meth:`values` played (fewer than it was offered once ``work`` ran out).
        self.played = 0
        self.more(deals)

    def more(self, deals: int) -> None:
        """Deal ``deals`` more deals after those dealt, from the same generator."""
        pool, size = self._pool, self.size
        for _ in range(deals):
            count = 1
            while count < self._max_turns and self._rng.random() >= last_turn_chance(size, self._turns + count):
                count += 1
            self.deals.append((count, self._rng.sample(pool, min(len(pool), count + 1))))

    def turn(self, cards: tuple[Card, ...], forbidden: Card | None = None) -> tuple[Card, ...] | None:
        """The hand after one turn holding ``cards`` (sorted, the draw among them): ``None`` if it goes out,
        else less the medium bot's discard (never ``forbidden``: ``Solved.greedy_discard``)."""
        self.spent += len(cards)
        thrown, goes_out = self.solved.greedy_discard(cards, forbidden)
        if goes_out:
            return None
        rest = list(cards)
        rest.remove(thrown)
        return tuple(rest)

    def play(self, hand: tuple[Card, ...] | None, drawn: Sequence[Card], turns: int, offset: int = 1) -> float:
        """What ``hand`` (sorted; ``None``: it went out the turn before the first of ``drawn``) is worth after
        ``turns`` turns drawing ``drawn``: the points it scores, less ``tempo`` times the others' mean score
        when the round ends (:meth:`others`).

        ``offset``: the seat's turns from now to the first of ``drawn`` (1: the next turn; 0: this one).  The
        deal's last turn is the seat's last of the round: another seat went out before it, so going out then
        scores nothing but leaves the others as they were.
        """
        last = offset + turns - 1
        for i, card in enumerate(drawn[:turns]):
            if hand is None:
                return -self.tempo * self.others(offset + i - 1, out=True)
            hand = self.turn(tuple(sorted((*hand, card))))
        points = 0.0 if hand is None else float(self.solved.arrange(hand)[0])
        return points - self.tempo * self.others(last, out=False)

    def others(self, offset: int, out: bool) -> float:
        """The mean points the other seats score if the round ends at the seat's turn ``offset`` turns from now
        (0: this one): by its going out (``out``: each of them holds what :data:`HELD_POINTS` gives after one
        turn more), or by another seat's before it, who scores nothing; 0 without ``tempo``."""
        if not self.tempo:
            return 0.0
        held = held_points(self.size, self._turns + offset + 1)
        return held if out else held * (self._seats - 2) / (self._seats - 1)

    def values(self, hands: Sequence[Sequence[Card]], first: int = 0, work: int | None = None) -> list[float]:
        """The points each of ``hands`` (after this turn's discard) is expected to score by the end of the round
        (less the ``tempo``'s share of the others': :meth:`play`).

        Every hand plays the same deals, one deal after another, from deal
        ``first`` on; once the turns played have held ``work`` cards in all
        (``self.work`` unless given; checked after each deal), the deals left
        are not played (the same for every hand, and the same each time: the
        answer stays reproducible and a big hand early in a round stays
        quick).
        """
        work = self.work if work is None else work
        starts = [tuple(sorted(hand)) for hand in hands]
        totals = [0.0] * len(starts)
        played, self.spent = 0, 0
        for turns, drawn in self.deals[first:]:
            for i, start in enumerate(starts):
                totals[i] += self.play(start, drawn[1:], turns)
            played += 1
            if work is not None and self.spent >= work:
                break
        if not played:
            raise ValueError("no deal to play: deal more first")
        self.played = played
        return [total / played for total in totals]

    def value(self, hand: Sequence[Card]) -> float:
        """What ``hand`` is expected to be worth by the end of the round (:meth:`values` of one hand)."""
        return self.values([hand])[0]

    def draw_values(self, hand: Sequence[Card], top: Card) -> tuple[float, float]:
        """The expected worth (:meth:`play`) after drawing from the stock and after taking ``top``, then playing
        on alike (as many deals as :meth:`values` plays)."""
        held = tuple(sorted(hand))
        self.spent = 0
        taken = self.turn(tuple(sorted((*held, top))), forbidden=top)
        stock = pile = 0.0
        played = 0
        for turns, drawn in self.deals:
            stock += self.play(held, drawn, turns + 1, offset=0)
            pile += self.play(taken, drawn[1:], turns)
            played += 1
            if self.work is not None and self.spent >= self.work:
                break
        return stock / played, pile / played
