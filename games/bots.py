"""Bots that play a seat using only what that seat may see.

A bot gets ``view(state, seat)`` — the seat's own hand, the top discard and
the legal actions, never another hand or the stock — and answers with one of
the legal actions.  The only other thing it uses is the hand solver.

``choose_action`` is the simple, sensible bot of the first version (every
level plays it for now; the levels differ from the asynchronous-play issue
on):

* draw: take the top discard when it is wild, or when holding it (and
  discarding the best other card) leaves less penalty than the hand has now;
  otherwise draw from the stock;
* then go out whenever some discard allows it (the discard with the highest
  penalty value, to be safe under every scoring);
* otherwise discard the card whose discard leaves the least penalty, the
  highest-scoring of those on ties.
"""

from __future__ import annotations

from typing import Any, Mapping

from games.engine import (Action, Card, Rules, action_from_dict, best_arrangement, discard_penalties,
                          parse_cards, wild_ranks)

__all__ = ["choose_action", "BOT_NAMES"]

#: Names shown for bot seats, in order of the seat they take.
BOT_NAMES = ("Ada", "Blaise", "Carl", "Dora", "Emmy", "Felix", "Grace", "Hugo")


def choose_action(view: Mapping[str, Any], level: str = "medium") -> Action:
    """The action the bot plays for the seat whose ``view`` this is.

    ``view`` must be the seat's own view with at least one legal action.
    """
    legal = list(view["legal_actions"])
    if not legal:
        raise ValueError("the bot was asked to move when its seat has no legal action")
    rules = Rules.from_dict(view["rules"])
    hand_size = int(view["hand_size"])
    hand = list(parse_cards(view["hand"]))
    if view["phase"] == "draw":
        return action_from_dict(_choose_draw(legal, hand, view.get("discard_top"), rules, hand_size))
    return action_from_dict(_choose_discard(legal, hand, view.get("taken_from_discard"), rules, hand_size))


def _choose_draw(legal: list[dict], hand: list[Card], top: str | None, rules: Rules, hand_size: int) -> dict:
    sources = {a["source"] for a in legal if a["type"] == "draw"}
    if "discard" in sources and top is not None:
        top_card = Card.from_code(top)
        if "stock" not in sources or _worth_taking(hand, top_card, rules, hand_size):
            return {"type": "draw", "source": "discard"}
    if "stock" in sources:
        return {"type": "draw", "source": "stock"}
    return next(a for a in legal if a["type"] == "draw")


def _worth_taking(hand: list[Card], top: Card, rules: Rules, hand_size: int) -> bool:
    if top.is_joker or top.rank in wild_ranks(hand_size):
        return True
    now = best_arrangement(hand, rules, hand_size).points
    penalties = discard_penalties(hand + [top], rules, hand_size)
    after = min((points for card, points in penalties.items() if card != top), default=now)
    return after < now


def _choose_discard(legal: list[dict], hand: list[Card], taken: str | None, rules: Rules,
                    hand_size: int) -> dict:
    go_outs = [a for a in legal if a["type"] == "go_out"]
    if go_outs:
        return max(go_outs, key=lambda a: (rules.card_points(Card.from_code(a["card"]), hand_size), a["card"]))
    allowed = {a["card"] for a in legal if a["type"] == "discard"}
    penalties = discard_penalties(hand, rules, hand_size)
    options = [(points, -rules.card_points(card, hand_size), card.code)
               for card, points in penalties.items() if card.code in allowed]
    if not options:
        return next(a for a in legal if a["type"] == "discard")
    _, _, code = min(options)
    return {"type": "discard", "card": code}
