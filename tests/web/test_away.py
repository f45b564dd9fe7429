"""Time away (vacation): the yearly allowance, clocks of games over days stopped while a player is
away, the deadline after the return, live games untouched, the table's "away until", and the forms.

Time is frozen with time-machine at moments counted from the game's own turn start, never slept on.
"""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from django.core import mail
from django.test import Client

from games import selectors, services
from games.engine import GameState
from games.models import Absence, Game, Move, TurnNotice

from .conftest import logged_in, post_action

pytestmark = pytest.mark.django_db

HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)


def game_over_days(make_user, classic, *, limit=24 * 3600, names=("ann", "bob")):
    """A two-person game (``limit`` seconds per move); the person to move and the other one."""
    first, second = make_user(names[0]), make_user(names[1])
    game = services.game_create(
        creator=first, variant=classic, seat_count=2, time_limit_seconds=limit, seed=3, options={"rounds": [3, 4]}
    )
    services.game_join(game_id=game.pk, user=second)
    game.refresh_from_db()
    mover = game.seats.get(position=game.current_seat).user
    other = second if mover == first else first
    return game, mover, other


def at(moment):
    return time_machine.travel(moment, tick=False)


def bot_moves(game) -> int:
    return Move.objects.filter(game=game, by_bot=True).count()


# -- the clock stops while away and the deadline moves on by the time away -----------------------


def test_the_clock_does_not_time_out_a_player_who_is_away(make_user, classic):
    game, mover, _other = game_over_days(make_user, classic)
    start, deadline = game.turn_started_at, game.turn_deadline
    with at(start + 6 * HOUR):
        services.away_declare(user=mover, days=3)
    for moment in (deadline + HOUR, deadline + 2 * DAY, start + 6 * HOUR + 3 * DAY - HOUR):
        with at(moment):
            assert services.clock_tick()["timeouts"] == 0
            with pytest.raises(services.GameError) as refused:  # a second worker is refused under the lock too
                services.game_timeout(game_id=game.pk, turn_number=game.turn_number)
            assert refused.value.code == "not_due"
    game.refresh_from_db()
    assert bot_moves(game) == 0 and game.current_seat is not None


def test_when_the_time_away_ends_the_deadline_moves_on_by_the_time_it_took(make_user, classic):
    game, mover, _other = game_over_days(make_user, classic)
    start, deadline = game.turn_started_at, game.turn_deadline
    with at(start + 6 * HOUR):
        absence = services.away_declare(user=mover, days=3)
    until = absence.ends_at
    assert until == start + 6 * HOUR + 3 * DAY
    with at(until + datetime.timedelta(seconds=1)):
        done = services.clock_tick()
    assert done["away"] == 1 and done["timeouts"] == 0
    game.refresh_from_db()
    absence.refresh_from_db()
    assert absence.settled_at is not None
    # 6 hours of the day were used; the 3 days away do not count: 18 hours are left after the return.
    assert game.turn_deadline == deadline + 3 * DAY == until + 18 * HOUR
    with at(game.turn_deadline - datetime.timedelta(seconds=1)):
        assert services.clock_tick()["timeouts"] == 0
    with at(game.turn_deadline):
        done = services.clock_tick()
        assert done == {"called_off": 0, "timeouts": 1, "emails": 0, "pushes": 0, "away": 0, "bots": 0, "paused": 0}
    assert bot_moves(game) == 2  # the bot played the whole turn, once


def test_coming_back_early_gives_back_only_the_time_away(make_user, classic):
    game, mover, _other = game_over_days(make_user, classic)
    start, deadline = game.turn_started_at, game.turn_deadline
    with at(start + 2 * HOUR):
        services.away_declare(user=mover, days=5)
    with at(start + 2 * HOUR + 30 * HOUR):
        response = logged_in(mover).post("/away/back/")
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.turn_deadline == deadline + 30 * HOUR
    absence = Absence.objects.get(user=mover)
    assert absence.returned_at == start + 32 * HOUR and absence.settled_at is not None


