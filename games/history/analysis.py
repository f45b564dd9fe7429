"""A finished game's analysis as a page shows it: who may ask, the progress, the verdicts and the chart.

Reads only: the analysis is asked for and computed in ``games.services.analysis``
(the figures in ``games.analysis``).  The page is for whoever may see the
game's record (the view checks ``may_watch`` and that the game is over);
asking is for its players (:func:`may_request`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _

from games import analysis, presentation
from games.engine import Rules, wild_rank_chars
from games.live import clock
from games.models import AnalysedDecision, Game, GameAnalysis, Seat
from games.numbers import plain_number
from games.services.analysis import explanations, round_points

from . import charts

__all__ = [
    "game_analysis",
    "grade_label",
    "may_request",
    "record_panel",
    "replay_panel",
    "waiting_ahead",
    "ALL_FLAGGED",
]

#: The turn list's choice that shows the flagged turns of every player.
ALL_FLAGGED = "flagged"

_ROW_FIELDS = AnalysedDecision.ROW_FIELDS
#: The chart's diamond of a flagged turn: the costlier, the larger (its colour is the player's).
MARK_SIZES = {"inaccuracy": 3.5, "mistake": 5.0, "blunder": 7.0}


def may_request(game: Game, user: Any, seats: Sequence[Seat]) -> bool:
    """Whether ``user`` may ask for the game's analysis: a player of the finished game."""
    return (
        game.is_finished
        and getattr(user, "is_authenticated", False)
        and any(s.user_id is not None and s.user_id == user.pk for s in seats)
    )


def waiting_ahead(job: GameAnalysis | None) -> int | None:
    """How many analyses the worker starts before this one, which it has not started yet (None once it has,
    or for an analysis of another version): those asked for earlier and not started either, as the worker
    takes them (``services.analysis.analysis_tick``: those not started first, oldest first; those started
    after them, in turn).

    A waiting analysis is not "analysing" at 0 %: behind others, it may wait many minutes before its first move.
    """
    if job is None or job.status != GameAnalysis.Status.PENDING or job.version != analysis.VERSION:
        return None
    return (
        GameAnalysis.objects.filter(
            version=analysis.VERSION, status=GameAnalysis.Status.PENDING, game__status=Game.Status.FINISHED
        )
        .filter(Q(requested_at__lt=job.requested_at) | Q(requested_at=job.requested_at, pk__lt=job.pk))
        .count()
    )


def worker_stopped(state: str) -> bool:
    """An analysis asked for and not done while the clock worker, which works them out, is not running: the
    page says so (a stopped worker showed "It is next in line", or a frozen percentage, for as long as it
    stayed down). The worker's heartbeat is read only then."""
    return state in (GameAnalysis.Status.PENDING, GameAnalysis.Status.RUNNING) and not clock.running()


def record_panel(*, game: Game, user: Any, seats: Sequence[Seat]) -> dict[str, Any]:
    """The record page's analysis block: its state and progress, whether this person may ask, the accuracies.

    One query (the stored analysis with its summary), and one more while it waits for its turn
    (:func:`waiting_ahead`); ``seats`` are the record's, in seat order.
    """
    job = GameAnalysis.objects.filter(game=game).first()
    stale = job is not None and job.version != analysis.VERSION
    state = "none" if job is None else "stale" if stale else job.status
    players = []
    if job is not None and state == GameAnalysis.Status.DONE and len(job.summary) == len(seats):
        players = [{"name": s.name, **verdict} for s, verdict in zip(seats, job.summary, strict=True)]
    return {
        "job": job,
        "state": state,
        "can_request": may_request(game, user, seats) and state in ("none", "stale", GameAnalysis.Status.FAILED),
        "players": players,
        "ahead": waiting_ahead(job),
        "worker_stopped": worker_stopped(state),
    }


def _action(data: Mapping[str, Any] | None, wild: Sequence[str]) -> dict[str, Any] | None:
    """An action for the template: what kind, and its card as a face."""
    if not data:
        return None
    if data["type"] == "draw":
        return {"kind": "stock" if data["source"] == "stock" else "take", "card": None}
    return {"kind": "go_out" if data["type"] == "go_out" else "discard", "card": data["card"]}


