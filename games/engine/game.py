"""The game state machine of Three Thirteen (RULES.md, "A turn" and "End of a round").

A game is an immutable :class:`GameState`.  ``apply(state, seat, action)``
returns a new state and the public :class:`Event` list of what happened;
an illegal action raises :class:`IllegalAction` (a ``ValueError`` with a
stable ``code``) and, states being immutable, changes nothing.  All
randomness comes from the game's shuffle (``shuffle.py``: version 1, an
integer seed; version 2, the provably fair HMAC shuffle), so ``replay`` of
the same actions rebuilds an equal state and a game can be stored as
rules + shuffle + actions.

``view(state, seat)`` (in ``seat_view``) is the single visibility policy:
what one seat (or a spectator, ``seat=None``) may see.  While the game runs
it never shows another seat's hand or the stock; after the game ends it
shows everything.

Decisions on points RULES.md leaves open (each has a test in
``tests/engine/test_game.py``):

* **Discarding the card just taken.**  A player who took the top of the
  discard pile may not discard (or go out with) a card of that same code in
  the same turn (code ``discard_just_taken``), as in most rummy rules.
  Identical cards from several decks are equal for every rule, so the
  duplicate is forbidden too.  Sole exception: when every card in the hand
  has that code, the player could not move otherwise, so it is allowed.
* **When the stock "runs out".**  The stock is checked when the turn passes
  to the next player (all hands then hold the deal size).  If it is empty it
  is rebuilt from the discard pile less its top card (event
  ``stock_rebuilt``); once ``max_stock_rebuilds`` rebuilds have happened the
  round instead ends at once and every player scores the hand they hold
  (the went-out player, if any, 0; players already laid down in the
  redemption variant keep what they scored).  A draw from an empty stock is
  refused (``empty_pile``); then the only draw is the discard.
* **The last lap.**  After a player goes out, the other seats each play one
  more turn, clockwise from the next seat; a player may go out again in it
  (scores 0 too).  Then the round is scored and the next one dealt at once.
* **Failed go-out with ``bad_go_out_penalty``.**  The card is discarded as
  a normal discard (event ``go_out_failed`` then ``discarded``) and the 20
  points are added to that player's points for the round, flat: the
  ``double_royal_rounds`` multiplier does not apply to it.  ``legal_actions``
  never offers such a go-out (it is a mistake the rule punishes, not a
  move), but ``apply`` accepts it.  Without the option it raises
  ``cannot_go_out``.
* **Redemption.**  A last-lap player who does not go out lays down, at the
  end of that turn (after the discard), the melds and lay-offs that
  ``redemption_score`` finds against the melds then on the table; later
  last-lap players may lay off onto them.  Their round points are the
  deadwood left.  A round ended by the stock lets no one lay down.
* **Going out in ``jokers_free``.**  A joker never helps a player go out;
  the melds laid down when going out hold every card but the discard.
* **Round results are public.**  At the end of a round everyone's melds and
  deadwood are shown (``round_scored``), as when the cards are laid face up
  for scoring in a card room.  The current round's hands stay hidden.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Final, Literal, TypeAlias

from .cards import JOKER, STANDARD_DECK, Card
from .melds import Arrangement, Meld, MeldKind, best_arrangement, can_meld_all, go_out_discards, redemption_score
from .rules import Rules, wild_ranks
from .shuffle import FairShuffle, LegacyShuffle, Shuffle, shuffle_from_dict

__all__ = [
    "Phase",
    "EventKind",
    "RoundEnd",
    "DrawSource",
    "SNAPSHOT_VERSION",
    "IllegalAction",
    "Draw",
    "Discard",
    "GoOut",
    "Action",
    "action_from_dict",
    "Event",
    "TableMeld",
    "SeatResult",
    "RoundResult",
    "GameState",
    "new_game",
    "legal_actions",
    "apply",
    "replay",
    "game_deck",
    "dealt_cards",
    "rebuilt_stock",
]


class Phase(StrEnum):
    """Where a game stands: the seat in turn draws, then discards; or the game is over."""

    DRAW = "draw"
    DISCARD = "discard"
    GAME_OVER = "game_over"


class RoundEnd(StrEnum):
    """How a round ended: someone went out (and the last lap was played), or the stock ran out."""

    WENT_OUT = "went_out"
    STOCK_EXHAUSTED = "stock_exhausted"


class EventKind(StrEnum):
    """The kinds of :class:`Event` (see there for each one's data)."""

    DREW = "drew"
    DISCARDED = "discarded"
    GO_OUT_FAILED = "go_out_failed"
    WENT_OUT = "went_out"
    LAID_DOWN = "laid_down"
    STOCK_REBUILT = "stock_rebuilt"
    ROUND_SCORED = "round_scored"
    ROUND_DEALT = "round_dealt"
    GAME_OVER = "game_over"


#: Version 2 stores the shuffle (``"shuffle"``); version 1 (before shuffle
#: version 2 existed) stored an integer ``"seed"``, read as a version-1 shuffle.
SNAPSHOT_VERSION = 2
_SNAPSHOT_VERSIONS = (1, 2)


class IllegalAction(ValueError):
    """An action the rules do not allow now.

    ``code`` is a stable machine-readable string (``not_your_turn``,
    ``wrong_phase``, ``card_not_in_hand``, ``empty_pile``, ``cannot_go_out``,
    ``discard_just_taken``, ``game_over``, ``not_a_seat``, ``bad_action``);
    the message is a sentence for people (in English: a site says it in its
    reader's language from the code).  A ``bad_action`` also says what was wrong
    in ``reason``: ``not_an_action``, ``unknown_type``, ``no_source`` or ``no_card``
    (a field missing), ``wrong_fields`` (one no such action has), ``bad_source`` or
    ``bad_card``.
    """

    def __init__(self, code: str, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (IllegalAction, (self.code, str(self), self.reason))


# -- actions --------------------------------------------------------------

DrawSource: TypeAlias = Literal["stock", "discard"]
STOCK: Final = "stock"
DISCARD_PILE: Final = "discard"


@dataclass(frozen=True, slots=True)
class Draw:
    """Take the top card of the stock (``"stock"``) or of the discard pile (``"discard"``)."""

    source: DrawSource

    def to_dict(self) -> dict[str, Any]:
        return {"type": "draw", "source": self.source}


@dataclass(frozen=True, slots=True)
class Discard:
    """Put ``card`` from the hand face up on the discard pile; the turn ends."""

    card: Card

    def to_dict(self) -> dict[str, Any]:
        return {"type": "discard", "card": self.card.code}


@dataclass(frozen=True, slots=True)
class GoOut:
    """Lay the whole hand down in melds but ``discard``, and discard it."""

    discard: Card

    def to_dict(self) -> dict[str, Any]:
        return {"type": "go_out", "card": self.discard.code}


Action = Draw | Discard | GoOut

_ACTION_KEYS = {"draw": {"type", "source"}, "discard": {"type", "card"}, "go_out": {"type", "card"}}


def action_from_dict(data: Any) -> Action:
    """Read the JSON form of an action (see each action's ``to_dict``).

    Anything malformed raises ``IllegalAction`` with code ``bad_action``.
    """
    if not isinstance(data, Mapping):
        raise IllegalAction(
            "bad_action", f"an action must be a JSON object, not {type(data).__name__}", "not_an_action"
        )
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _ACTION_KEYS:
        raise IllegalAction(
            "bad_action", f"unknown action type {kind!r}: expected draw, discard or go_out", "unknown_type"
        )
    keys = set(data)
    if keys != _ACTION_KEYS[kind]:
        missing = sorted(_ACTION_KEYS[kind] - keys)
        extra = sorted(map(str, keys - _ACTION_KEYS[kind]))
        problems = [f"missing {', '.join(missing)}"] if missing else []
        problems += [f"unexpected {', '.join(extra)}"] if extra else []
        detail = "; ".join(problems)
        reason = ("no_source" if kind == "draw" else "no_card") if missing else "wrong_fields"
        raise IllegalAction("bad_action", f"a {kind} action has the wrong fields ({detail})", reason)
    if kind == "draw":
        source = data["source"]
        if source not in (STOCK, DISCARD_PILE):
            raise IllegalAction("bad_action", f"draw from {source!r}? Draw from 'stock' or 'discard'", "bad_source")
        return Draw(source)
    code = data["card"]
    if not isinstance(code, str):
        raise IllegalAction("bad_action", f"a card is given by its code such as 'TH', not {code!r}", "bad_card")
    try:
        card = Card.from_code(code)
    except ValueError as error:
        raise IllegalAction("bad_action", str(error), "bad_card") from None
    return Discard(card) if kind == "discard" else GoOut(card)


# -- events and results ---------------------------------------------------


@dataclass(frozen=True)
class Event:
    """Something that happened, safe to show to every seat and spectator.

    Kinds: ``drew`` (data ``source``; ``card`` only for the discard pile),
    ``discarded`` (``card``), ``go_out_failed`` (``card``, ``penalty``),
    ``went_out`` (``card``, ``melds``), ``laid_down`` (redemption: ``melds``,
    ``layoffs``), ``stock_rebuilt`` (``stock_size``, ``rebuilds``),
    ``round_scored`` (a round result), ``round_dealt`` (``round``,
    ``hand_size``, ``dealer``, ``up_card``), ``game_over`` (``standings``,
    ``winners``).
    """

    kind: EventKind
    seat: int | None
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "seat": self.seat, "data": self.data}


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld laid face up on the table by ``seat`` (grows by lay-offs in redemption)."""

    seat: int
    meld: Meld

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, **_meld_to_dict(self.meld)}


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's score for one round.

    ``points`` is what was added to the total: deadwood points times the
    round multiplier, plus ``penalty`` (failed go-outs).  ``melds`` and
    ``laid_off`` plus ``deadwood`` are the seat's final hand (without the
    discard).
    """

    points: int
    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]
    went_out: bool = False
    penalty: int = 0
    laid_off: tuple[Card, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "melds": [_meld_to_dict(m) for m in self.melds],
            "deadwood": codes(self.deadwood),
            "went_out": self.went_out,
            "penalty": self.penalty,
            "laid_off": codes(self.laid_off),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SeatResult:
        return cls(
            points=_int(data["points"]),
            melds=tuple(_meld_from_dict(m) for m in data["melds"]),
            deadwood=_cards(data["deadwood"]),
            went_out=bool(data["went_out"]),
            penalty=_int(data["penalty"]),
            laid_off=_cards(data["laid_off"]),
        )


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The outcome of a round: who went out (if anyone), how it ended, each seat's score."""

    round_index: int
    hand_size: int
    dealer: int
    went_out: int | None
    ended: RoundEnd
    seats: tuple[SeatResult, ...]

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(s.points for s in self.seats)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round_index + 1,
            "hand_size": self.hand_size,
            "dealer": self.dealer,
            "went_out": self.went_out,
            "ended": self.ended.value,
            "seats": [s.to_dict() for s in self.seats],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundResult:
        went_out = data["went_out"]
        return cls(
            round_index=_int(data["round"]) - 1,
            hand_size=_int(data["hand_size"]),
            dealer=_int(data["dealer"]),
            went_out=None if went_out is None else _int(went_out),
            ended=RoundEnd(data["ended"]),
            seats=tuple(SeatResult.from_dict(s) for s in data["seats"]),
        )


# -- the state ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameState:
    """A whole game at one moment.  Build with :func:`new_game`; never mutate.

    ``stock`` and ``discard_pile`` list their cards bottom to top (the top
    card is the last).  ``last_turns`` are the seats still to play their last
    turn after ``went_out`` went out.  ``settled`` holds the round result of
    seats whose score is already fixed this round (went out, or laid down
    in redemption).  ``penalties`` are this round's failed go-out penalties.
    ``shuffle`` is where every shuffle comes from (it holds the secret server
    seed of a version-2 game: the snapshot is for storage, never for a player).
    """

    rules: Rules
    seat_count: int
    shuffle: Shuffle
    round_index: int
    dealer: int
    current_seat: int | None
    phase: Phase
    hands: tuple[tuple[Card, ...], ...]
    stock: tuple[Card, ...]
    discard_pile: tuple[Card, ...]
    table: tuple[TableMeld, ...] = ()
    rebuilds: int = 0
    taken_from_discard: Card | None = None
    went_out: int | None = None
    last_turns: tuple[int, ...] = ()
    settled: tuple[SeatResult | None, ...] = ()
    penalties: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()
    results: tuple[RoundResult, ...] = ()
    move_count: int = 0

    # -- derived values ---------------------------------------------------

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat this round."""
        return self.rules.rounds[self.round_index]

    @property
    def wild_ranks(self) -> frozenset[int]:
        return wild_ranks(self.hand_size)

    @property
    def round_number(self) -> int:
        return self.round_index + 1

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    @property
    def final_lap(self) -> bool:
        """True after someone went out, while the others play their last turn."""
        return self.went_out is not None and not self.is_over

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats with the lowest total once the game is over (ties share); ``()`` before."""
        if not self.is_over:
            return ()
        best = min(self.scores)
        return tuple(s for s, total in enumerate(self.scores) if total == best)

    @property
    def top_discard(self) -> Card | None:
        return self.discard_pile[-1] if self.discard_pile else None

    def card_counter(self) -> Counter[Card]:
        """Every physical card of the game, wherever it is (hands, stock, pile, table)."""
        counter: Counter[Card] = Counter()
        for hand in self.hands:
            counter.update(hand)
        counter.update(self.stock)
        counter.update(self.discard_pile)
        for table_meld in self.table:
            counter.update(table_meld.meld.cards)
        return counter

    # -- snapshot ---------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe snapshot (holds hidden cards: for storage, never for a player)."""
        return {
            "version": SNAPSHOT_VERSION,
            "rules": self.rules.to_dict(),
            "seat_count": self.seat_count,
            "shuffle": self.shuffle.to_dict(),
            "round_index": self.round_index,
            "dealer": self.dealer,
            "current_seat": self.current_seat,
            "phase": self.phase.value,
            "hands": [codes(h) for h in self.hands],
            "stock": codes(self.stock),
            "discard_pile": codes(self.discard_pile),
            "table": [t.to_dict() for t in self.table],
            "rebuilds": self.rebuilds,
            "taken_from_discard": None if self.taken_from_discard is None else self.taken_from_discard.code,
            "went_out": self.went_out,
            "last_turns": list(self.last_turns),
            "settled": [None if s is None else s.to_dict() for s in self.settled],
            "penalties": list(self.penalties),
            "scores": list(self.scores),
            "results": [r.to_dict() for r in self.results],
            "move_count": self.move_count,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameState:
        """Read a snapshot written by :meth:`to_dict`; a malformed one raises ``ValueError``."""
        if not isinstance(data, Mapping):
            raise ValueError("a game snapshot must be a JSON object")
        version = data.get("version")
        if version not in _SNAPSHOT_VERSIONS or isinstance(version, bool):
            raise ValueError(f"unknown game snapshot version {version!r}")
        try:
            shuffle = LegacyShuffle(_int(data["seed"])) if version == 1 else shuffle_from_dict(data["shuffle"])
            taken = data["taken_from_discard"]
            went_out = data["went_out"]
            current = data["current_seat"]
            state = cls(
                rules=Rules.from_dict(data["rules"]),
                seat_count=_int(data["seat_count"]),
                shuffle=shuffle,
                round_index=_int(data["round_index"]),
                dealer=_int(data["dealer"]),
                current_seat=None if current is None else _int(current),
                phase=_phase(data["phase"]),
                hands=tuple(_cards(h) for h in data["hands"]),
                stock=_cards(data["stock"]),
                discard_pile=_cards(data["discard_pile"]),
                table=tuple(TableMeld(_int(t["seat"]), _meld_from_dict(t)) for t in data["table"]),
                rebuilds=_int(data["rebuilds"]),
                taken_from_discard=None if taken is None else Card.from_code(taken),
                went_out=None if went_out is None else _int(went_out),
                last_turns=tuple(_int(s) for s in data["last_turns"]),
                settled=tuple(None if s is None else SeatResult.from_dict(s) for s in data["settled"]),
                penalties=tuple(_int(p) for p in data["penalties"]),
                scores=tuple(_int(s) for s in data["scores"]),
                results=tuple(RoundResult.from_dict(r) for r in data["results"]),
                move_count=_int(data["move_count"]),
            )
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"malformed game snapshot: {error!r}") from None
        _check_snapshot(state)
        return state


def _check_snapshot(state: GameState) -> None:
    n = state.seat_count
    if not (len(state.hands) == len(state.settled) == len(state.penalties) == len(state.scores) == n):
        raise ValueError("malformed game snapshot: per-seat lists do not match the seat count")
    if not 0 <= state.round_index < len(state.rules.rounds):
        raise ValueError("malformed game snapshot: round out of range")
    if state.card_counter() != Counter(game_deck(state.rules, n)):
        raise ValueError("malformed game snapshot: the cards do not add up to the decks dealt")
    _check_shuffle(state.shuffle, n)


def _check_shuffle(shuffle: Shuffle, seat_count: int) -> None:
    if not isinstance(shuffle, (LegacyShuffle, FairShuffle)):
        raise ValueError(f"{shuffle!r} is not a shuffle: use LegacyShuffle or FairShuffle")
    if isinstance(shuffle, FairShuffle) and len(shuffle.contributions) != seat_count:
        raise ValueError(f"{len(shuffle.contributions)} seed contributions for {seat_count} seats: one per seat")


# -- building a game ------------------------------------------------------


def _phase(value: Any) -> Phase:
    try:
        return Phase(value)
    except ValueError:
        raise ValueError(f"malformed game snapshot: unknown phase {value!r}") from None


def game_deck(rules: Rules, seat_count: int) -> tuple[Card, ...]:
    """Every card of a game, in a fixed order: each deck's 52 cards, then its jokers."""
    one_deck = STANDARD_DECK + (JOKER,) * rules.jokers_per_deck
    return one_deck * rules.deck_count(seat_count)


def new_game(rules: Rules, seat_count: int, shuffle: Shuffle | int) -> GameState:
    """Start a game and deal its first round.

    A seat count the rules cannot deal to raises ``RulesError``.  The first
    dealer is drawn from ``shuffle``; every shuffle of the game is too.  A
    whole number stands for ``LegacyShuffle(number)`` (shuffle version 1); a
    ``FairShuffle`` needs one contribution per seat (``ValueError``).
    """
    rules.check_seats(seat_count)
    if not isinstance(shuffle, (LegacyShuffle, FairShuffle)):
        shuffle = LegacyShuffle(shuffle)  # raises ValueError unless a whole number
    _check_shuffle(shuffle, seat_count)
    first_dealer = shuffle.first_dealer(seat_count)
    zeros = (0,) * seat_count
    return _deal(rules, seat_count, shuffle, 0, first_dealer, zeros, (), 0)


def dealt_cards(
    rules: Rules, seat_count: int, shuffle: Shuffle, round_index: int, dealer: int
) -> tuple[tuple[tuple[Card, ...], ...], Card, tuple[Card, ...]]:
    """The deal of a round: each seat's hand (sorted), the up-card and the stock (bottom to top)."""
    hand_size = rules.rounds[round_index]
    stock = shuffle.shuffled(game_deck(rules, seat_count), round_index, 0)
    hands: list[list[Card]] = [[] for _ in range(seat_count)]
    for _ in range(hand_size):  # one card at a time, starting left of the dealer
        for offset in range(1, seat_count + 1):
            hands[(dealer + offset) % seat_count].append(stock.pop())
    up_card = stock.pop()
    return tuple(tuple(sorted(h)) for h in hands), up_card, tuple(stock)


def rebuilt_stock(shuffle: Shuffle, discard_pile: Sequence[Card], round_index: int, rebuild: int) -> tuple[Card, ...]:
    """The stock rebuilt from a discard pile (bottom to top) less its top card: rebuild number ``rebuild``."""
    return tuple(shuffle.shuffled(discard_pile[:-1], round_index, rebuild))


def _deal(
    rules: Rules,
    seat_count: int,
    shuffle: Shuffle,
    round_index: int,
    dealer: int,
    scores: tuple[int, ...],
    results: tuple[RoundResult, ...],
    move_count: int,
) -> GameState:
    hands, up_card, stock = dealt_cards(rules, seat_count, shuffle, round_index, dealer)
    return GameState(
        rules=rules,
        seat_count=seat_count,
        shuffle=shuffle,
        round_index=round_index,
        dealer=dealer,
        current_seat=(dealer + 1) % seat_count,
        phase=Phase.DRAW,
        hands=hands,
        stock=stock,
        discard_pile=(up_card,),
        settled=(None,) * seat_count,
        penalties=(0,) * seat_count,
        scores=scores,
        results=results,
        move_count=move_count,
    )


def replay(rules: Rules, seat_count: int, shuffle: Shuffle | int, actions: Iterable[tuple[int, Action]]) -> GameState:
    """Rebuild a game from its options, shuffle (or version-1 seed) and action log (``(seat, action)`` pairs)."""
    state = new_game(rules, seat_count, shuffle)
    for seat, action in actions:
        state, _ = apply(state, seat, action)
    return state


# -- legal actions --------------------------------------------------------


def check_seat(state: GameState, seat: Any) -> None:
    """Refuse (``not_a_seat``) anything but a seat number of this game."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < state.seat_count:
        raise IllegalAction(
            "not_a_seat", f"there is no seat {seat!r} at this table (seats 0 to {state.seat_count - 1})"
        )


def _forbidden_discard(state: GameState, hand: Sequence[Card]) -> Card | None:
    """The card code that may not be discarded this turn (just taken from the pile), if any."""
    taken = state.taken_from_discard
    if taken is None or all(card == taken for card in hand):
        return None
    return taken


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """What ``seat`` may do now (empty when it is not that seat's turn).

    Draws first (stock, then discard), then the go-outs that succeed, then
    every distinct discard, cards in code order.  A failed go-out, which
    ``apply`` accepts under ``bad_go_out_penalty``, is not offered.
    """
    check_seat(state, seat)
    if state.is_over or seat != state.current_seat:
        return []
    if state.phase == Phase.DRAW:
        actions: list[Action] = []
        if state.stock:
            actions.append(Draw(STOCK))
        if state.discard_pile:
            actions.append(Draw(DISCARD_PILE))
        return actions
    hand = state.hands[seat]
    forbidden = _forbidden_discard(state, hand)
    go_outs = [GoOut(card) for card in go_out_discards(hand, state.rules, state.hand_size) if card != forbidden]
    discards = [Discard(card) for card in sorted(set(hand), key=lambda c: c.code) if card != forbidden]
    return [*go_outs, *discards]


# -- applying an action ---------------------------------------------------


def apply(state: GameState, seat: int, action: Action) -> tuple[GameState, list[Event]]:
    """Play ``action`` for ``seat``: the new state and the events, or ``IllegalAction``."""
    if not isinstance(action, (Draw, Discard, GoOut)):
        raise IllegalAction("bad_action", f"{action!r} is not an action: use Draw, Discard or GoOut", "not_an_action")
    if isinstance(action, Draw) and action.source not in (STOCK, DISCARD_PILE):
        raise IllegalAction("bad_action", f"draw from {action.source!r}? Draw from 'stock' or 'discard'", "bad_source")
    card: object = None if isinstance(action, Draw) else action.card if isinstance(action, Discard) else action.discard
    if not isinstance(action, Draw) and not isinstance(card, Card):
        raise IllegalAction("bad_action", f"{card!r} is not a card", "bad_card")
    if state.is_over:
        raise IllegalAction("game_over", "the game is over: no more moves")
    check_seat(state, seat)
    if seat != state.current_seat:
        raise IllegalAction("not_your_turn", f"it is seat {state.current_seat}'s turn, not seat {seat}'s")
    if isinstance(action, Draw):
        if state.phase != Phase.DRAW:
            raise IllegalAction("wrong_phase", "you have drawn already: now discard or go out")
        return _draw(state, seat, action.source)
    if state.phase == Phase.DRAW:
        raise IllegalAction("wrong_phase", "draw a card first, from the stock or the discard pile")
    if not isinstance(card, Card):  # pragma: no cover - refused above
        raise IllegalAction("bad_action", f"{card!r} is not a card", "bad_card")
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalAction("card_not_in_hand", f"you hold no {card.name} ({card.code})")
    if card == _forbidden_discard(state, hand):
        raise IllegalAction(
            "discard_just_taken", f"you just took the {card.name} from the discard pile: discard another card"
        )
    if isinstance(action, Discard):
        return _discard(state, seat, card, [])
    rest = _remove(hand, [card])
    if can_meld_all(rest, state.rules, state.hand_size):
        return _go_out(state, seat, card, rest)
    penalty = state.rules.bad_go_out_penalty
    if penalty is None:
        raise IllegalAction("cannot_go_out", f"without the {card.name} your hand cannot be laid down entirely in melds")
    penalties = _set(state.penalties, seat, state.penalties[seat] + penalty)
    events = [Event(EventKind.GO_OUT_FAILED, seat, {"card": card.code, "penalty": penalty})]
    return _discard(replace(state, penalties=penalties), seat, card, events)


def _draw(state: GameState, seat: int, source: DrawSource) -> tuple[GameState, list[Event]]:
    hand = state.hands[seat]
    if source == STOCK:
        if not state.stock:
            raise IllegalAction("empty_pile", "the stock is empty: take the top of the discard pile")
        card = state.stock[-1]
        new = replace(
            state,
            stock=state.stock[:-1],
            hands=_set(state.hands, seat, tuple(sorted(hand + (card,)))),
            phase=Phase.DISCARD,
            taken_from_discard=None,
            move_count=state.move_count + 1,
        )
        return new, [Event(EventKind.DREW, seat, {"source": STOCK})]
    if not state.discard_pile:
        raise IllegalAction("empty_pile", "the discard pile is empty: draw from the stock")
    card = state.discard_pile[-1]
    new = replace(
        state,
        discard_pile=state.discard_pile[:-1],
        hands=_set(state.hands, seat, tuple(sorted(hand + (card,)))),
        phase=Phase.DISCARD,
        taken_from_discard=card,
        move_count=state.move_count + 1,
    )
    return new, [Event(EventKind.DREW, seat, {"source": DISCARD_PILE, "card": card.code})]


def _discard(state: GameState, seat: int, card: Card, events: list[Event]) -> tuple[GameState, list[Event]]:
    hand = _remove(state.hands[seat], [card])
    state = replace(
        state,
        hands=_set(state.hands, seat, hand),
        discard_pile=state.discard_pile + (card,),
        move_count=state.move_count + 1,
    )
    events = [*events, Event(EventKind.DISCARDED, seat, {"card": card.code})]
    if state.final_lap and state.rules.redemption:
        state, laid = _lay_down_redemption(state, seat)
        events += laid
    return _end_turn(state, seat, events)


def _go_out(state: GameState, seat: int, card: Card, rest: tuple[Card, ...]) -> tuple[GameState, list[Event]]:
    # A joker never helps to go out: arrange as if jokers_free were off, so
    # every card of ``rest`` lies in a meld (points 0 means no deadwood).
    rules = replace(state.rules, jokers_free=False) if state.rules.jokers_free else state.rules
    arrangement = best_arrangement(rest, rules, state.hand_size)
    melded = [c for m in arrangement.melds for c in m.cards]
    if arrangement.deadwood or Counter(melded) != Counter(rest):  # pragma: no cover - solver contract
        raise RuntimeError(f"the solver could not lay down {rest!r} after can_meld_all said it could")
    result = SeatResult(
        points=state.penalties[seat], melds=arrangement.melds, deadwood=(), went_out=True, penalty=state.penalties[seat]
    )
    first = state.went_out is None
    state = replace(
        state,
        hands=_set(state.hands, seat, ()),
        discard_pile=state.discard_pile + (card,),
        table=state.table + tuple(TableMeld(seat, m) for m in arrangement.melds),
        settled=_set(state.settled, seat, result),
        move_count=state.move_count + 1,
    )
    if first:
        n = state.seat_count
        state = replace(state, went_out=seat, last_turns=tuple((seat + k) % n for k in range(n)))
    events = [
        Event(EventKind.WENT_OUT, seat, {"card": card.code, "melds": [_meld_to_dict(m) for m in arrangement.melds]})
    ]
    return _end_turn(state, seat, events)


def _lay_down_redemption(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """Redemption: at the end of a last turn, lay down melds and lay off onto the table."""
    hand = state.hands[seat]
    table_melds = [t.meld for t in state.table]
    arrangement = redemption_score(hand, table_melds, state.rules, state.hand_size)
    layoffs = tuple(getattr(arrangement, "layoffs", ()))
    table = list(state.table)
    laid_off: list[Card] = []
    for index, cards in layoffs:
        old = table[index]
        table[index] = TableMeld(old.seat, _extend_meld(old.meld, cards, state.rules, state.hand_size))
        laid_off += cards
    melded = [c for m in arrangement.melds for c in m.cards]
    deadwood = _remove(hand, melded + laid_off)  # raises if the solver invented a card
    if Counter(deadwood) != Counter(arrangement.deadwood):  # pragma: no cover - solver contract
        raise RuntimeError("redemption_score's deadwood does not match the hand")
    points = sum(state.rules.card_points(c, state.hand_size) for c in deadwood)
    result = SeatResult(
        points=points * state.rules.round_multiplier(state.hand_size) + state.penalties[seat],
        melds=arrangement.melds,
        deadwood=deadwood,
        penalty=state.penalties[seat],
        laid_off=tuple(laid_off),
    )
    table += [TableMeld(seat, m) for m in arrangement.melds]
    state = replace(
        state, hands=_set(state.hands, seat, deadwood), table=tuple(table), settled=_set(state.settled, seat, result)
    )
    if not arrangement.melds and not laid_off:
        return state, []
    return state, [
        Event(
            EventKind.LAID_DOWN,
            seat,
            {
                "melds": [_meld_to_dict(m) for m in arrangement.melds],
                "layoffs": [{"meld": index, "cards": codes(cards)} for index, cards in layoffs],
            },
        )
    ]


def _extend_meld(meld: Meld, cards: Sequence[Card], rules: Rules, hand_size: int) -> Meld:
    """``meld`` with ``cards`` laid off onto it; a run stays in table order (low to high).

    Natural cards sit at their rank, wilds fill the gaps; a run keeps its
    lowest position when it can, so spare wilds go to its high end first.
    """
    combined = tuple(meld.cards) + tuple(cards)
    if meld.kind != MeldKind.RUN:
        return Meld(kind=meld.kind, cards=combined)
    old_low = _run_low(meld.cards, rules, hand_size)
    naturals = [c for c in combined if not rules.is_wild(c, hand_size)]
    wilds = [c for c in combined if rules.is_wild(c, hand_size)]
    size, top = len(combined), (14 if rules.aces_high else 13)
    for ace in (1, 14) if rules.aces_high else (1,):
        positions = {ace if c.rank == 1 else c.rank: c for c in naturals}
        if len(positions) != len(naturals) or not positions:
            continue
        lows = range(max(1, max(positions) - size + 1), min(min(positions), top - size + 1) + 1)
        if not lows:
            continue
        low = min(lows, key=lambda candidate: (abs(candidate - (old_low or candidate)), candidate))
        return Meld(kind=MeldKind.RUN, cards=tuple(positions.get(p) or wilds.pop() for p in range(low, low + size)))
    raise RuntimeError(f"cannot lay off {codes(cards)} onto the run {codes(meld.cards)}")  # pragma: no cover


def _run_low(cards: Sequence[Card], rules: Rules, hand_size: int) -> int | None:
    """The position of the first card of a run laid out in table order (Ace 1, or 14 when high)."""
    for ace in (1, 14) if rules.aces_high else (1,):
        starts = {(ace if c.rank == 1 else c.rank) - i for i, c in enumerate(cards) if not rules.is_wild(c, hand_size)}
        if len(starts) == 1:
            return starts.pop()
    return None


def _end_turn(state: GameState, seat: int, events: list[Event]) -> tuple[GameState, list[Event]]:
    n = state.seat_count
    state = replace(state, taken_from_discard=None, phase=Phase.DRAW)
    if state.went_out is not None:
        # ``last_turns`` starts with the seat that went out, then the last lap.
        last_turns = state.last_turns[1:]
        state = replace(state, last_turns=last_turns)
        if not last_turns:
            return _score_round(state, RoundEnd.WENT_OUT, events)
        next_seat = last_turns[0]
    else:
        next_seat = (seat + 1) % n
    state = replace(state, current_seat=next_seat)
    if not state.stock:
        if state.rebuilds >= state.rules.max_stock_rebuilds:
            return _score_round(state, RoundEnd.STOCK_EXHAUSTED, events)
        if len(state.discard_pile) > 1:
            rebuilds = state.rebuilds + 1
            stock = rebuilt_stock(state.shuffle, state.discard_pile, state.round_index, rebuilds)
            state = replace(state, stock=stock, discard_pile=state.discard_pile[-1:], rebuilds=rebuilds)
            events = [*events, Event(EventKind.STOCK_REBUILT, None, {"stock_size": len(stock), "rebuilds": rebuilds})]
    return state, events


def _score_round(state: GameState, ended: RoundEnd, events: list[Event]) -> tuple[GameState, list[Event]]:
    hand_size = state.hand_size
    multiplier = state.rules.round_multiplier(hand_size)
    seats: list[SeatResult] = []
    for seat in range(state.seat_count):
        settled = state.settled[seat]
        if settled is not None:
            seats.append(settled)
            continue
        arrangement: Arrangement = best_arrangement(state.hands[seat], state.rules, hand_size)
        penalty = state.penalties[seat]
        seats.append(
            SeatResult(
                points=arrangement.points * multiplier + penalty,
                melds=arrangement.melds,
                deadwood=tuple(arrangement.deadwood),
                penalty=penalty,
            )
        )
    result = RoundResult(
        round_index=state.round_index,
        hand_size=hand_size,
        dealer=state.dealer,
        went_out=state.went_out,
        ended=ended,
        seats=tuple(seats),
    )
    scores = tuple(total + s.points for total, s in zip(state.scores, seats, strict=True))
    results = state.results + (result,)
    events = [*events, Event(EventKind.ROUND_SCORED, None, result.to_dict())]
    if state.round_index + 1 >= len(state.rules.rounds):
        final = replace(state, scores=scores, results=results, phase=Phase.GAME_OVER, current_seat=None, last_turns=())
        events.append(
            Event(EventKind.GAME_OVER, None, {"standings": _standings(scores), "winners": list(final.winners)})
        )
        return final, events
    dealer = (state.dealer + 1) % state.seat_count
    new = _deal(
        state.rules, state.seat_count, state.shuffle, state.round_index + 1, dealer, scores, results, state.move_count
    )
    events.append(_deal_event(new, new.discard_pile[-1]))
    return new, events


def _deal_event(state: GameState, up_card: Card) -> Event:
    return Event(
        EventKind.ROUND_DEALT,
        None,
        {"round": state.round_number, "hand_size": state.hand_size, "dealer": state.dealer, "up_card": up_card.code},
    )


def deal_event(state: GameState) -> Event:
    """The public event of the deal of ``state``'s round (its up-card, whoever has taken it since).

    ``apply`` reports each later round's deal as it deals it; ``new_game`` deals
    the first round with no event.  Whoever keeps a round's public history from
    its deal on (what a bot remembers) starts the first round's with this: without
    it, the first up-card is missing from the discard pile the history tells, and
    from a stock rebuilt out of that pile.
    """
    _hands, up_card, _stock = dealt_cards(state.rules, state.seat_count, state.shuffle, state.round_index, state.dealer)
    return _deal_event(state, up_card)


def _standings(scores: Sequence[int]) -> list[dict[str, int]]:
    """Seats from lowest total to highest; ``place`` 1 is the winner, ties share a place."""
    order = sorted(range(len(scores)), key=lambda s: (scores[s], s))
    return [{"seat": s, "score": scores[s], "place": 1 + sum(1 for t in scores if t < scores[s])} for s in order]


# -- helpers --------------------------------------------------------------


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _remove(hand: Sequence[Card], cards: Iterable[Card]) -> tuple[Card, ...]:
    rest = list(hand)
    for card in cards:
        rest.remove(card)  # ValueError if absent: a bug, never silently ignored
    return tuple(rest)


def codes(cards: Iterable[Card]) -> list[str]:
    return [c.code for c in cards]


def _cards(codes: Any) -> tuple[Card, ...]:
    if not isinstance(codes, list):
        raise TypeError(f"expected a list of card codes, not {codes!r}")
    return tuple(Card.from_code(c) for c in codes)


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"expected a whole number, not {value!r}")
    return value


def _meld_to_dict(meld: Meld) -> dict[str, Any]:
    return {"kind": meld.kind.value, "cards": codes(meld.cards)}


def _meld_from_dict(data: Mapping[str, Any]) -> Meld:
    kind = data["kind"]
    if kind not in ("set", "run"):
        raise TypeError(f"unknown meld kind {kind!r}")
    return Meld(kind=MeldKind(kind), cards=_cards(data["cards"]))
