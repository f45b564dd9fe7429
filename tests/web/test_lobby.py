from __future__ import annotations

import re

import pytest

from games import services
from games.models import Game, Variant

from .conftest import logged_in

pytestmark = pytest.mark.django_db

#: The create form's seats when nobody sits with you (each test adds its own).
SEATS = {"people": 0, "easy_bots": 0, "medium_bots": 0, "hard_bots": 0}


def test_every_engine_preset_is_a_variant(db):
    from games.engine import PRESETS

    assert set(Variant.objects.values_list("slug", flat=True)) >= set(PRESETS)
    for slug, (_name, rules) in PRESETS.items():
        assert Variant.objects.get(slug=slug).options == rules.to_dict()


def test_create_a_game_with_bots_from_the_lobby_form(make_user, classic):
    ann = make_user("ann")
    client = logged_in(ann)
    response = client.post(
        "/games/new/",
        {
            "variant": classic.pk,
            "people": 0,
            "easy_bots": 1,
            "medium_bots": 1,
            "hard_bots": 1,
            "expert_bots": 1,
            "invite": "",
            "time_limit_seconds": 120,
            "round_count": 2,
            "coach": "on",
        },
    )
    assert response.status_code == 302
    game = Game.objects.get()
    assert game.status == Game.Status.ACTIVE and game.coach and game.time_limit_seconds == 120
    assert game.rules["rounds"] == [3, 4]
    # One bot of each level: several levels at one table, each named with its level.
    assert [s.bot_level for s in game.seats.order_by("position")] == ["", "easy", "medium", "hard", "expert"]
    assert game.current_seat == 0  # the bots have played up to the person's turn
    page = client.get(response["Location"]).content.decode()
    assert "Your turn" in page and "Draw from stock" in page
    assert "bot · easy" in page and "bot · medium" in page and "bot · hard" in page and "bot · expert" in page


def test_the_lobby_offers_the_expert_bot_in_both_forms(make_user, classic):
    page = logged_in(make_user("ann")).get("/").content.decode()
    assert 'name="expert_bots"' in page and "Expert bots" in page
    assert '<option value="expert">expert</option>' in page  # "Play now": the level of its bots
    assert "Expert ones try each choice" in page


def test_the_game_keeps_its_rule_options_when_the_variant_is_edited(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2)
    classic.options = {**classic.options, "jokers_per_deck": 2}
    classic.save()
    game.refresh_from_db()
    assert game.rules["jokers_per_deck"] == 0


def test_create_form_errors_are_shown(make_user, classic):
    client = logged_in(make_user("ann"))
    response = client.post(
        "/games/new/",
        {**SEATS, "variant": classic.pk, "people": 3, "medium_bots": 5, "time_limit_seconds": 120},
    )
    assert response.status_code == 400
    assert "A table has at most 8 seats" in response.content.decode()
    response = client.post(
        "/games/new/",
        {
            "variant": classic.pk,
            **SEATS,
            "people": 2,
            "invite": "nobody",
            "time_limit_seconds": 120,
        },
    )
    assert response.status_code == 400 and "No player is called" in response.content.decode()
    assert not Game.objects.exists()


def test_a_refused_new_game_says_so_at_the_top_of_the_lobby(make_user, classic):
    # On a phone the form is below the lists: the refusal must be seen without scrolling.
    client = logged_in(make_user("ann"))
    assert "The game was not created." not in client.get("/").content.decode()
    html = client.post(
        "/games/new/",
        {**SEATS, "variant": classic.pk, "people": 3, "medium_bots": 5, "time_limit_seconds": 120},
    ).content.decode()
    notice = html.index("The game was not created.")
    assert notice < html.index('id="my-games"') and '<a href="#new-game">' in html[notice : notice + 200]
    assert 'id="new-game"' in html


