"""Melds, and the exact search for a hand's best arrangement.

How the search works
--------------------
A wild card can stand in for any card of any meld, so wilds are
interchangeable once they are in melds; they differ only in what they cost
when left out.  The search therefore never places individual wilds: it
chooses melds for the *natural* cards (the cards that are not wild), and
for every choice knows two numbers, ``lo`` (the wilds the melds need: gaps
in runs, and padding up to three cards) and ``hi`` (the wilds they could
hold: a set takes any number, a run up to 13 cards, both capped by
``max_wilds_per_meld``).  With ``W`` wilds in hand, a choice is possible
when ``lo <= W``; it places ``min(W, hi)`` wilds (plus any all-wild melds
the rules allow) and leaves the cheapest of the others as deadwood.

Sets only mix suits, runs only mix ranks, so the search splits the same
way: it enumerates which natural cards of each rank go into sets (bounded
by the wilds such sets need), and solves the runs of each suit separately
from the rank counts of that suit.  A suit's answer is a short Pareto list
of ``(deadwood points, lo, hi, runs)`` and is cached across calls, keyed by
the suit's rank counts, so a bot or a replay that scores many similar hands
pays for each suit shape once.

Decisions where RULES.md is silent (each has a test):

* A card of the wild rank is wild even when it stands for itself: it never
  counts as the natural card a meld needs, and it counts towards
  ``max_wilds_per_meld``.
* A run holds at most 13 cards and never one rank twice, so with
  ``aces: high_or_low`` it cannot hold a low and a high Ace.
* Several sets of one rank are allowed (with several decks), which only
  matters when ``max_wilds_per_meld`` limits how many wilds one set holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeAlias, TypeVar

from .cards import ACE, SUIT_CHARS, Card
from .rules import Rules, wild_ranks


class MeldKind(StrEnum):
    """A meld is a set (one rank) or a run (one suit, consecutive ranks)."""

    SET = "set"
    RUN = "run"


# Module-level names for the solver's inner loops (a global is cheaper to read than an enum attribute).
_SET, _RUN = MeldKind.SET, MeldKind.RUN
_HIGH_ACE = 14
_CACHE_LIMIT = 500_000


@dataclass(frozen=True, slots=True)
class Meld:
    """A set or a run: its physical cards, in table order for a run."""

    kind: MeldKind
    cards: tuple[Card, ...]

    @property
    def codes(self) -> list[str]:
        return [card.code for card in self.cards]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "cards": self.codes}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Meld:
        return cls(MeldKind(data["kind"]), tuple(Card.from_code(code) for code in data["cards"]))


@dataclass(frozen=True, slots=True)
class Arrangement:
    """A hand split into melds and deadwood; ``points`` is the deadwood's penalty.

    ``layoffs`` is only used by the redemption variant: for each table meld
    that received cards, its index and the cards laid off onto it.
    """

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    points: int
    layoffs: tuple[tuple[int, tuple[Card, ...]], ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "melds": [meld.to_dict() for meld in self.melds],
            "deadwood": [card.code for card in self.deadwood],
            "points": self.points,
        }
        if self.layoffs:
            data["layoffs"] = [[index, [c.code for c in cards]] for index, cards in self.layoffs]
        return data


# --------------------------------------------------------------------------
# The search context: everything about the rules that the search depends on.


@dataclass(frozen=True, slots=True)
class _Context:
    aces_high: bool
    max_wilds: int | None  # per meld; None is unlimited
    all_wild_melds: bool
    points: tuple[int, ...]  # penalty of a natural card by position 0..14
    full: bool = False  # the full search, without the quick search's cuts


def _context(rules: Rules, *, count_cards: bool = False, free_ranks: frozenset[int] = frozenset()) -> _Context:
    """``free_ranks`` (redemption only): ranks a card of which can be laid off, so costs nothing."""
    points: tuple[int, ...]
    if count_cards:
        points = (0,) + (1,) * 14
    else:
        points = (0,) + tuple(rules.natural_points(r) for r in range(1, 14)) + (rules.natural_points(ACE),)
    if free_ranks:
        points = tuple(
            0 if (p in free_ranks or (p == _HIGH_ACE and ACE in free_ranks)) else v for p, v in enumerate(points)
        )
    return _Context(rules.aces_high, rules.max_wilds_per_meld, rules.all_wild_melds, points)


# An option of the search is a tuple (deadwood points, lo, hi, witness).
# A run of a suit: (natural positions, wilds it needs, wilds it may hold).
_Run: TypeAlias = tuple[tuple[int, ...], int, int]
# A suit's runs as a linked list (run, rest of the runs) or ().
_RunList: TypeAlias = "tuple[_Run, _RunList] | tuple[()]"
_SuitOption: TypeAlias = tuple[int, int, int, _RunList]
# Cards of one rank put into sets: (taken per suit, lo, hi, number of sets).
_Taken: TypeAlias = tuple[int, ...]  # four counts, one a suit
_SetChoice: TypeAlias = tuple[_Taken, int, int, int]
# A rank's chosen sets: (rank, taken per suit, lo, hi, number of sets).
_Chosen: TypeAlias = tuple[int, _Taken, int, int, int]
# What the search found: the chosen sets, each suit's runs, wilds in those melds, wilds placed in all.
_Plan: TypeAlias = tuple[tuple[_Chosen, ...], tuple[_RunList, ...], int, int]
_Option = TypeVar("_Option", bound=tuple[int, int, int, object])


def _pareto(options: list[_Option]) -> tuple[_Option, ...]:
    """Drop every option another beats on points, lo and hi at once."""
    if len(options) <= 1:
        return tuple(options)
    options.sort(key=lambda o: (o[0], o[1], -o[2]))
    kept: list[_Option] = []
    for option in options:
        lo, hi = option[1], option[2]
        for k in kept:
            if k[1] <= lo and k[2] >= hi:  # k[0] <= d by the sort order
                break
        else:
            kept.append(option)
    return tuple(kept)


_SuitTable: TypeAlias = dict[int, tuple[_SuitOption, ...]]
_SUIT_CACHE: dict[tuple[_Context, int], _SuitTable] = {}
_BITS = 4  # bits per rank position in a packed suit: up to 15 cards of one rank


def _suit_table(ctx: _Context, wilds: int) -> _SuitTable:
    """The cache of suit answers for one search context and wild count."""
    if len(_SUIT_CACHE) >= 256:
        _SUIT_CACHE.clear()
    table = _SUIT_CACHE.setdefault((ctx, wilds), {})
    if len(table) >= _CACHE_LIMIT:
        table.clear()
    return table


def _suit_options(table: _SuitTable, ctx: _Context, key: int, wilds: int) -> tuple[_SuitOption, ...]:
    """Pareto options for the runs of one suit.

    ``key`` packs how many natural cards of this suit lie at each rank
    position (``_BITS`` bits a position: 1 = Ace low, 13 = King, 14 = an Ace
    played high).  Each option is ``(points, lo, hi, runs)`` with ``runs`` a
    linked list ``(run, runs)`` or ``()`` of runs ``(positions, lo, hi)``
    (see :func:`_runs_of`); cards in no run are the suit's
    deadwood.  The lowest card is either left out or the lowest natural card
    of a run; with ``aces: high_or_low`` a low Ace may also move up to play
    high.
    """
    cached = table.get(key)
    if cached is not None:
        return cached
    if not key:
        result: tuple[_SuitOption, ...] = ((0, 0, 0, ()),)
    else:
        p = ((key & -key).bit_length() - 1) // _BITS
        rest = key - (1 << (_BITS * p))
        options: list[_SuitOption] = []
        if p != _HIGH_ACE:  # a high Ace left out is the same as a low one left out
            penalty = ctx.points[p]
            for d, lo, hi, runs in _suit_options(table, ctx, rest, wilds):
                options.append((d + penalty, lo, hi, runs))
        if p == ACE and ctx.aces_high:
            options.extend(_suit_options(table, ctx, rest + (1 << (_BITS * _HIGH_ACE)), wilds))
        get = table.get
        for positions, run_lo, run_hi, left in _runs_from(ctx, rest, p, wilds):
            sub = get(left) or _suit_options(table, ctx, left, wilds)
            run = (positions, run_lo, run_hi)
            for d, lo, hi, runs in sub:
                total_lo = lo + run_lo
                if total_lo <= wilds:
                    total_hi = hi + run_hi
                    # ``runs`` is a linked list (run, rest of the runs): no tuple grows.
                    options.append((d, total_lo, total_hi if total_hi < wilds else wilds, (run, runs)))
        result = _pareto(options)
    table[key] = result
    return result


def _runs_of(linked: _RunList) -> list[_Run]:
    """The runs of a suit option's linked list ``(run, (run, (... ())))``."""
    runs: list[_Run] = []
    while linked:
        run, linked = linked
        runs.append(run)
    return runs


