"""How cards and events look to people: pure functions, no database.

Templates only render what these return; they never decide anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED_SUITS = {"D", "H"}
RANK_LABELS = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}
RANK_VALUES = {c: i + 1 for i, c in enumerate("A23456789TJQK")}
#: Suit order when a hand is sorted by suit: colours alternate.
SUIT_ORDER = {"S": 0, "H": 1, "C": 2, "D": 3, "X": 4}
SORTS = ("suit", "rank")


def suit_name(suit: str) -> str:
    return {"C": _("clubs"), "D": _("diamonds"), "H": _("hearts"), "S": _("spades")}.get(suit, "")


def rank_name(rank: str) -> str:
    return {"A": _("ace"), "J": _("jack"), "Q": _("queen"), "K": _("king")}.get(rank, RANK_LABELS.get(rank, rank))


def card_face(code: str, wild_ranks: Iterable[str] = ()) -> dict[str, Any]:
    """What a card looks like: big rank, suit symbol, colour, wild mark, accessible name."""
    code = code.upper()
    if code == "XX":
        return {"code": code, "rank": "★", "suit": "", "color": "joker", "wild": True, "name": _("joker (wild)")}
    rank, suit = code[0], code[1]
    wild = rank in set(wild_ranks)
    name = _("%(rank)s of %(suit)s") % {"rank": rank_name(rank), "suit": suit_name(suit)}
    if wild:
        name = _("%(card)s (wild)") % {"card": name}
    return {
        "code": code,
        "rank": RANK_LABELS.get(rank, rank),
        "suit": SUIT_SYMBOLS[suit],
        "color": "red" if suit in RED_SUITS else "black",
        "wild": wild,
        "name": name,
    }


def card_faces(codes: Iterable[str], wild_ranks: Iterable[str] = ()) -> list[dict[str, Any]]:
    wild_ranks = list(wild_ranks)
    return [card_face(code, wild_ranks) for code in codes]


def sort_codes(codes: Iterable[str], how: str, wild_ranks: Iterable[str] = ()) -> list[str]:
    """A hand in display order: by suit then rank, or by rank then suit; wilds last."""
    wild = set(wild_ranks)

    def key(code: str) -> tuple:
        is_wild = code == "XX" or code[0] in wild
        rank = RANK_VALUES.get(code[0], 0)
        suit = SUIT_ORDER.get(code[1], 4)
        return (is_wild, suit, rank) if how == "suit" else (is_wild, rank, suit)

    return sorted(codes, key=key)


def describe_event(event: Mapping[str, Any], names: Mapping[int, str]) -> str | None:
    """One line of the recent-moves list for a public engine event (None: not worth a line)."""
    kind, data = event.get("kind"), event.get("data") or {}
    who = names.get(event.get("seat"), "?")

    def face(code: str) -> str:
        f = card_face(code)
        return f"{f['rank']}{f['suit']}"

    if kind == "drew":
        if data.get("source") == "discard":
            return _("%(who)s took %(card)s from the discard pile.") % {"who": who, "card": face(data["card"])}
        return _("%(who)s drew from the stock.") % {"who": who}
    if kind == "discarded":
        return _("%(who)s discarded %(card)s.") % {"who": who, "card": face(data["card"])}
    if kind == "went_out":
        return _("%(who)s went out, discarding %(card)s!") % {"who": who, "card": face(data["card"])}
    if kind == "go_out_failed":
        return _("%(who)s tried to go out and failed (%(penalty)s points).") % {
            "who": who,
            "penalty": data.get("penalty"),
        }
    if kind == "laid_down":
        return _("%(who)s laid down melds.") % {"who": who}
    if kind == "stock_rebuilt":
        return _("The discard pile was shuffled into a new stock.")
    if kind == "round_scored":
        return _("Round %(round)s is over.") % {"round": data.get("round")}
    if kind == "round_dealt":
        return _("Round %(round)s: %(size)s cards dealt.") % {"round": data.get("round"), "size": data.get("hand_size")}
    if kind == "game_over":
        return _("The game is over.")
    return None
