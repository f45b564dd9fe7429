"""The expert bot: legal, reproducible, weighing its candidates on self-draw deals (small budget: conftest.py)."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from games.bots import choose_action, expert, hard
from games.bots.position import Position
from games.bots.rollout import greedy_action
from games.bots.sampling import Knowledge
from games.bots.selfdraw import SelfDraws
from games.engine import (
    Discard,
    Draw,
    GoOut,
    Rules,
    apply,
    deal_event,
    discard_penalties,
    legal_actions,
    new_game,
    view,
)

from .test_search import played

ROOT = Path(__file__).resolve().parents[2]


def test_the_expert_plays_legal_moves_to_the_end_of_a_variant_game():
    rules = Rules.from_dict({"rounds": [3, 9], "jokers_per_deck": 2, "redemption": True, "bad_go_out_penalty": 20})
    state = new_game(rules, 3, 8)
    history: list[dict] = [deal_event(state).to_dict()]  # the first deal has no event of its own
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


def _searched(level: str = "hard"):
    """Positions of 9-card rounds the expert weighs on self-draw deals: no going out, not a last turn."""
    rules = Rules.from_dict({"rounds": [9]})
    for seed in (5, 6, 7):
        for state, history in played(rules, 4, seed, level=level):
            seen = view(state, state.current_seat)
            if not any(isinstance(a, GoOut) for a in seen.legal_actions) and not seen.final_lap:
                yield seen, history


def test_the_expert_weighs_every_leftover_card_and_keeps_the_discard_that_leaves_the_fewest_points():
    searched = differs = refined = 0
    for seen, history in _searched():
        if any(isinstance(a, Draw) for a in seen.legal_actions):
            continue
        pos = Position(seen)
        memory = hard.Memory(seen, history)
        options = expert.candidates(pos, seen.legal_actions, memory)
        assert options[0] == hard.choose(pos, seen.legal_actions, memory)
        assert len(set(options)) == len(options) and set(options) <= set(seen.legal_actions)
        ranked = [Discard(card) for _, card in hard.ranked_discards(pos, seen.legal_actions, memory)]
        assert set(ranked[: expert.BUDGET.discards]) <= set(options)
        leftover = {Discard(card) for card in pos.arrange(pos.hand)[1]} & set(seen.legal_actions)
        assert leftover <= set(options)  # every leftover card it may throw (not one just taken from the pile)
        if len(options) < 2:
            continue
        budget = expert.BUDGET
        rng = random.Random(expert.seed_of(pos, history))
        deals = SelfDraws(
            pos, history, rng, budget.deals + budget.refine, budget.turns, tempo=budget.tempo
        )  # one stream of deals
        first, later = deals.deals[: budget.deals], deals.deals[budget.deals :]
        wanted = hard.wanted_by_next(pos, memory)
        rests = [[card for card in pos.hand] for _ in options]
        for rest, option in zip(rests, options, strict=True):
            rest.remove(option.card)

        fed = {o: hard.feeding_cost(pos, o.card, wanted) for o in options}
        ties = {o: (-pos.points(o.card), o.card.code) for o in options}

        # The first deals rank every candidate (until the work runs out); the best few then play the deals
        # after them (until their own work runs out) and are ranked by their values over all the deals played.
        deals.deals = first
        values = dict(zip(options, deals.values(rests, work=budget.work), strict=True))
        played = deals.played
        finalists = sorted(options, key=lambda o: (values[o] + fed[o], *ties[o]))[: budget.finalists]
        deals.deals = later
        more = deals.values([rests[options.index(o)] for o in finalists], work=budget.refine_work)
        for option, value in zip(finalists, more, strict=True):
            values[option] = (values[option] * played + value * deals.played) / (played + deals.played)
        chosen = choose_action(seen, "expert", history)
        assert chosen == min(finalists, key=lambda o: (values[o] + fed[o], *ties[o]))
        unrefined = expert.choose(pos, seen.legal_actions, history, replace(budget, refine=0))
        assert unrefined == finalists[0]  # without more deals, the first deals' best
        searched += 1
        differs += chosen != options[0]
        refined += chosen != unrefined
    assert refined > 0  # the finalists' deals overrule the first deals now and then
    assert searched > 5 and differs > 0  # the search overrules the hard bot now and then


def test_the_finalists_are_judged_over_all_the_deals_they_played_each_part_weighed_by_its_deals(monkeypatch):
    """Stage values stubbed: the first deals (cut short at 20 of 48 by their work) rank four discards, the three
    cheapest play on (100 of 192 more), and each finalist's value is the mean over its 120 deals."""
    seen, history = next((s, h) for s, h in _searched() if not any(isinstance(a, Draw) for a in s.legal_actions))
    pos = Position(seen)
    a, b, c, d = (Discard(card) for card in list({card.code: card for card in pos.hand}.values())[:4])
    first = {a: 4.0, b: 4.87, c: 3.18, d: 6.0}  # c, a and b go on; d does not
    later = {a: 5.0, b: 4.87, c: 5.18}  # the first part's weight 1/6 makes a the cheapest: 4.833, 4.87, 4.847
    # Judged on the later deals alone b would win; weighing the parts alike, or by the deals asked (48 and
    # 192), c would.
    budget = expert.Budget(deals=48, refine=192, finalists=3, refine_work=7000, big_hand=pos.hand_size + 1, tempo=0.25)
    calls = []
    tempos = []

    class Stub:
        def __init__(self, pos, history, rng, deals, turns, work, tempo):
            self.deals, self.played = [None] * deals, 0
            tempos.append(tempo)

        def more(self, deals):
            self.deals += [None] * deals

        def values(self, hands, first_deal=0, work=None):
            thrown = [Discard(next(card for card in pos.hand if card not in hand)) for hand in hands]
            calls.append((thrown, first_deal, work))
            self.played = 20 if first_deal == 0 else 100
            return [(first if first_deal == 0 else later)[option] for option in thrown]

    monkeypatch.setattr(expert, "SelfDraws", Stub)
    monkeypatch.setattr(expert, "candidates", lambda *args: [a, b, c, d])
    monkeypatch.setattr(hard, "feeding_cost", lambda *args: 0.0)
    assert expert.choose(pos, seen.legal_actions, history, budget) == a
    assert calls[1] == ([c, a, b], 48, 7000)  # after every first deal, within their own work
    assert tempos == [0.25]  # the deals weigh the others' points as the budget says
    assert expert.choose(pos, seen.legal_actions, history, replace(budget, refine=0)) == c  # the first deals' best
    calls.clear()
    big = replace(budget, big_hand=pos.hand_size, big_refine_work=2000)  # a round of big hands: less work
    assert expert.choose(pos, seen.legal_actions, history, big) == a and calls[1] == ([c, a, b], 48, 2000)