def test_a_turn_that_began_while_away_gets_its_whole_time_after_the_return(make_user, classic):
    game, mover, other = game_over_days(make_user, classic)
    with at(game.turn_started_at + HOUR):
        absence = services.away_declare(user=other, days=2)
        client = logged_in(mover)
        assert post_action(client, game, {"type": "draw", "source": "stock"}).status_code == 302
        hand = selectors.game_table(game=Game.objects.get(pk=game.pk), user=mover)["hand"]
        card = next(face["code"] for face in hand if face["can_discard"])
        assert post_action(client, game, {"type": "discard", "card": card}).status_code == 302
    game.refresh_from_db()
    assert game.seats.get(position=game.current_seat).user == other  # the turn came while away
    with at(absence.ends_at):
        services.clock_tick()
    game.refresh_from_db()
    assert game.turn_deadline == absence.ends_at + DAY  # the whole day per move, from the return


def test_time_away_that_ran_out_holds_the_clock_until_it_is_settled(make_user, classic):
    """The end of time away passed but no clock pass settled it yet: a turn is still not timed out."""
    game, mover, _other = game_over_days(make_user, classic)
    with at(game.turn_started_at):
        absence = services.away_declare(user=mover, days=2)
    with at(absence.ends_at + HOUR), pytest.raises(services.GameError) as refused:
        services.game_timeout(game_id=game.pk, turn_number=game.turn_number)
    assert refused.value.code == "not_due" and bot_moves(game) == 0


def test_a_move_ends_the_time_away_first_so_it_meets_the_moved_deadline(make_user, classic):
    game, mover, _other = game_over_days(make_user, classic)
    start, deadline = game.turn_started_at, game.turn_deadline
    with at(start + HOUR):
        services.away_declare(user=mover, days=4)
    back = start + 2 * DAY  # past the first deadline: only the time away given back makes the move in time
    with at(back):
        assert post_action(logged_in(mover), game, {"type": "draw", "source": "stock"}).status_code == 302
    absence = Absence.objects.get(user=mover)
    assert absence.returned_at == back and absence.settled_at is not None
    game.refresh_from_db()
    assert game.turn_deadline == deadline + (back - start - HOUR) and bot_moves(game) == 0


def test_a_move_after_the_time_away_ran_out_but_before_the_clock_settled_it_is_played(make_user, classic):
    """Found by a tester: the end of the time away passed, the clock worker had not settled it yet (it
    runs every few seconds, or was stopped for an hour), and the player's move was refused as out of time
    ("the bot plays this turn for you"), though the clock leaves that turn alone until it settles it."""
    game, mover, _other = game_over_days(make_user, classic)
    start, deadline = game.turn_started_at, game.turn_deadline
    with at(start + HOUR):
        absence = services.away_declare(user=mover, days=2)
    back = absence.ends_at + HOUR  # past the first deadline, and no clock pass since the end
    with at(back):
        response = post_action(logged_in(mover), game, {"type": "draw", "source": "stock"})
    assert response.status_code == 302
    absence.refresh_from_db()
    assert absence.settled_at == back and absence.returned_at is None  # it ran to its chosen end
    game.refresh_from_db()
    assert game.turn_deadline == deadline + 2 * DAY and bot_moves(game) == 0
    assert Move.objects.filter(game=game, by_bot=False).count() == 1


def test_a_move_settles_time_away_that_ran_out_and_the_one_declared_since(make_user, classic):
    """Back after a day away with no clock pass since, the player declares another day at once, then
    moves: both stretches end, and the move is played (not refused as stale by the two settlements)."""
    game, mover, _other = game_over_days(make_user, classic)
    start, deadline = game.turn_started_at, game.turn_deadline
    with at(start + HOUR):
        first = services.away_declare(user=mover, days=1)
    with at(first.ends_at + HOUR):
        second = services.away_declare(user=mover, days=1)
    back = first.ends_at + 3 * HOUR
    with at(back):
        assert post_action(logged_in(mover), game, {"type": "draw", "source": "stock"}).status_code == 302
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.settled_at == back and second.settled_at == back and second.returned_at == back
    game.refresh_from_db()
    assert game.turn_deadline == deadline + DAY + 2 * HOUR and bot_moves(game) == 0


