"""Profile stats agree with a fixture whose numbers are worked out by hand."""

from __future__ import annotations

import pytest
from django.utils import translation

from games import history
from games.models import Game, GameResult, Rating
from tests.web.conftest import logged_in

from .conftest import add_moves, make_finished_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(make_user):
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    # rounds: (hand size, points per seat, seat that went out first)
    make_finished_game([ann, bob], [10, 20], number=1, rounds=[(3, [0, 12], 0), (4, [10, 8], 1)])
    make_finished_game([ann, bob, "easy"], [15, 15, 30], number=2, rounds=[(3, [5, 0, 10], 1), (4, [10, 15, 20], None)])
    make_finished_game([bob, cat, ann], [5, 40, 41], number=3, rounds=[(3, [0, 20, 21], 0), (5, [5, 20, 20], None)])
    make_finished_game([cat, ann], [8, 8], number=4, rounds=[(3, [0, 3], 0), (4, [8, 5], None)])
    aborted = make_finished_game([ann, cat], [0, 90], number=5, rounds=[(3, [0, 90], 0)], rate=False)
    Game.objects.filter(pk=aborted.pk).update(status=Game.Status.ABORTED)
    return ann, bob, cat


def test_stats_agree_with_the_hand_computed_fixture(players):
    ann, _, _ = players
    stats = history.player_stats(user=ann)
    # Ann: 1st of 2 (10), shared 1st of 3 (15), 3rd of 3 (41), shared 1st of 2 (8); the aborted game never counts
    assert (stats["played"], stats["won"], stats["shared"]) == (4, 3, 2)
    assert stats["win_rate"] == pytest.approx(75.0)
    assert stats["average_total"] == pytest.approx((10 + 15 + 41 + 8) / 4)
    # her rounds: 3 cards: 0, 5, 21, 3; 4 cards: 10, 10, 5; 5 cards: 20; out first once (game 1, round 1)
    assert stats["rounds"] == 8
    assert stats["went_out_first"] == 1
    assert stats["went_out_first_rate"] == pytest.approx(12.5)
    assert stats["average_points"] == pytest.approx(74 / 8)
    by_size = {row["hand_size"]: (row["rounds"], row["average"], row["first"]) for row in stats["by_size"]}
    assert by_size == {3: (4, pytest.approx(29 / 4), 1), 4: (3, pytest.approx(25 / 3), 0), 5: (1, 20.0, 0)}
    assert (stats["best"].game.seed, stats["best"].total_score, stats["best"].place) == (4, 8, 1)
    assert (stats["worst"].game.seed, stats["worst"].total_score, stats["worst"].place) == (3, 41, 3)
    assert stats["best"].seat_count == 2 and stats["worst"].seat_count == 3
    assert stats["rating"] == Rating.objects.get(user=ann) and stats["rated_games"] == 4
    assert [b["rating"].bot_level for b in stats["bot_ratings"]] == ["easy"]


def test_rounds_a_bot_played_after_the_person_left_are_not_theirs(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    # Ann left game 1 in round 3 (lowest total, yet last: she left); she lost game 2 and stayed
    rounds = [(3, [0, 10], 0), (4, [5, 10], 1), (5, [0, 5], 0), (6, [2, 5], 0)]
    left = make_finished_game([ann, bob], [7, 30], number=1, left=[0], rounds=rounds)
    add_moves(
        left,
        [
            (0, 1, False), (1, 1, False),
            (0, 2, True), (0, 2, False), (1, 2, False),  # the bot covered a turn that ran out; she played on
            (0, 3, False), (0, 3, True), (1, 3, False),  # she left during round 3: the bot finished it
            (0, 4, True), (1, 4, False),
        ],
    )  # fmt: skip
    stayed = make_finished_game([ann, bob], [20, 10], number=2, rounds=[(3, [20, 10], 1)])

    stats = history.player_stats(user=ann)
    assert (stats["played"], stats["won"]) == (2, 0)
    assert (stats["rounds"], stats["went_out_first"]) == (3, 1)  # rounds 1 and 2 of game 1, and game 2's
    assert stats["average_points"] == pytest.approx((0 + 5 + 20) / 3)
    by_size = {row["hand_size"]: (row["rounds"], row["average"], row["first"]) for row in stats["by_size"]}
    assert by_size == {3: (2, pytest.approx(10.0), 1), 4: (1, 5.0, 0)}
    assert stats["best"].game == stayed  # not game 1, with its lower total: she left it
    assert history.player_stats(user=bob)["rounds"] == 5  # Bob stayed: all his rounds count


def test_another_players_stats_are_their_own(players):
    _, bob, cat = players
    bob_stats = history.player_stats(user=bob)
    # Bob: 2nd of 2 (20), shared 1st of 3 (15), 1st of 3 (5)
    assert (bob_stats["played"], bob_stats["won"], bob_stats["shared"]) == (3, 2, 1)
    assert bob_stats["went_out_first"] == 3 and bob_stats["rounds"] == 6
    cat_stats = history.player_stats(user=cat)
    assert (cat_stats["played"], cat_stats["won"], cat_stats["shared"]) == (2, 1, 1)


def test_stats_page_shows_the_numbers_and_the_charts(players):
    ann, _, _ = players
    html = logged_in(ann).get("/players/ann/").content.decode()
    assert "75%" in html
    assert 'id="size-chart-title"' in html and 'id="rating-chart-title"' in html
    assert 'role="img"' in html and "<desc" in html
    assert html.count('class="bar"') == 3


def test_a_newcomer_has_empty_stats_not_an_error(make_user):
    dan = make_user("dan")
    stats = history.player_stats(user=dan)
    assert stats["played"] == 0 and stats["win_rate"] is None and stats["best"] is None
    assert logged_in(dan).get("/players/dan/").status_code == 200


def test_stats_of_an_unknown_player_is_404(make_user):
    assert logged_in(make_user("dan")).get("/players/nobody-here/").status_code == 404


@pytest.mark.parametrize(
    "language, written",
    # Croatian and Czech set the sign apart from the number (a no-break space, as their own catalogs' "100 %"
    # does); Afrikaans and English do not.
    [("en", "75%"), ("hr", "75\xa0%"), ("cs", "75\xa0%"), ("af", "75%")],
)
def test_the_stats_page_writes_a_percentage_as_the_readers_language_does(players, language, written):
    ann, _, _ = players
    client = logged_in(ann)
    client.cookies["django_language"] = language
    html = client.get("/players/ann/").content.decode()
    assert written in html
    if written != "75%":
        assert "75%" not in html


def test_the_rating_chart_writes_each_rating_as_the_page_does(players):
    # Found by a tester: the medium bot's rating was 0.151; the page said "0.2" under the chart, whose
    # legend and table said 0.1 (rounded to 0.15 first, then to one decimal: 0.15 is a little below it).
    ann, _, _ = players
    Rating.objects.filter(user__isnull=True).update(ordinal=0.1512518)
    GameResult.objects.filter(user=ann).update(rating_after=2.2512)  # 2.25, then 2.2 (to the even digit)
    with translation.override("en"):
        chart = history.player_stats(user=ann)["rating_chart"]
    assert chart["rows"][-1]["values"] == ["2.3", "0.2"]
    assert [line["last"]["value"] for line in chart["lines"]] == ["2.3", "0.2"]  # the legend's figures