def test_one_person_waits_at_three_tables_they_made_at_most(make_user, classic):
    """Found by a tester: one account made 32 open tables in a second, and the lobby (the newest 30) listed
    nobody else's.  Tables dealt at once (bots only) wait for nobody, and a table they left counts no more."""
    ann, bob = make_user("ann"), make_user("bob")
    client = logged_in(ann)
    form = {**SEATS, "variant": classic.pk, "people": 1, "medium_bots": 1, "time_limit_seconds": 86400}
    for _ in range(services.MAX_OPEN_TABLES):
        assert client.post("/games/new/", form).status_code == 302
    waiting = list(Game.objects.filter(created_by=ann, status=Game.Status.OPEN))
    before = Game.objects.count()
    refused = client.post("/games/new/", form)
    assert refused.status_code == 409 and Game.objects.count() == before
    assert "You have 3 tables waiting for players: start or leave one before you make another." in (
        refused.content.decode()
    )
    assert client.post("/games/new/", {**form, "people": 0, "medium_bots": 2}).status_code == 302  # dealt at once
    services.game_join(game_id=waiting[0].pk, user=bob)  # full: it starts, and waits for nobody
    assert client.post("/games/new/", form).status_code == 302
    services.game_leave(game_id=waiting[1].pk, user=ann)  # called off: ann waits there no more
    assert client.post("/games/new/", form).status_code == 302
    assert client.post("/games/new/", form).status_code == 409
    assert logged_in(bob).post("/games/new/", form).status_code == 302  # one person's limit, not everyone's


def test_invited_people_take_the_seats_held_for_them_and_open_seats_are_joined(make_user, classic):
    ann, bob, cleo = make_user("ann"), make_user("bob"), make_user("cleo")
    client = logged_in(ann)
    response = client.post(
        "/games/new/",
        {
            "variant": classic.pk,
            **SEATS,
            "people": 2,
            "invite": "bob",
            "time_limit_seconds": 86400,
        },
    )
    game = Game.objects.get()
    assert response.status_code == 302 and game.status == Game.Status.OPEN
    seats = [(s.user, s.reserved_for) for s in game.seats.order_by("position")]
    assert seats == [(ann, None), (None, bob), (None, None)]
    lobby = logged_in(cleo).get("/").content.decode()
    assert f"/games/{game.pk}/join/" in lobby
    assert logged_in(cleo).post(f"/games/{game.pk}/join/").status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN  # bob's seat is still held for him
    assert logged_in(bob).post(f"/games/{game.pk}/join/").status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert [s.user for s in game.seats.order_by("position")] == [ann, bob, cleo]


