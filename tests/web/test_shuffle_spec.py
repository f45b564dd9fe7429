"""The shuffle specification (games/static/games/fair-shuffle.txt, linked from every record page) is
enough to check a game without the site's code: a small verifier written here from that text alone
(standard library only, nothing from ``games.engine.shuffle``) recomputes the commitment, the first
dealer, every deal and every rebuilt stock of real games, and agrees with the engine card for card.
If the text and the code ever part, this fails."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders

from games import services
from games.engine import Rules, action_from_dict, apply, new_game
from games.engine.shuffle import shuffle_from_dict  # the engine's side of the comparison only
from tests.engine.test_verify import played_record
from tests.history.conftest import finish_with_bot_moves
from tests.web.conftest import logged_in

pytestmark = pytest.mark.django_db

SPEC = Path(__file__).resolve().parents[2] / "games" / "static" / "games" / "fair-shuffle.txt"


# -- the verifier, from the text --------------------------------------------------------------------


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def lp(data: bytes) -> bytes:
    return u32(len(data)) + data


def message(contributions: list[str], purpose: str, round_index: int, rebuild: int) -> bytes:
    return (
        lp(b"threethirteen/shuffle/v2")
        + lp(purpose.encode())
        + u32(len(contributions))
        + b"".join(lp(text.encode()) for text in contributions)
        + u32(round_index)
        + u32(rebuild)
    )


def words(seed: bytes, contributions: list[str], purpose: str, round_index: int, rebuild: int) -> Iterator[int]:
    data = message(contributions, purpose, round_index, rebuild)
    k = 0
    while True:
        block = hmac.new(seed, data + u32(k), hashlib.sha256).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(block[i : i + 4], "big")
        k += 1


def below(n: int, stream: Iterator[int]) -> int:
    limit = 2**32 - 2**32 % n
    for x in stream:
        if x < limit:
            return x % n
    raise AssertionError("an endless stream ended")


def shuffled(items: list[str], stream: Iterator[int]) -> list[str]:
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = below(i + 1, stream)
        items[i], items[j] = items[j], items[i]
    return items


def game_deck(rules: dict[str, Any], seat_count: int) -> list[str]:
    decks = max(1, math.ceil(seat_count / 2)) if rules["decks"] == "auto" else int(rules["decks"])
    one = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"] + ["XX"] * rules["jokers_per_deck"]
    return one * decks


class Table:
    """The stock and the discard pile of the round in play, as the text says they change."""

    def __init__(self, record: dict[str, Any]) -> None:
        self.record = record
        self.seed = bytes.fromhex(record["server_seed"])
        self.contributions = record["contributions"]
        self.n = record["seat_count"]
        self.dealer = below(self.n, words(self.seed, self.contributions, "dealer", 0, 0))
        self.round = -1
        self.deal_next()

    def stream(self, rebuild: int) -> Iterator[int]:
        return words(self.seed, self.contributions, "deal", self.round, rebuild)

    def deal_next(self) -> None:
        if self.round >= 0:
            self.dealer = (self.dealer + 1) % self.n
        self.round += 1
        self.rebuilds = 0
        self.stock = shuffled(game_deck(self.record["rules"], self.n), self.stream(0))
        self.hands: list[list[str]] = [[] for _ in range(self.n)]
        for _ in range(self.record["rules"]["rounds"][self.round]):
            for offset in range(1, self.n + 1):
                self.hands[(self.dealer + offset) % self.n].append(self.stock.pop())
        self.pile = [self.stock.pop()]

    def play(self, move: dict[str, Any]) -> bool:
        """One move of the record; whether it ended with a rebuilt stock."""
        action, kinds = move["action"], [event["kind"] for event in move["events"]]
        if action["type"] == "draw":
            (self.stock if action["source"] == "stock" else self.pile).pop()
            return False
        self.pile.append(action["card"])  # a discard, or going out with one
        if "round_scored" in kinds:
            if "round_dealt" in kinds:
                self.deal_next()
            return False
        if self.stock or self.rebuilds >= self.record["rules"]["max_stock_rebuilds"] or len(self.pile) < 2:
            return False
        self.rebuilds += 1
        self.stock = shuffled(self.pile[:-1], self.stream(self.rebuilds))
        self.pile = self.pile[-1:]
        return True


def codes(cards: Any) -> list[str]:
    return [card.code for card in cards]


def check_against_the_engine(record: dict[str, Any]) -> tuple[int, int]:
    """Walk the record with the text's verifier and the engine side by side; (deals, rebuilds) compared."""
    assert hashlib.sha256(bytes.fromhex(record["server_seed"])).hexdigest() == record["commitment"]
    engine_shuffle = shuffle_from_dict(
        {"version": 2, "server_seed": record["server_seed"], "contributions": record["contributions"]}
    )
    state = new_game(Rules.from_dict(record["rules"]), record["seat_count"], engine_shuffle)
    mine = Table(record)
    deals, rebuilds = 1, 0

    def same_deal() -> None:
        assert state.dealer == mine.dealer
        assert [sorted(codes(h)) for h in state.hands] == [sorted(h) for h in mine.hands]
        assert codes(state.discard_pile) == mine.pile and codes(state.stock) == mine.stock

    same_deal()
    for move in record["moves"]:
        state, events = apply(state, move["seat"], action_from_dict(move["action"]))
        kinds = [event.kind.value for event in events]
        rebuilt = mine.play(move)
        assert rebuilt == ("stock_rebuilt" in kinds)
        if rebuilt:
            rebuilds += 1
            assert codes(state.stock) == mine.stock and codes(state.discard_pile) == mine.pile
        if "round_dealt" in kinds:
            deals += 1
            same_deal()
    return deals, rebuilds


