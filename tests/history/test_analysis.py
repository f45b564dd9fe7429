"""A finished game's analysis on the site: who may ask and who may see it, the background worker (bounded
passes, progress, a lease), the page (verdicts, thresholds, chart, links to the replay), never a game in play."""

from __future__ import annotations

import datetime
import importlib
import io
import re
from collections import Counter
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from games import analysis, services
from games.analysis.explain import leaves
from games.engine import Meld, MeldKind, Rules, parse_cards
from games.live import clock
from games.models import AnalysedDecision, Game, GameAnalysis, RoundResult
from tests.races import race
from tests.web.conftest import logged_in

from .conftest import finish_with_bot_moves

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _few_samples(monkeypatch):
    """Analyses made here deal the unseen cards twice a decision, not sixteen times: the same code, faster.
    And their seed is the same whatever the game's number (on PostgreSQL it depends on the tests run
    before): the same figures, and the same flagged turns, in every run."""
    monkeypatch.setattr(analysis, "SAMPLES", 2)
    monkeypatch.setattr(analysis, "analysis_seed", lambda game_id, version=analysis.VERSION: f"test/v{version}")


def _game(make_user: Any, classic: Any, **options: Any) -> tuple[Game, Any, Any]:
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=3,
        bot_count=1,
        bot_level="hard",
        invitees=[bob],
        options={"rounds": [3, 4]},
        seed=21,
        **options,
    )
    return game, ann, bob


@pytest.fixture
def finished(make_user, classic):
    game, ann, bob = _game(make_user, classic)
    return finish_with_bot_moves(game, careless=ann), ann, bob  # Ann discards at random: mistakes to find


def _analyse(game: Game) -> GameAnalysis:
    return services.analyse_game(game_id=game.pk)


def _url(game: Game, what: str = "") -> str:
    return f"/games/{game.pk}/analysis/{what}"


# -- asking -----------------------------------------------------------------------


def test_a_player_asks_and_the_worker_goes_through_it_in_bounded_passes(finished):
    game, ann, _ = finished
    response = logged_in(ann).post(_url(game, "request/"))
    assert response.status_code == 302 and response["Location"] == _url(game)
    job = GameAnalysis.objects.get(game=game)
    moves = game.moves.count()
    assert (job.status, job.decisions_total, job.decisions_done, job.requested_by) == ("pending", moves, 0, ann)
    assert job.seed == analysis.analysis_seed(game.pk) and job.version == analysis.VERSION

    assert services.analysis_tick(max_decisions=5) == 5
    job.refresh_from_db()
    assert (job.status, job.decisions_done, job.lease_until) == ("running", 5, None)
    assert list(job.decisions.values_list("seq", flat=True)) == [1, 2, 3, 4, 5]
    page = logged_in(ann).get(_url(game))
    assert page.status_code == 200
    html = page.content.decode()
    assert '<meta http-equiv="refresh"' in html and f'max="{moves}" value="5"' in html

    passes = 0
    while services.analysis_tick(max_decisions=7):
        passes += 1
    job.refresh_from_db()
    assert job.status == "done" and job.decisions_done == moves and job.finished_at is not None
    assert passes == -(-(moves - 5) // 7)
    assert list(job.decisions.values_list("seq", flat=True)) == list(range(1, moves + 1))
    assert len(job.summary) == 3 and all("accuracy" in s for s in job.summary)
    assert services.analysis_tick(max_decisions=5) == 0  # nothing left


def test_one_analysis_waits_for_each_person_at_a_time(finished, make_user, classic):
    """Eight games queued by one person in ten seconds held up everyone else's for an hour and a half."""
    game, ann, bob = finished
    other = finish_with_bot_moves(
        services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]}, seed=8)
    )
    client = logged_in(ann)
    assert client.post(_url(game, "request/")).status_code == 302
    refused = client.post(_url(other, "request/"))
    assert refused.status_code == 409 and not GameAnalysis.objects.filter(game=other).exists()
    assert f"Your analysis of game #{game.pk} is still being worked out" in refused.content.decode()
    assert client.post(_url(game, "request/")).status_code == 302  # asking again for the waiting one is fine
    # Someone else's queue is their own; once ann's is done she may ask again.
    cleo = make_user("cleo")
    theirs = finish_with_bot_moves(
        services.game_create(creator=cleo, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]}, seed=8)
    )
    assert services.analysis_request(game_id=theirs.pk, user=cleo).status == "pending"
    while services.analysis_tick(max_decisions=50):
        pass
    assert GameAnalysis.objects.get(game=game).status == GameAnalysis.Status.DONE
    assert client.post(_url(other, "request/")).status_code == 302
    assert GameAnalysis.objects.get(game=other).requested_by == ann
    # A failed one does not hold her up either: asked again, it starts afresh, the other still waiting.
    GameAnalysis.objects.filter(game=other).update(status=GameAnalysis.Status.FAILED, error="boom")
    third = finish_with_bot_moves(
        services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]}, seed=9)
    )
    assert services.analysis_request(game_id=third.pk, user=ann).status == "pending"


