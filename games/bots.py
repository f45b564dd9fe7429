"""Bots that play a seat using only what that seat may see.

A bot gets ``view(state, seat)`` — the seat's own hand, the top discard and
the legal actions, never another hand or the stock — and, optionally, the
public events of the current round (``history``: what everyone at the table
saw happen: discards, cards taken from the pile, stock rebuilds).  It
answers with one of the legal actions.  The only other thing it uses is the
hand solver.  Bots keep no state between calls, so a bot can take over any
seat at any moment (timeouts, resignations) and a replay is deterministic.

Three levels:

``easy``
    Little thought: draws from the stock unless the top discard is wild,
    goes out when the table offers it, otherwise throws away a card picked
    at random among those that are in no meld (a random card when all are),
    with a lean towards high cards.  Its randomness is seeded from the
    public position, so the same position always gets the same answer.

``medium``
    Greedy: takes the top discard when holding it (and discarding the best
    other card) leaves less penalty than the hand has now; goes out at
    once; otherwise discards the card whose discard leaves the least
    penalty (the highest-scoring one on ties).

``hard``
    Everything ``medium`` does, plus what it has seen.  It counts the cards
    still unseen (not in its hand, on the table or known in the discard
    pile) to judge each partial meld (a pair, two cards of a suit one or two
    apart, a card next to a run) by how many live cards would complete it;
    it discards to keep the most promising partial melds rather than only
    the lowest penalty; it takes the top discard only when that beats the
    expected value of a stock draw; it avoids feeding the next player a card
    of a rank or suit that player has been taking from the pile; and it
    weighs the remaining time: the further the round has gone (and in the
    last turn after someone went out, entirely) it plays for the lowest
    penalty now instead of for melds later.
    Going out versus holding: a seat that can go out scores 0 for the
    round, the least possible, so holding never lowers its own score; hard
    goes out at once, with the discard that scores the most.

Speed: the best discard is always a leftover card of a best arrangement of
the hand (a card in a meld only ties with one), and discarding a leftover
card ``d`` leaves exactly ``points - points(d)``, so one solver call per
decision replaces one per card.  Results are cached per hand.
"""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from games.engine import (
    JOKER,
    STANDARD_DECK,
    Action,
    Card,
    Rules,
    action_from_dict,
    best_arrangement,
    discard_penalties,
    parse_cards,
)

__all__ = ["choose_action", "BOT_NAMES", "LEVELS"]

#: Names shown for bot seats, in order of the seat they take.
BOT_NAMES = ("Ada", "Blaise", "Carl", "Dora", "Emmy", "Felix", "Grace", "Hugo")

LEVELS = ("easy", "medium", "hard")


def choose_action(view: Mapping[str, Any], level: str = "medium", history: Iterable[Mapping[str, Any]] = ()) -> Action:
    """The action the bot of ``level`` plays for the seat whose ``view`` this is.

    ``view`` must be the seat's own view (``view(state, seat)``) with at
    least one legal action; ``history`` the public events of the round so
    far (only ``hard`` reads them).
    """
    legal = list(view["legal_actions"])
    if not legal:
        raise ValueError("the bot was asked to move when its seat has no legal action")
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}: choose from {', '.join(LEVELS)}")
    go_outs = [a for a in legal if a["type"] == "go_out"]
    draws = [a for a in legal if a["type"] == "draw"]
    if len(legal) == 1:
        return action_from_dict(legal[0])
    pos = _Position(view)
    if go_outs:  # every level goes out at once (0 is the least a round can cost)
        return action_from_dict(max(go_outs, key=lambda a: (pos.points(Card.from_code(a["card"])), a["card"])))
    if level == "easy":
        chosen = _easy(pos, legal, draws)
    elif level == "medium":
        chosen = _medium(pos, legal, draws)
    else:
        chosen = _hard(pos, legal, draws, _Memory(view, history))
    return action_from_dict(chosen)


# -- what every level knows about the position ----------------------------------


