"""Check a game's record offline: the seed, the commitment, every deal and every move.

    python -m games.engine.verify RECORD.json --commitment HEX

``RECORD.json`` is the export a finished game's record page offers (format
``threethirteen-record``, version 1), or a called-off game's fair-shuffle page,
whose record also says ``"called_off": true``::

    {"format": "threethirteen-record", "format_version": 1, "game": 42,
     "rules": {...}, "seat_count": 3, "shuffle_version": 2,
     "server_seed": "<64 hex digits>", "commitment": "<64 hex digits>",
     "contributions": ["seat 0's text", "seat 1's", "seat 2's"],
     "moves": [{"seat": 1, "action": {"type": "draw", "source": "stock"}, "events": [...]}, ...],
     "final_scores": [61, 48, 75]}

What is checked (``verify_record``; each check is printed):

1. **commitment** — SHA-256 of the revealed server seed is the commitment
   the record holds; and, with ``--commitment``, **your commitment** — it is
   the commitment *you* noted at the table before the deal.  Only the second
   proves anything: the record comes from the server, which could have
   changed the seed and its stored commitment together, so the first check
   alone is only a consistency check of the file;
2. **deals** — every round's deal and every stock rebuild is derived again
   from the seed and the contributions (``shuffle.py``, version 2) and is the
   one the replay played with;
3. **moves** — every move of the log, replayed from those deals, is legal and
   gives exactly the public events recorded when it was played (the up-card
   of each new deal, every card taken from the discard pile or discarded,
   each rebuild, and at each round's end every hand laid out: a deal other
   than the derived one shows up there);
4. **final scores** — the replay ends the game with the recorded totals; in
   a called-off game's record the replay stops before the end of the game,
   at the totals the game had when it was called off.  The record's word
   that the game was called off is taken as it is: a note says after how
   many moves, in which round, so that a player whose game went on knows the
   record is not its whole game.

Exit status 0 when everything matches, 1 on any mismatch, 2 when the file
cannot be read as a record or ``--commitment`` is not 64 hex digits.  Pure Python: it needs only this package.
"""

from __future__ import annotations

import argparse
import hmac
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .game import (
    Action,
    EventKind,
    GameState,
    IllegalAction,
    action_from_dict,
    apply,
    dealt_cards,
    new_game,
    rebuilt_stock,
)
from .rules import Rules, RulesError
from .shuffle import SHUFFLE_FAIR, FairShuffle, commitment, seed_from_hex

__all__ = [
    "RECORD_FORMAT",
    "RECORD_FORMAT_VERSION",
    "RecordError",
    "Check",
    "DealCheck",
    "Verification",
    "verify_record",
    "noted_commitment",
    "main",
]

RECORD_FORMAT = "threethirteen-record"
RECORD_FORMAT_VERSION = 1


class RecordError(ValueError):
    """The record is not a well-formed export of a version-2 game (nothing could be checked)."""


@dataclass(frozen=True, slots=True)
class Check:
    """One thing verified: its name, whether it held, and what was compared."""

    name: str
    ok: bool
    detail: str


@dataclass(frozen=True, slots=True)
class DealCheck:
    """One round's deal as derived from the seed and contributions, and whether the replay played it."""

    round_number: int
    hand_size: int
    dealer: int
    up_card: str
    hands: tuple[tuple[str, ...], ...]
    rebuilds: int
    ok: bool


@dataclass(frozen=True)
class Verification:
    """The outcome of :func:`verify_record`: every check, and each round's derived deal."""

    checks: list[Check] = field(default_factory=list)
    deals: list[DealCheck] = field(default_factory=list)
    moves_replayed: int = 0
    #: Whether the seed was compared with a commitment the player noted (not only the stored one).
    noted: bool = False
    #: The state the replay reached (to compare with a stored snapshot).
    final_state: GameState | None = None
    #: The record says the game was called off where its moves stop (``called_off``).
    called_off: bool = False

    def passed(self, name: str) -> bool:
        """Whether the check called ``name`` was made and held."""
        return any(check.name == name and check.ok for check in self.checks)

    @property
    def rebuilds(self) -> int:
        return sum(deal.rebuilds for deal in self.deals)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(check.ok for check in self.checks)

    def lines(self) -> list[str]:
        """What was checked, one line each (what ``main`` prints)."""
        out = [f"{'ok' if c.ok else 'FAILED':<7}{c.name}: {c.detail}" for c in self.checks]
        for deal in self.deals:
            hands = " | ".join(" ".join(hand) for hand in deal.hands)
            out.append(
                f"{'ok' if deal.ok else 'FAILED':<7}round {deal.round_number} ({deal.hand_size} cards), "
                f"dealer seat {deal.dealer}, up-card {deal.up_card}, {deal.rebuilds} rebuild(s): {hands}"
            )
        if self.called_off and self.final_state is not None:
            out.append(
                f"note   the record says the game was called off after {self.moves_replayed} move(s), in round "
                f"{self.final_state.round_number}: only the deals and moves up to there are checked; if your game "
                "went on after that, this is not its whole record"
            )
        if not self.noted:
            out.append(
                "note   the seed was compared only with the commitment stored in the record: give the "
                "commitment you noted at the table with --commitment for a check that does not trust the server"
            )
        out.append("VERIFIED" if self.ok else "NOT VERIFIED")
        return out


