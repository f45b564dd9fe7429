"""A finished game's record and its replay agree with the engine's replay of the move log."""

from __future__ import annotations

import re

import pytest

from games import history, services
from games.engine import Rules, action_from_dict, replay
from games.models import Game
from tests.web.conftest import logged_in

from .conftest import finish_with_bot_moves

pytestmark = pytest.mark.django_db

HAND_BLOCK = re.compile(r'<li class="replay-hand[^"]*">(.*?)</li>', re.S)
CARD = re.compile(r'data-card="([A2-9TJQKX][CDHSX])"')


def _engine_replay(game: Game, upto: int | None = None):
    moves = list(game.moves.order_by("seq"))[:upto]
    return replay(
        Rules.from_dict(game.rules),
        game.seat_count,
        game.engine_shuffle(),
        [(m.seat, action_from_dict(m.action)) for m in moves],
    )


@pytest.fixture
def finished(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=4,
        bot_count=2,
        invitees=[bob],
        options={"rounds": [3, 4, 5, 6]},
        seed=21,
    )
    return finish_with_bot_moves(game), ann, bob


def test_finished_game_record_matches_the_engine_replay(finished):
    game, ann, _ = finished
    state = _engine_replay(game)
    assert state.is_over
    record = history.game_record(game=game)
    assert len(record["rounds"]) == len(state.results) == 4
    for row, result in zip(record["rounds"], state.results, strict=True):
        assert row["summary"]["hand_size"] == result.hand_size
        assert [c["points"] for c in row["cells"]] == list(result.points)
        assert [c["first"] for c in row["cells"]] == [p == result.went_out for p in range(4)]
        assert [c["went_out"] for c in row["cells"]] == [s.went_out for s in result.seats]
        for summary, seat in zip(row["summary"]["rows"], result.seats, strict=True):
            assert [[f["code"] for f in m["cards"]] for m in summary["melds"]] == [m.codes for m in seat.melds]
            assert [m["kind"] for m in summary["melds"]] == [m.kind for m in seat.melds]
            assert [f["code"] for f in summary["deadwood"]] == [c.code for c in seat.deadwood]
    # running totals end at the engine's scores; standings follow them
    assert [line.get("last")["value"] for line in record["chart"]["lines"]] == [str(s) for s in state.scores]
    assert sorted(r["score"] for r in record["standings"]) == sorted(state.scores)
    winners = {record["seats"][p].name for p in state.winners}
    assert {r["name"] for r in record["standings"] if r["winner"]} == winners

    page = logged_in(ann).get(f"/games/{game.pk}/record/")
    assert page.status_code == 200
    html = page.content.decode()
    last = state.results[-1]
    for seat in last.seats:  # the final arrangement of every hand is shown as cards
        for card in seat.deadwood:
            assert f'data-card="{card.code}"' in html
    assert "<svg" in html and '<title id="totals-chart-title">' in html and "<desc" in html


def test_every_replay_step_shows_the_engine_state_with_every_hand(finished):
    game, ann, _ = finished
    client = logged_in(ann)
    total = game.moves.count()
    for step in (0, 1, 7, total // 2, total - 1):
        state = _engine_replay(game, step)
        response = client.get(f"/games/{game.pk}/replay/?step={step}")
        assert response.status_code == 200
        blocks = HAND_BLOCK.findall(response.content.decode())
        assert len(blocks) == 4
        for position, block in enumerate(blocks):
            assert sorted(CARD.findall(block)) == sorted(c.code for c in state.hands[position]), (step, position)
        assert f"Move {step} of {total}" in response.content.decode()


def test_replay_steps_are_links_that_work_without_javascript(finished):
    game, ann, _ = finished
    client = logged_in(ann)
    html = client.get(f"/games/{game.pk}/replay/?step=3").content.decode()
    assert 'href="?step=2"' in html and 'href="?step=4"' in html and 'href="?step=0"' in html
    # a round-jump link per round, each to the move that opens it
    starts = history.game_replay(game=game, step=0)["round_starts"]
    assert [s["round"] for s in starts] == [1, 2, 3, 4]
    for start in starts:
        assert f'href="?step={start["step"]}"' in html


def test_a_malformed_step_opens_the_first_deal_and_one_out_of_range_the_nearest(finished):
    game, ann, _ = finished
    client, total = logged_in(ann), game.moves.count()
    for step, shown in (("abc", 0), ("1.5", 0), ("", 0), ("1e3", 0), ("-5", 0), ("999999", total), ("3", 3)):
        response = client.get(f"/games/{game.pk}/replay/", {"step": step})
        assert response.status_code == 200
        assert response.context["step"] == shown
    assert client.get(f"/games/{game.pk}/replay/").context["step"] == total  # no step: the end


def test_the_replay_and_record_of_an_unfinished_game_are_refused(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=3)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    bob_hand = game.state["hands"][1]
    for url in (f"/games/{game.pk}/replay/", f"/games/{game.pk}/replay/?step=0", f"/games/{game.pk}/record/"):
        response = logged_in(ann).get(url)
        assert response.status_code == 409
        html = response.content.decode()
        assert "over" in html
        assert not any(f'data-card="{code}"' in html for code in bob_hand)
    with pytest.raises(history.ReplayRefused):
        history.game_replay(game=game, step=0)


def test_replay_of_unknown_game_is_404_and_needs_a_login(finished):
    game, *_ = finished
    from django.test import Client

    assert logged_in(finished[1]).get("/games/999999/replay/").status_code == 404
    response = Client().get(f"/games/{game.pk}/replay/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_an_aborted_game_has_no_record_and_says_why(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=3)
    services.game_leave(game_id=game.pk, user=ann)
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    for url in (f"/games/{game.pk}/record/", f"/games/{game.pk}/replay/"):
        response = logged_in(ann).get(url)
        assert response.status_code == 409 and "called off" in response.content.decode()


def test_a_players_only_game_is_looked_back_on_by_its_players_only(make_user, classic):
    ann, bob, cleo = make_user("ann"), make_user("bob"), make_user("cleo")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        invitees=[bob],
        options={"rounds": [3]},
        seed=4,
        spectators_allowed=False,
    )
    finish_with_bot_moves(game)
    for url in (f"/games/{game.pk}/record/", f"/games/{game.pk}/replay/?step=1"):
        assert logged_in(bob).get(url).status_code == 200
        response = logged_in(cleo).get(url)
        assert response.status_code == 403 and "Only the players" in response.content.decode()
    assert f"/games/{game.pk}/record/" in logged_in(bob).get("/players/ann/games/").content.decode()
    hidden = logged_in(cleo).get("/players/ann/games/")
    assert f"/games/{game.pk}/record/" not in hidden.content.decode()
    assert hidden.context["filters"]["opponents"] == []
