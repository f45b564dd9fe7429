"""``python -m games.engine.verify``: a real record passes; any tampering fails."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import Draw, FairShuffle, GoOut, Rules, apply, legal_actions, new_game
from games.engine.shuffle import commitment, new_server_seed
from games.engine.verify import RecordError, main, noted_commitment, verify_record

ROOT = Path(__file__).resolve().parents[2]


def played_record(seed: bytes, contributions: tuple[str, ...], rules: Rules, driver: int = 1) -> dict:
    """A whole game played with random legal moves, exported as the record page does."""
    rng = random.Random(driver)
    shuffle = FairShuffle(seed, contributions)
    state = new_game(rules, len(contributions), shuffle)
    moves = []
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        actions = legal_actions(state, seat)
        stock = [a for a in actions if a == Draw("stock")]
        outs = [a for a in actions if isinstance(a, GoOut)]
        action = stock[0] if stock and rng.random() < 0.9 else outs[0] if outs else rng.choice(actions)
        state, events = apply(state, seat, action)
        moves.append({"seat": seat, "action": action.to_dict(), "events": [e.to_dict() for e in events]})
    return json.loads(
        json.dumps(
            {
                "format": "threethirteen-record",
                "format_version": 1,
                "game": 1,
                "rules": rules.to_dict(),
                "seat_count": len(contributions),
                "shuffle_version": 2,
                "server_seed": seed.hex(),
                "commitment": commitment(seed),
                "contributions": list(contributions),
                "moves": moves,
                "final_scores": list(state.scores),
            }
        )
    )


@pytest.fixture(scope="module")
def record() -> dict:
    # one deck for three seats and rounds that run the stock dry: rebuilds happen
    return played_record(bytes(range(32)), ("alice", "bob", "0123456789abcdef"), Rules(rounds=(3, 4, 5), decks=1))


def test_a_real_finished_game_verifies(record):
    result = verify_record(record)
    assert result.ok, result.lines()
    assert [c.name for c in result.checks] == ["commitment", "deals", "moves", "final scores"]
    assert result.moves_replayed == len(record["moves"])
    assert [d.round_number for d in result.deals] == [1, 2, 3]
    assert sum(d.rebuilds for d in result.deals) >= 1  # the rebuild derivation is checked too
    assert result.lines()[-1] == "VERIFIED"


def _failed(record: dict) -> set[str]:
    result = verify_record(record)
    assert not result.ok and result.lines()[-1] == "NOT VERIFIED"
    return {c.name for c in result.checks if not c.ok}


def test_a_tampered_seed_fails_the_commitment_and_the_replay(record):
    bad = copy.deepcopy(record)
    bad["server_seed"] = new_server_seed().hex()
    assert {"commitment", "moves", "final scores"} <= _failed(bad)


def test_a_seed_that_matches_a_forged_commitment_still_fails_the_replay(record):
    bad = copy.deepcopy(record)
    seed = new_server_seed()
    bad["server_seed"], bad["commitment"] = seed.hex(), commitment(seed)
    assert _failed(bad) == {"moves", "final scores"}


def test_a_tampered_commitment_fails(record):
    bad = copy.deepcopy(record)
    bad["commitment"] = commitment(b"x" * 32)
    assert _failed(bad) == {"commitment"}


@pytest.mark.parametrize("seat", [0, 2])
def test_a_tampered_contribution_fails(record, seat):
    bad = copy.deepcopy(record)
    bad["contributions"][seat] += "!"
    assert "moves" in _failed(bad)


def test_a_tampered_move_fails(record):
    bad = copy.deepcopy(record)
    index = next(i for i, m in enumerate(bad["moves"]) if m["action"]["type"] == "discard")
    hand_card = bad["moves"][index]["action"]["card"]
    # another discard that is legal nowhere in that hand, or at least not what was recorded
    bad["moves"][index]["action"]["card"] = "XX" if hand_card != "XX" else "AS"
    assert "moves" in _failed(bad)


def test_tampered_events_fail(record):
    bad = copy.deepcopy(record)
    dealt = next(m for m in bad["moves"] if any(e["kind"] == "round_dealt" for e in m["events"]))
    event = next(e for e in dealt["events"] if e["kind"] == "round_dealt")
    event["data"]["up_card"] = "AS" if event["data"]["up_card"] != "AS" else "KD"
    assert _failed(bad) == {"moves", "final scores"}


def test_a_dropped_last_move_or_other_scores_fail(record):
    short = copy.deepcopy(record)
    short["moves"].pop()
    assert "final scores" in _failed(short)
    scores = copy.deepcopy(record)
    scores["final_scores"][0] += 1
    assert _failed(scores) == {"final scores"}


@pytest.mark.parametrize(
    "corrupt",
    [
        lambda r: r.update(format="other"),
        lambda r: r.update(shuffle_version=1),
        lambda r: r.update(server_seed="12"),
        lambda r: r.update(contributions=["a"]),
        lambda r: r.update(seat_count="3"),
        lambda r: r.pop("moves"),
        lambda r: r["moves"].append({"seat": 0, "action": {"type": "fly"}, "events": []}),
        lambda r: r["moves"].append("draw"),
        lambda r: r.update(rules={"rounds": "x"}),
    ],
)
def test_what_is_not_a_record_is_refused_as_such(record, corrupt):
    bad = copy.deepcopy(record)
    corrupt(bad)
    with pytest.raises(RecordError):
        verify_record(bad)


def test_the_command_prints_what_it_checked_and_exits_0_1_or_2(record, tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    assert main([str(good)]) == 0
    out = capsys.readouterr().out
    assert "ok     commitment: SHA-256(server seed) = " + record["commitment"] in out
    assert "round 1 (3 cards)" in out and out.strip().endswith("VERIFIED")
    tampered = copy.deepcopy(record)
    tampered["contributions"][1] = "mallory"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(tampered))
    assert main([str(bad)]) == 1
    assert "FAILED moves" in capsys.readouterr().out
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    assert main([str(junk)]) == 2
    assert main([str(tmp_path / "missing.json")]) == 2


def test_python_dash_m_runs_it(record, tmp_path):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    done = subprocess.run(
        [sys.executable, "-m", "games.engine.verify", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("VERIFIED") and "FAILED" not in done.stdout


# -- the commitment the player noted: the only check of the seed that does not trust the file --------


def test_a_forged_seed_with_its_own_stored_commitment_fails_only_against_the_noted_one():
    # the tester's case: a server that changes the seed and the stored commitment together.  The
    # forged game is a whole consistent game played from the other seed, so everything in the file
    # agrees with itself; only the commitment the player wrote down at the table gives it away.
    rules = Rules(rounds=(3,), decks=1)
    honest_seed, forged_seed = bytes(range(32)), bytes(range(1, 33))
    forged = played_record(forged_seed, ("ann", "bob"), rules)
    assert verify_record(forged).ok  # the stored commitment alone cannot tell
    result = verify_record(forged, noted=commitment(honest_seed))
    assert not result.ok and {c.name for c in result.checks if not c.ok} == {"your commitment"}
    assert verify_record(forged, noted=commitment(forged_seed)).ok


def test_the_stored_commitment_is_worded_as_what_it_is(record):
    detail = next(c.detail for c in verify_record(record).checks if c.name == "commitment")
    assert "shown during play" not in detail and "proves nothing" in detail
    lines = verify_record(record).lines()
    assert any(line.startswith("note") and "--commitment" in line for line in lines)
    noted = verify_record(record, noted=record["commitment"])
    assert [c.name for c in noted.checks][:2] == ["commitment", "your commitment"]
    assert not any(line.startswith("note") for line in noted.lines())


@pytest.mark.parametrize(
    "text, expected",
    [
        (" " + "AB" * 32 + "\n", "ab" * 32),  # copied from a page: spaces and capitals are fine
        ("ab" * 32, "ab" * 32),
    ],
)
def test_a_noted_commitment_is_read_as_lower_case_hex(text, expected):
    assert noted_commitment(text) == expected


@pytest.mark.parametrize("text", ["", "ab" * 31, "ab" * 33, "g" * 64, "ab" * 16 + " " + "ab" * 16, None])
def test_anything_but_64_hex_digits_is_no_commitment(text):
    with pytest.raises(ValueError):
        noted_commitment(text)


def test_the_command_takes_the_noted_commitment(record, tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main([str(path), "--commitment", record["commitment"].upper()]) == 0
    assert "ok     your commitment: " in capsys.readouterr().out
    assert main([str(path), "--commitment", commitment(b"y" * 32)]) == 1
    out = capsys.readouterr().out
    assert "FAILED your commitment" in out and out.strip().endswith("NOT VERIFIED")
    assert main([str(path), "--commitment", "not hex"]) == 2
    assert "64 hex digits" in capsys.readouterr().err
