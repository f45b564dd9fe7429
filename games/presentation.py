"""How cards and events look to people: pure functions, no database.

Templates only render what these return; they never decide anything.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, npgettext, pgettext_lazy

from games.engine import JOKER, RANK_CHARS, RoundEnd, RoundResult, Rules, wild_rank_chars, wild_rank_label

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
RED_SUITS = {"D", "H"}
RANK_LABELS = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}
#: A rank character's number (Ace 1 .. King 13), as the engine counts.
RANK_VALUES = {c: i + 1 for i, c in enumerate(RANK_CHARS)}
#: Suit order when a hand is sorted by suit: colours alternate (the joker's ``X`` last).
SUIT_ORDER = {"S": 0, "H": 1, "C": 2, "D": 3, JOKER.suit: 4}
SORTS = ("suit", "rank")


#: The names of the aces and face cards, one message each (see :func:`card_name`).
FACE_CARD_NAMES = {
    ("A", "C"): pgettext_lazy("card", "ace of clubs"),
    ("A", "D"): pgettext_lazy("card", "ace of diamonds"),
    ("A", "H"): pgettext_lazy("card", "ace of hearts"),
    ("A", "S"): pgettext_lazy("card", "ace of spades"),
    ("J", "C"): pgettext_lazy("card", "jack of clubs"),
    ("J", "D"): pgettext_lazy("card", "jack of diamonds"),
    ("J", "H"): pgettext_lazy("card", "jack of hearts"),
    ("J", "S"): pgettext_lazy("card", "jack of spades"),
    ("Q", "C"): pgettext_lazy("card", "queen of clubs"),
    ("Q", "D"): pgettext_lazy("card", "queen of diamonds"),
    ("Q", "H"): pgettext_lazy("card", "queen of hearts"),
    ("Q", "S"): pgettext_lazy("card", "queen of spades"),
    ("K", "C"): pgettext_lazy("card", "king of clubs"),
    ("K", "D"): pgettext_lazy("card", "king of diamonds"),
    ("K", "H"): pgettext_lazy("card", "king of hearts"),
    ("K", "S"): pgettext_lazy("card", "king of spades"),
}
#: The names of the numbered cards, one message per suit.
NUMBERED_CARD_NAMES = {
    "C": pgettext_lazy("card", "%(number)s of clubs"),
    "D": pgettext_lazy("card", "%(number)s of diamonds"),
    "H": pgettext_lazy("card", "%(number)s of hearts"),
    "S": pgettext_lazy("card", "%(number)s of spades"),
}


def card_name(rank: str, suit: str) -> str:
    """A card's full name, "seven of hearts", translated whole.

    Each card name is one message per suit (and per face card), because
    languages build it differently: Czech makes the suit an adjective that
    agrees with the rank ("srdcové eso", "srdcová dáma"), Afrikaans a compound
    ("harte-aas"), so a name pieced together from a rank and a suit word
    cannot be translated.  One message is translated per card (a table shows
    dozens of cards).
    """
    face = FACE_CARD_NAMES.get((rank, suit))
    if face is not None:
        return str(face)
    return str(NUMBERED_CARD_NAMES[suit]) % {"number": RANK_LABELS.get(rank, rank)}


def card_face(code: str, wild_ranks: Iterable[str] = ()) -> dict[str, Any]:
    """What a card looks like: big rank, suit symbol, colour, wild mark, accessible name."""
    code = code.upper()
    if code == JOKER.code:
        return {"code": code, "rank": "★", "suit": "", "color": "joker", "wild": True, "name": _("joker (wild)")}
    rank, suit = code[0], code[1]
    wild = rank in set(wild_ranks)
    name = card_name(rank, suit)
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

    def key(code: str) -> tuple[bool, int, int]:
        is_wild = code == JOKER.code or code[0] in wild
        rank = RANK_VALUES.get(code[0], 0)
        suit = SUIT_ORDER.get(code[1], 4)
        return (is_wild, suit, rank) if how == "suit" else (is_wild, rank, suit)

    return sorted(codes, key=key)


def short_name(code: str) -> str:
    """A card as rank and suit symbol, "10♥", as lines of text name it (no name to translate)."""
    code = code.upper()
    if code == JOKER.code:
        return "★"
    return f"{RANK_LABELS.get(code[0], code[0])}{SUIT_SYMBOLS[code[1]]}"


def spoken_face(wild_ranks: Iterable[str]) -> Callable[[str], str]:
    """A card by its full name, "jack of diamonds", "3 of diamonds (wild)", in a round whose wild ranks are
    ``wild_ranks``: what the live announcements of the others' moves say (screen readers read "J♦" unevenly, some
    as "J" alone, and a symbol never says that a card thrown away was wild: an accessibility tester)."""
    wild = list(wild_ranks)
    return lambda code: str(card_face(code, wild)["name"])


def describe_event(
    event: Mapping[str, Any], names: Mapping[int, str], face: Callable[[str], str] = short_name
) -> str | None:
    """One line of the recent-moves list for a public engine event (None: not worth a line).

    A card is named by ``face``: "10♥" to read; :func:`spoken_face` for the words a screen reader says.
    """
    kind, data = event.get("kind"), event.get("data") or {}
    seat = event.get("seat")
    who = names.get(seat, "?") if isinstance(seat, int) else "?"

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


def running_totals(results: Sequence[RoundResult], round_number: int) -> list[int]:
    """Each seat's total after round ``round_number`` (counted from 1) of ``results``."""
    played = results[:round_number]
    seats = len(played[0].seats) if played else 0
    return [sum(result.seats[position].points for result in played) for position in range(seats)]