def test_the_expert_weighs_the_piles_on_the_deals_unless_told_to_draw_as_the_hard_bot():
    weighed = taken = 0
    budget = expert.BUDGET
    assert budget.draws
    for seen, history in _searched():
        if not any(isinstance(a, Draw) for a in seen.legal_actions):
            continue
        pos = Position(seen)
        memory = hard.Memory(seen, history)
        as_hard = expert.choose(pos, seen.legal_actions, history, replace(budget, draws=False))
        assert as_hard == hard.choose(pos, seen.legal_actions, memory)
        options = expert.candidates(pos, seen.legal_actions, memory, budget)
        chosen = choose_action(seen, "expert", history)
        if len(options) == 1:
            assert chosen == options[0]
            continue
        rng = random.Random(expert.seed_of(pos, history))
        stock, pile = SelfDraws(
            pos, history, rng, budget.deals, budget.turns, budget.work, tempo=budget.tempo
        ).draw_values(pos.hand, seen.discard_top)
        assert chosen == (Draw("discard") if pile < stock else Draw("stock"))
        weighed += 1
        taken += chosen == Draw("discard")
    assert weighed > 5 and taken > 0


def _expected_after(seen, cards, forbidden=None) -> float:
    """The least penalty after one discard, by trying every discard (the engine's ``discard_penalties``)."""
    left = discard_penalties(list(cards), seen.rules, seen.hand_size)
    return min(v for card, v in left.items() if card != forbidden or set(left) == {card})


def test_a_last_turns_draw_is_the_one_that_leaves_the_fewest_points_over_every_card_the_stock_may_give():
    """After someone went out the hand is scored after this turn: the expert works each draw out exactly."""
    rules = Rules.from_dict({"rounds": [5, 9, 12]})
    checked = disagreed = 0
    for seed in (3, 4, 5):
        for state, history in played(rules, 4, seed, level="hard"):
            seen = view(state, state.current_seat)
            if not (seen.final_lap and {Draw("stock"), Draw("discard")} <= set(seen.legal_actions)):
                continue
            knowledge = Knowledge(seen, history)
            chances = knowledge.next_stock_card()
            assert abs(sum(chances.values()) - 1) < 1e-9
            if knowledge.rebuilt is None:
                assert set(chances) == set(+knowledge.unseen)  # before a rebuild: any unseen card alike
            hand, top = list(seen.hand), seen.discard_top
            take = _expected_after(seen, [*hand, top], forbidden=top)
            stock = sum(chance * _expected_after(seen, [*hand, card]) for card, chance in chances.items())
            chosen = choose_action(seen, "expert", history)
            assert chosen == (Draw("discard") if take < stock else Draw("stock"))
            checked += 1
            disagreed += chosen != choose_action(seen, "hard", history)
    assert checked > 20 and disagreed > 0  # the hard bot's rule of thumb is wrong now and then


