"""Where a game's randomness comes from: versioned, reproducible shuffles.

Every shuffle of a game (the deck of each round's deal, each rebuilt stock)
and the first dealer come from the game's *shuffle*, a value stored in the
game's snapshot.  Two versions exist; a game keeps its version for good.

**Version 1** (:class:`LegacyShuffle`, games created before version 2):
``random.Random(f"{seed}:{round}:{rebuild}").shuffle(cards)`` from a 62-bit
integer seed, the first dealer from ``random.Random(f"{seed}:dealer")``.
Kept unchanged so that those games replay exactly; nothing about it can be
checked by the players.

**Version 2** (:class:`FairShuffle`, provably fair).  The server draws a
256-bit ``server_seed`` from ``secrets`` when the game is created and
shows its commitment ``SHA-256(server_seed)`` (hex) from then on; each seat
adds a public *contribution* (a short text).  The seed is revealed when the
game is over, and anyone can then recompute every shuffle::

    u32(n)    = n as 4 bytes, big-endian
    lp(b)     = u32(len(b)) || b                      (length-prefixed bytes)
    message   = lp("threethirteen/shuffle/v2") || lp(purpose)
                || u32(seat count) || lp(utf8(contribution of seat 0)) || ... (seat order)
                || u32(round index, from 0) || u32(rebuild number, 0 for the deal)
    block k   = HMAC-SHA256(key = server_seed, message || u32(k)),  k = 0, 1, 2, ...
    stream    = block 0 || block 1 || ...              (read 4 bytes at a time, big-endian)

    below(n)  : read x from the stream until x < limit = 2**32 - (2**32 mod n)
                (the largest multiple of n that fits); answer x mod n.
                No modulo bias: every answer has exactly limit / n chances.
    shuffle   : Fisher-Yates over the cards in their fixed order (the deal:
                ``game_deck``, each deck's 52 cards then its jokers; a rebuild:
                the discard pile less its top card, bottom to top):
                for i from len - 1 down to 1: swap cards[i] and cards[below(i + 1)].

``purpose`` is ``"deal"`` for shuffles and ``"dealer"`` for the first
dealer (``below(seat count)`` from the stream of round 0, rebuild 0).  The
top of the stock is the last card: the deal gives one card at a time from
the top, starting left of the dealer, then turns the up-card.

Pure Python, no Django: ``games.engine.verify`` checks a whole game with it.
The complete specification for someone checking a game without this code
(the deck's order, the deal, the rebuilds, a worked example) is
``games/static/games/fair-shuffle.txt``; a test holds it to this module.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeVar

__all__ = [
    "SHUFFLE_LEGACY",
    "SHUFFLE_FAIR",
    "SHUFFLE_VERSIONS",
    "DOMAIN",
    "SEED_BYTES",
    "MAX_CONTRIBUTION_LENGTH",
    "LegacyShuffle",
    "FairShuffle",
    "Shuffle",
    "shuffle_from_dict",
    "new_server_seed",
    "commitment",
    "random_contribution",
    "check_contribution",
    "word_stream",
    "seed_from_hex",
    "below",
    "fisher_yates",
]

T = TypeVar("T")

SHUFFLE_LEGACY: Final = 1
SHUFFLE_FAIR: Final = 2
SHUFFLE_VERSIONS: Final = (SHUFFLE_LEGACY, SHUFFLE_FAIR)

#: The domain-separation label of version 2 (a later version gets a new label).
DOMAIN: Final = b"threethirteen/shuffle/v2"
#: The server seed's length in bytes (256 bits).
SEED_BYTES: Final = 32
#: A contribution is at most this many characters of printable ASCII.
MAX_CONTRIBUTION_LENGTH: Final = 64

_WORD: Final = 4
_SPACE: Final = 1 << (8 * _WORD)
_WORDS: Final = struct.Struct(">8I")  # a SHA-256 block as eight 32-bit big-endian words


def _u32(value: int) -> bytes:
    return value.to_bytes(_WORD, "big")


def _lp(data: bytes) -> bytes:
    return _u32(len(data)) + data


def check_contribution(text: Any) -> str:
    """``text`` if it is a valid contribution (printable ASCII, at most 64 characters), else ``ValueError``.

    Plain ASCII only, so that two contributions that look alike are alike:
    a verifier reads exactly the bytes the server hashed.
    """
    if not isinstance(text, str):
        raise ValueError(f"a seed contribution is text, not {text!r}")
    if len(text) > MAX_CONTRIBUTION_LENGTH:
        raise ValueError(f"a seed contribution has at most {MAX_CONTRIBUTION_LENGTH} characters")
    if any(not " " <= ch <= "~" for ch in text):
        raise ValueError("a seed contribution holds printable ASCII only (letters, digits, spaces, punctuation)")
    return text


def word_stream(key: bytes, message: bytes) -> Iterator[int]:
    """HMAC-SHA256(key, message || u32(k)) for k = 0, 1, 2, ... (endless), read as 32-bit big-endian words."""
    base = hmac.new(key, message, hashlib.sha256)
    counter = 0
    while True:
        block = base.copy()
        block.update(_u32(counter))
        yield from _WORDS.unpack(block.digest())
        counter += 1


def below(n: int, stream: Iterator[int]) -> int:
    """A uniform whole number in ``[0, n)`` read from ``stream``, a stream of 32-bit words.

    Rejection sampling: a word at or above the largest multiple of ``n``
    that fits in 32 bits is thrown away and the next one read, so that every
    answer is equally likely (no modulo bias).
    """
    if not 0 < n <= _SPACE:
        raise ValueError(f"cannot draw below {n}")
    limit = _SPACE - _SPACE % n
    while True:
        word = next(stream)
        if word < limit:
            return word % n


def fisher_yates(items: Sequence[T], stream: Iterator[int]) -> list[T]:
    """``items`` shuffled: for i from the last index down to 1, swap item i with item ``below(i + 1)``."""
    pile = list(items)
    for i in range(len(pile) - 1, 0, -1):
        j = below(i + 1, stream)
        pile[i], pile[j] = pile[j], pile[i]
    return pile


@dataclass(frozen=True, slots=True)
class LegacyShuffle:
    """Shuffle version 1: ``random.Random`` seeded by an integer (games created before version 2)."""

    seed: int
    version: ClassVar[int] = SHUFFLE_LEGACY

    def __post_init__(self) -> None:
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ValueError(f"a game's seed is a whole number, not {self.seed!r}")

    def shuffled(self, items: Sequence[T], round_index: int, rebuild: int) -> list[T]:
        pile = list(items)
        random.Random(f"{self.seed}:{round_index}:{rebuild}").shuffle(pile)
        return pile

    def first_dealer(self, seat_count: int) -> int:
        return random.Random(f"{self.seed}:dealer").randrange(seat_count)

    def to_dict(self) -> dict[str, Any]:
        return {"version": self.version, "seed": self.seed}


@dataclass(frozen=True, slots=True)
class FairShuffle:
    """Shuffle version 2: HMAC-SHA256 of the server seed over the seats' contributions (see the module)."""

    server_seed: bytes = field(repr=False)  # secret while the game is in play: never in a repr or a log line
    contributions: tuple[str, ...]
    version: ClassVar[int] = SHUFFLE_FAIR

    def __post_init__(self) -> None:
        if not isinstance(self.server_seed, bytes) or len(self.server_seed) != SEED_BYTES:
            raise ValueError(f"a server seed is {SEED_BYTES} bytes")
        if not isinstance(self.contributions, tuple) or not self.contributions:
            raise ValueError("a fair shuffle needs one contribution per seat")
        for text in self.contributions:
            check_contribution(text)

    @property
    def commitment(self) -> str:
        return commitment(self.server_seed)

    def message(self, purpose: str, round_index: int, rebuild: int) -> bytes:
        """The HMAC message of one stream (without the block counter)."""
        parts = [_lp(DOMAIN), _lp(purpose.encode("ascii")), _u32(len(self.contributions))]
        parts += [_lp(text.encode("utf-8")) for text in self.contributions]
        parts += [_u32(round_index), _u32(rebuild)]
        return b"".join(parts)

    def stream(self, purpose: str, round_index: int, rebuild: int) -> Iterator[int]:
        return word_stream(self.server_seed, self.message(purpose, round_index, rebuild))

    def shuffled(self, items: Sequence[T], round_index: int, rebuild: int) -> list[T]:
        return fisher_yates(items, self.stream("deal", round_index, rebuild))

    def first_dealer(self, seat_count: int) -> int:
        if seat_count != len(self.contributions):
            raise ValueError(f"{len(self.contributions)} contributions for {seat_count} seats")
        return below(seat_count, self.stream("dealer", 0, 0))

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "server_seed": self.server_seed.hex(),
            "contributions": list(self.contributions),
        }