def _runs_from(ctx: _Context, key: int, start: int, wilds: int) -> list[tuple[tuple[int, ...], int, int, int]]:
    """Every run whose lowest natural card is at ``start``, as
    ``(positions, lo, hi, key of the suit's other cards)``.

    In the full search a run may skip a natural card it spans (a wild stands
    in for it) so that the card serves elsewhere; see :func:`_solve` for
    when the quick search leaves that out.
    """
    max_wilds = ctx.max_wilds
    cap = wilds if max_wilds is None else min(wilds, max_wilds)
    top = min(_HIGH_ACE if ctx.aces_high else 13, start + 12)
    may_skip = ctx.full or max_wilds is not None
    present = [q for q in range(start + 1, top + 1) if (key >> (_BITS * q)) & 15]
    found: list[tuple[tuple[int, ...], int, int, int]] = []
    # Depth-first over (natural positions so far, wilds in gaps, cards left, next present index).
    stack: list[tuple[tuple[int, ...], int, int, int]] = [((start,), 0, key, 0)]
    while stack:
        positions, gaps, left, index = stack.pop()
        last = positions[-1]
        span = last - start + 1
        lo = gaps + (3 - span if span < 3 else 0)
        if lo <= cap:
            hi = 13 - len(positions)
            if max_wilds is not None and max_wilds < hi:
                hi = max_wilds
            found.append((positions, lo, hi if hi < wilds else wilds, left))
        for j in range(index, len(present)):
            q = present[j]
            g = gaps + q - last - 1  # positions between, absent or skipped, take wilds
            if g > cap:
                break
            stack.append((positions + (q,), g, left - (1 << (_BITS * q)), j + 1))
            if not may_skip:
                break
    return found