@dataclass(frozen=True)
class _Record:
    rules: Rules
    seat_count: int
    shuffle: FairShuffle
    commitment: str
    moves: list[tuple[int, Action, list[Any]]]
    final_scores: list[int]
    called_off: bool


def _read(record: Any) -> _Record:
    if not isinstance(record, Mapping):
        raise RecordError("a record is a JSON object")
    if record.get("format") != RECORD_FORMAT or record.get("format_version") != RECORD_FORMAT_VERSION:
        raise RecordError(f"not a {RECORD_FORMAT} record of format version {RECORD_FORMAT_VERSION}")
    if record.get("shuffle_version") != SHUFFLE_FAIR:
        raise RecordError(
            f"shuffle version {record.get('shuffle_version')!r}: only version {SHUFFLE_FAIR} games can be verified"
        )
    try:
        rules = Rules.from_dict(record["rules"])
        seat_count = record["seat_count"]
        if not isinstance(seat_count, int) or isinstance(seat_count, bool):
            raise RecordError("seat_count is a whole number")
        rules.check_seats(seat_count)
        contributions = record["contributions"]
        if not isinstance(contributions, list) or len(contributions) != seat_count:
            raise RecordError("contributions: one text per seat")
        shuffle = FairShuffle(seed_from_hex(record["server_seed"]), tuple(contributions))
        committed = record["commitment"]
        if not isinstance(committed, str):
            raise RecordError("commitment is hex text")
        moves: list[tuple[int, Action, list[Any]]] = []
        for number, move in enumerate(record["moves"], start=1):
            if not isinstance(move, Mapping) or not isinstance(move.get("events"), list):
                raise RecordError(f"move {number}: an object with seat, action and events")
            moves.append((move["seat"], action_from_dict(move["action"]), move["events"]))
        scores = record["final_scores"]
        if not isinstance(scores, list):
            raise RecordError("final_scores is a list")
        called_off = record.get("called_off", False)
        if not isinstance(called_off, bool):
            raise RecordError("called_off is true or false")
    except RecordError:
        raise
    except (KeyError, TypeError, ValueError, RulesError, IllegalAction) as error:
        raise RecordError(f"malformed record: {error}") from None
    return _Record(rules, seat_count, shuffle, committed, moves, scores, called_off)


def _json(value: Any) -> Any:
    """``value`` as JSON would give it back (tuples become lists), to compare with what was recorded."""
    return json.loads(json.dumps(value))


def _codes(cards: Sequence[Card]) -> tuple[str, ...]:
    return tuple(card.code for card in cards)


def _deal_check(state: GameState, shuffle: FairShuffle) -> DealCheck:
    """Derive the round's deal again from the shuffle alone and compare it with the state just dealt."""
    hands, up_card, stock = dealt_cards(state.rules, state.seat_count, shuffle, state.round_index, state.dealer)
    ok = state.hands == hands and state.discard_pile == (up_card,) and state.stock == stock
    return DealCheck(state.round_number, state.hand_size, state.dealer, up_card.code, tuple(map(_codes, hands)), 0, ok)


def noted_commitment(text: Any) -> str:
    """The commitment a player noted, in lower-case hex; ``ValueError`` unless it is 64 hex digits.

    Spaces around it are dropped (a copy from a page often brings some).
    """
    if not isinstance(text, str):
        raise ValueError("a commitment is 64 hex digits")
    digits = text.strip().lower()
    if len(digits) != 64 or any(ch not in "0123456789abcdef" for ch in digits):
        raise ValueError("a commitment is 64 hex digits (0-9, a-f), as the table showed it")
    return digits