def test_a_live_game_is_not_touched_by_time_away(make_user, classic):
    game, mover, other = game_over_days(make_user, classic, limit=120)
    services.away_declare(user=mover, days=2)
    assert selectors.away_at_table(game=game, seats=list(game.seats.all()), now=game.turn_started_at) == {}
    page = logged_in(other).get(game.get_absolute_url()).content.decode()
    assert "away until" not in page and 'class="countdown"' in page
    with at(game.turn_deadline):
        assert services.clock_tick()["timeouts"] == 1  # the live clock runs as ever
    services.away_come_back(user=mover)
    game.refresh_from_db()
    assert bot_moves(game) == 2


def test_no_turn_notice_while_away_and_the_turn_email_after_the_return(make_user, classic):
    game, mover, _other = game_over_days(make_user, classic)
    mover.notify_by_email = True
    mover.save()
    with at(game.turn_started_at):
        absence = services.away_declare(user=mover, days=2)
    with at(game.turn_started_at + HOUR):
        assert services.clock_tick()["emails"] == 0
    with at(game.turn_deadline - HOUR):  # past 80% of the first deadline: still no reminder while away
        assert services.clock_tick()["emails"] == 0
    with at(absence.ends_at):
        assert services.clock_tick()["emails"] == 0  # settled: the turn starts again on the return
    with at(absence.ends_at + datetime.timedelta(seconds=settings.TURN_NOTICE_DELAY_SECONDS)):
        assert services.clock_tick()["emails"] == 1  # and its notice waits as after any turn's start
    assert TurnNotice.objects.get(game=game).kind == TurnNotice.Kind.TURN
    game.refresh_from_db()
    with at(game.turn_deadline - 5 * HOUR):  # 19 of the 24 hours gone: not yet 80%
        assert services.clock_tick()["emails"] == 0
    with at(game.turn_deadline - datetime.timedelta(hours=4.8)):
        assert services.clock_tick()["emails"] == 1
    assert [m.subject.split(":")[0] for m in mail.outbox] == [f"Your turn in Classic #{game.pk}", "Reminder"]


# -- the allowance ---------------------------------------------------------------------------------


def test_the_yearly_allowance_is_enforced(make_user, settings):
    settings.AWAY_DAYS_PER_YEAR = 14
    ann = make_user("ann")
    now = datetime.datetime(2027, 3, 1, 12, tzinfo=datetime.UTC)
    with pytest.raises(services.GameError) as too_many:
        services.away_declare(user=ann, days=15, now=now)
    assert too_many.value.code == "away_days"
    first = services.away_declare(user=ann, days=10, now=now)
    with pytest.raises(services.GameError) as overlapping:
        services.away_declare(user=ann, days=1, now=now + DAY)
    assert overlapping.value.code == "away_already"
    services.away_come_back(user=ann, now=now + 6 * DAY)  # 6 days used, 8 left
    assert services.away.time_left_in_year(ann, 2027) == 8 * DAY
    with pytest.raises(services.GameError) as over:
        services.away_declare(user=ann, days=9, now=now + 7 * DAY)
    assert over.value.code == "away_allowance" and "8 days" in over.value.message
    services.away_declare(user=ann, days=8, now=now + 7 * DAY)
    with pytest.raises(services.GameError) as none_left:
        services.away_declare(user=ann, days=1, now=now + 30 * DAY)
    assert none_left.value.code == "away_allowance"
    # A new year, a new allowance.
    services.away_declare(user=ann, days=14, now=datetime.datetime(2028, 1, 2, tzinfo=datetime.UTC))
    assert first.pk is not None and Absence.objects.filter(user=ann).count() == 3


def test_planned_time_away_counts_until_it_is_cancelled(make_user):
    ann = make_user("ann")
    now = datetime.datetime(2027, 5, 3, 9, tzinfo=datetime.UTC)
    planned = services.away_declare(user=ann, days=12, start=datetime.date(2027, 6, 1), now=now)
    assert services.away.time_left_in_year(ann, 2027) == 2 * DAY
    assert planned.starts_at == datetime.datetime(2027, 6, 1, tzinfo=datetime.UTC)
    services.away_come_back(user=ann, now=now + HOUR)  # not begun: cancelled, nothing used
    assert not Absence.objects.filter(user=ann).exists()
    assert services.away.time_left_in_year(ann, 2027) == 14 * DAY