def round_result(
    result: RoundResult,
    names: Mapping[int, str],
    *,
    with_cards: bool,
    totals: Sequence[int] | None = None,
    events: Sequence[Mapping[str, Any]] | None = None,
    left: Mapping[int, str] | None = None,
    rules: Rules | None = None,
) -> dict[str, Any]:
    """A round result for templates: the one way a finished round is shown (table, summary page, record, replay).

    The cards only ``with_cards`` (a finished round's hands are public; never
    pass the round in play); each seat's total after the round when ``totals``
    are given; the story in words (:func:`round_story`) when the round's last
    public ``events`` are given.  ``left``: the seats a bot played in this
    round after their person left, with how they left (``Seat.get_left_display``),
    so the row says the hand was not the person's.  With the game's ``rules`` and the cards, each row says what
    its left-over cards count ("= 10 + 2", and "× 2" in a doubled round): a newcomer could not tell why a jack
    cost 10 (an accessibility tester).
    """
    wild = wild_rank_chars(result.hand_size)
    rows = []
    for position, seat in enumerate(result.seats):
        row: dict[str, Any] = {
            "name": names.get(position),
            "points": seat.points,
            "went_out": seat.went_out,
            "penalty": seat.penalty,
            "left": (left or {}).get(position, ""),
        }
        if totals is not None:
            row["total"] = totals[position]
        if with_cards:
            row["melds"] = [{"kind": m.kind.value, "cards": card_faces(m.codes, wild)} for m in seat.melds]
            row["deadwood"] = card_faces((c.code for c in seat.deadwood), wild)
            if rules is not None and seat.deadwood:
                points = [rules.card_points(c, result.hand_size) for c in seat.deadwood]
                row["deadwood_count"] = _count(points, rules.round_multiplier(result.hand_size))
            row["laid_off"] = card_faces((c.code for c in seat.laid_off), wild)
        rows.append(row)
    went_out = result.went_out
    return {
        "round": result.round_index + 1,
        "hand_size": result.hand_size,
        "wild_label": wild_rank_label(result.hand_size),
        "went_out_name": names.get(went_out) if went_out is not None else None,
        "stock_exhausted": result.ended == RoundEnd.STOCK_EXHAUSTED,
        "rows": rows,
        "bot_for_left": bool(left),
        "story": round_story(result, events, names) if events is not None else None,
    }


def _count(points: Sequence[int], times: int) -> str:
    """What left-over cards count, in figures alone (the same in every language): "10 + 2", "(10 + 2) × 2"."""
    added = " + ".join(str(p) for p in points)
    if times == 1:
        return added
    return f"({added}) × {times}" if len(points) > 1 else f"{added} × {times}"


