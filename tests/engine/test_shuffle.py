"""The shuffles: version 1 kept exactly, version 2 as documented (test vectors), unbiased."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    FairShuffle,
    GameState,
    LegacyShuffle,
    Rules,
    action_from_dict,
    apply,
    game_deck,
    new_game,
    replay,
    view,
)
from games.engine.shuffle import (
    MAX_CONTRIBUTION_LENGTH,
    below,
    check_contribution,
    commitment,
    fisher_yates,
    new_server_seed,
    random_contribution,
    shuffle_from_dict,
)

VECTORS = Path(__file__).resolve().parent / "vectors"
SEED = bytes(range(32))
SHORT = Rules(rounds=(3, 4))


# -- version 1: games stored before version 2 replay exactly -----------------


@pytest.fixture(scope="module")
def v1_game():
    return json.loads((VECTORS / "shuffle_v1_game.json").read_text())


def _log(vector):
    return [(seat, action_from_dict(action)) for seat, action in vector["moves"]]


def test_a_version_1_game_recorded_before_version_2_replays_exactly(v1_game):
    rules = Rules.from_dict(v1_game["rules"])
    final = replay(rules, v1_game["seat_count"], v1_game["seed"], _log(v1_game))
    assert final == GameState.from_dict(v1_game["final"])  # every hand, the stock, every round's result
    assert final.shuffle == LegacyShuffle(v1_game["seed"])
    assert sum(1 for r in final.results) == len(rules.rounds)


def test_a_version_1_snapshot_stored_before_version_2_still_loads_and_plays_on(v1_game):
    assert v1_game["snapshot"]["version"] == 1 and "seed" in v1_game["snapshot"]
    stored = GameState.from_dict(v1_game["snapshot"])
    log = _log(v1_game)
    cut = v1_game["snapshot_after"]
    assert stored == replay(Rules.from_dict(v1_game["rules"]), 3, v1_game["seed"], log[:cut])
    state = stored
    for seat, action in log[cut:]:  # the rest of the game, rebuilds included, from the old snapshot
        state, _ = apply(state, seat, action)
    assert state == GameState.from_dict(v1_game["final"])
    assert state.to_dict()["version"] == 2 and state.to_dict()["shuffle"] == {"version": 1, "seed": v1_game["seed"]}


def test_the_version_1_vector_game_rebuilt_the_stock(v1_game):
    # (the vector would not guard the rebuild shuffles otherwise)
    rules = Rules.from_dict(v1_game["rules"])
    state = new_game(rules, 3, v1_game["seed"])
    rebuilds = 0
    for seat, action in _log(v1_game):
        state, events = apply(state, seat, action)
        rebuilds += sum(e.kind == "stock_rebuilt" for e in events)
    assert rebuilds >= 2


# -- version 2: the documented derivation --------------------------------------


def _spec_words(key: bytes, purpose: bytes, contributions: list[str], round_index: int, rebuild: int, count: int):
    """The scheme as shuffle.py's docstring writes it, implemented again here from the text."""

    def u32(n: int) -> bytes:
        return n.to_bytes(4, "big")

    def lp(b: bytes) -> bytes:
        return u32(len(b)) + b

    message = lp(b"threethirteen/shuffle/v2") + lp(purpose) + u32(len(contributions))
    message += b"".join(lp(c.encode()) for c in contributions) + u32(round_index) + u32(rebuild)
    stream = b"".join(hmac.new(key, message + u32(k), hashlib.sha256).digest() for k in range((count + 7) // 8))
    return [int.from_bytes(stream[i : i + 4], "big") for i in range(0, 4 * count, 4)]


def _spec_shuffle(items, key, contributions, round_index, rebuild):
    words = iter(_spec_words(key, b"deal", contributions, round_index, rebuild, 4000))
    pile = list(items)
    for i in range(len(pile) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - 2**32 % n
        while (word := next(words)) >= limit:
            pass
        j = word % n
        pile[i], pile[j] = pile[j], pile[i]
    return pile


def test_the_stream_is_hmac_sha256_of_the_documented_message():
    shuffle = FairShuffle(SEED, ("alice", "bob's seed", ""))
    words = list(itertools.islice(shuffle.stream("deal", 2, 1), 20))  # three HMAC blocks
    assert words == _spec_words(SEED, b"deal", ["alice", "bob's seed", ""], 2, 1, 20)
    assert shuffle.message("deal", 2, 1).startswith(b"\x00\x00\x00\x18threethirteen/shuffle/v2\x00\x00\x00\x04deal")


@pytest.mark.parametrize("round_index,rebuild", [(0, 0), (3, 0), (3, 2)])
def test_shuffles_follow_the_documented_fisher_yates(round_index, rebuild):
    shuffle = FairShuffle(SEED, ("alice", "bob"))
    deck = game_deck(Rules(jokers_per_deck=1), 2)
    assert shuffle.shuffled(deck, round_index, rebuild) == _spec_shuffle(
        deck, SEED, ["alice", "bob"], round_index, rebuild
    )


def test_fixed_vector_of_the_version_2_derivation():
    # Pinned values: a change of the derivation (message, stream, sampling or the
    # deal order) fails here; a new derivation must be a new shuffle version.
    shuffle = FairShuffle(SEED, ("alice", "bob"))
    assert commitment(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert list(itertools.islice(shuffle.stream("deal", 0, 0), 4)) == [2923904197, 3402497357, 789578669, 2638161108]
    state = new_game(Rules(rounds=(5,)), 2, shuffle)
    assert state.dealer == 1
    assert [" ".join(c.code for c in hand) for hand in state.hands] == ["2S 4S 7D 7S 9H", "5H JC JD JS QD"]
    assert state.discard_pile[0].code == "6D"
    assert " ".join(c.code for c in state.stock[-5:]) == "QH TS 4D 5D 3C"


def test_contributions_seed_and_round_each_change_the_deck():
    base = FairShuffle(SEED, ("alice", "bob"))
    deck = game_deck(SHORT, 2)
    first = base.shuffled(deck, 0, 0)
    assert Counter(first) == Counter(deck)
    assert FairShuffle(SEED, ("alice", "bobb")).shuffled(deck, 0, 0) != first
    assert FairShuffle(SEED, ("bob", "alice")).shuffled(deck, 0, 0) != first  # seat order counts
    assert FairShuffle(SEED, ("alic", "ebob")).shuffled(deck, 0, 0) != first  # length-prefixed: no sliding
    assert FairShuffle(bytes(32), ("alice", "bob")).shuffled(deck, 0, 0) != first
    assert base.shuffled(deck, 1, 0) != first and base.shuffled(deck, 0, 1) != first
    assert base.shuffled(deck, 0, 0) == first  # and the same inputs, the same deck


# -- unbiased ---------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 52, 53, 104, 108, 216, 2**31 + 1])
def test_below_rejects_every_word_at_or_above_the_largest_multiple(n):
    limit = 2**32 - 2**32 % n
    assert limit % n == 0  # each answer has exactly limit / n words
    rejected = [w for w in (limit, limit + 1, 2**32 - 1) if limit <= w < 2**32]  # none when n is a power of 2
    stream = iter([*rejected, limit - 1, 5])
    assert below(n, stream) == (limit - 1) % n  # the words at or above the limit were thrown away
    assert next(stream) == 5  # and the accepted one was the last read


@settings(max_examples=300)
@given(n=st.integers(1, 300), words=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=5))
def test_below_answers_the_first_word_under_the_limit_modulo_n(n, words):
    limit = 2**32 - 2**32 % n
    accepted = [w for w in words if w < limit]
    stream = iter(words + [0])
    assert below(n, stream) == (accepted[0] % n if accepted else 0)


def test_fisher_yates_makes_every_order_exactly_once_from_all_the_draws():
    # Each sequence of draws (j for i = 3, 2, 1) gives a different order: all 24, once each.
    orders = set()
    for j3, j2, j1 in itertools.product(range(4), range(3), range(2)):
        orders.add(tuple(fisher_yates("abcd", iter([j3, j2, j1]))))
    assert len(orders) == 24


def test_first_dealer_is_every_seat_about_as_often():
    dealers = Counter(FairShuffle(SEED, (str(i), "x", "y", "z")).first_dealer(4) for i in range(400))
    assert set(dealers) == {0, 1, 2, 3} and min(dealers.values()) > 60


# -- values and snapshots ------------------------------------------------------


def test_a_version_2_game_round_trips_through_its_snapshot_and_hides_the_seed_from_every_view():
    shuffle = FairShuffle(SEED, ("alice", "bob", "carl"))
    state = new_game(SHORT, 3, shuffle)
    data = json.loads(json.dumps(state.to_dict()))
    assert data["shuffle"] == {"version": 2, "server_seed": SEED.hex(), "contributions": ["alice", "bob", "carl"]}
    assert GameState.from_dict(data) == state
    for seat in (0, 1, 2, None):
        assert SEED.hex() not in json.dumps(view(state, seat).to_dict())
    assert SEED.hex() not in repr(shuffle) and SEED.hex() not in repr(state)


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda d: d.pop("shuffle"),
        lambda d: d["shuffle"].update(version=3),
        lambda d: d["shuffle"].update(server_seed="ab"),
        lambda d: d["shuffle"].update(server_seed="zz" * 32),
        lambda d: d["shuffle"].update(contributions=["a", "b"]),  # one per seat
        lambda d: d["shuffle"].update(contributions="abc"),
        lambda d: d["shuffle"].update(contributions=["a", "b", "\n"]),
        lambda d: d["shuffle"].update(extra=1),
        lambda d: d.update(version=True),
    ],
)
def test_a_malformed_shuffle_in_a_snapshot_is_refused(corrupt):
    data = new_game(SHORT, 3, FairShuffle(SEED, ("a", "b", "c"))).to_dict()
    corrupt(data)
    with pytest.raises(ValueError):
        GameState.from_dict(data)


def test_new_game_wants_one_contribution_per_seat_and_a_32_byte_seed():
    with pytest.raises(ValueError, match="contributions"):
        new_game(SHORT, 3, FairShuffle(SEED, ("a", "b")))
    with pytest.raises(ValueError, match="32 bytes"):
        FairShuffle(SEED[:16], ("a", "b"))
    with pytest.raises(ValueError):
        new_game(SHORT, 2, "7")
    with pytest.raises(ValueError):
        new_game(SHORT, 2, True)


@pytest.mark.parametrize("text", ["", "hello world", "~!@#$%^&*()", "x" * MAX_CONTRIBUTION_LENGTH])
def test_contributions_of_printable_ascii_up_to_the_cap_are_taken(text):
    assert check_contribution(text) == text


@pytest.mark.parametrize("text", ["x" * (MAX_CONTRIBUTION_LENGTH + 1), "tab\there", "nl\n", "é", "\x00", 7, None])
def test_other_contributions_are_refused(text):
    with pytest.raises(ValueError):
        check_contribution(text)


def test_fresh_seeds_and_random_contributions_differ_and_have_their_size():
    seeds = {new_server_seed() for _ in range(20)}
    assert len(seeds) == 20 and all(len(s) == 32 for s in seeds)
    contributions = {random_contribution() for _ in range(20)}
    assert len(contributions) == 20 and all(check_contribution(c) and len(c) == 16 for c in contributions)


def test_shuffle_from_dict_reads_what_to_dict_writes():
    for shuffle in (LegacyShuffle(5), FairShuffle(SEED, ("a", "")), replace(LegacyShuffle(1), seed=2**61)):
        assert shuffle_from_dict(json.loads(json.dumps(shuffle.to_dict()))) == shuffle