def _decision(row: Mapping[str, Any], wild: Sequence[str]) -> dict[str, Any]:
    """One decision of a turn: chosen and best in words (a take names the card taken)."""
    chosen = _action(row["chosen"], wild)
    best = _action(row["best"], wild)
    for action in (chosen, best):
        if action and action["kind"] == "take":
            action["card"] = row["top"] or None
    for action in (chosen, best):
        if action and action["card"]:
            action["face"] = presentation.card_face(action["card"], wild)
    return {
        "chosen": chosen,
        # the better choice, only when the choice made surely lost points (within the noise it is not named)
        "best": best if best and row["best"] != row["chosen"] and float(row["cost"]) > 0 else None,
        "is_best": row["best"] == row["chosen"],
        # another choice looked better, but by no more than the estimates' noise: not a loss
        "within_noise": bool(row["best"]) and row["best"] != row["chosen"] and float(row["cost"]) <= 0,
        "cost": row["cost"],
        "forced": row["forced"],
        "expected": row["expected"],
    }


def replay_panel(*, game: Game, step: int, hand_size: int, names: Sequence[str]) -> dict[str, Any] | None:
    """What the game's analysis says of the move after the replay's ``step`` (the position shown): the
    choice made, the better one found and what it lost (:func:`_decision`), with the mover's name.

    None without a done analysis of this version, or after the last move.  One query; the caller has
    checked that the reader may see the replay (a finished game: every hand is public).
    """
    row = (
        AnalysedDecision.objects.filter(
            analysis__game=game,
            analysis__version=analysis.VERSION,
            analysis__status=GameAnalysis.Status.DONE,
            seq=step + 1,
        )
        .values(*_ROW_FIELDS)
        .first()
    )
    if row is None:
        return None
    return {
        **_decision(row, wild_rank_chars(hand_size)),
        "name": names[int(row["seat"])],
        "by_bot": bool(row["by_bot"]),  # the bot's choice, not the player's (marked as the replay marks it)
        "url": reverse("games:analysis", args=[game.pk]),
    }


