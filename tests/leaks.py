"""Finding hidden cards in what the site sends: the checker of the standing leak sweep
(tests/web/test_leak_sweep.py).

A :class:`Secrets` says, for one party (a seat, or someone without a seat) at one
moment of one game, which cards it may not see and what it may: it is computed
from the engine state alone (:func:`secrets_of`), never from what a page shows.
:func:`find_leaks` then reads one response body (HTML or a WebSocket message)
and reports every way a secret shows in it:

``card``
    A card *element*: the markup of ``{% card %}`` (``games/templatetags/cards.py``), a tag with
    ``data-card="TH"`` (the discard button of the hand also has
    ``value="TH"``, every card its name "10 of hearts" in ``title``,
    ``aria-label`` or ``data-name``).  Counted per element.  A code leaks
    when more elements show it than the party has public copies of it: its
    own hand, the discard pile's top, the melds on the table (plus, on a
    round's summary page, that finished round's cards).  Counting copies,
    rather than asking "is this code secret", is what makes the check sound
    with several decks: with two decks the ten of hearts may be on the discard
    pile (shown once, allowed) and in the opponent's hand (a second element
    would be the leak).  A tag without ``data-card`` that names a card by
    ``value`` or by name (the go-out button names a card of the hand) is a
    reference, checked like words below.
``word``
    A card named in words outside the markup: "10 of hearts", "10♥" (the
    recent-moves list) or a bare code ``TH`` as a word of text (the admin's
    move log and round results, JSON; not inside a random string such as a
    password salt the admin shows as ``6H****`` or a token).  Words are checked by presence: a code
    leaks when it is secret and no public source ever named it in this game
    (the cards above, the whole discard pile, every card a public engine event named: discards,
    draws from the discard pile, up cards, melds laid; every finished round).
    With several decks and several rounds the same code is often both, so
    this check is weaker late in a game than in its first round; the
    ``card`` and ``sequence`` checks do not depend on it.
``sequence``
    Three secret cards in a row, in the order they lie in a hidden place (a
    hand as held, the stock from either end), as bare codes separated only
    by punctuation or spaces: what a dump of the state (JSON, a list in the
    admin) looks like.  This is how the stock order is looked for.
``secret``
    A secret string: the game's seed while it is in play, its invite token
    for anyone without a seat.

The checker sees text as the site sends it: tags and attributes are read from
the raw HTML, words from the text between tags (``<script>``/``<style>`` left
out) after HTML entities are decoded, sequences and secret strings from the
whole decoded body (a dump may hide in an attribute).
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from games.engine import GameState, RoundResult, view

#: A card code standing alone, upper case as the site writes it ("TH", "XX").
CODE_RE = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQK][CDHS]|XX)(?![A-Za-z0-9])")
#: A card code as a word of text: not a piece of a random string (a password salt shown as "6H****",
#: a token "ab-7H_cd" or a path), which may hold any two characters.
CODE_WORD_RE = re.compile(r"(?<![A-Za-z0-9_*/+=.-])([A2-9TJQK][CDHS]|XX)(?![A-Za-z0-9_*/+=-])")
#: A card's name as presentation.card_face writes it in English ("10 of hearts", "ace of spades", "joker").
NAME_RE = re.compile(r"\b(ace|10|[2-9]|jack|queen|king) of (clubs|diamonds|hearts|spades)\b|\b(joker)\b", re.I)
#: A card as rank and suit symbol ("10♥", "A♠"), as the recent-moves list and the go-out button write it.
SYMBOL_RE = re.compile(r"(?<![\w])(10|[A2-9JQK])([♣♦♥♠])")
TAG_RE = re.compile(r"<[a-zA-Z][^>]*>")
ATTR_RE = re.compile(r'([\w:-]+)\s*=\s*"([^"]*)"')
SCRIPT_RE = re.compile(r"<(script|style)\b.*?</\1\s*>", re.S | re.I)
ANY_TAG_RE = re.compile(r"<[^>]*>")
#: What may separate two codes of a dump: punctuation and spaces, short (", " or "', '" or " · ").
GAP_RE = re.compile(r"[^A-Za-z0-9]{1,10}")

_RANK_OF_NAME = {"ace": "A", "10": "T", "jack": "J", "queen": "Q", "king": "K"}
_SUIT_OF_NAME = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
_SUIT_OF_SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
#: Attributes through which ``{% card %}`` shows which card an element is.
_CODE_ATTRS = ("data-card", "value")
_NAME_ATTRS = ("title", "aria-label", "data-name")

SEQUENCE = 3


def _name_code(match: re.Match[str]) -> str:
    if match.group(3):
        return "XX"
    rank = match.group(1).lower()
    return _RANK_OF_NAME.get(rank, rank) + _SUIT_OF_NAME[match.group(2).lower()]


def _symbol_code(match: re.Match[str]) -> str:
    rank = match.group(1)
    return ("T" if rank == "10" else rank) + _SUIT_OF_SYMBOL[match.group(2)]


def card_marks(body: str) -> tuple[Counter[str], set[str]]:
    """The cards ``body`` shows as elements, and those its other tags name (module docstring: ``card``).

    A card element is a tag with ``data-card`` (the one card template); counted once
    each.  A button's ``value``, a ``title``, ``aria-label`` or ``data-name`` that
    names a card on a tag without ``data-card`` (or another card than its own) only
    refers to a card: the go-out button next to the hand names a card that the hand
    shows too.
    """
    elements: Counter[str] = Counter()
    references: set[str] = set()
    for tag in TAG_RE.finditer(body):
        text = tag.group(0)
        if "=" not in text:
            continue
        attributes = {name.lower(): html.unescape(value) for name, value in ATTR_RE.findall(text)}
        codes: set[str] = set()
        for name, value in attributes.items():
            if name in _CODE_ATTRS and CODE_RE.fullmatch(value):
                codes.add(value)
            elif name in _NAME_ATTRS:
                codes.update(_name_code(m) for m in NAME_RE.finditer(value))
        own = attributes.get("data-card", "")
        if CODE_RE.fullmatch(own):
            elements[own] += 1
            codes.discard(own)
        references |= codes
    return elements, references


def text_of(body: str) -> str:
    """The text between the tags, entities decoded, scripts and styles left out."""
    return html.unescape(ANY_TAG_RE.sub(" ", SCRIPT_RE.sub(" ", body)))


def words(text: str) -> set[str]:
    """Every card ``text`` names: by name, by rank and suit symbol, or by bare code."""
    named = {_name_code(m) for m in NAME_RE.finditer(text)}
    named |= {_symbol_code(m) for m in SYMBOL_RE.finditer(text)}
    named |= set(CODE_WORD_RE.findall(text))
    return named


def code_runs(text: str, length: int = SEQUENCE) -> set[tuple[str, ...]]:
    """Every ``length`` bare codes in a row in ``text`` (separated only by short punctuation)."""
    runs: set[tuple[str, ...]] = set()
    run: list[str] = []
    end = None
    for match in CODE_RE.finditer(text):
        if end is None or not GAP_RE.fullmatch(text, end, match.start()):
            run = []
        run.append(match.group(1))
        end = match.end()
        if len(run) >= length:
            runs.add(tuple(run[-length:]))
    return runs


def windows(cards: Iterable[str], length: int = SEQUENCE) -> set[tuple[str, ...]]:
    """The runs of ``length`` in a hidden place, read from either end."""
    cards = list(cards)
    found: set[tuple[str, ...]] = set()
    for order in (cards, cards[::-1]):
        found |= {tuple(order[i : i + length]) for i in range(len(order) - length + 1)}
    return found


@dataclass(frozen=True)
class Secrets:
    """What one party may not see (and may) at one moment of one game; see the module docstring."""

    #: Copies of each card in places hidden from the party: other seats' hands, the stock.
    hidden: Counter[str] = field(default_factory=Counter)
    #: Copies the party may see as cards now: its own hand, the top of the discard pile, the melds on the table.
    shown: Counter[str] = field(default_factory=Counter)
    #: Cards public words may name: the above and every card public events and finished rounds named.
    said: frozenset[str] = frozenset()
    #: Hidden orders (each hand as held, the stock), as runs of SEQUENCE codes.
    runs: frozenset[tuple[str, ...]] = frozenset()
    #: Strings the party may not read: the seed while the game is in play, the invite token.
    strings: frozenset[str] = frozenset()

    def __add__(self, other: Secrets) -> Secrets:
        """Two games at once (a page about every game, the lobby or the admin's lists)."""
        return Secrets(
            hidden=self.hidden + other.hidden,
            shown=self.shown + other.shown,
            said=self.said | other.said,
            runs=self.runs | other.runs,
            strings=self.strings | other.strings,
        )


@dataclass(frozen=True)
class Leak:
    kind: str  # card, word, sequence, secret
    what: str

    def __str__(self) -> str:
        return f"{self.kind} {self.what}"


def result_cards(result: RoundResult) -> Counter[str]:
    """Every card a finished round shows on its summary: each seat's melds, lay-offs and deadwood."""
    cards: Counter[str] = Counter()
    for seat in result.seats:
        for meld in seat.melds:
            cards.update(meld.codes)
        cards.update(c.code for c in seat.laid_off)
        cards.update(c.code for c in seat.deadwood)
    return cards


def codes_in(data: Any) -> Iterator[str]:
    """Every card code among the strings of a JSON-like value (public events, a WebSocket message)."""
    if isinstance(data, str):
        yield from CODE_RE.findall(data)
    elif isinstance(data, Mapping):
        for value in data.values():
            yield from codes_in(value)
    elif isinstance(data, (list, tuple)):
        for value in data:
            yield from codes_in(value)


def secrets_of(
    state: GameState,
    seat: int | None,
    *,
    events: Iterable[Mapping[str, Any]] = (),
    seed: int | None = None,
    server_seed: str = "",
    invite_token: str = "",
) -> Secrets:
    """What ``seat`` (``None``: anyone without a seat) may not see now, from the engine state alone.

    ``events``: the game's public engine events so far (what anyone saw happen);
    ``seed`` (shuffle version 1) and ``server_seed`` (version 2): secret while the game is in play;
    ``invite_token``: pass it for a party without a seat (the players are shown their invite link).
    """
    strings = {invite_token} if invite_token else set()
    if state.is_over:  # everything is shown at the end (the invite token stays the players')
        every_card = Counter({card.code: count for card, count in state.card_counter().items()})
        return Secrets(shown=every_card, said=frozenset(every_card), strings=frozenset(strings))
    hidden: Counter[str] = Counter(c.code for c in state.stock)
    runs = windows(c.code for c in state.stock)
    for position, hand in enumerate(state.hands):
        if position != seat:
            hidden.update(c.code for c in hand)
            runs |= windows(c.code for c in hand)
    shown: Counter[str] = Counter([state.discard_pile[-1].code] if state.discard_pile else [])
    for table_meld in state.table:
        shown.update(table_meld.meld.codes)
    if seat is not None:
        shown.update(c.code for c in state.hands[seat])
    said = set(shown) | {c.code for c in state.discard_pile}
    said.update(codes_in([dict(event) for event in events]))
    for result in state.results:
        said.update(result_cards(result))
    if seed is not None:
        assert len(str(seed)) >= 8, "a seed this short would be found in any page by chance: use a long one"
        strings.add(str(seed))
    if server_seed:
        strings.add(server_seed)
    # The engine's own view must agree that these cards are hidden (a check of this helper).
    seen = view(state, seat)
    assert seen.hands is None and seen.stock is None
    return Secrets(
        hidden=hidden,
        shown=shown,
        said=frozenset(said),
        runs=frozenset(runs),
        strings=frozenset(strings),
    )


def find_leaks(
    body: str, secrets: Secrets, *, extra_shown: Counter[str] | None = None, extra_said: Iterable[str] = ()
) -> list[Leak]:
    """Every way a secret of ``secrets`` shows in ``body`` (HTML, or the text of a WebSocket message).

    ``extra_shown``: public card copies this page may show besides the party's
    current ones (a finished round's cards on its summary page); ``extra_said``:
    cards this page names whatever the game (the rules page's examples).
    """
    leaks: list[Leak] = []
    decoded = html.unescape(body)
    for string in sorted(secrets.strings):
        if string and string in decoded:
            leaks.append(Leak("secret", string))
    if not secrets.hidden:
        return leaks
    allowed = secrets.shown + (extra_shown or Counter())
    said = secrets.said | set(extra_said) | set(extra_shown or ())
    elements, references = card_marks(body)
    for code, count in sorted(elements.items()):
        if secrets.hidden[code] and count > allowed[code]:
            leaks.append(Leak("card", f"{code} ({count} shown, {allowed[code]} public)"))
    for code in sorted(references):
        if secrets.hidden[code] and code not in said:
            leaks.append(Leak("card", f"{code} (named by a tag)"))
    for code in sorted(words(text_of(body))):
        if secrets.hidden[code] and code not in said:
            leaks.append(Leak("word", code))
    for run in sorted(code_runs(decoded) & secrets.runs):
        leaks.append(Leak("sequence", " ".join(run)))
    return leaks


def find_leaks_in_message(text: str, secrets: Secrets) -> list[Leak]:
    """A WebSocket message (JSON): read as a body once its escapes are decoded ("\\u2665" is "♥")."""
    return find_leaks(json.dumps(json.loads(text), ensure_ascii=False), secrets)
