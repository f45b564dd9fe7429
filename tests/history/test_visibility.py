"""A person's history list and stats show someone else only the games that person may open.

The rule is the table's (``selectors.may_watch``, as ``records.visible_to``
for finished games): a private game only to its players and to sessions that
opened its invite link; a players-only game only to its players.  The stats
count, name and link only those games; the rating alone is over every rated
game, as the public leaderboard shows it (see ``stats.player_stats``).
"""

from __future__ import annotations

import pytest

from games import history
from games.models import Game, Rating
from tests.web.conftest import logged_in

from .conftest import make_finished_game

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann_games(make_user):
    """ann's four finished games (the numbers of tests/history/test_stats.py): two open to all, one
    players-only (with bob and cat, ann's worst), one private (with cat, ann's best)."""
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("quentin")
    open1 = make_finished_game([ann, bob], [10, 20], number=1, rounds=[(3, [0, 12], 0), (4, [10, 8], 1)])
    open2 = make_finished_game(
        [ann, bob, "easy"], [15, 15, 30], number=2, rounds=[(3, [5, 0, 10], 1), (4, [10, 15, 20], None)]
    )
    players_only = make_finished_game(
        [bob, cat, ann], [5, 40, 41], number=3, rounds=[(3, [0, 20, 21], 0), (5, [5, 20, 20], None)]
    )
    private = make_finished_game([cat, ann], [8, 8], number=4, rounds=[(3, [0, 3], 0), (4, [8, 5], None)])
    Game.objects.filter(pk=players_only.pk).update(spectators_allowed=False)
    Game.objects.filter(pk=private.pk).update(is_private=True, invite_token="the-secret-token")
    private.refresh_from_db()
    return {
        "ann": ann,
        "bob": bob,
        "cat": cat,
        "open": [open1, open2],
        "players_only": players_only,
        "private": private,
    }


def test_a_stranger_gets_numbers_over_the_games_they_may_open_only(ann_games, make_user):
    ann, dan = ann_games["ann"], make_user("dan")
    stats = history.player_stats(user=ann, viewer=dan)
    # games 1 and 2: 1st of 2 with 10, shared 1st of 3 with 15; rounds 0, 10 and 5, 10
    assert (stats["played"], stats["won"], stats["shared"]) == (2, 2, 1)
    assert stats["average_total"] == pytest.approx(12.5)
    assert (stats["rounds"], stats["went_out_first"]) == (4, 1)
    assert stats["average_points"] == pytest.approx(25 / 4)
    by_size = {row["hand_size"]: (row["rounds"], row["average"], row["first"]) for row in stats["by_size"]}
    assert by_size == {3: (2, pytest.approx(2.5), 1), 4: (2, pytest.approx(10.0), 0)}  # no 5-card round: game 3
    hidden = {ann_games["players_only"].pk, ann_games["private"].pk}
    assert stats["best"].game_id not in hidden and stats["worst"].game_id not in hidden
    assert (stats["best"].game.seed, stats["worst"].game.seed) == (1, 2)
    # The rating is the public standing of the leaderboard: over every rated game.
    assert stats["rating"] == Rating.objects.get(user=ann) and stats["rated_games"] == 4


def test_the_person_and_their_table_mates_see_what_they_shared(ann_games):
    ann, bob, cat = ann_games["ann"], ann_games["bob"], ann_games["cat"]
    own = history.player_stats(user=ann, viewer=ann)
    assert own["played"] == 4 and (own["best"].game.seed, own["worst"].game.seed) == (4, 3)
    assert history.player_stats(user=ann, viewer=bob)["played"] == 3  # not the private game
    cat_view = history.player_stats(user=ann, viewer=cat)
    assert cat_view["played"] == 4 and cat_view["best"].game.seed == 4


def test_an_invite_link_opens_a_private_game_in_the_lists_too(ann_games, make_user):
    ann, dan = ann_games["ann"], make_user("dan")
    private = ann_games["private"]
    stats = history.player_stats(user=ann, viewer=dan, invited=[private.pk])
    assert stats["played"] == 3 and stats["best"].game_id == private.pk
    # A players-only game stays shut to a non-player whatever ids are passed.
    assert history.player_stats(user=ann, viewer=dan, invited=[ann_games["players_only"].pk])["played"] == 2


def test_the_pages_neither_link_nor_name_a_hidden_game(ann_games, make_user):
    ann = ann_games["ann"]
    dan = logged_in(make_user("dan"))
    hidden = [ann_games["players_only"], ann_games["private"]]
    stats_page = dan.get(f"/players/{ann.username}/")
    history_page = dan.get(f"/players/{ann.username}/games/")
    assert stats_page.status_code == history_page.status_code == 200
    assert stats_page.context["played"] == 2
    assert [row["game"].pk for row in history_page.context["rows"]] == [g.pk for g in reversed(ann_games["open"])]
    for page in (stats_page, history_page):
        body = page.content.decode()
        for game in hidden:
            assert f"/games/{game.pk}/" not in body and f"#{game.pk}<" not in body
        assert "quentin" not in body  # quentin played with ann only in the hidden games: not even named as an opponent
    # After opening the private game's invite link, this session sees it in both lists.
    assert dan.get(f"/games/{ann_games['private'].pk}/invite/the-secret-token/").status_code == 200
    assert f"/games/{ann_games['private'].pk}/record/" in dan.get(f"/players/{ann.username}/").content.decode()
    rows = dan.get(f"/players/{ann.username}/games/").context["rows"]
    assert ann_games["private"].pk in [row["game"].pk for row in rows]
    assert ann_games["players_only"].pk not in [row["game"].pk for row in rows]


def test_her_own_pages_show_ann_every_game(ann_games):
    ann = ann_games["ann"]
    client = logged_in(ann)
    assert client.get(f"/players/{ann.username}/").context["played"] == 4
    assert len(client.get(f"/players/{ann.username}/games/").context["rows"]) == 4