@pytest.mark.parametrize("rebuild", ["none", "of seen cards", "of unseen cards"])
def test_the_chances_of_the_next_stock_card_are_those_of_the_deals_the_search_samples(rebuild):
    """``next_stock_card`` against the top of 10,000 sampled stocks: before a rebuild (any unseen card),
    after one of a pile everybody saw (only those cards), and after one of a pile that held cards nobody
    saw (the history does not say them: they are mixed with the seen ones)."""
    rules = Rules.from_dict({"rounds": [7]})
    # The position with the longest pile of a game, a seat to draw (the pile's top was just discarded).
    positions = [(state, history) for state, history in played(rules, 3, 6, level="hard") if history]
    state, history = max(
        (p for p in positions if p[1][-1]["kind"] == "discarded" and p[0].went_out is None),
        key=lambda p: len(p[0].discard_pile),
    )
    if rebuild != "none":  # all but one stock card go to the pile; the next turn rebuilds the stock
        moved, pile = state.stock[:-1], state.discard_pile
        if rebuild == "of seen cards":  # as if discarded in turn before the top card
            state = replace(state, stock=state.stock[-1:], discard_pile=pile[:-1] + moved + pile[-1:])
            said = [{"kind": "discarded", "seat": None, "data": {"card": card.code}} for card in moved]
            history = history[:-1] + said + history[-1:]
        else:
            state = replace(state, stock=state.stock[-1:], discard_pile=moved + pile)
        for action in (Draw("stock"), None):
            seat = state.current_seat
            action = action or Discard(max(state.hands[seat]))
            state, events = apply(state, seat, action)
            history += [event.to_dict() for event in events]
        assert history[-1]["kind"] == "stock_rebuilt"
    seen = view(state, state.current_seat)
    knowledge = Knowledge(seen, history)
    chances = knowledge.next_stock_card()
    assert abs(sum(chances.values()) - 1) < 1e-9
    if rebuild == "of seen cards":
        assert set(chances) == set(knowledge.rebuilt or ()) and len(knowledge.rebuilt or ()) > 20
    else:
        assert set(chances) == set(+knowledge.unseen)
    rng, tops = random.Random(1), Counter()
    for _ in range(10000):
        tops[knowledge.sample(rng).stock[-1]] += 1
    assert set(tops) <= set(chances)
    assert all(abs(tops[card] / 10000 - chance) < 0.006 for card, chance in chances.items())


@pytest.mark.parametrize("redemption", [False, True])
@pytest.mark.parametrize("seed", [1, 2])
def test_the_greedy_rollout_policy_plays_as_the_medium_bot(seed, redemption):
    rules = Rules.from_dict({"rounds": [3, 8, 13], "jokers_per_deck": 1, "redemption": redemption})
    for state, history in played(rules, 3, seed):
        seat = state.current_seat
        assert greedy_action(state, seat) == choose_action(view(state, seat), "medium", history)