class _Position:
    def __init__(self, view: Mapping[str, Any]) -> None:
        self.view = view
        self.rules = _rules(json.dumps(view["rules"], sort_keys=True))
        self.hand_size = int(view["hand_size"])
        self.hand = list(parse_cards(view["hand"]))
        self.top = Card.from_code(view["discard_top"]) if view.get("discard_top") else None
        self.taken = Card.from_code(view["taken_from_discard"]) if view.get("taken_from_discard") else None

    def points(self, card: Card) -> int:
        return self.rules.card_points(card, self.hand_size)

    def is_wild(self, card: Card) -> bool:
        return self.rules.is_wild(card, self.hand_size)

    def arrange(self, cards: Sequence[Card]) -> tuple[int, tuple[Card, ...]]:
        """Least penalty of ``cards`` and the cards a best arrangement leaves over."""
        return _arrange(tuple(sorted(cards)), self.rules, self.hand_size)


@lru_cache(maxsize=64)
def _rules(options: str) -> Rules:
    return Rules.from_dict(json.loads(options))


@lru_cache(maxsize=8192)
def _arrange(cards: tuple[Card, ...], rules: Rules, hand_size: int) -> tuple[int, tuple[Card, ...]]:
    arrangement = best_arrangement(cards, rules, hand_size)
    return arrangement.points, tuple(arrangement.deadwood)


def _remove(cards: Sequence[Card], card: Card) -> list[Card]:
    rest = list(cards)
    rest.remove(card)
    return rest


def _discard_options(pos: _Position, cards: Sequence[Card], allowed: set[str]) -> list[tuple[int, Card]]:
    """(penalty left, card) for the allowed discards worth considering, best first.

    The leftover cards of a best arrangement, each leaving ``points - its
    points`` exactly; when none is allowed, every allowed card by the solver.
    """
    points, deadwood = pos.arrange(cards)
    options = sorted({(points - pos.points(c), -pos.points(c), c.code, c) for c in deadwood if c.code in allowed})
    if options:
        return [(left, card) for left, _, _, card in options]
    penalties = discard_penalties(list(cards), pos.rules, pos.hand_size)
    options = sorted((left, -pos.points(c), c.code, c) for c, left in penalties.items() if c.code in allowed)
    return [(left, card) for left, _, _, card in options]


def _allowed_discards(legal: list[dict]) -> set[str]:
    return {a["card"] for a in legal if a["type"] == "discard"}


def _draw(legal: list[dict], source: str) -> dict:
    for action in legal:
        if action["type"] == "draw" and action["source"] == source:
            return action
    return next(a for a in legal if a["type"] == "draw")


def _may_draw(legal: list[dict], source: str) -> bool:
    return any(a["type"] == "draw" and a["source"] == source for a in legal)


def _isolated(pos: _Position, card: Card, hand: Sequence[Card]) -> bool:
    """No meld can hold ``card`` with cards of ``hand``: no wild, no same rank, no suited neighbour."""
    if pos.is_wild(card):
        return False
    for other in hand:
        if pos.is_wild(other) or other.rank == card.rank:
            return False
        if other.suit == card.suit and (
            abs(other.rank - card.rank) == 1 or (pos.rules.aces_high and {other.rank, card.rank} == {1, 13})
        ):
            return False
    return True


# -- easy ---------------------------------------------------------------------------


def _easy(pos: _Position, legal: list[dict], draws: list[dict]) -> dict:
    rng = random.Random(
        zlib.crc32(json.dumps([pos.view["seat"], pos.view["round"], pos.view["move_count"], pos.view["hand"]]).encode())
    )
    if draws:
        if pos.top is not None and pos.is_wild(pos.top) and _may_draw(legal, "discard"):
            return _draw(legal, "discard")
        return _draw(legal, "stock" if _may_draw(legal, "stock") else "discard")
    allowed = _allowed_discards(legal)
    _, deadwood = pos.arrange(pos.hand)
    pool = [c for c in deadwood if c.code in allowed and not pos.is_wild(c)]
    pool = pool or [c for c in pos.hand if c.code in allowed]
    weights = [1 + pos.points(c) for c in pool]
    card = rng.choices(pool, weights=weights)[0]
    return {"type": "discard", "card": card.code}


# -- medium -------------------------------------------------------------------------