def test_time_away_over_new_year_counts_in_each_year(make_user):
    ann = make_user("ann")
    now = datetime.datetime(2027, 12, 20, tzinfo=datetime.UTC)
    services.away_declare(user=ann, days=10, now=datetime.datetime(2027, 2, 1, tzinfo=datetime.UTC))
    services.away_declare(user=ann, days=4, start=datetime.date(2027, 12, 30), now=now)  # 2 days in each year
    assert services.away.time_left_in_year(ann, 2027) == 2 * DAY
    assert services.away.time_left_in_year(ann, 2028) == 12 * DAY
    services.away_come_back(user=ann, now=now)
    with pytest.raises(services.GameError) as over:  # 6 days from Dec 27: 5 of them in 2027, 4 left there
        services.away_declare(user=ann, days=6, start=datetime.date(2027, 12, 27), now=now)
    assert over.value.code == "away_allowance" and "2027" in over.value.message


def test_a_later_start_begins_at_midnight_in_the_players_zone_and_the_clock_runs_until_then(make_user, classic):
    game, mover, other = game_over_days(make_user, classic)
    zagreb = ZoneInfo("Europe/Zagreb")
    tomorrow = (game.turn_started_at.astimezone(zagreb) + DAY).date()
    absence = services.away_declare(user=mover, days=2, start=tomorrow, zone=zagreb)
    assert absence.starts_at == datetime.datetime.combine(tomorrow, datetime.time(0), tzinfo=zagreb)
    assert not absence.announced
    version = Game.objects.get(pk=game.pk).version
    page = logged_in(other).get(game.get_absolute_url()).content.decode()
    assert "away until" not in page  # not yet
    with at(absence.starts_at):
        assert services.clock_tick()["away"] == 1
    absence.refresh_from_db()
    game.refresh_from_db()
    assert absence.announced and game.version == version + 1  # open tables hear it began


@pytest.mark.parametrize(
    ("first_day", "back"),
    [
        (datetime.date(2027, 10, 30), datetime.date(2027, 11, 1)),  # summer time ends on 31 October: a 49-hour stretch
        (datetime.date(2027, 3, 27), datetime.date(2027, 3, 29)),  # summer time begins on 28 March: 47 hours
    ],
)
def test_whole_days_away_over_a_change_of_summer_time_end_at_midnight(make_user, first_day, back):
    """Found by a tester: two days away from 30 October in Zagreb were counted as 48 hours, so they ended
    at 23:00 on the 31st (the table said "away until 31 October, 23:00" and the clock ran an hour early);
    from 27 March at 01:00 on the 29th.  Whole days end at midnight in the player's zone."""
    zagreb = ZoneInfo("Europe/Zagreb")
    ann = make_user("ann")
    now = datetime.datetime.combine(first_day - 2 * DAY, datetime.time(12), tzinfo=datetime.UTC)
    absence = services.away_declare(user=ann, days=2, start=first_day, zone=zagreb, now=now)
    assert absence.ends_at == datetime.datetime.combine(back, datetime.time(0), tzinfo=zagreb)


def test_all_the_years_days_away_may_span_the_end_of_summer_time(make_user):
    """The stretch has an hour more than 14 times 24 hours; it is still 14 days, the whole allowance."""
    zagreb = ZoneInfo("Europe/Zagreb")
    ann = make_user("ann")
    now = datetime.datetime(2027, 10, 1, 12, tzinfo=datetime.UTC)
    absence = services.away_declare(user=ann, days=14, start=datetime.date(2027, 10, 25), zone=zagreb, now=now)
    assert absence.ends_at == datetime.datetime(2027, 11, 8, tzinfo=zagreb)
    assert services.away.time_left_in_year(ann, 2027) == datetime.timedelta(0)


def test_days_away_from_now_end_at_the_same_time_of_day_over_a_change_of_summer_time(make_user):
    zagreb = ZoneInfo("Europe/Zagreb")
    ann = make_user("ann")
    now = datetime.datetime(2027, 10, 30, 15, 30, tzinfo=zagreb)
    absence = services.away_declare(user=ann, days=3, zone=zagreb, now=now.astimezone(datetime.UTC))
    assert absence.starts_at == now
    assert absence.ends_at == datetime.datetime(2027, 11, 2, 15, 30, tzinfo=zagreb)  # 73 hours later


