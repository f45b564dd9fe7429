"""One rule for places everywhere: lowest total wins, ties share, and people who
left (resigned or timed out) rank below everyone who stayed."""

from __future__ import annotations

from games import history
from games.history.ratings import places
from games.models import GameResult
from tests.web.conftest import logged_in

from .conftest import make_finished_game


def test_places_put_who_left_last_and_share_ties():
    assert places([30, 10, 20]) == [3, 1, 2]
    assert places([10, 10, 20]) == [1, 1, 3]
    assert places([9, 12, 15], [True, False, False]) == [3, 1, 2]  # the leader resigned
    assert places([9, 12, 15], [True, False, True]) == [2, 1, 3]


def test_a_leader_who_resigned_ranks_last_in_record_history_stats_and_rating(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = make_finished_game([ann, bob], [9, 12], left=[0])

    by_seat = {r.position: r for r in GameResult.objects.filter(game=game)}
    assert (by_seat[0].place, by_seat[1].place) == (2, 1)
    assert by_seat[0].rating_after < by_seat[1].rating_after

    record = history.game_record(game=game)
    assert [(row["name"], row["place"], row["winner"]) for row in record["standings"]] == [
        ("bob", 1, True),
        ("ann", 2, False),
    ]
    assert history.player_stats(user=ann)["won"] == 0
    assert history.player_stats(user=bob)["won"] == 1
    rows = history.history_rows(list(history.history_of(user=ann, viewer=ann)))
    assert [(row["place"], row["won"]) for row in rows] == [(2, False)]
    page = logged_in(ann).get(f"/games/{game.pk}/record/")
    assert page.status_code == 200