def test_asking_again_changes_nothing_and_a_failed_or_outdated_analysis_starts_again(finished):
    game, ann, bob = finished
    first = services.analysis_request(game_id=game.pk, user=ann)
    assert services.analysis_request(game_id=game.pk, user=bob).pk == first.pk
    GameAnalysis.objects.filter(pk=first.pk).update(status=GameAnalysis.Status.FAILED, error="boom")
    again = services.analysis_request(game_id=game.pk, user=bob)
    assert again.pk != first.pk and again.status == "pending" and again.requested_by == bob
    GameAnalysis.objects.filter(pk=again.pk).update(version=analysis.VERSION - 1)
    assert services.analysis_tick(max_decisions=5) == 0  # an outdated analysis is not worked on
    page = logged_in(ann).get(_url(game))
    assert page.context["state"] == "stale" and page.context["can_request"]
    assert "older version of the analysis" in page.content.decode()
    newest = services.analysis_request(game_id=game.pk, user=ann)
    assert newest.pk != again.pk and GameAnalysis.objects.count() == 1


def test_analysing_twice_gives_the_same_figures(finished):
    game, _, _ = finished
    first = list(_analyse(game).decisions.order_by("seq").values(*AnalysedDecision.ROW_FIELDS))
    GameAnalysis.objects.all().delete()
    second = list(_analyse(game).decisions.order_by("seq").values(*AnalysedDecision.ROW_FIELDS))
    assert first == second and len(first) == game.moves.count()
    assert any(row["options"] for row in first)


def test_a_worker_leaves_an_analysis_another_one_holds_until_its_lease_runs_out(finished):
    game, ann, _ = finished
    job = services.analysis_request(game_id=game.pk, user=ann)
    now = timezone.now()
    GameAnalysis.objects.filter(pk=job.pk).update(lease_until=now + datetime.timedelta(minutes=1))
    assert services.analysis_step(analysis_id=job.pk, max_decisions=3, now=now) == 0
    assert services.analysis_tick(max_decisions=3, now=now) == 0
    later = now + datetime.timedelta(minutes=2)
    assert services.analysis_step(analysis_id=job.pk, max_decisions=3, now=later) == 3
    # the same decisions written twice (a worker that outlived its lease) are kept once
    services.analysis_step(analysis_id=job.pk, max_decisions=3, now=later)
    assert job.decisions.count() == 6


def test_figures_of_an_analysis_made_again_meanwhile_are_dropped(finished, monkeypatch):
    game, ann, _ = finished
    job = services.analysis_request(game_id=game.pk, user=ann)
    real = analysis.analyse_decision

    def and_meanwhile(*args, **kwargs):  # while the worker computes, the analysis is deleted and asked for anew
        GameAnalysis.objects.filter(pk=job.pk).delete()
        monkeypatch.setattr(analysis, "analyse_decision", real)
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis, "analyse_decision", and_meanwhile)
    assert services.analysis_step(analysis_id=job.pk, max_decisions=3) == 0
    assert not AnalysedDecision.objects.exists() and not GameAnalysis.objects.exists()


def test_a_move_log_the_engine_refuses_fails_the_analysis_once(finished, caplog):
    game, ann, _ = finished
    job = services.analysis_request(game_id=game.pk, user=ann)
    move = game.moves.get(seq=3)
    move.seat = (move.seat + 1) % 3
    move.save()
    assert services.analysis_tick(max_decisions=10) == 0
    job.refresh_from_db()
    assert job.status == "failed" and job.error
    assert services.analysis_tick(max_decisions=10) == 0 and job.decisions.count() == 0


# -- who may ask, who may see -------------------------------------------------


def test_strangers_and_watchers_see_a_finished_public_games_analysis_but_may_not_ask(finished, make_user):
    game, _, _ = finished
    dan = logged_in(make_user("dan"))
    page = dan.get(_url(game))
    assert page.status_code == 200 and "Analyse this game" not in page.content.decode()
    response = dan.post(_url(game, "request/"))
    assert response.status_code == 403 and not GameAnalysis.objects.exists()
    assert "Only the players of this game" in response.content.decode()
    _analyse(game)
    page = dan.get(_url(game))
    assert page.status_code == 200 and page.context["state"] == "done"
    assert page.context["selected"] == "flagged"  # no seat of their own: everyone's flagged turns


