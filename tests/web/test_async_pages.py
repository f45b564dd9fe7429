"""Pages of asynchronous play: my games, the header count, resign, invite links, rematch."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games import selectors, services
from games.models import Game, Seat

from .conftest import logged_in, post_action, state_fingerprint

pytestmark = pytest.mark.django_db


def solo_game(user, classic, **kwargs):
    """The person against bots, short; the bots have played up to the person's turn."""
    options = {"rounds": [3]}
    return services.game_create(
        creator=user,
        variant=classic,
        seat_count=kwargs.pop("seats", 3),
        bot_count=kwargs.pop("bots", 2),
        options=options,
        **kwargs,
    )


def test_my_games_lists_the_games_waiting_on_me_most_urgent_first(make_user, classic):
    ann = make_user("ann")
    week = solo_game(ann, classic, time_limit_seconds=7 * 24 * 3600, seed=1)
    live = solo_game(ann, classic, time_limit_seconds=120, seed=2)
    day = solo_game(ann, classic, time_limit_seconds=24 * 3600, seed=3)
    assert [g.pk for g in selectors.games_waiting_on(user=ann)] == [live.pk, day.pk, week.pk]
    page = logged_in(ann).get("/games/mine/").content.decode()
    waiting = page[page.index('id="waiting"') :]
    order = [int(n) for n in re.findall(r'href="/games/(\d+)/"', waiting)[:3]]
    assert order == [live.pk, day.pk, week.pk]
    assert "UTC" in waiting and "left" in waiting


@pytest.mark.parametrize("path", ["/", "/rules/", "/accounts/profile/", "/games/mine/"])
def test_the_header_shows_how_many_games_wait_on_me_on_every_page(make_user, classic, path):
    ann, bob = make_user("ann"), make_user("bob")
    solo_game(ann, classic, seed=1)
    solo_game(ann, classic, seed=2)
    two = services.game_create(creator=bob, variant=classic, seat_count=2, invitees=[ann], seed=4)
    expected = 2 + (1 if two.current_seat == 1 else 0)
    page = logged_in(ann).get(path).content.decode()
    badge = re.search(r'id="turns-waiting"[^>]*>(\d+)<', page)
    assert badge and int(badge.group(1)) == expected


def test_the_header_count_is_the_number_of_games_listed_as_waiting_on_me(make_user, classic):
    """The count (``turns_waiting_count``, by seats) and the list (``games_waiting_on``) agree: not a seat a
    bot took over, not a game over, not another's turn."""
    ann, bob = make_user("ann"), make_user("bob")
    mine = [solo_game(ann, classic, seed=seed) for seed in (1, 2, 3)]
    theirs = services.game_create(creator=bob, variant=classic, seat_count=2, invitees=[ann], seed=4)
    services.game_resign(game_id=mine[1].pk, user=ann)  # a bot plays that seat now ...
    Game.objects.filter(pk=mine[1].pk).update(status=Game.Status.ACTIVE, current_seat=0)  # ... even its turn
    Game.objects.filter(pk=mine[2].pk).update(status=Game.Status.FINISHED)
    waiting = [game.pk for game in selectors.games_waiting_on(user=ann)]
    assert waiting == [mine[0].pk] + ([theirs.pk] if theirs.current_seat == 1 else [])
    assert selectors.turns_waiting_count(user=ann) == len(waiting)
    assert selectors.turns_waiting_count(user=bob) == (1 if theirs.current_seat == 0 else 0)


def test_resigning_needs_a_confirmation_then_a_bot_takes_the_seat_and_i_rank_last(make_user, classic):
    ann = make_user("ann")
    game = solo_game(ann, classic, seed=7)
    client = logged_in(ann)
    before = state_fingerprint(game)
    response = client.post(f"/games/{game.pk}/resign/", {})
    assert response.status_code == 400 and "confirm" in response.content.decode()
    assert state_fingerprint(game) == before

    response = client.post(f"/games/{game.pk}/resign/", {"confirm": "yes"})
    assert response.status_code == 302
    game.refresh_from_db()
    seat = game.seats.get(user=ann)
    assert seat.bot_level and seat.left == Seat.Left.RESIGNED
    assert game.status == Game.Status.FINISHED  # only bots were left: they played it out
    context = client.get(game.get_absolute_url()).context
    standings = context["standings"]
    assert standings[-1]["name"] == ann.shown_name and not standings[-1]["winner"]
    assert standings[-1]["place"] == 3
    response = client.post(f"/games/{game.pk}/resign/", {"confirm": "yes"})
    assert response.status_code == 409