def round_story(result: RoundResult, events: Sequence[Mapping[str, Any]], names: Mapping[int, str]) -> dict[str, Any]:
    """How a round ended, in words: who went out (and with which discard), each last turn taken after
    it, and the stock running out (before anyone went out, or before the last turns were over).

    ``events`` are the public events of the round's last moves, oldest first;
    they must reach back to the first go-out (its last lap is at most two
    moves a seat).  Without that go-out among them, the story says only who
    went out.  Returns ``went_out`` and ``stock`` (a sentence or None),
    ``last_turns`` (one sentence a turn, ``text``), and whether the bot played
    the go-out or a turn for a person (``went_out_by_bot``, ``bot_for_person``:
    the events say so, :func:`games.selectors.round_end_events`).
    """
    went_out, exhausted = result.went_out, result.ended == RoundEnd.STOCK_EXHAUSTED
    story: dict[str, Any] = {
        "went_out": None,
        "went_out_said": None,  # the same, each card by its name: what a page says aloud (``spoken_face``)
        "went_out_by_bot": False,
        "last_turns": [],
        "stock": None,
    }
    if went_out is None:
        if exhausted:
            story["stock"] = _("Nobody went out: the stock ran out, and every hand was scored as it stood.")
        return story
    start = next(
        (i for i, e in enumerate(events) if e.get("kind") == "went_out" and e.get("seat") == went_out),
        None,
    )
    if start is None:
        story["went_out"] = _("%(name)s went out.") % {"name": names.get(went_out, "?")}
    else:
        story["went_out"] = describe_event(events[start], names)
        story["went_out_said"] = describe_event(events[start], names, spoken_face(wild_rank_chars(result.hand_size)))
        story["went_out_by_bot"] = bool(events[start].get("bot_for_person"))
        turns = _turns(events[start + 1 :])
        story["last_turns"] = [
            {"text": line, "bot_for_person": any(event.get("bot_for_person") for event in turn)}
            for turn, line in ((turn, _turn_sentence(turn, names)) for turn in turns)
            if line
        ]
    if exhausted:
        stock = _("The stock ran out before the last turns were over.")
        if start is not None:
            played = {turn[0].get("seat") for turn in _turns(events[start + 1 :])}
            missed = [names.get(seat, "?") for seat in _lap_order(went_out, len(result.seats)) if seat not in played]
            if missed:
                stock += " " + _("No last turn for: %(names)s.") % {"names": ", ".join(missed)}
        story["stock"] = stock
    return story


def _lap_order(went_out: int, seat_count: int) -> list[int]:
    """The seats that have a last turn after ``went_out`` went out, in order."""
    return [(went_out + k) % seat_count for k in range(1, seat_count)]


def _turns(events: Sequence[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The events of the last lap (up to the round's scoring), one list a turn: a draw starts a turn;
    an event of no seat (the stock rebuilt) stands alone."""
    turns: list[list[Mapping[str, Any]]] = []
    for event in events:
        kind, seat = event.get("kind"), event.get("seat")
        if kind in ("round_scored", "round_dealt", "game_over"):
            break
        if kind == "drew" or seat is None or not turns or turns[-1][0].get("seat") != seat:
            turns.append([event])
        else:
            turns[-1].append(event)
    return turns


def _turn_sentence(turn: Sequence[Mapping[str, Any]], names: Mapping[int, str]) -> str:
    """One last turn in a sentence: "Bob took 7♥ from the discard pile and discarded K♠." (others: their lines)."""
    lines = [describe_event(event, names) for event in turn]
    kinds = [event.get("kind") for event in turn]
    shaped = len(turn) >= 2 and kinds[0] == "drew" and kinds[1] in ("discarded", "went_out")
    if not shaped or any(kind != "laid_down" for kind in kinds[2:]):
        return " ".join(line for line in lines if line)
    drew, end = turn[0].get("data") or {}, turn[1].get("data") or {}
    seat = turn[0].get("seat")
    values = {"who": names.get(seat, "?") if isinstance(seat, int) else "?", "card": short_name(end["card"])}
    if drew.get("source") == "discard":
        values["taken"] = short_name(drew["card"])
        if kinds[1] == "went_out":
            sentence = _("%(who)s took %(taken)s from the discard pile and went out too, discarding %(card)s.")
        else:
            sentence = _("%(who)s took %(taken)s from the discard pile and discarded %(card)s.")
    elif kinds[1] == "went_out":
        sentence = _("%(who)s drew from the stock and went out too, discarding %(card)s.")
    else:
        sentence = _("%(who)s drew from the stock and discarded %(card)s.")
    return " ".join(line for line in [sentence % values, *lines[2:]] if line)


def duration_text(duration: datetime.timedelta) -> str:
    """A stretch of days and hours in words: "3 days", "5 hours", "3 days and 5 hours" (whole hours, rounded
    down; "0 days" for less than an hour)."""
    days = duration.days
    hours = duration.seconds // 3600
    day_text = ngettext("%(count)s day", "%(count)s days", days) % {"count": days}
    # The hours as a sentence's subject ("Zbývá: 1 hodina"), not as the chat's "in 1 hour" ("za 1 hodinu").
    hour_text = npgettext("duration", "%(count)s hour", "%(count)s hours", hours) % {"count": hours}
    if days and hours:
        return _("%(days)s and %(hours)s") % {"days": day_text, "hours": hour_text}
    return day_text if days or not hours else hour_text
