"""``bench/clock_beside_analysis.py`` runs whole, both ways, and prints its figures."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.servers import REPO


@pytest.mark.parametrize("inside", [False, True])
def test_the_clock_beside_analysis_bench_prints_its_figures(inside):
    command = [sys.executable, "bench/clock_beside_analysis.py", "--seconds", "5", "--games", "1", "--hand", "3"]
    done = subprocess.run(
        command + (["--inside"] if inside else []), cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert ("inside the clock pass" in out) is inside and ("beside the clock" in out) is not inside
    played = re.search(r"timed-out turns played: (\d+); late after the deadline: median [\d.]+ s", out)
    assert played and int(played.group(1)) >= 1, out
    assert re.search(r"clock heartbeats: [1-9]\d*; longest time between two: [\d.]+ s", out), out
    assert re.search(r"analysis: [1-9]\d* of \d+ decisions done", out), out