def game_analysis(*, game: Game, user: Any, show: str | None = None) -> dict[str, Any]:
    """The analysis page's context for a finished game (the caller has checked that ``user`` may see the record).

    ``show``: a seat's number (its turns) or :data:`ALL_FLAGGED` (every
    player's flagged turns); anything else: the viewer's own seat, or every
    flagged turn for someone without one.
    """
    seats = list(game.seats.select_related("user").order_by("position"))
    names = [s.name for s in seats]
    job = GameAnalysis.objects.filter(game=game).first()
    stale = job is not None and job.version != analysis.VERSION
    context: dict[str, Any] = {
        "game": game,
        "job": job,
        "state": "none" if job is None else "stale" if stale else job.status,
        "can_request": may_request(game, user, seats) and (job is None or stale or job.status == job.Status.FAILED),
        "thresholds": [{"grade": grade, "points": points} for grade, points in analysis.GRADES],
        "blunder": analysis.BLUNDER,
        "samples": job.samples if job else analysis.SAMPLES,
        "most_deals": analysis.most_deals(job.samples if job else analysis.SAMPLES),
        "ahead": waiting_ahead(job),
    }
    context["worker_stopped"] = worker_stopped(context["state"])
    if job is None or stale or not job.is_done:
        return context

    rows = list(job.decisions.order_by("seq").values(*_ROW_FIELDS))
    turns = analysis.turns(rows)
    mine = next((s.position for s in seats if s.user_id is not None and s.user_id == getattr(user, "pk", None)), None)
    if show == ALL_FLAGGED:
        selected: int | str = ALL_FLAGGED
    elif show is not None and plain_number(show, 0, len(seats) - 1):
        selected = int(show)
    else:
        selected = ALL_FLAGGED if mine is None else mine

    # a person's verdict leaves out the turns a bot played for them (time out, or they had left)
    people = {s.position for s in seats if s.user_id is not None}
    by_seat_round: dict[tuple[int, int], list[analysis.Turn]] = defaultdict(list)
    for turn in analysis.players_turns(turns, people):
        by_seat_round[(turn.seat, turn.round_number)].append(turn)
    round_numbers = sorted({t.round_number for t in turns})
    scored = round_points(game)  # a round loses at most what it scored
    players = [
        {"position": seat.position, "name": seat.name, "seat": seat, "me": seat.position == mine, **verdict}
        for seat, verdict in zip(seats, analysis.summary(turns, len(seats), scored, people), strict=True)
    ]
    round_rows = [
        {
            "round": number,
            "cells": [
                {
                    "accuracy": analysis.accuracy(by_seat_round[(s.position, number)]),
                    "lost": analysis.round_lost(by_seat_round[(s.position, number)], scored.get((s.position, number))),
                }
                for s in seats
            ],
        }
        for number in round_numbers
    ]
    replay = reverse("games:replay", args=[game.pk])
    rules = Rules.from_dict(game.rules)
    shown: list[dict[str, Any]] = []
    for turn, number in zip(turns, own_numbers(turns), strict=True):
        if selected == ALL_FLAGGED and not turn.grade:
            continue
        if selected != ALL_FLAGGED and turn.seat != selected:
            continue
        worst = analysis.worst_decision(turn)
        wild = wild_rank_chars(_hand_size(rules, turn.round_number))
        shown.append(
            {
                "turn": turn.turn,
                "number": number,
                "round": turn.round_number,
                "name": names[turn.seat],
                "seat": turn.seat,
                "decisions": [_decision(d, wild) for d in turn.decisions],
                "cost": turn.cost,
                "grade": turn.grade,
                "by_bot": turn.by_bot and seats[turn.seat].user_id is not None,  # a person's turn the bot played
                "expected_total": turn.expected_total,
                "worst_seq": int(worst["seq"]),
                "replay_url": f"{replay}?step={int(worst['seq']) - 1}",
                "start_url": f"{replay}?step={turn.first_seq - 1}",
            }
        )
    why = _explanations(job, turns, rules, names)
    for t in shown:
        t["why"] = why.get(t["worst_seq"]) if t["grade"] else None
    context.update(
        players=players,
        round_rows=round_rows,
        turns=shown,
        selected=selected,
        all_flagged=ALL_FLAGGED,
        flagged_count=sum(1 for t in turns if t.grade),
        chart=_chart(game, seats, turns, replay),
    )
    return context


def _explanations(
    job: GameAnalysis, graded: Sequence[analysis.Turn], rules: Rules, names: Sequence[str]
) -> dict[int, dict[str, Any]]:
    """Why each flagged turn was flagged, at its costliest decision (by the move's ``seq``), in words and
    cards: the hand the player held then, whether it was the last turn, and the melds and leftover cards
    the choice made and the better one leave, as if the round ended there.

    Worked out once with the analysis (``games.services.analysis.explanations``); the game is over,
    so every hand is public.
    """
    out: dict[int, dict[str, Any]] = {}
    for seq, raw in explanations(job, graded).items():
        wild = wild_rank_chars(_hand_size(rules, _round_of(graded, int(seq))))
        out[int(seq)] = {
            "hand": presentation.card_faces(presentation.sort_codes(raw["hand"], "suit", wild), wild),
            "last_turn": names[raw["went_out"]] if raw["went_out"] is not None else None,
            "pairs": [
                (_("The choice made leaves:"), _leaves(raw["chosen"], wild)),
                (_("The better choice leaves:"), _leaves(raw["best"], wild)),
            ],
        }
    return out


def _round_of(graded: Sequence[analysis.Turn], seq: int) -> int:
    return next(t.round_number for t in graded if any(int(d["seq"]) == seq for d in t.decisions))