def test_a_private_game_s_analysis_is_for_its_players_and_the_invite_holders(make_user, classic):
    game, ann, _ = _game(make_user, classic, is_private=True)
    finish_with_bot_moves(game)
    _analyse(game)
    cid_user = make_user("cid")
    cid = logged_in(cid_user)
    for response in (cid.get(_url(game)), cid.post(_url(game, "request/"))):
        assert response.status_code == 403
        assert "Accuracy" not in response.content.decode()
    assert cid.get(game.invite_path()).status_code == 200
    assert cid.get(_url(game)).status_code == 200
    assert cid.post(_url(game, "request/")).status_code == 403  # holding the link is not playing
    assert logged_in(ann).get(_url(game)).status_code == 200


def test_a_players_only_game_s_analysis_is_for_its_players(make_user, classic):
    game, ann, bob = _game(make_user, classic, spectators_allowed=False)
    finish_with_bot_moves(game)
    assert logged_in(make_user("dan")).get(_url(game)).status_code == 403
    assert logged_in(make_user("eve")).post(_url(game, "request/")).status_code == 403
    assert not GameAnalysis.objects.exists()
    assert logged_in(bob).post(_url(game, "request/")).status_code == 302


def test_signed_out_visitors_neither_see_nor_ask(finished):
    game, _, _ = finished
    assert Client().get(_url(game)).status_code == 302  # to the log-in page
    assert Client().post(_url(game, "request/")).status_code == 403
    assert not GameAnalysis.objects.exists()


def test_a_forged_post_without_the_csrf_token_is_refused(finished):
    game, ann, _ = finished
    client = Client(enforce_csrf_checks=True)
    client.force_login(ann)
    assert client.post(_url(game, "request/")).status_code == 403
    assert not GameAnalysis.objects.exists()
    # The record's own button carries the token: with it the same request is taken.
    record = client.get(f"/games/{game.pk}/record/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', record.split("analysis/request/", 1)[1])
    assert token is not None
    assert client.post(_url(game, "request/"), {"csrfmiddlewaretoken": token.group(1)}).status_code == 302
    assert GameAnalysis.objects.filter(game=game).exists()


def test_no_analysis_of_a_game_in_play_ever(make_user, classic):
    game, ann, _ = _game(make_user, classic)
    assert game.status == Game.Status.ACTIVE
    client = logged_in(ann)
    response = client.get(_url(game))
    assert response.status_code == 409 and "analysed only once it is over" in response.content.decode()
    response = client.post(_url(game, "request/"))
    assert response.status_code == 409 and not GameAnalysis.objects.exists()
    with pytest.raises(services.GameError) as refused:
        services.analysis_request(game_id=game.pk, user=ann)
    assert refused.value.code == "game_not_finished"
    with pytest.raises(services.GameError):
        services.analyse_game(game_id=game.pk)
    # even an analysis row written straight to the table is never worked on while the game is in play
    job = GameAnalysis.objects.create(
        game=game, version=analysis.VERSION, seed="x", samples=4, decisions_total=9, requested_at=timezone.now()
    )
    assert services.analysis_tick(max_decisions=50) == 0
    assert services.analysis_step(analysis_id=job.pk, max_decisions=50) == 0
    assert job.decisions.count() == 0
    assert client.get(f"/games/{game.pk}/record/").status_code == 409


def test_an_aborted_game_has_no_analysis(make_user, classic):
    game, ann, _ = _game(make_user, classic)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ABORTED)
    client = logged_in(ann)
    response = client.post(_url(game, "request/"))
    assert response.status_code == 409 and not GameAnalysis.objects.exists()
    # It says why in the analysis's own words (it said the game had no record and no replay).
    for response in (client.post(_url(game, "request/")), client.get(_url(game, ""))):
        body = response.content.decode()
        assert response.status_code == 409 and "called off before its end: there is nothing to analyse" in body
        assert "no replay" not in body


def test_a_get_on_the_request_address_is_the_button_page_and_asks_nothing(finished):
    game, ann, _ = finished
    response = logged_in(ann).get(_url(game, "request/"))
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert not GameAnalysis.objects.exists()


