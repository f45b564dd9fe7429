"""``bench/table_parts.py`` runs whole and prints a time for each part of the table page."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.servers import REPO

PARTS = [
    "reading the table (game_table)",
    "the chat beside it (chat_panel)",
    "rendering table.html",
    "of it: _table.html",
    "of it: _chat.html",
    "of it: base.html around an empty page",
    "of it: the header's games-waiting count",
    "100 {% translate %}",
    "20 {% url %}",
    "the page's view, whole",
    "the partial's view, whole (live updates)",
]


def test_the_table_parts_bench_prints_a_time_for_each_part():
    done = subprocess.run(
        [sys.executable, "bench/table_parts.py", "--repeat", "2"], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("The table page of a classic game in play") and "mean of 2 calls" in lines[0]
    assert len(lines) == 1 + len(PARTS)
    for line, part in zip(lines[1:], PARTS, strict=True):
        found = re.fullmatch(r"\s*(.+?)\s+([\d.]+) ms", line)
        assert found and found.group(1) == part and float(found.group(2)) > 0, line
