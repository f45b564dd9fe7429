"""The expert bot: legal, reproducible, searching the hard bot's candidates (small budget: conftest.py)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from games.bots import choose_action, expert, hard
from games.bots.position import Position
from games.bots.rollout import evaluate, greedy_action
from games.engine import Discard, Draw, GoOut, Rules, apply, legal_actions, new_game, view

from .test_search import played

ROOT = Path(__file__).resolve().parents[2]


def test_the_expert_plays_legal_moves_to_the_end_of_a_variant_game():
    rules = Rules.from_dict({"rounds": [3, 9], "jokers_per_deck": 2, "redemption": True, "bad_go_out_penalty": 20})
    state = new_game(rules, 3, 8)
    history: list[dict] = []
    while not state.is_over:
        seat = state.current_seat
        action = choose_action(view(state, seat), "expert", history)
        assert action in legal_actions(state, seat)
        state, events = apply(state, seat, action)
        for event in events:
            if event.kind == "round_dealt":
                history = []
            history.append(event.to_dict())


def test_the_same_view_and_history_give_the_same_choice():
    """Seeded by what the seat sees: asked again (as in a replay), the expert answers the same."""
    rules = Rules.from_dict({"rounds": [7]})
    seeds = set()
    for state, history in list(played(rules, 4, 3))[::4]:
        seen = view(state, state.current_seat)
        first = choose_action(seen, "expert", history)
        assert choose_action(view(state, state.current_seat), "expert", list(history)) == first
        seeds.add(expert.seed_of(Position(seen), history))
    assert len(seeds) > 5  # a new position, new deals


def test_the_expert_weighs_the_hard_bots_choice_first_and_keeps_the_cheapest_candidate():
    rules = Rules.from_dict({"rounds": [9]})
    searched = 0
    for state, history in played(rules, 4, 5, level="hard"):
        seen = view(state, state.current_seat)
        if any(isinstance(a, GoOut) for a in seen.legal_actions):
            continue
        pos = Position(seen)
        memory = hard.Memory(seen, history)
        options = expert.candidates(pos, seen.legal_actions, memory)
        assert options[0] == hard.choose(pos, seen.legal_actions, memory)
        assert len(set(options)) == len(options) and set(options) <= set(seen.legal_actions)
        if len(options) < 2:
            continue
        if isinstance(options[0], Discard):
            assert len(options) == min(
                expert.BUDGET.discards, len(hard.ranked_discards(pos, seen.legal_actions, memory))
            )
        else:
            assert set(options) == {Draw("stock"), Draw("discard")}
        budget = expert.BUDGET
        samples = max(budget.min_samples, budget.rollouts // len(options))
        horizon = 2 * 4 * budget.cycles + isinstance(options[0], Draw)
        rng = random.Random(expert.seed_of(pos, history))
        values = evaluate(seen, history, options, rng, samples, budget.policy, horizon, budget.leaf)
        assert choose_action(seen, "expert", history) == options[values.index(min(values))]
        searched += 1
    assert searched > 5


@pytest.mark.parametrize("seed", [1, 2])
def test_the_greedy_rollout_policy_plays_as_the_medium_bot(seed):
    rules = Rules.from_dict({"rounds": [3, 8, 13], "jokers_per_deck": 1})
    for state, history in played(rules, 3, seed):
        seat = state.current_seat
        assert greedy_action(state, seat) == choose_action(view(state, seat), "medium", history)


def test_the_match_script_compares_the_expert_with_the_hard_bot():
    command = [sys.executable, "bench/bots.py", "--match", "expert,hard", "--games", "2", "--seed", "3"]
    command += ["--rounds", "1", "--workers", "1", "--expert-rollouts", "4", "--expert-samples", "2"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    for level in ("expert", "hard"):
        assert re.search(rf"^{level}\s+2\s+-?\d+\.\d\s+", out, re.M), out
        assert re.search(rf"^{level} decision time: median \d+\.\d ms, 95% \d+\.\d ms, worst \d+\.\d ms", out, re.M)
    assert re.search(r"^expert - hard per game: -?\d+\.\d \(", out, re.M), out
    assert re.search(r"^expert relative to hard: [+-]\d+\.\d%$", out, re.M), out
    bad = subprocess.run([*command[:2], "--match", "expert,grandmaster"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "--match takes two different levels" in bad.stderr


def test_the_speed_script_prints_the_expert_decision_times_by_hand_size():
    command = [sys.executable, "bench/expert_speed.py", "--games", "1", "--seed", "2", "--rounds", "2"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    for label in ("3", "4", "all"):
        assert re.search(rf"^{label}\s+\d+\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d$", out, re.M), out
    assert re.search(r"^decision time: median \d+\.\d ms, 95% \d+\.\d ms, worst \d+\.\d ms$", out, re.M), out