def test_bad_input_falls_back_to_a_sensible_page(finished):
    game, ann, _ = finished
    _analyse(game)
    client = logged_in(ann)
    for show in ("abc", "99", "-1", "", "1e3", "٣"):
        response = client.get(_url(game), {"show": show})
        assert response.status_code == 200 and response.context["selected"] == 0, show
    assert client.get("/games/999999/analysis/").status_code == 404
    assert client.post("/games/999999/analysis/request/").status_code == 404


# -- the page ----------------------------------------------------------------------


def test_the_page_states_the_thresholds_and_shows_accuracy_chart_and_flagged_turns(finished):
    game, ann, _ = finished
    job = _analyse(game)
    rows = list(job.decisions.order_by("seq").values(*AnalysedDecision.ROW_FIELDS))
    turns = analysis.turns(rows)
    response = logged_in(ann).get(_url(game), {"show": "flagged"})
    assert response.status_code == 200
    html = response.content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "inaccuracy 2 · " in text and "mistake 5 · " in text and "blunder 10" in text
    assert "0% when it costs 10 points or more" in text
    assert '<title id="expected-chart-title">' in html and "<desc" in html
    players = response.context["players"]
    assert [p["name"] for p in players] == [s.name for s in game.seats.order_by("position")]
    for p in players:
        own = [t for t in turns if t.seat == p["position"]]
        assert p["accuracy"] == analysis.accuracy(own)
        assert p["counts"] == [sum(1 for t in own if t.grade == g) for g, _ in analysis.GRADES]
    flagged = [t for t in turns if t.grade]
    shown = response.context["turns"]
    assert [t["turn"] for t in shown] == [t.turn for t in flagged]
    for turn, row in zip(flagged, shown, strict=True):
        worst = max(turn.decisions, key=lambda d: (d["cost"], -d["seq"]))
        assert row["replay_url"] == f"/games/{game.pk}/replay/?step={worst['seq'] - 1}"
        assert f'href="{row["replay_url"]}"' in html
        replay = logged_in(ann).get(row["replay_url"])
        assert replay.status_code == 200 and replay.context["step"] == worst["seq"] - 1
    marks = response.context["chart"]["marks"]
    assert len(marks) == len(flagged) and {m["kind"] for m in marks} == {t.grade for t in flagged}
    assert {m["href"] for m in marks} == {r["replay_url"] for r in shown}
    # A mark names its turn as the list does: the player's own turn of the round.
    by_href = sorted(marks, key=lambda m: m["href"])
    for mark, row in zip(by_href, sorted(shown, key=lambda r: r["replay_url"]), strict=True):
        assert f"{row['name']}, round {row['round']}, turn {row['number']}:" in mark["title"]
    # Links inside an image are hidden from screen readers (axe: nested-interactive): a chart of links is a group.
    svg = re.search(r'<svg class="chart-svg"[^>]*>', html)
    assert marks and svg is not None and 'role="group"' in svg.group(0)
    # Points lost are shown as what they are, positive; a round never lost more than the player scored in it.
    assert "−" not in html.split('id="turns"')[1] and 'class="running">−' not in html
    scored = {(r.seat, r.round_number): r.points for r in RoundResult.objects.filter(game=game)}
    for row in response.context["round_rows"]:
        for position, cell in enumerate(row["cells"]):
            assert 0 <= cell["lost"] <= scored[(position, row["round"])]
    assert any(cell["lost"] for row in response.context["round_rows"] for cell in row["cells"])
    # A flagged turn says why: the hand at its costliest choice, and what the choice made and the better one leave.
    explained = 0
    for turn, row in zip(flagged, shown, strict=True):
        worst = max(turn.decisions, key=lambda d: (d["cost"], -d["seq"]))
        why = row["why"]
        hand = Counter(face["code"] for face in why["hand"])
        assert sum(hand.values()) in (row["round"] + 2, row["round"] + 3)  # before a draw, or after it
        (_, chosen), (_, better) = why["pairs"]
        if worst["chosen"]["type"] in ("discard", "go_out"):
            assert sum(hand.values()) == row["round"] + 3  # 3 cards dealt in round 1: one drawn, one to throw
            left = Counter(f["code"] for meld in chosen["melds"] for f in meld) + Counter(
                f["code"] for f in chosen["deadwood"]
            )
            assert left == hand - Counter([worst["chosen"]["card"]])
            assert better is not None and better["points"] >= 0
            explained += 1
    assert explained
    assert "The better choice leaves:" in html and "In hand:" in html


def _no_walk(monkeypatch: Any) -> list[int]:
    """Counts every replay of a game: each needs the game's shuffle, from whatever module it walks the log."""
    walks: list[int] = []
    real = Game.engine_shuffle

    def counted(self: Game, *args: Any, **kwargs: Any) -> Any:
        walks.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Game, "engine_shuffle", counted)
    return walks