def verify_record(record: Any, *, noted: str | None = None) -> Verification:
    """Check an exported record (see the module); ``RecordError`` when it is not one.

    ``noted`` is the commitment the player wrote down at the table (64 hex
    digits, ``noted_commitment``): the only check of the seed that does not
    take the server's word for it.
    """
    data = _read(record)
    shuffle = data.shuffle
    checks: list[Check] = []
    derived = commitment(shuffle.server_seed)
    checks.append(
        Check(
            "commitment",
            hmac.compare_digest(derived, data.commitment.lower()),
            f"SHA-256(server seed) = {derived}; the commitment stored in this record is {data.commitment} "
            "(on its own this proves nothing: whoever wrote the record could change both)",
        )
    )
    if noted is not None:
        checks.append(
            Check(
                "your commitment",
                hmac.compare_digest(derived, noted),
                f"SHA-256(server seed) = {derived}; the commitment you noted is {noted}",
            )
        )
    state = new_game(data.rules, data.seat_count, shuffle)
    deals = [_deal_check(state, shuffle)]
    rebuilds_ok = True
    mismatch = ""
    replayed = 0
    for number, (seat, action, recorded) in enumerate(data.moves, start=1):
        before = state
        try:
            state, events = apply(state, seat, action)
        except IllegalAction as error:
            mismatch = f"move {number} (seat {seat}, {action.to_dict()}) is not legal after the derived deal: {error}"
            break
        replayed = number
        if _json([event.to_dict() for event in events]) != _json(recorded):
            mismatch = f"move {number} (seat {seat}, {action.to_dict()}): the recorded events differ from the replay"
            break
        if any(event.kind == EventKind.STOCK_REBUILT for event in events):
            # derived again from the pile it was built from: the pile before the move and the card
            # just discarded, which stays on top as the new pile
            pile = before.discard_pile + state.discard_pile
            expected = rebuilt_stock(shuffle, pile, state.round_index, state.rebuilds)
            rebuilds_ok = rebuilds_ok and state.stock == expected
            last = deals[-1]
            deals[-1] = DealCheck(
                last.round_number,
                last.hand_size,
                last.dealer,
                last.up_card,
                last.hands,
                last.rebuilds + 1,
                last.ok and state.stock == expected,
            )
        if any(event.kind == EventKind.ROUND_DEALT for event in events):
            deals.append(_deal_check(state, shuffle))
    rebuilds = sum(deal.rebuilds for deal in deals)
    checks.append(
        Check(
            "deals",
            all(deal.ok for deal in deals) and rebuilds_ok,
            f"{len(deals)} deal(s) and {rebuilds} stock rebuild(s) derived from the seed and "
            f"{data.seat_count} contribution(s) with HMAC-SHA256 and Fisher-Yates (shuffle version 2)",
        )
    )
    checks.append(
        Check(
            "moves",
            not mismatch and replayed == len(data.moves),
            mismatch or f"all {replayed} move(s) replayed from the derived deals, each with its recorded public events",
        )
    )
    # a finished game's replay ends the game; a called-off game's stops where it was called off
    scores_ok = not mismatch and state.is_over != data.called_off and list(state.scores) == data.final_scores
    ends = "ends the game" if state.is_over else "stops before the end of the game"
    said = "called off there" if data.called_off else "finished"
    checks.append(
        Check(
            "final scores",
            scores_ok,
            f"the replay {ends} with totals {list(state.scores)}; the record says {data.final_scores}, {said}",
        )
    )
    return Verification(
        checks=checks,
        deals=deals,
        moves_replayed=replayed,
        noted=noted is not None,
        final_state=state,
        called_off=data.called_off,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.engine.verify",
        description="Check a game's exported record: commitment, every deal, every move, the scores.",
    )
    parser.add_argument("record", help="the JSON file the game's record page exports")
    parser.add_argument(
        "--commitment",
        metavar="HEX",
        help="the seed commitment you noted at the table before the deal (64 hex digits); without it the seed "
        "is compared only with the commitment the record itself holds, which proves nothing",
    )
    args = parser.parse_args(argv)
    try:
        noted = None if args.commitment is None else noted_commitment(args.commitment)
    except ValueError as error:
        print(f"--commitment: {error}", file=sys.stderr)
        return 2
    try:
        with open(args.record, encoding="utf-8") as handle:
            record = json.load(handle)
        verification = verify_record(record, noted=noted)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecordError) as error:
        print(f"cannot verify {args.record}: {error}", file=sys.stderr)
        return 2
    for line in verification.lines():
        print(line)
    return 0 if verification.ok else 1


if __name__ == "__main__":
    sys.exit(main())