def test_resign_is_refused_to_strangers_and_before_the_start(make_user, classic):
    ann, eve = make_user("ann"), make_user("eve")
    game = solo_game(ann, classic, seed=7)
    before = state_fingerprint(game)
    assert logged_in(eve).post(f"/games/{game.pk}/resign/", {"confirm": "yes"}).status_code == 403
    assert Client().post(f"/games/{game.pk}/resign/", {"confirm": "yes"}).status_code == 403
    assert state_fingerprint(game) == before
    waiting = services.game_create(creator=ann, variant=classic, seat_count=2)
    assert logged_in(ann).post(f"/games/{waiting.pk}/resign/", {"confirm": "yes"}).status_code == 409


def test_a_person_who_left_ranks_below_everyone_who_stayed():
    seats = [Seat(position=0, left="resigned"), Seat(position=1), Seat(position=2, left="timed_out")]
    rows = selectors.final_standings(seats, [10, 50, 5])
    assert [r["score"] for r in rows] == [50, 5, 10]
    assert [r["place"] for r in rows] == [1, 2, 3] and [r["winner"] for r in rows] == [True, False, False]


def test_a_private_game_is_joined_only_through_its_invite_link(make_user, classic):
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, is_private=True)
    assert game not in selectors.games_open_to_join(user=bob)
    lobby = logged_in(bob).get("/").content.decode()
    assert f"/games/{game.pk}/join/" not in lobby

    bob_client = logged_in(bob)
    response = bob_client.post(f"/games/{game.pk}/join/")
    assert response.status_code == 403 and "invite link" in response.content.decode()
    assert logged_in(eve).get(f"/games/{game.pk}/invite/wrong-token/").status_code == 404
    assert logged_in(eve).post(f"/games/{game.pk}/invite/wrong-token/").status_code == 404

    table = logged_in(ann).get(game.get_absolute_url()).content.decode()
    link = re.search(r'value="http://testserver(/games/\d+/invite/[^"/]+/)"', table).group(1)
    page = bob_client.get(link)
    assert page.status_code == 200 and "Take a seat" in page.content.decode()
    assert bob_client.post(link).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.seats.filter(user=bob).exists()
    again = logged_in(eve).post(link)
    assert again.status_code == 409


def test_the_invite_page_asks_a_visitor_to_log_in_first(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, is_private=True)
    link = game.invite_path()
    page = Client().get(link).content.decode()
    assert "Log in" in page and "next=" in page
    response = Client().post(link)
    assert response.status_code == 403
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN


@pytest.mark.parametrize("via_log_in_page", [False, True])
def test_signing_up_from_an_invite_link_comes_back_to_it(make_user, classic, via_log_in_page):
    """The invite page's Sign up (or Log in, then "New here? Sign up") keeps the way back to the invite."""
    game = services.game_create(creator=make_user("ann"), variant=classic, seat_count=2, is_private=True)
    link = game.invite_path()
    visitor = Client()
    page = visitor.get(link).content.decode()
    signup = re.search(r'href="(/accounts/signup/\?next=[^"]*)"', page).group(1)
    if via_log_in_page:
        login = re.search(r'href="(/accounts/login/\?next=[^"]*)"', page).group(1)
        signup = re.search(r'href="(/accounts/signup/\?next=[^"]*)"', visitor.get(login).content.decode()).group(1)
    form = visitor.get(signup).content.decode()
    assert f'name="next" value="{link}"' in form
    data = {"username": "newcomer", "email": "new@example.com", "password1": "a-long-pass-phrase-42"}
    response = visitor.post(signup, {**data, "password2": data["password1"], "next": link})
    assert response.status_code == 302 and response["Location"] == link
    assert "Take a seat" in visitor.get(link).content.decode()


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example/",
        "/\\evil.example/",
        "javascript:alert(1)",
        "password_reset_confirm",  # a URL's name: never reversed (it needs arguments: that was a 500)
        "profile",
    ],
)
def test_sign_up_goes_on_only_to_a_page_of_this_site(db, target):
    data = {"username": "newcomer", "email": "new@example.com", "password1": "a-long-pass-phrase-42"}
    response = Client().post("/accounts/signup/", {**data, "password2": data["password1"], "next": target})
    assert response.status_code == 302 and response["Location"] == "/"