def _set_choices(ctx: _Context, suit_counts: _Taken, wilds: int) -> list[_SetChoice]:
    """Ways to put natural cards of one rank into sets.

    ``suit_counts`` is how many cards of the rank each suit holds.  Each
    choice is ``(taken per suit, lo, hi, number of sets)``; the empty choice
    comes first.
    """
    choices: list[_SetChoice] = [((0, 0, 0, 0), 0, 0, 0)]
    max_wilds = ctx.max_wilds
    per_set = 1 if max_wilds is None else max(1, 3 - max_wilds)  # naturals a set needs at least
    for taken in _sub_multisets(suit_counts):
        m = sum(taken)
        if m == 0 or m + wilds < 3 or (m == 1 and not ctx.full):
            continue
        best_k = 1 if max_wilds is None else m // per_set
        for k in range(1, max(best_k, 0) + 1):
            lo = max(0, 3 * k - m)
            if lo > wilds:
                break
            hi = wilds if max_wilds is None else min(wilds, k * max_wilds)
            if max_wilds is not None and m < k * per_set:
                break
            choices.append((taken, lo, hi, k))
    return choices


def _sub_multisets(counts: _Taken) -> Iterator[_Taken]:
    a, b, c, d = counts
    for i in range(a + 1):
        for j in range(b + 1):
            for k in range(c + 1):
                for m in range(d + 1):
                    yield (i, j, k, m)