# -- the table shows it, in the reader's zone and language ------------------------------------------


def test_opponents_and_watchers_see_away_until_in_their_own_zone(make_user, classic):
    game, mover, other = game_over_days(make_user, classic)
    with at(datetime.datetime(2027, 7, 1, 10, tzinfo=datetime.UTC)):
        Game.objects.filter(pk=game.pk).update(
            turn_started_at=datetime.datetime(2027, 7, 1, 9, tzinfo=datetime.UTC),
            turn_deadline=datetime.datetime(2027, 7, 2, 9, tzinfo=datetime.UTC),
        )
        services.away_declare(user=mover, days=3)  # until 4 July 2027, 10:00 UTC
        other.time_zone, other.language = "Pacific/Auckland", "hr"
        other.save()
        page = logged_in(other).get(game.get_absolute_url()).content.decode()
        assert "nije tu do" in page  # Croatian
        assert "22:00" in page and "(Auckland)" in page  # 10:00 UTC is 22:00 in Auckland (NZST)
        assert 'class="clock paused"' in page and 'class="countdown"' not in page
        watcher = make_user("walt")
        watcher.time_zone = "America/New_York"
        watcher.save()
        watched = logged_in(watcher).get(game.get_absolute_url()).content.decode()
        assert "away until July 4, 2027, 6 a.m. (New York)" in watched  # 06:00 EDT
        own = logged_in(mover).get(game.get_absolute_url()).content.decode()
        assert "Your clock is stopped: you are away until" in own and "A move ends your time away." in own
        assert "23h 00m left after that" in own  # a day per move, one hour used before going away


def test_my_games_shows_a_turn_of_one_who_is_away_as_stopped_not_running_out(make_user, classic):
    """Found by a tester: away for three days, "My games" still listed the turn as "before <the old
    deadline> · 18h 00m left" under "when the time runs out, a bot plays your turn", and a day later as
    "0m left", while the table said the clock was stopped.  It now says what the table says."""
    game, mover, _other = game_over_days(make_user, classic)
    with at(game.turn_started_at + 6 * HOUR):
        services.away_declare(user=mover, days=3)
    with at(game.turn_deadline + HOUR):  # past the deadline the turn would have had without time away
        page = logged_in(mover).get("/games/mine/").content.decode()
    waiting = page.split('id="waiting"')[1].split("</section>")[0]
    assert f"/games/{game.pk}/" in waiting
    assert "Your clock is stopped: you are away until" in waiting and "18h 00m left after that" in waiting
    assert " left</time>" not in waiting and "before " not in waiting


def test_until_the_clock_settles_time_away_that_ran_out_the_pages_show_the_deadline_it_will_give(make_user, classic):
    """Found by a tester: the time away ran to its end and no clock pass had settled it yet (or the clock was
    stopped): the table and "My games" showed the old deadline, long gone, with "time is up: the bot plays
    this turn", though the clock leaves the turn alone and will give the paused time back.  They now show
    the deadline the settlement gives (and the player's move is accepted until then)."""
    game, mover, other = game_over_days(make_user, classic)
    start, deadline = game.turn_started_at, game.turn_deadline
    with at(start + 6 * HOUR):
        absence = services.away_declare(user=mover, days=2)
    moved_on = deadline + (absence.ends_at - absence.starts_at)
    with at(absence.ends_at + HOUR):  # no clock pass since the end
        own = logged_in(mover).get(game.get_absolute_url()).content.decode()
        theirs = logged_in(other).get(game.get_absolute_url()).content.decode()
        mine = logged_in(mover).get("/games/mine/").content.decode()
    for page in (own, theirs, mine):
        assert '">time is up' not in page and f'datetime="{moved_on.isoformat()}"' in page
    assert 'data-seconds-left="61200"' in own  # 17 of the 18 hours left after the return
    with at(absence.ends_at + HOUR):
        services.clock_tick()
    game.refresh_from_db()
    assert game.turn_deadline == moved_on