def _flagged_seqs(job: GameAnalysis) -> set[str]:
    turns = analysis.turns(job.decisions.order_by("seq").values(*AnalysedDecision.ROW_FIELDS))
    return {str(analysis.worst_decision(t)["seq"]) for t in turns if t.grade}


def test_why_a_turn_was_flagged_is_worked_out_with_the_analysis_not_on_each_view(finished, monkeypatch):
    game, ann, _ = finished
    job = _analyse(game)
    stored = GameAnalysis.objects.get(pk=job.pk).explanations
    # One explanation for each flagged turn, at its costliest decision, in codes (the same in every language).
    assert stored["version"] == analysis.EXPLAIN_VERSION
    assert stored["turns"] and set(stored["turns"]) == _flagged_seqs(job)
    walks = _no_walk(monkeypatch)
    for language, label in (("en", "The choice made leaves:"), ("cs", "Zvolená možnost zanechá:")):
        response = logged_in(ann).get(_url(game), {"show": "flagged"}, HTTP_ACCEPT_LANGUAGE=language)
        assert response.status_code == 200 and label in response.content.decode()  # put into the reader's words
        assert all(row["why"] for row in response.context["turns"])
    assert walks == []  # the page read them, it did not replay the game


@pytest.mark.parametrize(
    "stale",
    [None, {"version": 0, "turns": {}}, "a flagged turn without one"],
    ids=["none-stored", "another-version", "a-turn-missing"],
)
def test_why_lines_stored_before_or_by_another_version_are_worked_out_again_once(finished, monkeypatch, stale):
    game, ann, _ = finished
    job = _analyse(game)
    stored = GameAnalysis.objects.get(pk=job.pk).explanations
    if stale == "a flagged turn without one":  # e.g. the grades' thresholds changed since they were stored
        stale = {**stored, "turns": dict(list(stored["turns"].items())[1:])}
    GameAnalysis.objects.filter(pk=job.pk).update(explanations=stale)
    walks = _no_walk(monkeypatch)
    first = logged_in(ann).get(_url(game), {"show": "flagged"})
    assert walks == [1] and GameAnalysis.objects.get(pk=job.pk).explanations == stored
    again = logged_in(ann).get(_url(game), {"show": "flagged"})
    assert walks == [1]
    assert [row["why"] for row in again.context["turns"]] == [row["why"] for row in first.context["turns"]]


def test_why_lines_that_cannot_be_worked_out_leave_the_analysis_and_the_page_standing(finished, monkeypatch, caplog):
    game, ann, _ = finished
    module = importlib.import_module("games.analysis.explain")  # the module: the package's ``explain`` is the function

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("a log the explanation cannot read")

    monkeypatch.setattr(module, "decisions", broken)
    job = _analyse(game)  # the worker's pass goes on to the end
    assert job.is_done and job.explanations is None and "could not be worked out" in caplog.text
    response = logged_in(ann).get(_url(game), {"show": "flagged"})
    assert response.status_code == 200 and response.context["turns"]
    assert all(row["why"] is None for row in response.context["turns"])


def test_the_replay_says_what_the_analysis_found_of_the_move_to_come(finished):
    game, ann, bob = finished
    replay = f"/games/{game.pk}/replay/"
    assert "replay-analysis" not in logged_in(bob).get(replay, {"step": 0}).content.decode()  # none asked for yet
    job = _analyse(game)
    turns = analysis.turns(job.decisions.order_by("seq").values(*AnalysedDecision.ROW_FIELDS))
    flagged = next(t for t in turns if t.grade)
    worst = analysis.worst_decision(flagged)
    # The analysis page's link of a flagged turn opens the position before its costliest choice ...
    response = logged_in(bob).get(replay, {"step": int(worst["seq"]) - 1})
    panel = response.context["analysed"]
    assert panel["name"] == "ann" and panel["cost"] == worst["cost"] and panel["best"] is not None
    html = response.content.decode()
    # ... where, folded until asked, the choice made, the better one and the points it lost are said.
    assert '<details class="panel replay-analysis">' in html and "ann plays:" in html
    assert f"<strong>{float(worst['cost']):.1f}</strong>" in html and f'href="/games/{game.pk}/analysis/"' in html
    # A choice that was the best found says so.
    best_seq = next(d["seq"] for t in turns for d in t.decisions if d["best"] == d["chosen"] and not d["forced"])
    assert logged_in(bob).get(replay, {"step": int(best_seq) - 1}).context["analysed"]["is_best"]
    # A choice another beat by no more than the estimates' noise says so (it lost nothing surely).
    rows = [d for t in turns for d in t.decisions]
    close = [d for d in rows if d["best"] != d["chosen"] and float(d["cost"]) <= 0]
    assert close  # the game's seed makes some
    near = logged_in(bob).get(replay, {"step": int(close[0]["seq"]) - 1})
    assert near.context["analysed"]["within_noise"] and "within the estimates' noise" in near.content.decode()
    # After the last move there is no move to come; an analysis of another version says nothing.
    assert logged_in(bob).get(replay).context["analysed"] is None
    GameAnalysis.objects.filter(pk=job.pk).update(version=analysis.VERSION - 1)
    assert logged_in(bob).get(replay, {"step": int(worst["seq"]) - 1}).context["analysed"] is None


