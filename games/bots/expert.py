"""The ``expert`` bot: the hard bot's candidates, with its draws and discards weighed by playing the round on.

At each discard it weighs every leftover card of a best arrangement of its
hand, and the hard bot's few best discards, by what the hand left is
expected to score when the round ends (:mod:`.selfdraw`): it deals the
cards the stock may give it and the number of turns the round may last at
random, consistently with everything it has seen (its hand, the table, the
discard pile and who took what: :mod:`.sampling`), plays each hand on alone
on every deal, and keeps the discard with the fewest expected points (plus
the hard bot's charge for feeding the next player).  Points are counted as
a game is won, against the others': a deal where the hand goes out sooner
leaves the others holding more (their mean hand at that turn of the round,
``selfdraw.HELD_POINTS``), and that counts for it (``Budget.tempo``).  Every discard meets the
same deals, so their difference is measured far more precisely than their
values; the best few then play many more deals of their own, to tell the
best from the next best.  It weighs its draws on the first deals, both
piles (unless one is plainly right), except in its last turn after someone
went out, where it works each pile's cost out exactly
(:func:`last_turn_draw`, laying off onto the table's melds in the redemption
variant in rounds of up to ``REDEMPTION_EXACT_MAX`` cards; in larger ones, or with a history that does
not add up, it draws there as the hard bot does); without ``Budget.draws``
it draws as the hard bot does.

It sees only its seat's view and the round's public history, like every
level.  Its random deals come from a generator seeded by what the seat sees
(seat, round, move count, hand, top discard, history), so the same position
always gets the same answer and a replay repeats it.
"""

from __future__ import annotations

import json
import random
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.engine import Action, Card, Discard, Draw, discard_penalties, redemption_score

from . import hard
from .position import Position, allowed_discards, draws, isolated, may_draw, remove
from .sampling import Knowledge
from .selfdraw import SelfDraws

__all__ = ["Budget", "BUDGET", "choose", "candidates", "seed_of", "last_turn_draw", "least_left"]


@dataclass(frozen=True)
class Budget:
    """How hard the expert searches.

    ``deals``: self-draw deals per decision (:class:`.selfdraw.SelfDraws`);
    ``turns``: the most turns a deal plays; ``work``: how many cards the
    deals' turns may hold in all, for all candidates together, before no
    more deals are played (``None``: no limit; a 13-card hand early in a
    round stays within a second); ``discards``: how many of the
    hard bot's best discards are weighed beside the leftover cards;
    ``draws``: whether a draw (before the last turn) is weighed on the deals
    too, rather than chosen as the hard bot does; ``refine``: how many more
    deals the ``finalists`` best discards play to settle which is best (0,
    or a single finalist: none; until their turns have held ``refine_work``
    cards, or ``big_refine_work`` in rounds of ``big_hand`` cards or more),
    their values then taken over all the deals they played; ``tempo``: how
    much a point the others score when the round ends weighs against one of
    its own (:meth:`.selfdraw.SelfDraws.others`: going out sooner leaves
    them more), 0 to play for its own points alone.

    A turn costs about one arrangement of the hand, which grows with its
    size: an 11-card round's turn costs several times a 6-card one's, so
    the biggest hands refine on fewer cards and the slowest decisions stay
    within the time asked (``bench/expert_speed.py``).
    """

    deals: int = 48
    turns: int = 10
    work: int | None = 24_000
    discards: int = 3
    draws: bool = True
    refine: int = 192
    finalists: int = 3
    refine_work: int = 15_000
    big_hand: int = 11
    big_refine_work: int = 9_000
    tempo: float = 1.0

    def __post_init__(self) -> None:
        work = 1 if self.work is None else self.work
        counts = (
            *(self.deals, self.turns, work, self.discards, self.finalists),
            *(self.refine_work, self.big_hand, self.big_refine_work),
        )
        if min(counts) < 1 or self.refine < 0 or not 0 <= self.tempo <= 1:
            raise ValueError(
                "an expert budget counts at least one of each, and no fewer than 0 more deals, "
                f"a tempo of 0 to 1: {self}"
            )

    def refine_work_for(self, hand_size: int) -> int:
        """The most cards the finalists' turns may hold in a round of ``hand_size`` cards."""
        return self.big_refine_work if hand_size >= self.big_hand else self.refine_work


BUDGET = Budget()


def seed_of(pos: Position, history: Sequence[Mapping[str, Any]]) -> int:
    """The seed of a decision's deals: what the seat sees now, so that a replay gets the same answer."""
    view = pos.view
    top = None if view.discard_top is None else view.discard_top.code
    text = json.dumps(
        [view.seat, view.round, view.move_count, [c.code for c in pos.hand], top, len(history)], separators=(",", ":")
    )
    return zlib.crc32(text.encode())


def candidates(
    pos: Position, legal: Sequence[Action], memory: hard.Memory, budget: Budget | None = None
) -> list[Action]:
    """The actions worth weighing, the hard bot's choice first (``budget``: ``BUDGET`` unless given).

    A draw: both piles, unless one is plainly right.  A discard: the hard
    bot's ``budget.discards`` best, then the other leftover cards of a best
    arrangement of the hand (by code).
    """
    budget = budget or BUDGET
    first = hard.choose(pos, legal, memory)
    if draws(legal):
        others = [a for a in legal if isinstance(a, Draw) and a != first]
        top = pos.top
        if top is None or pos.is_wild(top) or not (may_draw(legal, "discard") and may_draw(legal, "stock")):
            return [first]  # a wild card is always worth taking; with one pile there is no choice
        _, deadwood = pos.arrange(pos.hand)
        if isolated(pos, top, pos.hand) and (not deadwood or pos.points(top) >= max(map(pos.points, deadwood))):
            return [first]  # the top card could only replace a lower leftover card: never worth taking
        return [first, *others]
    ranked = [Discard(card) for _, card in hard.ranked_discards(pos, legal, memory)]
    found = [first, *[a for a in ranked if a != first][: budget.discards - 1]]
    allowed = allowed_discards(legal)
    _, deadwood = pos.arrange(pos.hand)
    for card in sorted(set(deadwood), key=lambda c: c.code):
        if card.code in allowed and Discard(card) not in found:
            found.append(Discard(card))
    return found