def test_strangers_still_cannot_open_a_private_table(make_user, classic):
    game, mover, _other = game_over_days(make_user, classic)
    Game.objects.filter(pk=game.pk).update(is_private=True)
    services.away_declare(user=mover, days=1)
    response = logged_in(make_user("eve")).get(game.get_absolute_url())
    assert response.status_code == 403 and "away" not in response.content.decode()


# -- the profile's panel and its forms --------------------------------------------------------------


def test_the_profile_shows_the_panel_and_declaring_works(make_user):
    ann = make_user("ann")
    client = logged_in(ann)
    page = client.get("/accounts/profile/").content.decode()
    assert 'action="/away/"' in page and "Left in" in page and "14 days" in page
    response = client.post("/away/", {"days": "3", "start": ""})
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"
    page = client.get("/accounts/profile/").content.decode()
    assert "You are away until" in page and 'action="/away/back/"' in page and "11 days" in page
    assert client.post("/away/back/").status_code == 302
    assert "Welcome back" in client.get("/accounts/profile/").content.decode()


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"days": "abc"},
        {"days": "0"},
        {"days": "-3"},
        {"days": "15"},
        {"days": "1e3"},
        {"days": "99999999999999999999"},
        {"days": "2", "start": "yesterday"},
        {"days": "2", "start": "2001-01-01"},
        {"days": "2", "start": "2999-01-01"},
        {"days": "2", "start": "2027-02-30"},
        {"days": "²"},
    ],
)
def test_bad_input_is_a_clear_400_and_changes_nothing(make_user, data):
    ann = make_user("ann")
    response = logged_in(ann).post("/away/", data)
    assert response.status_code == 400
    text = response.content.decode()
    assert 'class="error"' in text or 'class="alert error"' in text
    assert not Absence.objects.exists()