def test_the_match_script_compares_the_expert_with_the_hard_bot():
    command = [sys.executable, "bench/bots.py", "--match", "expert,hard", "--games", "2", "--seed", "3"]
    command += ["--rounds", "1", "--workers", "1", "--expert-deals", "4", "--expert-turns", "2"]
    command += ["--expert-refine", "6", "--expert-finalists", "2", "--expert-refine-work", "500"]
    command += ["--expert-big-refine-work", "300"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    assert "4 self-draw deals of at most 2 turns" in out, out
    assert "the 2 best discards on 6 more deals (until their turns hold 500 cards, 300 in rounds of 11" in out, out
    for level in ("expert", "hard"):
        assert re.search(rf"^{level}\s+2\s+-?\d+\.\d\s+", out, re.M), out
        assert re.search(rf"^{level} decision time: median \d+\.\d ms, 95% \d+\.\d ms, worst \d+\.\d ms", out, re.M)
    assert re.search(r"^expert - hard per game: -?\d+\.\d \(", out, re.M), out
    assert re.search(r"^expert relative to hard: [+-]\d+\.\d%$", out, re.M), out
    bad = subprocess.run([*command[:2], "--match", "expert,grandmaster"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "--match takes two different levels" in bad.stderr
    for option, value in (
        ("--expert-finalists", "0"),
        ("--expert-refine", "-1"),
        ("--expert-deals", "0"),
        ("--expert-big-refine-work", "0"),
        ("--expert-tempo", "1.5"),
    ):
        bad = subprocess.run([*command, option, value], cwd=ROOT, capture_output=True, text=True)
        assert bad.returncode == 2 and "the expert's deals, turns, work, discards" in bad.stderr, option


def test_an_expert_budget_refuses_counts_it_cannot_search_with():
    assert expert.Budget(refine=0).refine == 0  # no more deals is a budget
    for bad in (
        {"deals": 0},
        {"turns": 0},
        {"work": 0},
        {"discards": 0},
        {"finalists": 0},
        {"refine_work": 0},
        {"big_hand": 0},
        {"big_refine_work": 0},
        {"refine": -1},
        {"tempo": -0.5},
        {"tempo": 2.0},
    ):
        with pytest.raises(ValueError, match="an expert budget counts"):
            expert.Budget(**bad)


def test_the_speed_script_prints_the_expert_decision_times_by_hand_size():
    command = [sys.executable, "bench/expert_speed.py", "--games", "1", "--seed", "2", "--rounds", "2"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    for label in ("3", "4", "all"):
        assert re.search(rf"^{label}\s+\d+\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d$", out, re.M), out
    assert re.search(r"^decision time: median \d+\.\d ms, 95% \d+\.\d ms, worst \d+\.\d ms$", out, re.M), out
    options = ["--seats", "2", "--options", '{"redemption": true}']
    out = subprocess.run([*command, *options], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    assert 'games of 2 (1 expert, 1 hard), seed 2, options {"redemption": true}' in out, out
    assert re.search(r"^last draws\s+[1-9]\d*\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d$", out, re.M), out


def test_the_regret_script_charges_each_budgets_discards_against_a_reference():
    command = [sys.executable, "bench/expert_regret.py", "--games", "1", "--decisions", "60", "--reference", "8"]
    out = subprocess.run([*command, "--refine", "0,4"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    searched = re.search(
        r"^(\d+) searched discards of 1 game\(s\) of hard bots; reference: 8 deals each$", out.stdout, re.M
    )
    assert searched and int(searched[1]) > 0, out.stdout
    for refine in (0, 4):
        line = rf"^refine +{refine}: not the reference's best +\d+\.\d%, points lost a discard \d+\.\d{{4}}$"
        assert re.search(line, out.stdout, re.M), out.stdout
    bad = subprocess.run([*command, "--refine", "0,-1"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "--refine takes whole numbers" in bad.stderr


def test_the_last_turn_script_counts_the_hard_bots_costlier_draws():
    command = [sys.executable, "bench/last_turn.py", "--games", "2", "--seed", "1"]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=True).stdout
    line = r"^last-turn draws with a choice: (\d+); the hard bot drew from the costlier pile in (\d+)$"
    found = re.search(line, out, re.M)
    assert found and 0 < int(found[2]) < int(found[1]), out
    assert re.search(r"^points that cost in expectation, per seat and game: \d+\.\d\d ", out, re.M), out


def test_the_solvers_answers_are_shared_safely_by_the_threads_of_a_process(monkeypatch):
    """A review: ``manage.py gameclock`` plays bots' turns on one thread and analyses on another, and counting
    the kept answers while the other thread added a key raised "dictionary changed size during iteration"
    (which marks an analysis failed).  Forgotten at every call here, so that the threads cross often."""
    import threading

    from games.bots import rollout
    from games.engine import Rules

    monkeypatch.setattr(rollout, "_SOLVED_LIMIT", -1)
    rules, errors, stop = Rules(), [], threading.Event()

    def ask(sizes: range) -> None:
        while not stop.is_set():
            for size in sizes:
                try:
                    assert rollout.solver_answers(rules, size).size == size
                except Exception as error:  # noqa: BLE001 (any of them fails the test below)
                    errors.append(repr(error))
                    stop.set()

    threads = [threading.Thread(target=ask, args=(sizes,)) for sizes in (range(3, 8), range(8, 14))]
    for thread in threads:
        thread.start()
    stop.wait(3.0)
    stop.set()
    for thread in threads:
        thread.join()
    assert errors == []