def test_the_chart_follows_each_player_from_their_own_expectations_to_the_final_totals(finished):
    game, ann, _ = finished
    job = _analyse(game)
    rows = list(job.decisions.order_by("seq").values(*AnalysedDecision.ROW_FIELDS))
    turns = analysis.turns(rows)
    chart = logged_in(ann).get(_url(game)).context["chart"]
    seats = list(game.seats.order_by("position"))
    assert [line["name"] for line in chart["lines"]] == [s.name for s in seats]
    assert [line["last"]["value"] for line in chart["lines"]] == [str(s.total_score) for s in seats]
    assert len(chart["rows"]) == len(turns) + 1
    for index, turn in enumerate(turns):
        if turn.expected_total is not None:
            value = chart["rows"][index]["values"][turn.seat]
            assert float(value) == pytest.approx(turn.expected_total, abs=0.051)
    assert [t["label"] for t in chart["x_ticks"]][:2] == ["1", "2"]


def test_a_players_own_turns_show_by_default_with_chosen_and_best(finished):
    game, _, bob = finished
    timed_out = game.moves.filter(seat=1).order_by("seq")[2]  # as if the clock's bot had played it
    game.moves.filter(pk=timed_out.pk).update(by_bot=True)
    _analyse(game)
    response = logged_in(bob).get(_url(game))
    assert response.context["selected"] == 1
    shown = response.context["turns"]
    assert shown and all(t["seat"] == 1 for t in shown)
    assert [t["by_bot"] for t in shown].count(True) == 1
    assert "The bot played this turn for the player" in response.content.decode()
    bot_turns = logged_in(bob).get(_url(game), {"show": "2"}).context["turns"]
    assert bot_turns and not any(t["by_bot"] for t in bot_turns)  # a bot's own seat is not "played by the bot"
    for turn in shown:
        draw = turn["decisions"][0]
        assert draw["chosen"]["kind"] in ("stock", "take")
        assert turn["decisions"][1]["chosen"]["kind"] in ("discard", "go_out")


@pytest.mark.parametrize("show", ["²", "٣", "9" * 5000, "-1", "99", "1.0", ""])
def test_a_seat_that_is_not_a_small_ascii_number_shows_the_readers_own_turns(finished, show):
    game, _, bob = finished
    _analyse(game)
    response = logged_in(bob).get(_url(game), {"show": show})
    assert response.status_code == 200 and response.context["selected"] == 1


def test_the_record_shows_the_button_then_the_progress_then_the_accuracies(finished, make_user):
    game, ann, _ = finished
    record = f"/games/{game.pk}/record/"
    html = logged_in(ann).get(record).content.decode()
    assert f'action="{_url(game, "request/")}"' in html
    assert f'action="{_url(game, "request/")}"' not in logged_in(make_user("dan")).get(record).content.decode()
    services.analysis_request(game_id=game.pk, user=ann)
    services.analysis_tick(max_decisions=4)
    response = logged_in(ann).get(record)
    assert response.context["analysis"]["state"] == "running"
    assert 'class="analysis-progress"' in response.content.decode()
    while services.analysis_tick(max_decisions=50):
        pass
    response = logged_in(ann).get(record)
    panel = response.context["analysis"]
    assert panel["state"] == "done" and [p["name"] for p in panel["players"]] == [
        s.name for s in game.seats.order_by("position")
    ]
    assert f'href="{_url(game)}"' in response.content.decode()


