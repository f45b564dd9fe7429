"""The analysis of a finished game, pure Python: the walk through the move log, what each decision sees,
the figures (reproducible), the grades and the accuracy."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields, replace
from typing import Any

import pytest

from games import analysis, bots
from games.analysis import LoggedMove, analyse_decision, decisions, extend_history, grading
from games.analysis import evaluate as evaluate_module
from games.bots import rollout
from games.engine import Discard, Draw, EventKind, GameState, GoOut, Rules, apply, deal_event, new_game, view

RULES = Rules.from_dict({**Rules().to_dict(), "rounds": [3, 4, 5]})
SEATS = 3
SHUFFLE = 17


def _play(levels: tuple[str, ...] = ("hard", "medium", "easy")) -> tuple[list[LoggedMove], list[GameState]]:
    """A whole game of bots: the log, and the engine state before each move."""
    state = new_game(RULES, SEATS, SHUFFLE)
    history: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event of its own
    moves, before = [], []
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        action = bots.choose_action(view(state, seat), levels[seat], history)
        before.append(state)
        state, events = apply(state, seat, action)
        history = extend_history(history, [e.to_dict() for e in events])
        moves.append(LoggedMove(seat, action, by_bot=seat == 2))
    return moves, before


@pytest.fixture(scope="module")
def game() -> tuple[list[LoggedMove], list[GameState]]:
    return _play()


def test_one_decision_per_move_each_with_the_movers_own_view_of_the_state_before_it(game):
    moves, before = game
    found = list(decisions(RULES, SEATS, SHUFFLE, moves))
    assert [d.seq for d in found] == list(range(1, len(moves) + 1))
    for decision, move, state in zip(found, moves, before, strict=True):
        assert decision.seat == move.seat and decision.chosen == move.action and decision.by_bot == move.by_bot
        assert decision.view == view(state, move.seat)
        assert decision.view.hands is None and decision.view.stock is None  # nothing hidden in it
        assert decision.kind == ("draw" if isinstance(move.action, Draw) else "discard")
        assert decision.round_number == state.round_number
        assert decision.total_before == state.scores[move.seat]
        assert move.action in decision.view.legal_actions


def test_a_decision_carries_nothing_but_what_the_seat_saw():
    names = {f.name for f in fields(analysis.Decision)}
    assert names == {
        "seq", "seat", "round_number", "turn", "kind", "chosen", "by_bot", "total_before", "view", "history"
    }  # fmt: skip


def test_the_history_is_the_rounds_public_events_so_far(game):
    moves, before = game
    found = list(decisions(RULES, SEATS, SHUFFLE, moves))
    state = new_game(RULES, SEATS, SHUFFLE)
    events_of_round: list[dict[str, Any]] = [deal_event(state).to_dict()]  # the first deal has no event
    assert events_of_round[0]["data"]["up_card"] == state.discard_pile[-1].code
    for decision, move in zip(found, moves, strict=True):
        assert list(decision.history) == events_of_round
        assert decision.history[0]["kind"] == EventKind.ROUND_DEALT  # every round's, the first one's too
        assert all(e["kind"] != EventKind.ROUND_SCORED for e in decision.history)  # no earlier round's hands
        state, events = apply(state, move.seat, move.action)
        for event in events:
            if event.kind == EventKind.ROUND_DEALT:
                events_of_round = []
            events_of_round.append(event.to_dict())


def test_turns_count_a_draw_and_its_discard_as_one(game):
    moves, _ = game
    found = list(decisions(RULES, SEATS, SHUFFLE, moves))
    for draw, discard in zip(found[::2], found[1::2], strict=True):
        assert draw.kind == "draw" and discard.kind == "discard"
        assert draw.turn == discard.turn and draw.seat == discard.seat
    assert [d.turn for d in found[::2]] == list(range(1, len(found) // 2 + 1))


def test_starting_after_a_move_gives_the_same_decisions_from_there(game):
    moves, _ = game
    everything = list(decisions(RULES, SEATS, SHUFFLE, moves))
    assert list(decisions(RULES, SEATS, SHUFFLE, moves, after=7)) == everything[7:]


def test_a_log_that_is_not_this_games_is_refused(game):
    moves, _ = game
    wrong = [LoggedMove(moves[0].seat, Discard(moves[1].action.card))] if isinstance(moves[1].action, Discard) else []
    wrong = wrong or [LoggedMove((moves[0].seat + 1) % SEATS, moves[0].action)]
    with pytest.raises(ValueError):
        list(decisions(RULES, SEATS, SHUFFLE, wrong))


def _rows(moves: list[LoggedMove], seed: str, samples: int = 4) -> list[dict[str, Any]]:
    return [analyse_decision(d, seed, samples=samples) for d in decisions(RULES, SEATS, SHUFFLE, moves)]


def test_analysing_twice_gives_the_same_figures_and_the_seed_comes_from_the_game(game):
    moves, _ = game
    seed = analysis.analysis_seed(42)
    assert seed == analysis.analysis_seed(42) != analysis.analysis_seed(43)
    first = _rows(moves[:30], seed)
    assert _rows(moves[:30], seed) == first
    assert any(row["options"] for row in first)
    assert analysis.decision_seed(seed, 5) == f"{seed}:5"


def test_each_row_compares_legal_options_with_the_chosen_one_and_costs_what_it_adds(game):
    moves, _ = game
    plain = compared = 0
    for decision in decisions(RULES, SEATS, SHUFFLE, moves[:60]):
        row = analyse_decision(decision, "s", samples=4)
        if decision.forced:
            assert row["options"] == [] and row["cost"] == 0 and row["expected"] is None and row["best"] is None
            continue
        if not row["options"]:  # the plain choice: the only candidate
            assert analysis.candidates(decision.view, decision.history, decision.chosen) == [decision.chosen]
            assert row["best"] == row["chosen"] and row["cost"] == 0 and row["expected"] is None
            plain += 1
            continue
        compared += 1
        values = {tuple(sorted(o["action"].items())): o["expected"] for o in row["options"]}
        legal = {tuple(sorted(a.to_dict().items())) for a in decision.view.legal_actions}
        assert set(values) <= legal and tuple(sorted(row["chosen"].items())) in values
        assert row["best_expected"] == min(values.values())
        assert row["expected"] == values[tuple(sorted(row["chosen"].items()))]
        assert 0 <= row["cost"] <= max(0.0, row["expected"] - row["best_expected"]) + 0.011  # noise is not charged
        assert [o["expected"] for o in row["options"]] == sorted(o["expected"] for o in row["options"])
        if decision.kind == "draw" and decision.view.discard_top is not None:
            assert row["top"] == decision.view.discard_top.code
    assert compared >= 20 and plain >= 1


def test_the_figures_depend_only_on_what_the_seat_could_see(game):
    """Deal the cards the seat could not see (other hands, stock) differently: the same view, the same figures."""
    moves, before = game
    checked = 0
    for decision, state in zip(decisions(RULES, SEATS, SHUFFLE, moves), before, strict=True):
        if decision.forced or state.round_index != 1 or not state.stock:
            continue
        hidden = [c for s, h in enumerate(state.hands) if s != decision.seat for c in h] + list(state.stock)
        random.Random(decision.seq).shuffle(hidden)
        hands, rest = list(state.hands), hidden
        for s in range(SEATS):
            if s != decision.seat:
                hands[s], rest = tuple(sorted(rest[: len(state.hands[s])])), rest[len(state.hands[s]) :]
        other = replace(state, hands=tuple(hands), stock=tuple(rest))
        assert other.card_counter() == state.card_counter() and other != state
        other_view = view(other, decision.seat)
        assert other_view == decision.view
        other_decision = replace(decision, view=other_view)
        assert analyse_decision(other_decision, "seed", samples=4) == analyse_decision(decision, "seed", samples=4)
        checked += 1
    assert checked >= 5


def test_candidates_are_legal_few_and_start_with_the_chosen_one(game):
    moves, _ = game
    for decision in decisions(RULES, SEATS, SHUFFLE, moves):
        if decision.forced:
            continue
        found = analysis.candidates(decision.view, decision.history, decision.chosen)
        assert found[0] == decision.chosen and len(set(found)) == len(found)
        assert set(found) <= set(decision.view.legal_actions)
        assert len(found) <= analysis.MAX_CANDIDATES
        hard = bots.choose_action(decision.view, "hard", decision.history)
        assert hard in found  # the hard bot's choice is always weighed
        if decision.kind == "draw" and len(found) == 1:  # a plain draw: a wild card taken, or a useless one left
            top = decision.view.discard_top
            assert top is not None and isinstance(decision.chosen, Draw)
            assert (decision.chosen.source == "discard") == RULES.is_wild(top, decision.view.hand_size)
        if any(isinstance(a, GoOut) for a in decision.view.legal_actions):
            assert any(isinstance(a, GoOut) for a in found)


def _fake_deals(monkeypatch, points):
    """Every rollout of the analysis answers ``points(candidate index, deal index)`` instead of playing."""

    def fake(seen, history, candidates, rng, samples, policy="hard"):
        return [[float(points(c, d)) for d in range(samples)] for c in range(len(candidates))]

    monkeypatch.setattr(rollout, "evaluate_samples", fake)
    monkeypatch.setattr(evaluate_module, "evaluate_samples", fake, raising=False)


def _compared(game, samples=16):
    moves, _ = game
    rows = [analyse_decision(d, "s", samples=samples) for d in decisions(RULES, SEATS, SHUFFLE, moves[:60])]
    return [row for row in rows if row["options"]]


def test_options_equal_but_for_noise_cost_nothing(game, monkeypatch):
    """Every option is worth the same, each deal's figure off by chance: the lowest estimate is low by chance
    alone, and the chosen option is not charged for it."""
    noise = random.Random(5)  # drawn afresh at each decision
    _fake_deals(monkeypatch, lambda c, d: 6 + d % 4 + noise.gauss(0, 3))
    with monkeypatch.context() as first_deals_only:  # what was charged before: noise
        first_deals_only.setattr(grading, "noise_decides_grade", lambda chosen, best: False)
        plain = sum(row["expected"] - row["best_expected"] for row in _compared(game))
    compared = _compared(game)
    assert len(compared) >= 10
    charged = [row["cost"] for row in compared if row["cost"]]
    assert plain > len(compared) * 0.5
    # chance slips past now and then (about one choice in twenty), never by an inaccuracy's worth
    assert len(charged) <= len(compared) / 10 and sum(charged) <= plain / 10
    assert max(charged, default=0) < analysis.INACCURACY


def test_a_loss_the_noise_of_the_first_deals_hides_is_settled_with_more_deals(game, monkeypatch):
    """Found by a tester who played again with many more deals the choices of a careless player: throwing a
    jack out of a set of three lost 3.9 points (± 0.75 over 320 deals), but on sixteen deals the analysis
    charged 0.47, and in only two of twenty sets of sixteen would it have been an inaccuracy.  Here the
    chosen option loses 5 points a deal on average, each deal's figure off by chance: sixteen deals alone
    hardly ever grade it, more deals do."""
    noise = random.Random(9)
    asked: list[int] = []

    def points(c: int, d: int) -> float:
        if d == 0:
            asked.append(c)
        return 6 + noise.gauss(0, 6) + (5 if c == 0 else 0)

    _fake_deals(monkeypatch, points)
    compared = _compared(game)
    graded = [row for row in compared if analysis.grade(row["cost"])]
    assert len(compared) >= 10 and len(graded) >= len(compared) * 3 / 4
    assert all(row["cost"] <= row["expected"] - row["best_expected"] + 0.011 for row in compared)
    calls = asked.count(0)  # one per decision compared, and more only while its grade is in doubt
    assert len(compared) < calls <= (1 + analysis.SETTLING_ROUNDS) * len(compared)


def test_a_sure_loss_is_charged_whole_and_a_noisy_one_less_its_noise(game, monkeypatch):
    # the chosen option (always the first candidate) scores 3 more on every deal: a sure loss of 3
    _fake_deals(monkeypatch, lambda c, d: 5 + d % 7 + (3 if c == 0 else 0))
    assert {row["cost"] for row in _compared(game)} == {3.0}
    # mean 5, standard deviation (4/3) ** 0.5 over 4 deals: less two standard errors
    assert analysis.confident_cost([4, 6, 4, 6], [0, 0, 0, 0]) == pytest.approx(5 - 2 * (4 / 3 / 4) ** 0.5)
    assert analysis.confident_cost([9, 0, 9, 0], [0, 0, 0, 0]) == 0.0  # mean 4.5, but chance could make it
    assert analysis.confident_cost([0, 0], [3, 3]) == 0.0  # better than the "best": no cost
    assert analysis.confident_cost([5], [0]) == 0.0  # one deal: no measure of the noise, no charge


def test_a_round_never_loses_more_than_the_player_scored_in_it():
    rows = [_row(1, 0, 4.0), _row(1, 0, 3.0), _row(2, 0, 2.5), {**_row(3, 0, 6.0), "round_number": 2}]
    turns = analysis.turns(rows)
    assert analysis.round_lost(turns[:2], 5) == 5.0  # 9.5 charged, 5 scored
    assert analysis.round_lost(turns[:2], 20) == 9.5
    assert analysis.round_lost(turns[:2], None) == 9.5
    assert analysis.summary(turns, 1, {(0, 1): 5, (0, 2): 0})[0]["lost"] == 5.0  # round 2 scored nothing
    assert analysis.summary(turns, 1)[0]["lost"] == 15.5


@pytest.mark.parametrize(
    "cost,grade",
    [(0, ""), (1.99, ""), (2, "inaccuracy"), (4.99, "inaccuracy"), (5, "mistake"), (9.99, "mistake"), (10, "blunder")],
)
def test_grades_follow_the_stated_thresholds(cost, grade):
    assert analysis.grade(cost) == grade


def _row(turn: int, seat: int, cost: float, forced: bool = False, **extra: Any) -> dict[str, Any]:
    return {
        "seq": 2 * turn,
        "turn": turn,
        "seat": seat,
        "round_number": 1,
        "cost": cost,
        "forced": forced,
        "by_bot": False,
        "expected": None if forced else 3.0,
        "total_before": 10,
        **extra,
    }


def test_a_turn_sums_its_decisions_and_accuracy_averages_the_turns_with_a_choice():
    rows = [
        _row(1, 0, 0.0),
        _row(1, 0, 1.5),  # turn 1 costs 1.5: 85%
        _row(2, 1, 4.0),
        _row(2, 1, 8.0),  # turn 2 costs 12: a blunder, 0%
        _row(3, 0, 0.0, forced=True),
        _row(3, 0, 0.0, forced=True),  # no choice: left out
        _row(4, 0, 5.0),
        _row(4, 0, 0.0),  # 50%
    ]
    turns = analysis.turns(rows)
    assert [(t.turn, t.seat, t.cost, t.grade) for t in turns] == [
        (1, 0, 1.5, ""),
        (2, 1, 12.0, "blunder"),
        (3, 0, 0.0, ""),
        (4, 0, 5.0, "mistake"),
    ]
    assert analysis.accuracy([t for t in turns if t.seat == 0]) == pytest.approx(67.5)
    assert analysis.accuracy([t for t in turns if t.seat == 1]) == 0.0
    assert analysis.accuracy([turns[2]]) is None
    assert turns[0].expected_total == 13.0 and turns[2].expected_total is None
    summary = analysis.summary(turns, 2)
    assert summary[0] == {"accuracy": 67.5, "lost": 6.5, "turns": 2, "counts": [0, 1, 0]}
    assert summary[1] == {"accuracy": 0.0, "lost": 12.0, "turns": 1, "counts": [0, 0, 1]}


@pytest.mark.slow
def test_a_whole_game_gets_a_row_per_move(game):
    moves, _ = game
    rows = _rows(moves, analysis.analysis_seed(1), samples=2)
    assert len(rows) == len(moves)
    kinds = Counter("draw" if isinstance(m.action, Draw) else "discard" for m in moves)
    assert Counter(r["kind"] for r in rows) == kinds
    assert all(r["cost"] >= 0 for r in rows)


def test_why_lines_of_a_take_when_the_hand_holds_only_copies_of_the_card_taken():
    """With several decks a hand can hold nothing but copies of the pile's top: the engine then lets one go
    (the only move there is), and what the take leaves is worked out, not an error on the page."""
    from games.analysis.explain import leaves
    from games.engine import Card

    rules = Rules.from_dict({**Rules().to_dict(), "decks": 4})
    king = Card.from_code("KH")
    left = leaves([king, king, king], {"type": "draw", "source": "discard"}, king, rules, 3)
    assert left is not None and left["deadwood"] == [] and sorted(sum(left["melds"], [])) == ["KH", "KH", "KH"]
    # Otherwise the card taken (and its copies) stay: another card goes.
    left = leaves([king, king, Card.from_code("2C")], {"type": "draw", "source": "discard"}, king, rules, 3)
    assert left is not None and "2C" not in sum(left["melds"], []) + left["deadwood"]