def _medium(pos: _Position, legal: list[dict], draws: list[dict]) -> dict:
    if draws:
        if _may_draw(legal, "discard") and pos.top is not None:
            if not _may_draw(legal, "stock") or _worth_taking(pos):
                return _draw(legal, "discard")
        return _draw(legal, "stock" if _may_draw(legal, "stock") else "discard")
    options = _discard_options(pos, pos.hand, _allowed_discards(legal))
    return {"type": "discard", "card": options[0][1].code}


def _worth_taking(pos: _Position) -> bool:
    """Holding the top discard (and discarding another card) leaves less penalty than now."""
    top = pos.top
    if pos.is_wild(top):
        return True
    now, deadwood = pos.arrange(pos.hand)
    if _isolated(pos, top, pos.hand):
        # ``top`` stays a leftover card: it only helps by replacing a higher one.
        if not deadwood or pos.points(top) >= max(pos.points(c) for c in deadwood):
            return False
    codes = {c.code for c in pos.hand}
    allowed = codes - {top.code} if codes != {top.code} else codes
    options = _discard_options(pos, pos.hand + [top], allowed)
    return bool(options) and options[0][0] < now


# -- hard ---------------------------------------------------------------------------


class _Memory:
    """What a seat has seen this round: the known cards of the discard pile, who took what."""

    def __init__(self, view: Mapping[str, Any], history: Iterable[Mapping[str, Any]]) -> None:
        self.seat = view["seat"]
        pile: list[str] = []
        self.taken: dict[int, list[str]] = {}
        for event in history:
            kind, data = event.get("kind"), event.get("data") or {}
            if kind == "round_dealt":
                pile = [data["up_card"]] if data.get("up_card") else []
                self.taken = {}
            elif kind in ("discarded", "went_out"):
                pile.append(data["card"])
            elif kind == "drew" and data.get("source") == "discard":
                if pile:
                    pile.pop()
                self.taken.setdefault(event.get("seat"), []).append(data["card"])
            elif kind == "stock_rebuilt":
                pile = pile[-1:]
        top = view.get("discard_top")
        if top and (not pile or pile[-1] != top):
            pile.append(top)  # the up-card of the first round, or a history we were not given
        self.pile = pile


def _hard(pos: _Position, legal: list[dict], draws: list[dict], memory: _Memory) -> dict:
    view = pos.view
    unseen = _unseen(pos, memory)
    last_turn = bool(view["final_lap"])
    # How much a partial meld is worth: full weight early in a round, nothing in a last turn.
    turns_played = view["move_count"] / max(1, 2 * view["seat_count"])
    patience = 0.0 if last_turn else max(0.15, 1.0 - turns_played / (pos.hand_size + 4))
    next_seat = (
        view["last_turns"][1] if last_turn and len(view["last_turns"]) > 1 else (view["seat"] + 1) % view["seat_count"]
    )
    wanted = [Card.from_code(c) for c in memory.taken.get(next_seat, [])]

    def value(cards: Sequence[Card], discard: Card | None) -> float:
        points, deadwood = pos.arrange(cards)
        score = points - patience * _promise(pos, cards, deadwood, unseen)
        if discard is not None and wanted and not last_turn:
            score += 0.5 * sum(1 for w in wanted if _related(pos, discard, w)) * pos.points(discard) ** 0.5
        return score

    def best_discard(cards: Sequence[Card], allowed: set[str]) -> tuple[float, Card]:
        points, deadwood = pos.arrange(cards)
        candidates = [c for c in set(deadwood) if c.code in allowed]
        if not candidates:
            candidates = [card for _, card in _discard_options(pos, cards, allowed)[:3]]
        scored = [(value(_remove(cards, c), c), -pos.points(c), c.code, c) for c in candidates]
        best = min(scored)
        return best[0], best[3]

    if draws:
        if not (_may_draw(legal, "discard") and pos.top is not None):
            return _draw(legal, "stock")
        if not _may_draw(legal, "stock") or pos.is_wild(pos.top):
            return _draw(legal, "discard")
        top = pos.top
        now_points, deadwood = pos.arrange(pos.hand)
        if _isolated(pos, top, pos.hand) and (not deadwood or pos.points(top) >= max(map(pos.points, deadwood))):
            return _draw(legal, "stock")
        codes = {c.code for c in pos.hand}
        allowed = codes - {top.code} if codes != {top.code} else codes
        take_value, _ = best_discard(pos.hand + [top], allowed)
        stock_value = value(pos.hand, None) - _dump_gain(pos, deadwood, unseen)
        return _draw(legal, "discard" if take_value < stock_value else "stock")
    _, card = best_discard(pos.hand, _allowed_discards(legal))
    return {"type": "discard", "card": card.code}