def test_the_turns_a_bot_played_for_a_person_who_left_are_not_in_their_verdict(make_user, classic):
    # Found by a tester: Bob resigned before his first move, and the page and the record gave him the
    # hard bot's 100.0 % over 20 turns with a choice, as if he had played them.
    game, ann, bob = _game(make_user, classic)
    services.game_resign(game_id=game.pk, user=bob)  # every turn of his seat is the bot's
    game = finish_with_bot_moves(game, careless=ann)
    job = _analyse(game)
    assert job.summary[1] == {"accuracy": None, "lost": 0, "turns": 0, "counts": [0, 0, 0]}
    assert job.summary[0]["turns"] > 0 and job.summary[2]["turns"] > 0  # Ann's own, and the bot's own seat's
    response = logged_in(ann).get(_url(game))
    players = response.context["players"]
    assert [p["turns"] for p in players] == [v["turns"] for v in job.summary] and players[1]["accuracy"] is None
    bobs = [row["cells"][1] for row in response.context["round_rows"]]
    assert all(cell["accuracy"] is None and not cell["lost"] for cell in bobs)
    assert 'class="pill warn">resigned<' in response.content.decode()
    # his seat's turns are still listed, each marked as the bot's
    shown = logged_in(ann).get(_url(game), {"show": 1}).context["turns"]
    assert shown and all(t["by_bot"] for t in shown)
    # and the replay's analysis of a move the bot played for him says it was the bot's
    step = shown[0]["worst_seq"] - 1
    page = logged_in(ann).get(f"/games/{game.pk}/replay/", {"step": step}).content.decode()
    panel = page.split('class="panel replay-analysis"')[1].split("</details>")[0]
    assert re.search(r"bob plays:.*?bot move", panel, re.S)


def test_an_analysis_waiting_behind_others_says_so_rather_than_analysing_at_0_percent(finished, make_user, classic):
    # Found by a tester: an analysis asked for behind another one said "Analysing the game… 0% done" (the
    # record: "Analysing: 0% done") for as long as the worker spent on the one before it.
    game, ann, _ = finished
    carl, dora = make_user("carl"), make_user("dora")
    other = services.game_create(
        creator=carl, variant=classic, seat_count=2, invitees=[dora], options={"rounds": [3]}, seed=5
    )
    other = finish_with_bot_moves(other)
    services.analysis_request(game_id=game.pk, user=ann)
    services.analysis_request(game_id=other.pk, user=carl)
    for url in (_url(other), f"/games/{other.pk}/record/"):
        body = logged_in(carl).get(url).content.decode()
        assert "1 analysis asked for earlier starts before this one." in body and "Analysing" not in body, url
    body = logged_in(ann).get(_url(game)).content.decode()
    assert "It is next in line." in body and "Analysing the game" not in body
    services.analysis_tick(max_decisions=1)  # the first one is started: the second is taken next (in turn)
    assert "Analysing the game" in logged_in(ann).get(_url(game)).content.decode()
    body = logged_in(carl).get(_url(other)).content.decode()
    assert "It is next in line." in body and "Analysing the game" not in body
    services.analysis_tick(max_decisions=1)
    assert "Analysing the game" in logged_in(carl).get(_url(other)).content.decode()


