"""One rule for places everywhere: lowest total wins, ties share, and people who
left (resigned, timed out or removed by a moderator) rank below everyone who stayed."""

from __future__ import annotations

from games import bots, history, services
from games.engine import GameState, view
from games.history.ratings import places
from games.models import GameResult
from tests.web.conftest import logged_in

from .conftest import finish_with_bot_moves, make_finished_game


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
    assert "bots of one level share one rating" not in page.content.decode()  # no bot at this table


def test_the_record_says_a_bots_rating_change_is_its_levels(make_user, classic):
    ann = make_user("ann")
    game = make_finished_game([ann, "medium", "medium"], [10, 20, 30])
    page = logged_in(ann).get(f"/games/{game.pk}/record/")
    changes = [row["rating_change"] for row in page.context["standings"] if not row["seat"].user_id]
    assert len(changes) == 2
    assert "bots of one level share one rating" in page.content.decode()


def _play_until_round(game, number):
    """Everyone plays the bot's choice until round ``number`` has begun and each person has moved in it."""
    moved: set[int] = set()
    for _ in range(2000):
        game.refresh_from_db()
        state = GameState.from_dict(game.state)
        people = {s.position for s in game.seats.all() if s.person_plays}
        if state.round_number == number and people <= moved:
            return game
        seat = game.seats.get(position=game.current_seat)
        action = bots.choose_action(view(state, seat.position))
        services.game_play(game_id=game.pk, user=seat.user, action=action, expected_version=game.version)
        if state.round_number == number:
            moved.add(seat.position)
    raise AssertionError("round not reached")


def test_who_resigned_is_marked_where_their_place_and_the_bots_rounds_are_shown(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], options={"rounds": [3, 4, 5]}, seed=7
    )
    _play_until_round(game, 2)
    services.game_resign(game_id=game.pk, user=ann)  # in round 2, after a move of her own in it
    game = finish_with_bot_moves(game)
    client = logged_in(ann)

    record = client.get(f"/games/{game.pk}/record/")
    standings = {row["name"]: row for row in record.context["standings"]}
    assert (standings["ann"]["place"], standings["ann"]["left"]) == (2, "resigned")
    assert standings["bob"]["left"] == ""
    marked = [[row["left"] for row in r["summary"]["rows"]] for r in record.context["rounds"]]
    assert marked == [["", ""], ["resigned", ""], ["resigned", ""]]  # round 1 was hers; the bot finished 2 and 3
    html = record.content.decode()
    assert "ranks below everyone who stayed" in html
    assert html.count('<span class="pill warn">resigned</span>') == 3  # the standings, rounds 2 and 3

    history_page = client.get("/players/ann/games/")
    assert [row["left"] for row in history_page.context["rows"]] == ["resigned"]
    assert "ranks below everyone who stayed" in history_page.content.decode()
    assert "ranks below everyone who stayed" not in logged_in(bob).get("/players/bob/games/").content.decode()

    for number, shown in ((1, False), (2, True), (3, True)):
        page = client.get(f"/games/{game.pk}/rounds/{number}/").content.decode()
        assert ('<span class="pill warn">resigned</span>' in page) is shown
        assert ("does not count in their stats" in page) is shown
    assert history.player_stats(user=ann)["rounds"] == 1
    assert "ranks below everyone who stayed" in client.get(game.get_absolute_url()).content.decode()  # the table


def test_a_person_a_moderator_removed_ranks_below_everyone_who_stayed(make_user, classic):
    """A moderator handed Bob's seat to a bot: the bot's play is not his to win with, and he is marked as removed
    wherever his place is shown.  (Before, he was ranked as having stayed: here the bot's total beat Ann's.)"""
    ann, bob, boss = make_user("ann"), make_user("bob"), make_user("boss")
    boss.is_staff = boss.is_superuser = True
    boss.save()
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=5, options={"rounds": [3, 4, 5]})
    services.game_join(game_id=game.pk, user=bob)
    bobs = game.seats.get(user=bob).position
    services.seat_hand_to_bot(game_id=game.pk, position=bobs, moderator=boss, reason="Rude in the chat")
    seat = game.seats.get(user=bob)
    assert seat.left == "removed" and seat.left_at is not None and seat.handed_over
    finish_with_bot_moves(game, careless=ann)

    totals = {s.user.username: s.total_score for s in game.seats.select_related("user")}
    assert totals["bob"] < totals["ann"]  # the bot played his seat better than Ann played hers
    by_seat = {r.position: r.place for r in GameResult.objects.filter(game=game)}
    assert by_seat[bobs] == 2 and by_seat[1 - bobs] == 1
    record = history.game_record(game=game)
    assert [(row["name"], row["place"], row["left"]) for row in record["standings"]] == [
        ("ann", 1, ""),
        ("bob", 2, "removed by a moderator"),
    ]
    table = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert "removed by a moderator" in table
    # Bob is told why, not that he left of his own accord.
    his = logged_in(bob).get(f"/games/{game.pk}/").content.decode()
    assert "A moderator handed your seat to a bot" in his and "Rude in the chat" in his
    assert "You have left this game" not in his
