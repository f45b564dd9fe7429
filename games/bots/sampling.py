"""Determinizations: whole game states consistent with what one seat has seen.

A seat sees its own hand, the table, the top of the discard pile and the
public events of the round (``history``: discards, cards taken from the
pile, stock rebuilds, failed go-outs, melds laid down).  From these,
:class:`Knowledge` works out once where every card it knows of lies, and
:meth:`Knowledge.sample` deals the cards it has not seen at random, as the
dealer might have, into a full :class:`~games.engine.GameState`:

* the seat's own hand as it is, the table melds as they are;
* the discard pile as the history tells it (bottom to top); a pile longer
  than the history knows gets unseen cards underneath;
* a card a player was seen to take from the pile, and not seen to give
  back since (discarded, melded when going out, laid down), in that
  player's hand;
* after a stock rebuild, the stock drawn from the rebuilt cards still
  unseen (a rebuilt stock holds only the old pile); before one, from any
  unseen card;
* every other unseen card in the other hands, at their sizes.

``view(sampled, seat)`` is then equal to the seat's real view (a test
checks it).  Nothing else about the real state is used: its shuffle is
replaced by one seeded from ``rng`` (a rollout's stock rebuilds are
random too), and the results of seats already settled this round (who went
out, and who laid down in the redemption variant) are rebuilt from what is
public.  The sample is a function of the view, the history and ``rng``
alone, so a seeded ``rng`` gives a reproducible search.

Pure Python, no Django, like the engine and the bots.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from games.engine import Card, EventKind, GameState, SeatView, game_deck
from games.engine.game import DISCARD_PILE, SeatResult
from games.engine.shuffle import LegacyShuffle

__all__ = ["Knowledge", "sample_state"]


class Knowledge:
    """What one seat knows of where the cards are, read once from its view and the round's history.

    ``pile`` holds the known discard pile (card codes, bottom to top),
    ``held`` the cards each other seat is known to hold, ``rebuilt`` the
    cards of the last stock rebuild (``None`` if the stock was not rebuilt
    this round, or the history does not say), ``penalties`` this round's
    failed go-out penalties by seat.  :meth:`sample` deals the rest.

    A spectator's view, a finished game, or a view and history whose cards
    do not add up raise ``ValueError``.
    """

    def __init__(self, view: SeatView, history: Iterable[Mapping[str, Any]] = ()) -> None:
        if view.hand is None or view.seat is None:
            raise ValueError("a determinization is for a seat: a spectator's view has no hand")
        if view.is_over:
            raise ValueError("the game is over: every card is known, there is nothing to sample")
        self.view = view
        self.seat = view.seat
        n = view.seat_count
        pile: list[str] = []
        held: list[list[str]] = [[] for _ in range(n)]
        rebuilt: list[str] | None = None
        penalties = [0] * n
        for event in history:
            kind, data, seat = event.get("kind"), event.get("data") or {}, event.get("seat")
            if kind == EventKind.ROUND_DEALT:
                pile = [data["up_card"]] if data.get("up_card") else []
                held = [[] for _ in range(n)]
                rebuilt, penalties = None, [0] * n
            elif kind in (EventKind.DISCARDED, EventKind.WENT_OUT):
                pile.append(data["card"])
                if isinstance(seat, int) and 0 <= seat < n:
                    _drop(held[seat], [data["card"]])
                    if kind == EventKind.WENT_OUT:
                        held[seat] = []  # every card of the hand went to the table
            elif kind == EventKind.DREW and data.get("source") == DISCARD_PILE:
                if pile:
                    pile.pop()
                if isinstance(seat, int) and 0 <= seat < n:
                    held[seat].append(data["card"])
            elif kind == EventKind.STOCK_REBUILT:
                rebuilt, pile = pile[:-1], pile[-1:]
            elif kind == EventKind.GO_OUT_FAILED and isinstance(seat, int) and 0 <= seat < n:
                penalties[seat] += int(data.get("penalty") or 0)
            elif kind == EventKind.LAID_DOWN and isinstance(seat, int) and 0 <= seat < n:
                laid = [c for meld in data.get("melds") or () for c in meld.get("cards") or ()]
                laid += [c for layoff in data.get("layoffs") or () for c in layoff.get("cards") or ()]
                _drop(held[seat], laid)
        top = None if view.discard_top is None else view.discard_top.code
        if top and (not pile or pile[-1] != top):
            pile = [top]  # a history that does not match this view: trust only the view
            rebuilt = None
        pile = pile[-view.discard_size :] if view.discard_size else []

        # Place every known card; the rest of the decks are the unseen cards.
        unseen: Counter[Card] = Counter(game_deck(view.rules, n))
        if not _take(unseen, view.hand):
            raise ValueError("the seat's hand holds cards the decks do not")
        for table_meld in view.table_melds:
            if not _take(unseen, table_meld.meld.cards):
                raise ValueError("the table holds cards the decks do not")
        known_pile: list[Card] = []
        for code in reversed(pile):  # from the top down: the top card is surely known
            card = Card.from_code(code)
            if not _take(unseen, [card]):
                break
            known_pile.append(card)
        known_pile.reverse()
        self.pile: tuple[Card, ...] = tuple(known_pile)
        self.held: tuple[tuple[Card, ...], ...] = tuple(self._known_held(held, unseen))
        self.rebuilt: Counter[Card] | None = None
        if rebuilt is not None:
            self.rebuilt = Counter(Card.from_code(c) for c in rebuilt) & unseen
        self.penalties = tuple(penalties)
        self.unseen = unseen
        slots = view.discard_size - len(self.pile) + view.stock_size
        slots += sum(view.hand_counts[s] - len(self.held[s]) for s in range(n) if s != self.seat)
        if slots != sum(unseen.values()):
            raise ValueError(f"the cards do not add up: {sum(unseen.values())} unseen cards for {slots} hidden places")

    def _known_held(self, held: list[list[str]], unseen: Counter[Card]) -> list[tuple[Card, ...]]:
        """The cards each other seat is known to hold (the latest taken first, within its hand size)."""
        result: list[tuple[Card, ...]] = []
        for s, codes in enumerate(held):
            known: list[Card] = []
            if s != self.seat:
                for code in reversed(codes):
                    card = Card.from_code(code)
                    if len(known) < self.view.hand_counts[s] and _take(unseen, [card]):
                        known.append(card)
            result.append(tuple(known))
        return result

    def next_stock_card(self) -> dict[Card, float]:
        """The chance of each card to be the next one drawn from the stock, as :meth:`sample` deals it.

        Any unseen card alike; after a stock rebuild, the cards of the rebuild
        (the stock holds nothing else).  Empty when the stock is.
        """
        size = self.view.stock_size
        if size == 0 or not self.unseen:
            return {}
        rebuilt = self.rebuilt if self.rebuilt is not None else Counter()
        from_rebuild = min(size, sum(rebuilt.values()))
        others = self.unseen - rebuilt
        chances: dict[Card, float] = {}
        if from_rebuild:
            share = from_rebuild / size / sum(rebuilt.values())
            for card, n in rebuilt.items():
                chances[card] = n * share
        if size > from_rebuild and others:
            share = (size - from_rebuild) / size / sum(others.values())
            for card, n in others.items():
                chances[card] = chances.get(card, 0.0) + n * share
        return chances

    def sample(self, rng: random.Random) -> GameState:
        """One full game state consistent with everything the seat knows, the unseen cards dealt by ``rng``."""
        view, n = self.view, self.view.seat_count
        unseen = list(self.unseen.elements())
        rng.shuffle(unseen)
        stock: list[Card] = []
        if self.rebuilt is not None:
            # A rebuilt stock holds only cards of the rebuild.
            pool = list(self.rebuilt.elements())
            rng.shuffle(pool)
            stock = pool[: view.stock_size]
            _drop(unseen, stock)
        missing = view.stock_size - len(stock)
        stock, rest = stock + unseen[:missing], unseen[missing:]
        hands: list[tuple[Card, ...]] = []
        for s in range(n):
            if s == self.seat:
                hands.append(tuple(view.hand or ()))
                continue
            need = view.hand_counts[s] - len(self.held[s])
            hands.append(tuple(sorted(self.held[s] + tuple(rest[:need]))))
            rest = rest[need:]
        pile = tuple(rest) + self.pile  # unknown cards (if any) under the known pile
        rng.shuffle(stock)
        return GameState(
            rules=view.rules,
            seat_count=n,
            shuffle=LegacyShuffle(rng.getrandbits(62)),
            round_index=view.round - 1,
            dealer=view.dealer,
            current_seat=view.current_seat,
            phase=view.phase,
            hands=tuple(hands),
            stock=tuple(stock),
            discard_pile=pile,
            table=view.table_melds,
            rebuilds=view.stock_rebuilds,
            taken_from_discard=view.taken_from_discard,
            went_out=view.went_out,
            last_turns=view.last_turns,
            settled=self._settled(hands),
            penalties=self.penalties,
            scores=view.scores,
            results=view.results,
            move_count=view.move_count,
        )

    def _settled(self, hands: list[tuple[Card, ...]]) -> tuple[SeatResult | None, ...]:
        """The results already fixed this round: who went out, and (redemption) who laid down."""
        view = self.view
        if view.went_out is None:
            return (None,) * view.seat_count
        rules, size = view.rules, view.hand_size
        settled: list[SeatResult | None] = []
        for s in range(view.seat_count):
            penalty = self.penalties[s]
            melds = tuple(t.meld for t in view.table_melds if t.seat == s)
            if view.hand_counts[s] == 0:
                settled.append(SeatResult(points=penalty, melds=melds, deadwood=(), went_out=True, penalty=penalty))
            elif rules.redemption and s not in view.last_turns:
                points = sum(rules.card_points(c, size) for c in hands[s]) * rules.round_multiplier(size)
                settled.append(SeatResult(points=points + penalty, melds=melds, deadwood=hands[s], penalty=penalty))
            else:
                settled.append(None)
        return tuple(settled)


def sample_state(view: SeatView, history: Iterable[Mapping[str, Any]], rng: random.Random) -> GameState:
    """One determinization of ``view`` (see :class:`Knowledge`; build that once to draw many)."""
    return Knowledge(view, history).sample(rng)


def _take(counter: Counter[Card], cards: Iterable[Card]) -> bool:
    """Remove ``cards`` from ``counter`` if all are there (and answer True); else change nothing."""
    need = Counter(cards)
    if any(counter[card] < k for card, k in need.items()):
        return False
    counter.subtract(need)
    return True


def _drop(items: list[Any], gone: Iterable[Any]) -> None:
    """Remove one of each of ``gone`` from ``items`` where present."""
    for item in gone:
        if item in items:
            items.remove(item)