#: The largest hand whose redemption last-turn draw is worked out exactly.  Laying off is counted for every
#: card the stock may give and every discard after it (``redemption_score`` each time); in rounds of 9 cards
#: with three decks and jokers that took at most 0.7 s a decision, in rounds of 11 up to 1.5 s and of 13 up
#: to 26 s (a review, 6 seats).  Larger hands draw as the hard bot does, scoring the hand alone.
REDEMPTION_EXACT_MAX = 9


def choose(
    pos: Position, legal: Sequence[Action], history: Sequence[Mapping[str, Any]], budget: Budget | None = None
) -> Action:
    """The candidate with the fewest expected points (``budget``: the module's ``BUDGET`` unless given)."""
    budget = budget or BUDGET
    if draws(legal) and pos.view.final_lap and (not pos.rules.redemption or pos.hand_size <= REDEMPTION_EXACT_MAX):
        exact = last_turn_draw(pos, legal, history)
        if exact is not None:
            return exact
    memory = hard.Memory(pos.view, history)
    options = candidates(pos, legal, memory, budget)
    if len(options) == 1 or pos.view.final_lap or (draws(legal) and not budget.draws):
        return options[0]  # the hand is scored after this turn: the hard bot plays for the least penalty then
    rng = random.Random(seed_of(pos, history))
    deals = SelfDraws(pos, history, rng, budget.deals, budget.turns, budget.work, tempo=budget.tempo)
    if draws(legal):
        top = pos.top
        assert top is not None  # candidates offer both piles only when there is a top card
        stock, pile = deals.draw_values(pos.hand, top)
        return Draw("discard") if pile < stock else Draw("stock")
    wanted = hard.wanted_by_next(pos, memory)
    thrown = [option.card for option in options if isinstance(option, Discard)]
    rests = [remove(pos.hand, card) for card in thrown]
    values = deals.values(rests)
    feeding = [hard.feeding_cost(pos, card, wanted) for card in thrown]

    def cost(i: int) -> tuple[float, int, str]:
        return values[i] + feeding[i], -pos.points(thrown[i]), thrown[i].code

    ranked = sorted(range(len(thrown)), key=cost)
    finalists = ranked[: budget.finalists]
    if budget.refine and len(finalists) > 1:
        # The close ones again, on deals of their own: the first deals tell the best few from the rest, not
        # the best from the next best.  The first deals still count, by how many were played: they lean
        # towards the finalist that led on them, but judging on the later deals alone chose worse (a
        # scratch run of bench/expert_regret.py's measure on its first game: 0.012 points a discard
        # against 0.007).
        played, first = deals.played, len(deals.deals)
        deals.more(budget.refine)
        more = deals.values([rests[i] for i in finalists], first, budget.refine_work_for(pos.hand_size))
        for i, value in zip(finalists, more, strict=True):
            values[i] = (values[i] * played + value * deals.played) / (played + deals.played)
    return Discard(thrown[min(finalists, key=cost)])


def last_turn_draw(pos: Position, legal: Sequence[Action], history: Sequence[Mapping[str, Any]]) -> Draw | None:
    """The draw of the seat's last turn (someone went out) that leaves the fewest points expected, worked out exactly.

    The hand is scored after this turn's discard, so each draw's cost is
    known without playing on: the top discard's at once, the stock's over
    every card it could give (``Knowledge.next_stock_card``), each followed
    by the discard that leaves the least (in the redemption variant, once the
    hand is laid down and laid off onto the table).  ``None`` when there is no
    choice to make (one pile only) or the history does not add up.
    """
    top = pos.top
    if top is None or not (may_draw(legal, "discard") and may_draw(legal, "stock")):
        return None
    try:
        chances = Knowledge(pos.view, history).next_stock_card()
    except ValueError:
        return None
    if not chances:
        return None
    take = least_left(pos, [*pos.hand, top], forbidden=top)
    stock = sum(chance * least_left(pos, [*pos.hand, card]) for card, chance in chances.items())
    return Draw("discard") if take < stock else Draw("stock")


def least_left(pos: Position, cards: Sequence[Card], forbidden: Card | None = None) -> int:
    """The least penalty ``cards`` leave after one discard (never ``forbidden``, the card just taken,
    unless every card is one): a leftover card of a best arrangement, the highest allowed, is always best.

    In the redemption variant the hand left is laid down and laid off onto the melds on the table
    (``redemption_score``, as the round is scored), so each discard is counted that way."""
    if pos.rules.redemption:
        table = [table_meld.meld for table_meld in pos.view.table_melds]
        options = {card for card in cards if card != forbidden} or set(cards)
        return min(redemption_score(remove(cards, card), table, pos.rules, pos.hand_size).points for card in options)
    points, deadwood = pos.arrange(cards)
    allowed = [card for card in deadwood if card != forbidden]
    if allowed:
        return points - max(pos.points(card) for card in allowed)
    left = discard_penalties(list(cards), pos.rules, pos.hand_size)
    return min([value for card, value in left.items() if card != forbidden] or left.values())
