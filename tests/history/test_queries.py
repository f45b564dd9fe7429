"""Each looking-back page runs a bounded number of queries, the same for few and for many games."""

from __future__ import annotations

import pytest

from games import services
from tests.web.conftest import logged_in

from .conftest import finish_with_bot_moves, make_finished_game

pytestmark = pytest.mark.django_db

#: Upper bounds of queries per page (session, user and the header's turn count included).
HISTORY_QUERIES = 10
STATS_QUERIES = 12
LEADERBOARD_QUERIES = 7
RECORD_QUERIES = 10  # 7, the table talk (the seats: who is a player; the messages) and the analysis
REPLAY_QUERIES = 7  # 6, and what the analysis says of the move to come


@pytest.fixture(params=[2, 30], ids=["few-games", "many-games"])
def played(request, make_user):
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    rounds = [(3 + r, [r, 2 * r, 3 * r], 0) for r in range(6)]
    for i in range(request.param):
        make_finished_game(
            [ann, bob, cat] if i % 2 else [cat, "easy", ann],
            [10 + i, 20, 30],
            number=i,
            rounds=rounds,
            variant_name="Classic" if i % 3 else "Jokers",
        )
    for extra in range(6):  # more players on the leaderboard
        user = make_user(f"p{extra}")
        for i in range(5 if request.param > 2 else 0):
            make_finished_game([user, "hard"], [i, 10], number=100 + i)
    return ann, request.param


def test_history_page_queries_do_not_grow(played, django_assert_max_num_queries):
    ann, count = played
    client = logged_in(ann)
    client.get("/players/ann/games/")  # warm the session
    with django_assert_max_num_queries(HISTORY_QUERIES):
        response = client.get("/players/ann/games/", {"variant": "Classic", "opponent": "bob"})
    assert response.status_code == 200
    with django_assert_max_num_queries(HISTORY_QUERIES):
        response = client.get("/players/ann/games/")
    assert len(response.context["rows"]) == min(count, 20)


def test_stats_page_queries_do_not_grow(played, django_assert_max_num_queries):
    ann, count = played
    client = logged_in(ann)
    with django_assert_max_num_queries(STATS_QUERIES):
        response = client.get("/players/ann/")
    assert response.status_code == 200 and response.context["played"] == count


def test_leaderboard_queries_do_not_grow(played, django_assert_max_num_queries):
    ann, count = played
    client = logged_in(ann)
    with django_assert_max_num_queries(LEADERBOARD_QUERIES):
        response = client.get("/leaderboard/")
    assert response.status_code == 200
    assert len([r for r in response.context["rows"] if not r["bot"]]) == (9 if count > 2 else 0)


@pytest.mark.parametrize("rounds,seats", [([3, 4], 2), ([3, 4, 5, 6, 7, 8], 4)], ids=["short-game", "long-game"])
def test_record_and_replay_queries_do_not_grow_with_rounds_or_moves(
    make_user, classic, rounds, seats, django_assert_max_num_queries
):
    ann = make_user("ann")
    game = finish_with_bot_moves(
        services.game_create(
            creator=ann, variant=classic, seat_count=seats, bot_count=seats - 1, options={"rounds": rounds}, seed=5
        )
    )
    client = logged_in(ann)
    with django_assert_max_num_queries(RECORD_QUERIES):
        assert client.get(f"/games/{game.pk}/record/").status_code == 200
    for step in (0, 5, game.moves.count()):
        with django_assert_max_num_queries(REPLAY_QUERIES):
            assert client.get(f"/games/{game.pk}/replay/", {"step": step}).status_code == 200
