"""``bench/move_answer.py`` runs whole on a small game, both ways, and prints its figures."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.servers import REPO

FIGURES = re.compile(r"median +[\d.]+ ms +95% +[\d.]+ ms +worst +[\d.]+ ms")


@pytest.mark.slow
@pytest.mark.parametrize("how", [[], ["--bots-in-request"], ["--next-table"]])
def test_the_move_answer_bench_plays_a_round_and_prints_both_times(how):
    command = [sys.executable, "bench/move_answer.py", "--bots", "easy", "--rounds", "1", *how]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    where = "inside the request" if "--bots-in-request" in how else "after the answer"
    assert lines[0] == f"Ann against three easy bots, 1 round(s), seed 1; the bots play {where}"
    handed = re.fullmatch(r"(\d+) of Ann's moves handed the turn to the bots", lines[1])
    assert handed and int(handed.group(1)) >= 1
    assert lines[2].strip().startswith("answer:") and FIGURES.search(lines[2])
    assert lines[3].strip().startswith("bots done:") and FIGURES.search(lines[3])
    if "--next-table" in how:  # Bob and Cy moved while Ann's game lasted
        meanwhile = re.fullmatch(r"meanwhile (\d+) moves of Bob and Cy at the next table", lines[4])
        assert meanwhile and int(meanwhile.group(1)) >= 1
        assert lines[5].strip().startswith("next table:") and FIGURES.search(lines[5])
    else:
        assert len(lines) == 4


def test_the_move_answer_bench_refuses_rounds_it_cannot_deal():
    command = [sys.executable, "bench/move_answer.py", "--rounds", "12"]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--rounds must be between 1 and 11" in done.stderr