def _all_wild_capacity(ctx: _Context, left: int) -> int:
    """How many of ``left`` wilds can form melds of wilds only."""
    if not ctx.all_wild_melds or left < 3:
        return 0
    biggest = ctx.max_wilds
    if biggest is None:
        return left
    if biggest < 3:
        return 0
    best = 0
    for used in range(3, left + 1):
        groups_min = -(-used // biggest)
        if groups_min * 3 <= used:
            best = used
    return best


# --------------------------------------------------------------------------
# The search over one hand.


@dataclass
class _Hand:
    naturals: list[Card]
    wilds: list[Card]  # most expensive first
    wild_points: list[int]  # same order


def _split(hand: Sequence[Card], rules: Rules, hand_size: int, count_cards: bool) -> _Hand:
    wild = wild_ranks(hand_size)
    naturals = [c for c in hand if not c.is_joker and c.rank not in wild]
    wilds = [c for c in hand if c.is_joker or c.rank in wild]
    if count_cards:
        wilds.sort(key=lambda c: c.code)
        points = [1] * len(wilds)
    else:
        wilds.sort(key=lambda c: (-rules.card_points(c, hand_size), c.code))
        points = [rules.card_points(c, hand_size) for c in wilds]
    return _Hand(naturals, wilds, points)


def _solve(ctx: _Context, hand: _Hand, table_room: int = 0) -> tuple[int, _Plan]:
    """Return (points, plan) of the least-penalty arrangement.

    ``table_room`` (redemption only) is how many wilds the melds already on
    the table can still take.

    The quick search leaves out choices that can only pay when the melds
    cannot hold every wild: a set of one natural card (a run of that card
    needs the same wilds and differs only in holding at most 12 more), and,
    with no limit on wilds per meld, a run that skips a natural card it
    spans (swapping that card in, and a wild into the meld that used it,
    keeps points and wilds needed; leaving it out only pays when the melds
    are full).  Every other choice keeps its points and the wilds it needs.
    So if no choice the quick search met left a wild out while scoring
    below its answer, the answer is exact; otherwise the full search runs.
    """
    points, plan, capacity_bound_below = _search(ctx, hand, table_room)
    if capacity_bound_below is not None and capacity_bound_below < points and not ctx.full:
        points, plan, _ = _search(replace(ctx, full=True), hand, table_room)
    return points, plan


def _search(ctx: _Context, hand: _Hand, table_room: int = 0) -> tuple[int, _Plan, int | None]:
    wilds = len(hand.wilds)
    # cheapest-first running sums of wild penalties: cost of leaving u wilds out
    cheapest = list(reversed(hand.wild_points))
    left_cost = [0]
    for p in cheapest:
        left_cost.append(left_cost[-1] + p)

    suit_index = {s: i for i, s in enumerate(SUIT_CHARS)}
    by_suit = [0, 0, 0, 0]  # packed rank counts of each suit (see _suit_options)
    by_rank: dict[int, list[int]] = {}
    for card in hand.naturals:
        s = suit_index[card.suit]
        by_suit[s] += 1 << (_BITS * card.rank)
        by_rank.setdefault(card.rank, [0, 0, 0, 0])[s] += 1
    ranks = sorted(r for r, counts in by_rank.items() if sum(counts) + wilds >= 3)
    rank_choices = [(r, _set_choices(ctx, tuple(by_rank[r]), wilds)) for r in ranks]

    best: list[Any] = [None, None, None]  # points, plan, least points of a choice that left wilds out

    table = _suit_table(ctx, wilds)

    def finish(set_lo: int, set_hi: int, chosen: list[_Chosen]) -> None:
        # A partial sum scoring no less than the best found so far can only be skipped below (points never
        # fall as suits are added), so it is dropped at once: the same answer, the same plan among equals.
        bound = best[0]
        combined: list[tuple[int, int, int, tuple[_RunList, ...]]] = [(0, set_lo, set_hi, ())]
        for key in by_suit:
            options = _suit_options(table, ctx, key, wilds)
            if len(options) == 1 and len(combined) == 1:
                d2, lo2, hi2, runs = options[0]
                d, lo, hi, w = combined[0]
                if lo + lo2 > wilds or (bound is not None and d + d2 >= bound):
                    return
                combined = [(d + d2, lo + lo2, min(wilds, hi + hi2), w + (runs,))]
                continue
            merged: list[tuple[int, int, int, tuple[_RunList, ...]]] = []
            for d, lo, hi, w in combined:
                for d2, lo2, hi2, runs in options:
                    if lo + lo2 <= wilds and (bound is None or d + d2 < bound):
                        merged.append((d + d2, lo + lo2, min(wilds, hi + hi2), w + (runs,)))
            if not merged:
                return
            combined = list(_pareto(merged))
        for d, lo, hi, runs_by_suit in combined:
            if best[0] is not None and d >= best[0]:
                continue
            in_melds, placed = _placed_wilds(ctx, wilds, lo, hi)
            if placed < wilds and (best[2] is None or d < best[2]):
                best[2] = d
            total = d + left_cost[wilds - placed]
            if best[0] is None or total < best[0]:
                best[0] = total
                best[1] = (tuple(chosen), runs_by_suit, in_melds, placed)

    seen: set[tuple[int, ...]] = set()
    last = len(rank_choices)

    def walk(i: int, set_lo: int, set_hi: int, chosen: list[_Chosen]) -> None:
        if i == last:
            finish(set_lo, set_hi, chosen)
            return
        rank, choices = rank_choices[i]
        shift = _BITS * rank
        for taken, lo, hi, k in choices:
            if set_lo + lo > wilds:
                continue
            if k:
                for s in range(4):
                    by_suit[s] -= taken[s] << shift
            # Suits with the same rank counts are interchangeable from here
            # on: a position reached again with the suits permuted is skipped.
            next_hi = min(wilds, set_hi + hi)
            key = (i, set_lo + lo, next_hi, *sorted(by_suit))
            if key not in seen:
                seen.add(key)
                if k:
                    chosen.append((rank, taken, lo, hi, k))
                walk(i + 1, set_lo + lo, next_hi, chosen)
                if k:
                    chosen.pop()
            if k:
                for s in range(4):
                    by_suit[s] += taken[s] << shift

    walk(0, 0, min(wilds, table_room), [])
    return best[0], best[1], best[2]


def _placed_wilds(ctx: _Context, wilds: int, lo: int, hi: int) -> tuple[int, int]:
    """Most wilds the chosen melds hold, and that plus any all-wild melds.

    Returns ``(in the chosen melds, placed in all)``.
    """
    top = min(wilds, hi)
    if not ctx.all_wild_melds:
        return top, top
    return max(
        ((x, x + _all_wild_capacity(ctx, wilds - x)) for x in range(lo, top + 1)), key=lambda pair: (pair[1], pair[0])
    )


# --------------------------------------------------------------------------
# Turning a plan back into melds of physical cards.


def _build(
    ctx: _Context, hand: _Hand, plan: _Plan, points: int, table_rooms: Sequence[tuple[int, int]] = ()
) -> Arrangement:
    """Turn a plan into melds of physical cards.

    ``table_rooms`` (redemption only) lists ``(table meld index, wilds it can
    still take)``: wilds the plan placed beyond the hand's own melds are laid
    off there.
    """
    chosen, runs_by_suit, in_melds, placed = plan
    pool: dict[tuple[int, str], list[Card]] = {}
    for card in hand.naturals:
        pool.setdefault((card.rank, card.suit), []).append(card)

    def take(rank: int, suit: str) -> Card:
        return pool[(rank, suit)].pop()

    # Each meld: kind, its natural cards with positions, wilds it needs, wilds it may hold.
    skeletons: list[dict[str, Any]] = []
    for rank, taken, _set_lo, _set_hi, k in chosen:
        cards = [take(rank, SUIT_CHARS[s]) for s in range(4) for _ in range(taken[s])]
        # split m naturals into k sets as evenly as possible
        groups = [cards[i::k] for i in range(k)]
        for group in groups:
            need = max(0, 3 - len(group))
            room = (10**6) if ctx.max_wilds is None else ctx.max_wilds
            skeletons.append({"kind": _SET, "naturals": group, "need": need, "room": room})
    for s, runs in enumerate(runs_by_suit):
        suit = SUIT_CHARS[s]
        for positions, run_lo, _run_hi in _runs_of(runs):
            run_cards = [(p, take(ACE if p == _HIGH_ACE else p, suit)) for p in positions]
            room = 13 - len(positions)
            if ctx.max_wilds is not None:
                room = min(room, ctx.max_wilds)
            skeletons.append({"kind": _RUN, "naturals": run_cards, "need": run_lo, "room": room})

    to_place = list(hand.wilds[:placed])  # the most expensive wilds go into melds
    left_out = list(hand.wilds[placed:])
    extra = [0] * len(skeletons)
    for i, sk in enumerate(skeletons):
        extra[i] = sk["need"]
    spare = in_melds - sum(extra)
    for i, sk in enumerate(skeletons):
        give = min(spare, sk["room"] - sk["need"])
        if give > 0:
            extra[i] += give
            spare -= give
    layoffs: list[tuple[int, tuple[Card, ...]]] = []
    for index, room in table_rooms:
        give = min(spare, room)
        if give > 0:
            layoffs.append((index, tuple(to_place.pop() for _ in range(give))))
            spare -= give
    melds: list[Meld] = []
    for sk, n_wilds in zip(skeletons, extra, strict=True):
        wild_cards = [to_place.pop() for _ in range(n_wilds)]
        if sk["kind"] == _SET:
            melds.append(Meld(_SET, tuple(sk["naturals"]) + tuple(wild_cards)))
        else:
            melds.append(Meld(_RUN, _lay_run(ctx, sk["naturals"], wild_cards)))
    if to_place:  # melds of wild cards only, as few as the cap allows, split evenly
        # _all_wild_capacity placed only counts where 3 * wild_melds <= len(to_place).
        wild_melds = -(-len(to_place) // (ctx.max_wilds or len(to_place)))
        assert 3 * wild_melds <= len(to_place), "a meld of wilds alone would have fewer than 3 cards"
        melds.extend(Meld(_SET, tuple(to_place[i::wild_melds])) for i in range(wild_melds))
    deadwood = [c for cards in pool.values() for c in cards] + left_out
    deadwood.sort(key=lambda c: (c.rank or 99, c.suit))
    return Arrangement(tuple(melds), tuple(deadwood), points, tuple(layoffs))


def _lay_run(ctx: _Context, naturals: list[tuple[int, Card]], wild_cards: list[Card]) -> tuple[Card, ...]:
    """Order a run's cards by the rank each stands for, wilds in the gaps, then at the ends."""
    first, last = naturals[0][0], naturals[-1][0]
    slots: dict[int, Card] = dict(naturals)
    wilds = list(wild_cards)
    for position in range(first, last + 1):
        if position not in slots:
            slots[position] = wilds.pop()
    low_bound = 2 if last == _HIGH_ACE else 1
    high_bound = _HIGH_ACE if (ctx.aces_high and first > 1) else 13
    lo_pos, hi_pos = first, last
    while wilds:
        if hi_pos < high_bound and hi_pos - lo_pos < 12:
            hi_pos += 1
            slots[hi_pos] = wilds.pop()
        elif lo_pos > low_bound and hi_pos - lo_pos < 12:
            lo_pos -= 1
            slots[lo_pos] = wilds.pop()
        else:  # cannot happen: the search never puts more wilds in a run than fit
            raise AssertionError("run overflow")
    return tuple(slots[p] for p in sorted(slots))


# --------------------------------------------------------------------------
# Public functions.


def meld_kind(cards: Sequence[Card], rules: Rules, hand_size: int) -> MeldKind | None:
    """``"set"`` or ``"run"`` if ``cards`` form a valid meld in this round, else ``None``.

    This checks a meld directly from RULES.md, independently of the search;
    the tests use it to check every arrangement the search returns.
    """
    if len(cards) < 3:
        return None
    wild = [c for c in cards if rules.is_wild(c, hand_size)]
    natural = [c for c in cards if not rules.is_wild(c, hand_size)]
    if rules.max_wilds_per_meld is not None and len(wild) > rules.max_wilds_per_meld:
        return None
    if not natural:
        return _SET if rules.all_wild_melds else None
    if len({c.rank for c in natural}) == 1:
        return _SET
    if len(cards) > 13 or len({c.suit for c in natural}) != 1:
        return None
    for ace_position in (1, _HIGH_ACE) if rules.aces_high else (1,):
        positions = [ace_position if c.rank == ACE else c.rank for c in natural]
        if len(set(positions)) != len(positions):
            return None  # a run never holds one rank twice
        span = max(positions) - min(positions) + 1
        if span <= 13 and span - len(positions) <= len(wild):
            return _RUN
    return None


def _cards(hand: Iterable[Card] | str) -> list[Card]:
    if isinstance(hand, str):
        from .cards import parse_cards

        return list(parse_cards(hand))
    return list(hand)


def best_arrangement(hand: Iterable[Card] | str, rules: Rules, hand_size: int) -> Arrangement:
    """The arrangement of ``hand`` into melds that leaves the least penalty.

    ``hand_size`` is the number of cards dealt in the round; it fixes the
    wild rank(s).  ``points`` is before any round doubling.
    """
    cards = _cards(hand)
    ctx = _context(rules)
    split = _split(cards, rules, hand_size, count_cards=False)
    points, plan = _solve(ctx, split)
    return _build(ctx, split, plan, points)


def deadwood_points(hand: Iterable[Card] | str, rules: Rules, hand_size: int) -> int:
    """Only the points of :func:`best_arrangement` (faster: builds no melds)."""
    cards = _cards(hand)
    points, _ = _solve(_context(rules), _split(cards, rules, hand_size, count_cards=False))
    return points


def unmelded_count(hand: Iterable[Card] | str, rules: Rules, hand_size: int) -> int:
    """The fewest cards of ``hand`` that must stay out of melds."""
    cards = _cards(hand)
    count, _ = _solve(_context(rules, count_cards=True), _split(cards, rules, hand_size, count_cards=True))
    return count


def can_meld_all(hand: Iterable[Card] | str, rules: Rules, hand_size: int) -> bool:
    """Whether every card of ``hand`` fits into melds.

    An unmelded joker is unmelded here even with ``jokers_free``: that
    option lowers its score but never helps a player go out.
    """
    return unmelded_count(hand, rules, hand_size) == 0


def _distinct(cards: Sequence[Card]) -> list[Card]:
    return sorted(set(cards), key=lambda c: c.code)


def _without(cards: Sequence[Card], card: Card) -> list[Card]:
    rest = list(cards)
    rest.remove(card)
    return rest


def go_out_discards(hand: Iterable[Card] | str, rules: Rules, hand_size: int) -> tuple[Card, ...]:
    """The distinct cards, sorted by code, whose discard leaves every other card melded."""
    cards = _cards(hand)
    ctx = _context(rules, count_cards=True)
    # If even the whole hand leaves two cards out of melds, no discard can
    # leave none: one search answers most turns.
    if _solve(ctx, _split(cards, rules, hand_size, count_cards=True))[0] >= 2:
        return ()
    result = []
    for card in _distinct(cards):
        count, _ = _solve(ctx, _split(_without(cards, card), rules, hand_size, count_cards=True))
        if count == 0:
            result.append(card)
    return tuple(result)


def discard_penalties(hand: Iterable[Card] | str, rules: Rules, hand_size: int) -> dict[Card, int]:
    """For each distinct card, the least penalty left in hand after discarding it."""
    cards = _cards(hand)
    ctx = _context(rules)
    return {
        card: _solve(ctx, _split(_without(cards, card), rules, hand_size, count_cards=False))[0]
        for card in _distinct(cards)
    }


# --------------------------------------------------------------------------
# Redemption: laying off onto the melds on the table.


@dataclass(frozen=True, slots=True)
class _TableMeld:
    index: int
    kind: MeldKind
    rank: int | None  # a set's rank (None for a meld of wilds only)
    suit: str | None  # a run's suit
    low: int  # a run's lowest and highest position, stand-ins included
    high: int
    wilds: int
    size: int


def _table_shape(index: int, meld: Meld, rules: Rules, hand_size: int) -> _TableMeld:
    natural = [c for c in meld.cards if not rules.is_wild(c, hand_size)]
    wilds = len(meld.cards) - len(natural)
    if meld.kind == _SET or not natural:
        rank = natural[0].rank if natural else None
        return _TableMeld(index, _SET, rank, None, 0, 0, wilds, len(meld.cards))
    suit = natural[0].suit
    for ace in (1, _HIGH_ACE):
        starts = {
            (ace if c.rank == ACE else c.rank) - i for i, c in enumerate(meld.cards) if not rules.is_wild(c, hand_size)
        }
        if len(starts) == 1:
            low = starts.pop()
            if low >= 1 and low + len(meld.cards) - 1 <= (_HIGH_ACE if rules.aces_high else 13):
                return _TableMeld(index, _RUN, None, suit, low, low + len(meld.cards) - 1, wilds, len(meld.cards))
    raise ValueError(f"not a run in table order: {' '.join(meld.codes)}")


def _wild_room(rules: Rules, table: _TableMeld, added_wilds: int, added_cards: int) -> int:
    room = 10**6 if table.kind == _SET else 13 - table.size - added_cards
    if rules.max_wilds_per_meld is not None:
        room = min(room, rules.max_wilds_per_meld - table.wilds - added_wilds)
    return max(0, room)


_Extension: TypeAlias = tuple[tuple[Card, ...], int, int]


def _run_extensions(rules: Rules, table: _TableMeld, naturals: Counter[Card], wilds: int) -> Iterator[_Extension]:
    """Ways to extend one table run with natural cards from the hand.

    Yields ``(natural cards used, wilds used, cards added)``; the first is
    the empty extension.  Wilds only stand between the run and a natural
    card: wilds alone are counted as the run's room for wilds.
    """
    yield (), 0, 0
    suit = table.suit
    if suit is None:
        return
    top = _HIGH_ACE if (rules.aces_high and table.low > 1) else 13
    bottom = 2 if table.high == _HIGH_ACE else 1

    def card_at(position: int) -> Card | None:
        rank = ACE if position in (1, _HIGH_ACE) else position
        card = Card(rank, suit)
        return card if naturals[card] else None

    def side(step: int) -> list[_Extension]:
        """Every way to extend one end that lays off a natural card: (cards, wilds, length)."""
        results: list[_Extension] = []
        frontier: list[_Extension] = [((), 0, 0)]
        edge = table.low if step < 0 else table.high
        while frontier:
            grown: list[_Extension] = []
            for cards, used, length in frontier:
                position = edge + step * (length + 1)
                if not (bottom <= position <= top) or table.size + length >= 13:
                    continue
                card = card_at(position)
                if card is not None and card not in cards:
                    option = (cards + (card,), used, length + 1)
                    results.append(option)
                    grown.append(option)
                if used < wilds:
                    grown.append((cards, used + 1, length + 1))
            frontier = grown
        return results

    empty: _Extension = ((), 0, 0)
    lows = [empty] + side(-1)
    highs = [empty] + side(+1)
    for low_cards, low_wilds, low_len in lows:
        for high_cards, high_wilds, high_len in highs:
            if not low_cards and not high_cards:
                continue
            used = low_wilds + high_wilds
            if used > wilds or table.size + low_len + high_len > 13:
                continue
            if rules.max_wilds_per_meld is not None and table.wilds + used > rules.max_wilds_per_meld:
                continue
            yield low_cards + high_cards, used, low_len + high_len


def redemption_score(
    hand: Iterable[Card] | str, table_melds: Sequence[Meld], rules: Rules, hand_size: int
) -> Arrangement:
    """The least penalty of ``hand`` when its holder may lay down melds and
    lay off cards onto ``table_melds`` (the redemption variant).

    Decisions where RULES.md is silent: a natural card is laid off onto a
    set of its rank, or extends a run of its suit at either end (wilds may
    stand between, and the run's stand-ins count as its cards); a wild is
    laid off onto any meld with room for it (a run up to 13 cards, and
    ``max_wilds_per_meld``); a meld of wilds only takes wilds; a card never
    replaces a stand-in.  ``melds`` are the hand's own melds, ``layoffs``
    the cards laid off onto each table meld.
    """
    cards = _cards(hand)
    tables = [_table_shape(i, meld, rules, hand_size) for i, meld in enumerate(table_melds)]
    free_ranks = frozenset(t.rank for t in tables if t.kind == _SET and t.rank is not None)
    wild = [c for c in cards if rules.is_wild(c, hand_size)]
    wild.sort(key=lambda c: (-rules.card_points(c, hand_size), c.code))
    naturals = Counter(c for c in cards if not rules.is_wild(c, hand_size))
    runs = [t for t in tables if t.kind == _RUN]

    _Extended: TypeAlias = list[tuple[_TableMeld, tuple[Card, ...], int, int]]
    best: tuple[int, _Plan, _Hand, list[tuple[int, int]], _Extended, _Context] | None = None

    def explore(i: int, used_naturals: Counter[Card], used_wilds: int, extended: _Extended) -> None:
        nonlocal best
        if i < len(runs):
            available = naturals - used_naturals
            for ext_cards, ext_wilds, added in _run_extensions(rules, runs[i], available, len(wild) - used_wilds):
                explore(
                    i + 1,
                    used_naturals + Counter(ext_cards),
                    used_wilds + ext_wilds,
                    extended + [(runs[i], ext_cards, ext_wilds, added)],
                )
            return
        rest = list((naturals - used_naturals).elements()) + wild[used_wilds:]
        added_to = {t.index: (w, n) for t, _, w, n in extended}
        rooms = [(t.index, _wild_room(rules, t, *added_to.get(t.index, (0, 0)))) for t in tables]
        table_room = sum(room for _, room in rooms)
        ctx = _context(rules, free_ranks=free_ranks)
        split = _split(rest, rules, hand_size, count_cards=False)
        points, plan = _solve(ctx, split, table_room)
        if best is None or points < best[0]:
            best = (points, plan, split, rooms, extended, ctx)

    explore(0, Counter(), 0, [])
    if best is None:  # pragma: no cover - explore always reaches the end once
        raise AssertionError("redemption_score found no arrangement")
    points, plan, split, rooms, extended, ctx = best
    arrangement = _build(ctx, split, plan, points, rooms)
    laid: dict[int, list[Card]] = {}
    for table, ext_cards, ext_wilds, _ in extended:
        laid.setdefault(table.index, []).extend(ext_cards)
        laid[table.index].extend(wild[:ext_wilds])
        del wild[:ext_wilds]
    for index, given in arrangement.layoffs:
        laid.setdefault(index, []).extend(given)
    deadwood = []
    for card in arrangement.deadwood:
        target = next(
            (
                t.index
                for t in tables
                if t.kind == _SET and t.rank == card.rank and not card.is_joker and not rules.is_wild(card, hand_size)
            ),
            None,
        )
        if target is None:
            deadwood.append(card)
        else:
            laid.setdefault(target, []).append(card)
    layoffs = tuple((index, tuple(cs)) for index, cs in sorted(laid.items()) if cs)
    return Arrangement(arrangement.melds, tuple(deadwood), points, layoffs)