def test_the_worker_takes_the_analyses_in_turn_so_a_long_one_holds_up_no_other(finished, make_user, classic):
    """The worker took the oldest analysis until it was done: one of an 8-player game of three decks (about
    2 hours of the worker, helper x1) held every analysis asked after it for as long. Now those started take
    turns, each pass going to the one left longest: a short analysis asked later is done long before."""
    long_game, ann, _ = finished  # two rounds, three seats
    carl, dora = make_user("carl"), make_user("dora")
    short_game = services.game_create(
        creator=carl, variant=classic, seat_count=2, invitees=[dora], options={"rounds": [3]}, seed=5
    )
    short_game = finish_with_bot_moves(short_game)
    long_job = services.analysis_request(game_id=long_game.pk, user=ann)
    services.analysis_tick(max_decisions=1)  # the long one is under way when the short one is asked for
    short_job = services.analysis_request(game_id=short_game.pk, user=carl)

    passes = 0
    while True:
        short_job.refresh_from_db()
        if short_job.status == GameAnalysis.Status.DONE:
            break
        services.analysis_tick(max_decisions=2)
        passes += 1
    long_job.refresh_from_db()
    assert long_job.status == GameAnalysis.Status.RUNNING and long_job.decisions_done < long_job.decisions_total
    # the two shared the passes: about half each, the short one taking the first of them
    assert long_job.decisions_done - 1 in range(short_job.decisions_total - 2, short_job.decisions_total + 1)
    assert passes == 2 * ((short_job.decisions_total + 1) // 2) - 1


# -- the background workers --------------------------------------------------------


def test_the_in_server_analysis_pass_works_on_the_analyses_within_its_seconds(finished, monkeypatch):
    game, ann, _ = finished
    monkeypatch.setattr(clock, "close_old_connections", lambda: None)  # the test's transaction stays open
    services.analysis_request(game_id=game.pk, user=ann)
    assert clock.one_pass() is not None  # the clock's own pass analyses nothing: that runs beside it
    assert GameAnalysis.objects.get(game=game).decisions_done == 0
    analysed = clock.analysis_pass(0.001)  # at least one decision a pass, whatever the time
    assert analysed >= 1
    assert GameAnalysis.objects.get(game=game).decisions_done == analysed


def test_gameclock_and_analyse_commands(finished):
    game, ann, _ = finished
    services.analysis_request(game_id=game.pk, user=ann)
    out = io.StringIO()
    call_command("gameclock", "--once", "--analysis-seconds", "0.001", stdout=out)
    assert "decision(s) of finished games analysed" in out.getvalue()
    assert GameAnalysis.objects.get(game=game).decisions_done >= 1
    out = io.StringIO()
    call_command("analyse", "--waiting", stdout=out)
    assert f"game {game.pk}: analysis done, {game.moves.count()} decisions" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_two_requests_of_one_person_for_two_games_at_once_leave_one_analysis_waiting(make_user, classic):
    """The limit is judged under a lock on the person's row: racing, both would find nothing waiting."""
    ann = make_user("ann")
    games = [
        finish_with_bot_moves(
            services.game_create(
                creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]}, seed=seed
            )
        )
        for seed in (8, 9)
    ]
    outcomes = race(
        [lambda game=game: services.analysis_request(game_id=game.pk, user=ann).status for game in games], lock=ann
    )
    assert sorted(outcomes) == ["analysis_waiting", "pending"]
    assert GameAnalysis.objects.filter(requested_by=ann).count() == 1


def test_a_redemption_last_turn_is_explained_as_it_is_scored_after_laying_off():
    """Found by a tester: under a flagged last turn of a redemption game, "The choice made leaves" and "The
    better choice leaves" were the hand scored alone, so keeping the King that the Kings on the table take
    read 19 points against 18 for throwing it, the better choice looking worse."""
    rules = Rules(rounds=(3,), redemption=True)
    hand = parse_cards("KS 9D 2C 7D")
    table = [Meld(MeldKind.SET, parse_cards("KC KD KH"))]
    kept = leaves(hand, {"type": "discard", "card": "9D"}, None, rules, 3, table)
    thrown = leaves(hand, {"type": "discard", "card": "KS"}, None, rules, 3, table)
    assert kept is not None and thrown is not None
    assert kept["points"] == 9 and kept["laid_off"] == ["KS"]
    assert thrown["points"] == 18 and thrown["laid_off"] == []
    # Outside a redemption last turn the hand is scored alone, as before.
    alone = leaves(hand, {"type": "discard", "card": "9D"}, None, rules, 3)
    assert alone is not None and alone["points"] == 19 and alone["laid_off"] == []


STOPPED = "The analysis worker is not running right now"


def test_a_waiting_analysis_says_when_the_worker_is_stopped_and_not_while_it_runs(finished, monkeypatch):
    """Found by a tester: a stopped worker showed "It is next in line" (or a frozen percentage) for as long as
    it stayed down. A separate clock worker (``GAMECLOCK_IN_SERVER=0``) that recorded no pass lately is
    stopped; one that just passed is not, and neither is the clock of the serving process itself."""
    from django.core.cache import cache

    from games.live import heartbeat

    game, ann, _ = finished
    services.analysis_request(game_id=game.pk, user=ann)
    monkeypatch.setenv("GAMECLOCK_IN_SERVER", "0")
    cache.delete(heartbeat.KEY)
    for page in (_url(game), f"/games/{game.pk}/record/"):
        assert STOPPED in logged_in(ann).get(page).content.decode(), page
    heartbeat.beat()
    for page in (_url(game), f"/games/{game.pk}/record/"):
        assert STOPPED not in logged_in(ann).get(page).content.decode(), page
    cache.delete(heartbeat.KEY)
    monkeypatch.setenv("GAMECLOCK_IN_SERVER", "1")  # the serving process runs the clock: it is running
    assert STOPPED not in logged_in(ann).get(_url(game)).content.decode()
    # Done, nothing waits: nothing to say of the worker.
    monkeypatch.setenv("GAMECLOCK_IN_SERVER", "0")
    _analyse(game)
    assert STOPPED not in logged_in(ann).get(_url(game)).content.decode()