@pytest.mark.parametrize("days", ["0", "-3", "15", "99999999999999999999"])
def test_a_number_of_days_out_of_range_is_told_the_range_it_may_choose_from(make_user, days):
    response = logged_in(make_user("ann")).post("/away/", {"days": days}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert f"Choose from 1 to {settings.AWAY_DAYS_PER_YEAR} days of time away." in response.content.decode()
    assert "greater than or equal" not in response.content.decode()


def test_forged_and_stranger_requests_change_nothing(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    services.away_declare(user=bob, days=2)
    # signed out
    assert Client().post("/away/", {"days": "2"}).status_code == 403
    assert Client().post("/away/back/").status_code == 403
    # without the CSRF token
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(ann)
    assert forged.post("/away/", {"days": "2"}).status_code == 403
    # a GET on the button's address is a page, not a change
    assert logged_in(ann).get("/away/").status_code == 405
    assert logged_in(ann).get("/away/back/").status_code == 405
    # naming someone else does nothing to them: only the sender's own time away exists
    assert logged_in(ann).post("/away/back/", {"user": bob.pk}).status_code == 409
    assert logged_in(ann).post("/away/", {"days": "2", "user": bob.pk, "user_id": bob.pk}).status_code == 302
    assert Absence.objects.filter(user=bob).count() == 1 and Absence.objects.get(user=bob).returned_at is None
    assert Absence.objects.filter(user=ann).count() == 1
    # twice: the second is refused
    response = logged_in(ann).post("/away/", {"days": "2"})
    assert response.status_code == 409 and "already have time away" in response.content.decode()
    assert Absence.objects.filter(user=ann).count() == 1


def test_time_away_that_cannot_be_settled_leaves_the_rest_of_the_clocks_pass_going(
    make_user, classic, monkeypatch, caplog
):
    """One stretch whose settling fails (a fault) is logged and left for the next pass: the other players'
    time away is settled and the other games' turns time out in the same pass, not never."""
    from games.services import away

    broken_game, broken, _ = game_over_days(make_user, classic, names=("ann", "bob"))
    fine_game, fine, _ = game_over_days(make_user, classic, names=("cid", "dan"))
    late_game, _late, _ = game_over_days(make_user, classic, names=("eve", "fay"))  # its day is over: due
    with at(broken_game.turn_started_at):
        stuck = services.away_declare(user=broken, days=1)
        settled = services.away_declare(user=fine, days=1)
    real = away._settle

    def settle(absence, now):
        if absence.pk == stuck.pk:
            raise RuntimeError("a fault settling it")
        real(absence, now)

    monkeypatch.setattr(away, "_settle", settle)
    with at(stuck.ends_at + HOUR):
        done = services.clock_tick()
    assert done["timeouts"] == 1 and bot_moves(late_game) > 0  # the game not held by time away timed out
    assert Absence.objects.get(pk=settled.pk).settled_at is not None
    assert Absence.objects.get(pk=stuck.pk).settled_at is None and "could not settle time away" in caplog.text
    monkeypatch.setattr(away, "_settle", real)  # the fault is gone: the next pass settles it
    with at(stuck.ends_at + 2 * HOUR):
        services.clock_tick()
    assert Absence.objects.get(pk=stuck.pk).settled_at is not None


def test_whole_days_over_a_change_of_summer_time_take_only_those_days_of_the_allowance(make_user, settings):
    """Found by a review: the hour that 7 days over the end of summer time last beyond 7 times 24 hours was
    given when they were declared, and charged in every later count: 6 days 23 hours were left of 14, and
    7 more days later that year were refused.  The allowance is counted on the player's clocks."""
    settings.AWAY_DAYS_PER_YEAR = 14
    zagreb = ZoneInfo("Europe/Zagreb")
    ann = make_user("ann")
    ann.time_zone = "Europe/Zagreb"
    ann.save(update_fields=["time_zone"])
    when = datetime.datetime(2027, 10, 1, 12, tzinfo=datetime.UTC)
    first = services.away_declare(user=ann, days=7, start=datetime.date(2027, 10, 25), zone=zagreb, now=when)
    assert first.ends_at - first.starts_at == 7 * DAY + HOUR  # the night summer time ends is 25 hours long
    assert services.away.time_left_in_year(ann, 2027) == 7 * DAY
    assert selectors.away_summary(user=ann, now=when)["left"] == 7 * DAY
    later = datetime.datetime(2027, 12, 1, 12, tzinfo=datetime.UTC)
    services.away_declare(user=ann, days=7, zone=zagreb, now=later)  # 7 + 7 = 14: all of it, no more
    assert services.away.time_left_in_year(ann, 2027) == datetime.timedelta(0)


def test_time_away_declared_again_between_the_return_and_the_move_is_a_clear_refusal(make_user, classic, monkeypatch):
    """Found by a review: a move ends the mover's time away and is tried again; time away that holds the
    clock again by then (declared from another tab) escaped as an internal signal, a 500.  Now a refusal,
    nothing played."""
    from games.services import away

    game, mover, _other = game_over_days(make_user, classic)
    with at(game.turn_started_at + HOUR):
        services.away_declare(user=mover, days=2)
    real = away.come_back_if_away

    def back_then_away_again(*, user, now=None):
        real(user=user, now=now)  # back (as another request of theirs could have done meanwhile: 0 here) ...
        services.away_declare(user=user, days=1)  # ... and away again, from another tab
        return 0

    monkeypatch.setattr(away, "come_back_if_away", back_then_away_again)
    with at(game.turn_started_at + 2 * HOUR):
        response = post_action(logged_in(mover), game, {"type": "draw", "source": "stock"})
    assert response.status_code == 409 and "The table has changed" in response.content.decode()
    assert not Move.objects.filter(game=game, by_bot=False).exists()


# -- a page that saw the table before a notice of time away is not stale ------------------------------


def test_a_move_from_a_page_loaded_before_the_clock_settled_the_time_away_is_played(make_user, classic):
    """The time away ran out, the player opened the table, and the clock settled the time away before the
    move arrived (a new version, to show the deadline it gave back): the move was refused as "the table has
    changed", though nothing had been played.  Only a move in between makes a page stale."""
    game, mover, _other = game_over_days(make_user, classic)
    with at(game.turn_started_at + HOUR):
        absence = services.away_declare(user=mover, days=1)
    with at(absence.ends_at + HOUR):
        game.refresh_from_db()
        seen = game.version  # the page, loaded before the clock's pass
        assert services.clock_tick()["away"] == 1
        response = post_action(logged_in(mover), game, {"type": "draw", "source": "stock"}, version=seen)
    assert response.status_code == 302
    assert Move.objects.filter(game=game, by_bot=False).count() == 1


def test_a_move_from_a_page_loaded_before_an_opponents_time_away_began_and_ended_is_played(make_user, classic):
    game, mover, other = game_over_days(make_user, classic)
    with at(game.turn_started_at + HOUR):
        seen = Game.objects.get(pk=game.pk).version
        services.away_declare(user=other, days=1)  # bob's tables hear of it: a new version ...
        services.away_come_back(user=other)  # ... and of his return: another
        assert Game.objects.get(pk=game.pk).version == seen + 2
        response = post_action(logged_in(mover), game, {"type": "draw", "source": "stock"}, version=seen)
    assert response.status_code == 302
    assert Move.objects.filter(game=game, by_bot=False).count() == 1


def test_a_page_from_before_a_move_stays_stale_whatever_notices_follow_the_move(make_user, classic):
    """And the refusal says what happened: the notices are not counted as moves (a review found "Someone else
    moved first" for a repeated draw, the notice's version taken for the other player's last move)."""
    game, mover, other = game_over_days(make_user, classic)
    clients = {mover: logged_in(mover), other: logged_in(other)}
    with at(game.turn_started_at + HOUR):
        for person in (mover, other):  # a turn each first: there are moves of both before the one repeated
            for action in ({"type": "draw", "source": "stock"}, {"type": "discard"}):
                if action["type"] == "discard":
                    game.refresh_from_db()
                    action["card"] = GameState.from_dict(game.state).hands[game.current_seat][0].code
                assert post_action(clients[person], game, action).status_code == 302
        seen = Game.objects.get(pk=game.pk).version
        assert post_action(clients[mover], game, {"type": "draw", "source": "stock"}).status_code == 302
        services.away_declare(user=other, days=1)
        repeated = post_action(clients[mover], game, {"type": "draw", "source": "stock"}, version=seen)  # a second tab
    assert repeated.status_code == 409 and "already played" in repeated.content.decode()
    assert Move.objects.filter(game=game, by_bot=False).count() == 5


def test_my_games_orders_turns_by_the_deadline_it_shows_while_a_settlement_is_pending(make_user, classic):
    """ "My games" showed the deadline a pending settlement of time away gives, and sorted by the stored one:
    a turn begun before the time away (all of it given back) stayed above one begun during it, though its
    deadline as shown was two days later."""
    before, mover, _other = game_over_days(make_user, classic, limit=3 * 24 * 3600)
    start = before.turn_started_at
    during = services.game_create(creator=mover, variant=classic, seat_count=2, time_limit_seconds=24 * 3600)
    services.game_join(game_id=during.pk, user=make_user("cy"))
    with at(start + HOUR):
        absence = services.away_declare(user=mover, days=3)
    seat = during.seats.get(user=mover).position
    begun = start + 2 * DAY + 3 * HOUR  # while away: its stored deadline, a day on, is after the other's
    Game.objects.filter(pk=during.pk).update(current_seat=seat, turn_started_at=begun, turn_deadline=begun + DAY)
    with at(absence.ends_at + HOUR):  # no clock pass since the end
        rows = selectors.my_games(user=mover)["waiting"]
        page = logged_in(mover).get("/games/mine/").content.decode()
    assert [row.clock["deadline"] for row in rows] == [absence.ends_at + DAY, start + 6 * DAY]
    assert [row.game.pk for row in rows] == [during.pk, before.pk]
    waiting = page.split('id="waiting"')[1]
    assert waiting.index(f"/games/{during.pk}/") < waiting.index(f"/games/{before.pk}/")


@pytest.mark.parametrize(
    ("language", "hours", "text"),
    [("cs", 1, "13 dní a 1 hodina"), ("cs", 3, "13 dní a 3 hodiny"), ("hr", 1, "13 dana i 1 sat")],
)
def test_the_time_left_is_the_sentences_subject_in_czech(language, hours, text):
    """Found by a tester: "Zbývá v roce 2026: 13 dní a 1 hodinu" (the chat's "in 1 hour" form); the chat's
    "za 1 hodinu" keeps its own."""
    from django.utils import translation

    from games.presentation import duration_text

    with translation.override(language):
        assert duration_text(datetime.timedelta(days=13, hours=hours)) == text
        if language == "cs":
            assert services.chat._span(3600) == "1 hodinu"