def three_seat_game(ann: Any, bob: Any, classic: Any, **options: Any) -> Game:
    """Ann, Bob and a bot, in play: one round of three cards."""
    return services.game_create(
        creator=ann,
        variant=classic,
        seat_count=3,
        bot_count=1,
        invitees=[bob],
        options={"rounds": [3]},
        seed=9,
        **options,
    )


def finished_by_resigning(game: Game, *people: Any) -> Game:
    """``game`` played out by the bots once each of ``people`` resigned."""
    for person in people:
        game.refresh_from_db()
        if game.status != Game.Status.FINISHED:
            services.game_resign(game_id=game.pk, user=person)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    return game


def finished_three_seat_game(ann: Any, bob: Any, classic: Any, **options: Any) -> Game:
    return finished_by_resigning(three_seat_game(ann, bob, classic, **options), ann, bob)


def test_rematch_creates_one_new_game_with_the_same_people_and_options(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = three_seat_game(ann, bob, classic, time_limit_seconds=3 * 24 * 3600, coach=True)
    assert logged_in(ann).post(f"/games/{game.pk}/rematch/").status_code == 409  # not finished yet
    finished_by_resigning(game, ann, bob)
    response = logged_in(bob).post(f"/games/{game.pk}/rematch/")
    assert response.status_code == 302
    new = Game.objects.get(rematch_of=game)
    assert response["Location"] == new.get_absolute_url()
    assert (new.rules, new.seat_count, new.time_limit_seconds, new.coach) == (
        game.rules,
        game.seat_count,
        game.time_limit_seconds,
        game.coach,
    )
    # Bob sits, the bot sits, a seat is held for Ann: nobody is dealt in by another's click.
    seats = {s.position: s for s in new.seats.all()}
    ann_at, bob_at = game.seats.get(user=ann).position, game.seats.get(user=bob).position
    assert seats[bob_at].user_id == bob.pk and seats[ann_at].user_id is None and seats[ann_at].reserved_for_id == ann.pk
    old_bot = next(s for s in game.seats.all() if s.user_id is None)
    assert seats[old_bot.position].bot_level == old_bot.bot_level
    assert new.status == Game.Status.OPEN and new.state is None and new.seed != game.seed
    page = logged_in(ann).get(game.get_absolute_url()).content.decode()
    assert "Take your seat in the rematch" in page and "A rematch waits for you" in page
    # Ann asking too takes the seat held for her; the last seat taken deals.
    response = logged_in(ann).post(f"/games/{game.pk}/rematch/")
    assert response["Location"] == new.get_absolute_url() and Game.objects.filter(rematch_of=game).count() == 1
    new.refresh_from_db()
    assert new.status == Game.Status.ACTIVE and new.seats.get(position=ann_at).user_id == ann.pk
    assert logged_in(make_user("eve")).post(f"/games/{game.pk}/rematch/").status_code == 403
    page = logged_in(ann).get(game.get_absolute_url()).content.decode()
    assert "Go to the rematch" in page and "Take your seat in the rematch" not in page
    # Asking once more only leads there.
    assert logged_in(bob).post(f"/games/{game.pk}/rematch/")["Location"] == new.get_absolute_url()
    assert Game.objects.filter(rematch_of=game).count() == 1


def test_a_rematch_deals_nobody_into_a_rated_game_of_short_turns_without_their_click(make_user, classic):
    """One player's click used to seat everyone and deal: with 30-second turns the clock then played and
    rated the others' turns. Now the others' seats wait for them, the game has no clock, and they may decline."""
    ann, bob = make_user("ann"), make_user("bob")
    game = finished_three_seat_game(ann, bob, classic, time_limit_seconds=30)
    new = services.game_rematch(game_id=game.pk, user=ann)
    assert new.status == Game.Status.OPEN and new.turn_deadline is None and new.state is None
    assert not new.seats.filter(user=bob).exists()
    # Bob's lobby lists it as an invitation; he declines, and a bot takes the seat: a rematch is the same
    # people, and a stranger who took a declined seat dealt it at once to those who had taken theirs (a tester).
    bob_at = new.seats.get(reserved_for=bob).position
    response = logged_in(bob).post(f"/games/{new.pk}/decline/", follow=True)
    assert "You declined: a bot takes the seat held for you." in response.content.decode()
    new.refresh_from_db()
    assert not new.seats.filter(reserved_for=bob).exists() and new.seats.get(position=bob_at).bot_level == "medium"
    # That was the last seat, yet nothing is dealt: ann may have gone hours ago, and the clock would play and
    # rate her 30-second turns (a review). She starts it.
    assert new.status == Game.Status.OPEN and new.turn_deadline is None
    response = logged_in(bob).post(f"/games/{game.pk}/rematch/", follow=True)
    assert "You took your seat" not in response.content.decode()  # he did not: asking only leads there
    assert not new.seats.filter(user=bob).exists()
    page = logged_in(ann).get(new.get_absolute_url()).content.decode()
    assert "Start the game" in page and "bots take the open seats" not in page
    assert "the cards are dealt when the game is started" in page and new.invite_path() not in page
    services.game_start(game_id=new.pk, user=ann)
    new.refresh_from_db()
    assert new.status == Game.Status.ACTIVE and new.seats.filter(user__isnull=True, bot_level="").count() == 0


def test_a_seat_declined_in_a_rematch_of_more_people_waits_as_a_bots_and_no_stranger_sits(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, invitees=[bob, cid], options={"rounds": [3]}, seed=9
    )
    for person in (ann, bob, cid):
        services.game_resign(game_id=game.pk, user=person)
    new = services.game_rematch(game_id=game.pk, user=ann)
    services.game_decline(game_id=new.pk, user=bob)
    new.refresh_from_db()
    assert new.status == Game.Status.OPEN  # cid's seat still waits for him
    assert logged_in(make_user("eve")).post(f"/games/{new.pk}/join/").status_code == 409
    assert not new.seats.filter(user__username="eve").exists()
    services.game_join(game_id=new.pk, user=cid)
    new.refresh_from_db()
    assert new.status == Game.Status.ACTIVE
    assert sorted(s.user.username if s.user else s.bot_level for s in new.seats.all()) == ["ann", "cid", "medium"]


def test_a_rematch_without_other_people_is_dealt_at_once(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, options={"rounds": [3]}, seed=9
    )
    services.game_resign(game_id=game.pk, user=ann)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    new = services.game_rematch(game_id=game.pk, user=ann)
    assert new.status == Game.Status.ACTIVE and new.current_seat is not None


def test_a_rematch_gives_a_deactivated_persons_seat_to_a_bot(make_user, classic, role_client):
    """Seated again, an account nobody can log in to would hold the game up for days of timeouts."""
    ann, bob = make_user("ann"), make_user("bob")
    game = finished_three_seat_game(ann, bob, classic)
    services.user_deactivate(user_id=bob.pk, moderator=role_client("moderator")[1], reason="spam")
    response = logged_in(ann).post(f"/games/{game.pk}/rematch/")
    assert response.status_code == 302
    new = Game.objects.get(rematch_of=game)
    seats = {s.position: s for s in new.seats.all()}
    bob_position = game.seats.get(user=bob).position
    assert seats[bob_position].user_id is None and seats[bob_position].bot_level == "medium"
    assert seats[bob_position].reserved_for_id is None
    assert seats[game.seats.get(user=ann).position].user_id == ann.pk
    names = [s.bot_name for s in seats.values() if s.is_bot]
    assert len(names) == 2 and len(set(names)) == 2 and all(names)
    assert new.status == Game.Status.ACTIVE and new.current_seat is not None


def test_the_create_form_offers_live_and_asynchronous_time_limits_and_refuses_others(make_user, classic):
    client = logged_in(make_user("ann"))
    page = client.get("/").content.decode()
    for label in ("30 seconds", "2 minutes", "12 hours", "1 day", "3 days", "7 days"):
        assert label in page
    response = client.post(
        "/games/new/",
        {"variant": classic.pk, "hard_bots": 1, "time_limit_seconds": 999},
    )
    assert response.status_code == 400 and not Game.objects.exists()
    response = client.post(
        "/games/new/",
        {
            "variant": classic.pk,
            "hard_bots": 1,
            "time_limit_seconds": 43200,
            "is_private": "on",
        },
    )
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.is_private and game.time_limit_seconds == 43200 and game.is_async


def test_hard_bots_play_on_the_site_with_the_rounds_history(make_user, classic):
    ann = make_user("ann")
    game = solo_game(ann, classic, bot_level="hard", seed=12)
    client = logged_in(ann)
    for _ in range(30):
        game.refresh_from_db()
        if game.status == Game.Status.FINISHED:
            break
        assert post_action(client, game, {"type": "draw", "source": "stock"}).status_code == 302
        view = selectors.game_table(game=Game.objects.get(pk=game.pk), user=ann)
        card = next(face["code"] for face in view["hand"] if face["can_discard"])
        assert post_action(client, game, {"type": "discard", "card": card}).status_code == 302
    assert game.moves.filter(by_bot=True).exists()


def test_a_rematch_called_off_before_its_deal_gives_way_to_a_new_one(
    make_user, classic, role_client, django_capture_on_commit_callbacks
):
    """A review: the asker leaving the open rematch (or a moderator calling it off) aborted it, and the
    finished game pointed at it for good: no new rematch, "Go to the rematch" to a dead table, its pages
    not told."""
    ann, bob = make_user("ann"), make_user("bob")
    game = finished_three_seat_game(ann, bob, classic)
    for call_off in (
        lambda new: services.game_leave(game_id=new.pk, user=ann),
        lambda new: services.game_abort(game_id=new.pk, moderator=role_client("moderator")[1], reason="test"),
    ):
        new = services.game_rematch(game_id=game.pk, user=ann)
        version = Game.objects.get(pk=game.pk).version
        with django_capture_on_commit_callbacks(execute=True):
            call_off(new)
        assert Game.objects.get(pk=new.pk).status == Game.Status.ABORTED
        assert Game.objects.get(pk=game.pk).version > version  # its open pages fetch it again
        page = logged_in(bob).get(game.get_absolute_url()).content.decode()
        assert "Go to the rematch" not in page and "Take your seat in the rematch" not in page
        assert ">Rematch</button>" in page
        again = services.game_rematch(game_id=game.pk, user=bob)
        assert again.pk != new.pk and again.status == Game.Status.OPEN and again.rematch_of_id == game.pk
        services.game_leave(game_id=again.pk, user=bob)  # (for the next way of calling it off)


def test_a_rematch_holds_seats_within_the_invitation_limits(make_user, classic):
    """A review: rematches asked for again and again held 12 seats for Bob from one person (invitations by
    name stop at 2 from one creator), and nobody could invite him to a table any more."""
    ann, bob = make_user("ann"), make_user("bob")
    games = [finished_three_seat_game(ann, bob, classic) for _ in range(3)]
    for game in games[:2]:
        services.game_rematch(game_id=game.pk, user=ann)
    response = logged_in(ann).post(f"/games/{games[2].pk}/rematch/")
    assert response.status_code == 409 and "cannot be invited to more tables now" in response.content.decode()
    assert not Game.objects.filter(rematch_of=games[2]).exists()
    # Bob declining one lets Ann ask again.
    services.game_decline(game_id=Game.objects.get(rematch_of=games[0]).pk, user=bob)
    assert services.game_rematch(game_id=games[2].pk, user=ann).status == Game.Status.OPEN


def test_the_seat_taken_in_a_rematch_carries_the_persons_own_contribution(make_user, classic):
    """A review: the finished table's "Take your seat" had no contribution field, so the site made one up,
    later than a contribution typed before it, which then no longer protected the deal."""
    ann, bob = make_user("ann"), make_user("bob")
    game = finished_three_seat_game(ann, bob, classic)
    new = services.game_rematch(game_id=game.pk, user=ann)
    page = logged_in(bob).get(game.get_absolute_url()).content.decode()
    assert 'name="seed_contribution"' in page
    refused = logged_in(bob).post(f"/games/{game.pk}/rematch/", {"seed_contribution": "é" * 3})
    assert refused.status_code == 400 and not new.seats.filter(user=bob).exists()
    logged_in(bob).post(f"/games/{game.pk}/rematch/", {"seed_contribution": "bob typed this"})
    seat = new.seats.get(user=bob)
    assert (seat.seed_contribution, seat.seed_contribution_source) == ("bob typed this", Seat.Contribution.PLAYER)


def test_a_players_only_rematch_started_without_a_person_is_not_a_dead_link_for_them(make_user, classic):
    """A review: "Go to the rematch" (and asking) led to a 403 once a players-only rematch started without them."""
    ann, bob = make_user("ann"), make_user("bob")
    game = finished_three_seat_game(ann, bob, classic, spectators_allowed=False)
    new = services.game_rematch(game_id=game.pk, user=ann)
    services.game_start(game_id=new.pk, user=ann)
    page = logged_in(bob).get(game.get_absolute_url()).content.decode()
    assert "Go to the rematch" not in page and ">Rematch</button>" not in page
    assert "The rematch is under way without you." in page
    response = logged_in(bob).post(f"/games/{game.pk}/rematch/", follow=True)
    assert response.status_code == 200 and response.redirect_chain[-1][0] == game.get_absolute_url()


def test_one_who_declined_a_players_only_rematch_is_told_it_waits_then_that_it_is_under_way(make_user, classic):
    """Found by a tester: "The rematch is under way without you" while it still waited for its players."""
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, invitees=[bob, cid], spectators_allowed=False, seed=9
    )
    for person in (ann, bob, cid):
        services.game_resign(game_id=game.pk, user=person)
    new = services.game_rematch(game_id=game.pk, user=ann)
    services.game_decline(game_id=new.pk, user=bob)
    page = logged_in(bob).get(game.get_absolute_url()).content.decode()
    assert "The rematch waits for its other players, without you." in page and "under way" not in page
    asked = logged_in(bob).post(f"/games/{game.pk}/rematch/", follow=True).content.decode()
    assert "The rematch waits for its other players, without you." in asked
    services.game_join(game_id=new.pk, user=cid)  # the last seat: dealt
    page = logged_in(bob).get(game.get_absolute_url()).content.decode()
    assert "The rematch is under way without you." in page and "waits for its other players" not in page