def _leaves(raw: Mapping[str, Any] | None, wild: Sequence[str]) -> dict[str, Any] | None:
    """What a choice leaves (``analysis.explain.leaves``) as faces for the template."""
    if raw is None:
        return None
    return {
        "melds": [presentation.card_faces(meld, wild) for meld in raw["melds"]],
        "laid_off": presentation.card_faces(raw.get("laid_off", []), wild),  # stored before: none
        "deadwood": presentation.card_faces(raw["deadwood"], wild),
        "points": raw["points"],
    }


def own_numbers(turns: Sequence[analysis.Turn]) -> list[int]:
    """Each turn's number among its player's turns of its round (1, 2, ...): how the page names a turn."""
    count: dict[tuple[int, int], int] = defaultdict(int)
    numbers = []
    for turn in turns:
        count[(turn.seat, turn.round_number)] += 1
        numbers.append(count[(turn.seat, turn.round_number)])
    return numbers


def _hand_size(rules: Rules, round_number: int) -> int:
    return rules.rounds[round_number - 1] if 0 < round_number <= len(rules.rounds) else 0


def grade_label(grade: str) -> str:
    """A grade's name in the reader's language."""
    labels = {"inaccuracy": _("inaccuracy"), "mistake": _("mistake"), "blunder": _("blunder")}
    return labels.get(grade, "")


def _chart(game: Game, seats: Sequence[Seat], turns: Sequence[analysis.Turn], replay: str) -> dict[str, Any]:
    """Each player's expected total at the end of the round in play, turn after turn, and the flagged turns.

    A player's line moves at their own turns (the expected points of the
    round after their choice, as they could see it, plus their total before
    the round) and starts each round at their actual total; the last point
    is the final total.
    """
    names = [s.name for s in seats]
    round_start: dict[tuple[int, int], int] = {}
    for turn in turns:
        round_start.setdefault((turn.round_number, turn.seat), int(turn.decisions[0]["total_before"]))
    current: list[float | None] = [None] * len(seats)
    values: list[list[float | None]] = [[] for _ in seats]
    x_labels: list[str] = []
    ticks: list[tuple[int, str]] = []
    marks: list[charts.Mark] = []
    numbers = own_numbers(turns)  # a mark names the turn as the list does
    last_round = None
    for index, turn in enumerate(turns):
        if turn.round_number != last_round:
            last_round = turn.round_number
            ticks.append((index, str(turn.round_number)))
            for position in range(len(seats)):
                total = round_start.get((turn.round_number, position))
                if total is not None:
                    current[position] = float(total)
        expected = turn.expected_total
        if expected is not None:
            current[turn.seat] = round(expected, 1)
        for position in range(len(seats)):
            values[position].append(current[position])
        x_labels.append(str(turn.turn))
        if turn.grade:
            worst = analysis.worst_decision(turn)
            marks.append(
                charts.Mark(
                    series=turn.seat,
                    index=index,
                    kind=turn.grade,
                    size=MARK_SIZES.get(turn.grade, 5.0),
                    href=f"{replay}?step={int(worst['seq']) - 1}",
                    title=_("%(name)s, round %(round)s, turn %(turn)s: %(grade)s (%(cost)s points)")
                    % {
                        "name": names[turn.seat],
                        "round": turn.round_number,
                        "turn": numbers[index],
                        "grade": grade_label(turn.grade),
                        "cost": charts.number(turn.cost),
                    },
                )
            )
    end = _("end")
    x_labels.append(end)
    ticks.append((len(turns), end))
    for position, seat in enumerate(seats):
        values[position].append(float(seat.total_score))
    return charts.line_chart(
        series=[charts.Series(name, vals) for name, vals in zip(names, values, strict=True)],
        x_labels=x_labels,
        title=_("Expected total, turn by turn"),
        desc=_(
            "Each player's total expected at the end of the round in play, after each of their turns, as the"
            " analysis saw it from what they could see (lower is better); each round starts at the actual totals."
            " Diamonds mark the flagged turns and link to the replay. Final totals: %(totals)s."
        )
        % {"totals": ", ".join(f"{s.name} {s.total_score}" for s in seats)},
        x_title=_("Turns, by round"),
        y_title=_("Expected total"),
        x_ticks=ticks,
        marks=marks,
    )