Shuffle = LegacyShuffle | FairShuffle


def shuffle_from_dict(data: Any) -> Shuffle:
    """Read a shuffle written by ``to_dict``; anything malformed raises ``ValueError``."""
    if not isinstance(data, Mapping):
        raise ValueError("a shuffle must be a JSON object")
    version = data.get("version")
    if version == SHUFFLE_LEGACY and set(data) == {"version", "seed"}:
        return LegacyShuffle(data["seed"])
    if version == SHUFFLE_FAIR and set(data) == {"version", "server_seed", "contributions"}:
        contributions = data["contributions"]
        if not isinstance(contributions, list):
            raise ValueError("the contributions are a list")
        return FairShuffle(seed_from_hex(data["server_seed"]), tuple(contributions))
    raise ValueError(f"unknown or malformed shuffle (version {version!r})")


def seed_from_hex(text: Any) -> bytes:
    """The server seed from its 64 hex digits (``ValueError`` otherwise)."""
    if not isinstance(text, str) or len(text) != 2 * SEED_BYTES:
        raise ValueError(f"a server seed is {2 * SEED_BYTES} hex digits")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise ValueError(f"a server seed is {2 * SEED_BYTES} hex digits") from None


def new_server_seed() -> bytes:
    """A fresh 256-bit server seed from the operating system's CSPRNG."""
    return secrets.token_bytes(SEED_BYTES)


def commitment(server_seed: bytes) -> str:
    """SHA-256 of the server seed, in hex: shown while the game is played, checked after."""
    return hashlib.sha256(server_seed).hexdigest()


def random_contribution() -> str:
    """The contribution of a seat whose player gave none: 16 random hex digits."""
    return secrets.token_hex(8)