def test_the_same_person_invited_twice_in_any_case_takes_one_seat(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    response = logged_in(ann).post(
        "/games/new/",
        {"variant": classic.pk, **SEATS, "people": 2, "invite": "bob, BOB; Bob", "time_limit_seconds": 86400},
    )
    game = Game.objects.get()
    assert response.status_code == 302
    seats = [(s.user, s.reserved_for) for s in game.seats.order_by("position")]
    assert seats == [(ann, None), (None, bob), (None, None)]


def test_the_same_person_twice_does_not_need_two_seats(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    response = logged_in(ann).post(
        "/games/new/",
        {"variant": classic.pk, **SEATS, "people": 1, "invite": "BOB, bob", "time_limit_seconds": 86400},
    )
    assert response.status_code == 302
    assert [s.reserved_for for s in Game.objects.get().seats.order_by("position")] == [None, bob]


@pytest.mark.parametrize("invite", ["ann", "ANN", "bob, Ann"])
def test_inviting_yourself_is_a_form_error(make_user, classic, invite):
    ann, _bob = make_user("ann"), make_user("bob")
    response = logged_in(ann).post(
        "/games/new/",
        {"variant": classic.pk, **SEATS, "people": 2, "invite": invite, "time_limit_seconds": 86400},
    )
    assert response.status_code == 400
    assert "You have a seat at your own table already: invite other players." in response.content.decode()
    assert not Game.objects.exists()


def test_lobby_lists_games_waiting_on_me_first(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    waiting = []
    for seed in range(6):
        game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=seed)
        services.game_join(game_id=game.pk, user=bob)
        game.refresh_from_db()
        if game.current_seat == 0:
            waiting.append(game.pk)
    assert waiting and len(waiting) < 6
    response = logged_in(ann).get("/")
    my_games = response.context["my_games"]
    flags = [g.my_turn for g in my_games]
    assert flags == sorted(flags, reverse=True)
    assert {g.pk for g in my_games if g.my_turn} == set(waiting)
    assert response.context["turns_waiting"]() == len(waiting)  # counted when the header asks
    assert re.search(rf'id="turns-waiting"[^>]*>{len(waiting)}<', response.content.decode())


def test_leave_before_start_and_creator_starts_with_bots(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    services.game_join(game_id=game.pk, user=bob)
    assert logged_in(bob).post(f"/games/{game.pk}/leave/").status_code == 302
    assert game.seats.filter(user=bob).count() == 0
    assert logged_in(ann).post(f"/games/{game.pk}/start/").status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert game.seats.filter(bot_level="medium").count() == 2


def test_the_last_person_leaving_aborts_the_game(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2)
    assert logged_in(ann).post(f"/games/{game.pk}/leave/").status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED


def test_table_page_shows_what_a_player_needs(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=1, coach=True)
    client = logged_in(ann)
    page = client.get(f"/games/{game.pk}/").content.decode()
    for words in ("Round 1 of 11", "Wild", "Stock", "Discard pile", "Your hand", "by rank", "Ada"):
        assert words in page
    # Draw, then the coach shows a number under every card.
    client.post(f"/games/{game.pk}/play/", {"version": Game.objects.get().version, "type": "draw", "source": "stock"})
    response = client.get(f"/games/{game.pk}/?sort=rank")
    assert response.context["hand"] and all(f["penalty"] is not None for f in response.context["hand"])
    codes = [f["code"] for f in response.context["hand"]]
    assert client.get(f"/games/{game.pk}/table/").context["sort"] == "rank"  # remembered
    partial = client.get(f"/games/{game.pk}/table/").content.decode()
    assert "<html" not in partial and 'id="table"' in partial
    assert all(code in partial for code in codes)


def test_round_summary_and_rules_pages(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=1)
    client = logged_in(ann)
    assert client.get(f"/games/{game.pk}/rounds/1/").status_code == 404
    assert client.get(f"/games/{game.pk}/rules/").status_code == 200
    from games import bots

    from .conftest import engine_view, post_action

    while not game.round_results.exists():
        post_action(client, game, bots.choose_action(engine_view(game, 0)).to_dict())
    page = client.get(f"/games/{game.pk}/rounds/1/")
    assert page.status_code == 200 and "Round 1" in page.content.decode()


def test_when_the_creator_leaves_the_next_person_may_start(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    services.game_join(game_id=game.pk, user=bob)
    assert logged_in(ann).post(f"/games/{game.pk}/leave/").status_code == 302
    assert logged_in(bob).post(f"/games/{game.pk}/start/").status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.created_by == bob


def test_open_tables_say_how_long_a_move_may_take(make_user, classic):
    # A 30-second live table and a 7-day one are different promises: say which before joining.
    ann = make_user("ann")
    for seconds in (30, 7 * 24 * 3600):
        logged_in(ann).post(
            "/games/new/",
            {
                "variant": classic.pk,
                **SEATS,
                "people": 1,
                "time_limit_seconds": seconds,
            },
        )
    live, slow = Game.objects.order_by("pk")
    html = logged_in(make_user("bob")).get("/").content.decode()
    rows = {
        game.pk: html[html.index(f"#{game.pk}</span>") : html.index(f"/games/{game.pk}/join/")] for game in (live, slow)
    }
    assert "30 seconds" in rows[live.pk] and "7 days" not in rows[live.pk]
    assert "7 days" in rows[slow.pk] and "30 seconds" not in rows[slow.pk]


def test_my_games_says_none_in_play_when_only_finished_games_are_listed(make_user, classic):
    ann = make_user("ann")
    client = logged_in(ann)
    assert "No games yet." in client.get("/").content.decode()  # a newcomer
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=3)
    html = client.get("/").content.decode()
    assert "No games yet." not in html and "No game in play." not in html  # it is listed under My games
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    html = client.get("/").content.decode()
    my_games = html[html.index('id="my-games"') : html.index("</section>", html.index('id="my-games"'))]
    assert "No game in play." in my_games and "No games yet." not in html
    assert f"#{game.pk}" in html[html.index("</section>", html.index('id="my-games"')) :]  # under Finished


@pytest.mark.parametrize("path", ["/", "/games/mine/"])
def test_the_lists_of_games_are_never_kept_by_the_browser(make_user, path):
    """Back from a table, the browser showed the lobby from its cache: without the game just made."""
    response = logged_in(make_user("ann")).get(path)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]


def test_more_rounds_than_the_variant_has_is_a_form_error(make_user, classic):
    """Found by a tester: "Rounds: 25" for the 11-round classic game made a game of 11 rounds without a
    word, as if the field had been left empty."""
    client = logged_in(make_user("ann"))
    data = {**SEATS, "variant": classic.pk, "medium_bots": 1, "time_limit_seconds": 120}
    response = client.post("/games/new/", {**data, "round_count": 12})
    assert response.status_code == 400
    assert response.context["form"].errors["round_count"] == ["This variant has 11 rounds: choose 11 or fewer."]
    assert not Game.objects.exists()
    assert client.post("/games/new/", {**data, "round_count": 11}).status_code == 302
    assert Game.objects.get().rules["rounds"] == list(range(3, 14))