# -- real games ---------------------------------------------------------------------------------------


def test_the_text_reproduces_a_site_games_deals(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=3,
        bot_count=2,
        options={"rounds": [3, 4, 5]},
        seed_contribution="ann's  spaced  text",
    )
    finish_with_bot_moves(game)
    record = json.loads(logged_in(ann).get(f"/games/{game.pk}/record.json").content)
    assert check_against_the_engine(record)[0] == 3
    # the record page links to the text, which the static files serve
    page = logged_in(ann).get(f"/games/{game.pk}/record/").content.decode()
    assert 'href="/static/games/fair-shuffle.txt"' in page
    assert finders.find("games/fair-shuffle.txt") == str(SPEC)


def test_the_text_reproduces_rebuilt_stocks_and_jokers():
    # random play that runs one deck dry, with jokers: rebuilds happen, and the decks' jokers are placed
    rules = Rules(rounds=(3, 4, 5), decks=1, jokers_per_deck=2)
    record = played_record(bytes(range(32)), ("alice", "bob", "0123456789abcdef"), rules)
    deals, rebuilds = check_against_the_engine(record)
    assert deals == 3 and rebuilds >= 1


def test_the_worked_example_of_the_text_is_what_the_verifier_computes():
    text = SPEC.read_text(encoding="utf-8")
    seed, contributions = bytes(range(32)), ["alice", "bob  x"]
    assert hashlib.sha256(seed).hexdigest() in text
    assert message(contributions, "dealer", 0, 0).hex() in text
    assert hmac.new(seed, message(contributions, "dealer", 0, 0) + u32(0), hashlib.sha256).hexdigest() in text
    record = {
        "server_seed": seed.hex(),
        "contributions": contributions,
        "seat_count": 2,
        "rules": {"decks": 1, "jokers_per_deck": 0, "rounds": [3], "max_stock_rebuilds": 3},
    }
    table = Table(record)
    assert table.dealer == 1 and table.hands == [["AS", "8C", "QC"], ["5D", "7D", "9C"]]
    assert table.pile == ["4S"] and table.stock[-1] == "3S"
    assert "the up-card is `4S`" in text and "seat 0 is dealt `AS`, seat 1 `5D`" in text