def test_the_rematch_hint_says_who_is_asked(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    with_people = logged_in(ann).get(finished_three_seat_game(ann, bob, classic).get_absolute_url())
    assert "the other people at the table are asked" in with_people.content.decode()
    alone = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]})
    finished_by_resigning(alone, ann)
    page = logged_in(ann).get(alone.get_absolute_url()).content.decode()
    assert "A new game with the same players and options." in page and "are asked" not in page


def test_a_person_deactivated_after_being_asked_to_a_rematch_leaves_a_bot_not_an_open_seat(
    make_user, classic, role_client
):
    """A review: their held seat opened to anyone, and a stranger took it at a public rematch; deactivated
    before the rematch was asked for, a bot took it. Now a bot takes it either way (here the last seat, which
    deals nothing: its creator starts it, as after a decline)."""
    ann, bob = make_user("ann"), make_user("bob")
    game = finished_three_seat_game(ann, bob, classic)
    new = services.game_rematch(game_id=game.pk, user=ann)
    services.user_deactivate(user_id=bob.pk, moderator=role_client("moderator")[1], reason="spam")
    seat = new.seats.get(position=game.seats.get(user=bob).position)
    assert seat.user_id is None and seat.reserved_for_id is None and seat.bot_level == "medium"
    new.refresh_from_db()
    assert new.status == Game.Status.OPEN
    eve = make_user("eve")
    assert logged_in(eve).post(f"/games/{new.pk}/join/").status_code == 409


def test_a_rematch_a_moderator_aborted_in_play_still_stands_for_its_finished_game(make_user, classic, role_client):
    """A review: only a rematch called off before its deal gives way to a new one; one aborted in play keeps
    its place (its table says why), as before."""
    ann, bob = make_user("ann"), make_user("bob")
    game = finished_three_seat_game(ann, bob, classic)
    new = services.game_rematch(game_id=game.pk, user=ann)
    services.game_rematch(game_id=game.pk, user=bob)  # his seat: dealt
    services.game_abort(game_id=new.pk, moderator=role_client("moderator")[1], reason="collusion")
    assert services.game_rematch(game_id=game.pk, user=bob).pk == new.pk
    assert "Go to the rematch" in logged_in(bob).get(game.get_absolute_url()).content.decode()
