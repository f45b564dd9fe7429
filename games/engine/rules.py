"""Rule options of a game: one field for each variant option of RULES.md.

``Rules.to_dict()`` gives the JSON form of a game's options, named and
valued exactly as in RULES.md; ``Rules.from_dict()`` reads it back and
refuses unknown keys, bad values and impossible combinations with a
``RulesError`` (a ``ValueError``) that says what is wrong: a stable ``code``
and its ``params`` for the site to say in the reader's language, and an
English sentence for logs and tests.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, TypeAlias, TypeGuard

from .cards import ACE, JACK, KING, QUEEN, RANK_CHARS, Card

MIN_SEATS, MAX_SEATS = 2, 8
MIN_HAND_SIZE, MAX_HAND_SIZE = 3, 15
#: The fewest cards of a meld (a set or a run of three).
MIN_MELD_CARDS = 3
CLASSIC_ROUNDS: tuple[int, ...] = tuple(range(3, 14))
JOKER_POINTS = 20
#: The string options of :class:`Rules` (their JSON values).
Decks: TypeAlias = int | Literal["auto"]
Aces: TypeAlias = Literal["low", "high_or_low"]
FacePoints: TypeAlias = Literal["10", "11-12-13"]
WildPoints: TypeAlias = int | Literal["face"]
HIGH_WILD_POINTS = 15


#: The stable codes of :class:`RulesError` and the params each one carries.
RULES_ERROR_CODES: dict[str, tuple[str, ...]] = {
    "bad_hand_size": ("hand_size", "min", "max"),
    "bad_option": ("option", "value"),
    "too_few_decks": ("decks", "hand_size", "seats"),
    "bad_seat_count": ("seats", "min", "max"),
    "not_an_object": ("type",),
    "unknown_options": ("options",),
}


class RulesError(ValueError):
    """A rule option is unknown, has a bad value, or contradicts another.

    ``code`` is stable and machine-readable (a key of ``RULES_ERROR_CODES``);
    ``params`` holds the values its message needs (numbers, option names, a
    bad value's ``repr``); the message is an English sentence for logs.
    ``option`` names the option at fault when there is one (forms put the
    message next to that option's field), else ``None``.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        option: str | None = None,
        params: Mapping[str, str | int] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.option = option
        self.params: dict[str, str | int] = dict(params or {})

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rules_error, (self.code, str(self), self.option, self.params))


def _rules_error(code: str, message: str, option: str | None, params: dict[str, str | int]) -> RulesError:
    return RulesError(code, message, option=option, params=params)


def wild_ranks(hand_size: int) -> frozenset[int]:
    """The wild rank(s) of the round that deals ``hand_size`` cards.

    3..10 cards: that rank; 11 Jacks, 12 Queens, 13 Kings; 14 and 15 cards:
    Aces and 2s.
    """
    if not MIN_HAND_SIZE <= hand_size <= MAX_HAND_SIZE:
        raise RulesError(
            "bad_hand_size",
            f"a round deals {MIN_HAND_SIZE} to {MAX_HAND_SIZE} cards, not {hand_size}",
            params={"hand_size": repr(hand_size), "min": MIN_HAND_SIZE, "max": MAX_HAND_SIZE},
        )
    if hand_size >= 14:
        return frozenset({ACE, 2})
    return frozenset({hand_size})


def wild_rank_chars(hand_size: int) -> list[str]:
    """The rank characters of the round's wild rank(s), e.g. ``["K"]`` or ``["A", "2"]``."""
    return [RANK_CHARS[r - 1] for r in sorted(wild_ranks(hand_size))]


def wild_rank_label(hand_size: int) -> str:
    """Short label of the round's wild rank(s), e.g. ``"K"`` or ``"A, 2"``."""
    return ", ".join("10" if label == "T" else label for label in wild_rank_chars(hand_size))


@dataclass(frozen=True, slots=True)
class Rules:
    """Every variant option of RULES.md, with its default."""

    decks: Decks = "auto"
    jokers_per_deck: int = 0
    rounds: tuple[int, ...] = CLASSIC_ROUNDS
    aces: Aces = "low"
    ace_points: int = 1
    face_points: FacePoints = "10"
    wild_points: WildPoints = "face"
    max_wilds_per_meld: int | None = None
    all_wild_melds: bool = False
    double_royal_rounds: bool = False
    redemption: bool = False
    jokers_free: bool = False
    bad_go_out_penalty: int | None = None
    max_stock_rebuilds: int = 3

    def __post_init__(self) -> None:
        # Lists from JSON become tuples so that Rules stays hashable.
        if isinstance(self.rounds, list):
            object.__setattr__(self, "rounds", tuple(self.rounds))
        self._validate()

    # -- validation ---------------------------------------------------------

    def _validate(self) -> None:
        def bad(option: str, value: Any, expected: str) -> RulesError:
            return RulesError(
                "bad_option",
                f"option {option!r} cannot be {value!r}: expected {expected}",
                option=option,
                params={"option": option, "value": repr(value)},
            )

        if not (self.decks == "auto" or (_is_int(self.decks) and 1 <= self.decks <= 4)):
            raise bad("decks", self.decks, '"auto" or a whole number from 1 to 4')
        if not (_is_int(self.jokers_per_deck) and self.jokers_per_deck in (0, 1, 2)):
            raise bad("jokers_per_deck", self.jokers_per_deck, "0, 1 or 2")
        if not isinstance(self.rounds, tuple) or not self.rounds:
            raise bad("rounds", self.rounds, "a non-empty list of hand sizes")
        for size in self.rounds:
            if not (_is_int(size) and MIN_HAND_SIZE <= size <= MAX_HAND_SIZE):
                raise bad("rounds", list(self.rounds), f"hand sizes from {MIN_HAND_SIZE} to {MAX_HAND_SIZE}")
        if self.aces not in ("low", "high_or_low"):
            raise bad("aces", self.aces, '"low" or "high_or_low"')
        if not (_is_int(self.ace_points) and self.ace_points in (1, 15)):
            raise bad("ace_points", self.ace_points, "1 or 15")
        if self.face_points not in ("10", "11-12-13"):
            raise bad("face_points", self.face_points, '"10" or "11-12-13"')
        if not (self.wild_points == "face" or (_is_int(self.wild_points) and self.wild_points == 15)):
            raise bad("wild_points", self.wild_points, '"face" or 15')
        if not (self.max_wilds_per_meld is None or (_is_int(self.max_wilds_per_meld) and self.max_wilds_per_meld >= 1)):
            raise bad("max_wilds_per_meld", self.max_wilds_per_meld, "null or a whole number of at least 1")
        for option in ("all_wild_melds", "double_royal_rounds", "redemption", "jokers_free"):
            if not isinstance(getattr(self, option), bool):
                raise bad(option, getattr(self, option), "true or false")
        if not (
            self.bad_go_out_penalty is None or (_is_int(self.bad_go_out_penalty) and self.bad_go_out_penalty == 20)
        ):
            raise bad("bad_go_out_penalty", self.bad_go_out_penalty, "null or 20")
        if not (_is_int(self.max_stock_rebuilds) and 0 <= self.max_stock_rebuilds <= 100):
            raise bad("max_stock_rebuilds", self.max_stock_rebuilds, "a whole number from 0 to 100")
        # Options are independent (RULES.md): `max_wilds_per_meld` wins over
        # `all_wild_melds`, and `jokers_free` without jokers changes nothing.
        # What can be impossible is dealing: a fixed deck count too small for
        # the largest round (here for two players, in check_seats for more).
        if isinstance(self.decks, int) and self.decks * 52 < max(self.rounds) * MIN_SEATS + 2:
            raise RulesError(
                "too_few_decks",
                f"{self.decks} deck(s) cannot deal a {max(self.rounds)}-card round "
                f"to {MIN_SEATS} players with an up-card and a stock",
                option="decks",
                params={"decks": self.decks, "hand_size": max(self.rounds), "seats": MIN_SEATS},
            )

    def check_seats(self, seat_count: int) -> None:
        """Refuse a seat count these rules cannot deal to (RULES.md, "Players, decks, seats")."""
        if not (_is_int(seat_count) and MIN_SEATS <= seat_count <= MAX_SEATS):
            raise RulesError(
                "bad_seat_count",
                f"a game has {MIN_SEATS} to {MAX_SEATS} players, not {seat_count!r}",
                params={"seats": repr(seat_count), "min": MIN_SEATS, "max": MAX_SEATS},
            )
        needed = max(self.rounds) * seat_count + 2  # largest deal, the up-card, one stock card
        available = self.deck_count(seat_count) * 52 + self.deck_count(seat_count) * self.jokers_per_deck
        if available < needed:
            raise RulesError(
                "too_few_decks",
                f"{self.deck_count(seat_count)} deck(s) cannot deal {max(self.rounds)} cards "
                f"to {seat_count} players with an up-card and a stock",
                params={"decks": self.deck_count(seat_count), "hand_size": max(self.rounds), "seats": seat_count},
            )

    # -- derived values -----------------------------------------------------

    def deck_count(self, seat_count: int) -> int:
        """Decks used for ``seat_count`` players: ``ceil(players / 2)`` unless fixed."""
        if self.decks == "auto":
            return max(1, math.ceil(seat_count / 2))
        return int(self.decks)

    @property
    def aces_high(self) -> bool:
        return self.aces == "high_or_low"

    def natural_points(self, rank: int) -> int:
        """Penalty of an unmelded card of ``rank`` that is not wild."""
        if rank == ACE:
            return self.ace_points
        if rank in (JACK, QUEEN, KING):
            return rank if self.face_points == "11-12-13" else 10
        return rank

    def card_points(self, card: Card, hand_size: int) -> int:
        """Penalty of ``card`` left out of melds at the end of a ``hand_size`` round.

        A joker scores 20 (0 with ``jokers_free``, since it is laid on a meld
        at the end of the round); a wild-rank card scores its own value, or 15
        with ``wild_points``.
        """
        if card.is_joker:
            return 0 if self.jokers_free else JOKER_POINTS
        if card.rank in wild_ranks(hand_size) and self.wild_points != "face":
            return HIGH_WILD_POINTS
        return self.natural_points(card.rank)

    def is_wild(self, card: Card, hand_size: int) -> bool:
        return card.is_joker or card.rank in wild_ranks(hand_size)

    def round_multiplier(self, hand_size: int) -> int:
        """2 in the rounds where J, Q or K are wild with ``double_royal_rounds``, else 1."""
        return 2 if self.double_royal_rounds and hand_size in (11, 12, 13) else 1

    # -- JSON form ----------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["rounds"] = list(self.rounds)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        if not isinstance(data, Mapping):
            raise RulesError(
                "not_an_object",
                f"rule options must be a JSON object, not {type(data).__name__}",
                params={"type": type(data).__name__},
            )
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesError(
                "unknown_options",
                f"unknown rule option(s): {', '.join(unknown)}",
                params={"options": ", ".join(unknown)},
            )
        values = dict(data)
        if "rounds" in values:
            if not isinstance(values["rounds"], (list, tuple)):
                raise RulesError(
                    "bad_option",
                    f"option 'rounds' cannot be {values['rounds']!r}: expected a list of hand sizes",
                    option="rounds",
                    params={"option": "rounds", "value": repr(values["rounds"])},
                )
            values["rounds"] = tuple(values["rounds"])
        return cls(**values)

    def changed_options(self) -> dict[str, Any]:
        """The options that differ from the defaults, in JSON form."""
        default = Rules().to_dict()
        return {k: v for k, v in self.to_dict().items() if default[k] != v}


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


UP_AND_DOWN_ROUNDS = CLASSIC_ROUNDS + tuple(reversed(CLASSIC_ROUNDS))

#: Named presets for the variants people actually play.  Keys are stable
#: slugs (the site seeds its Variant table from them).
PRESETS: dict[str, tuple[str, Rules]] = {
    "classic": ("Classic", Rules()),
    "one-wild-per-meld": ("One wild per meld, unused wilds 15", Rules(max_wilds_per_meld=1, wild_points=15)),
    "aces-high-or-low": ("Aces high or low", Rules(aces="high_or_low", ace_points=15)),
    "jokers": ("Jokers", Rules(jokers_per_deck=2)),
    "fourteens-fifteens": ("Fourteens and fifteens", Rules(rounds=tuple(range(3, 16)))),
    "up-and-down": ("Up and down (22 rounds)", Rules(rounds=UP_AND_DOWN_ROUNDS)),
    "redemption": ("Redemption", Rules(redemption=True)),
    "royal-points": ("Royal points 11-12-13", Rules(face_points="11-12-13")),
    "doubled-royal-rounds": ("Doubled royal rounds", Rules(double_royal_rounds=True)),
}