def _unseen(pos: _Position, memory: _Memory) -> Counter[Card]:
    """Cards this seat has not seen this round, by kind: the deck less its hand, the table, the known pile."""
    rules, view = pos.rules, pos.view
    decks = rules.deck_count(view["seat_count"])
    unseen: Counter[Card] = Counter({card: decks for card in STANDARD_DECK})
    if rules.jokers_per_deck:
        unseen[JOKER] = decks * rules.jokers_per_deck
    seen = list(pos.hand) + [Card.from_code(c) for c in memory.pile]
    for meld in view["table_melds"]:
        seen += [Card.from_code(c) for c in meld["cards"]]
    for card in seen:
        if unseen[card] > 0:
            unseen[card] -= 1
    return unseen


def _related(pos: _Position, a: Card, b: Card) -> bool:
    """Whether ``a`` may help a meld that holds ``b`` (same rank, or same suit one or two apart)."""
    if a.is_joker or b.is_joker:
        return False
    return a.rank == b.rank or (a.suit == b.suit and abs(a.rank - b.rank) <= 2)


def _promise(pos: _Position, cards: Sequence[Card], deadwood: Sequence[Card], unseen: Counter[Card]) -> float:
    """Expected penalty saved by the partial melds among the leftover cards.

    Each pair, each two suited cards one or two apart, and each leftover card
    next to a run of ``cards`` is worth the points it would meld times the
    chance that one of the next draws completes it (live cards and wilds
    among the unseen ones).
    """
    if not deadwood:
        return 0.0
    total_unseen = max(1, sum(unseen.values()))
    live_wilds = sum(n for card, n in unseen.items() if pos.is_wild(card))
    draws_left = 3.0

    def chance(outs: int) -> float:
        p = min(1.0, (outs + live_wilds) / total_unseen)
        return 1.0 - (1.0 - p) ** draws_left

    naturals = [c for c in deadwood if not pos.is_wild(c)]
    saved = 0.0
    used: set[int] = set()
    for i, a in enumerate(naturals):
        for j in range(i + 1, len(naturals)):
            b = naturals[j]
            if a.rank == b.rank:
                outs = sum(unseen[Card(a.rank, s)] for s in "CDHS")
            elif a.suit == b.suit and abs(a.rank - b.rank) in (1, 2):
                low, high = min(a.rank, b.rank), max(a.rank, b.rank)
                ranks = [low + 1] if high - low == 2 else [low - 1, high + 1]
                outs = sum(unseen[Card(r, a.suit)] for r in ranks if 1 <= r <= 13)
            else:
                continue
            saved += (pos.points(a) + pos.points(b)) * chance(outs)
            used.update((i, j))
    melded = Counter(cards) - Counter(deadwood)
    for i, a in enumerate(naturals):
        if i in used:
            continue
        # two ranks away from a melded card of its suit: the card in between joins them
        for neighbour in (a.rank - 2, a.rank + 2):
            if 1 <= neighbour <= 13 and melded[Card(neighbour, a.suit)]:
                saved += 0.5 * pos.points(a) * chance(unseen[Card((a.rank + neighbour) // 2, a.suit)])
        saved += 0.1 * pos.points(a) * chance(sum(unseen[Card(a.rank, s)] for s in "CDHS"))
    return saved


def _dump_gain(pos: _Position, deadwood: Sequence[Card], unseen: Counter[Card]) -> float:
    """Expected penalty a stock draw sheds by replacing the highest leftover card with a lower one."""
    if not deadwood:
        return 0.0
    highest = max(pos.points(c) for c in deadwood)
    total = sum(unseen.values())
    if not total:
        return 0.0
    return sum(n * max(0, highest - pos.points(card)) for card, n in unseen.items()) / total
