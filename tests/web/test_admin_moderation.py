"""Moderation in the admin: games listed and shown, abort / hand a seat to a bot / deactivate a user,
each with a reason and an audit record nobody can edit; who may do what."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from games import services
from games.engine import GameState, view
from games.models import AuditRecord, Game, Seat, Variant
from games.presentation import short_name

from .conftest import ROLES, logged_in, post_action, state_fingerprint

REASON = "Reported for abusive chat; confirmed from the log."


def seat_user(game: Game, position: int):
    return game.seats.get(position=position).user


def audit_count() -> int:
    return AuditRecord.objects.count()


# -- the game list and page ---------------------------------------------------------------


def test_games_are_listed_with_filters_and_found_by_user_name(make_user, classic, role_client):
    client, _mod = role_client("moderator")
    ann, bob, cleo = make_user("ann"), make_user("bob"), make_user("cleo")
    cleo.display_name = "Cleopatra"
    cleo.save()
    jokers = Variant.objects.get(slug="jokers")
    g1 = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1)  # active
    g2 = services.game_create(creator=bob, variant=jokers, seat_count=3)  # open
    g3 = services.game_create(creator=cleo, variant=classic, seat_count=2)
    services.game_leave(game_id=g3.pk, user=cleo)  # aborted

    def listed(query: str) -> set[int]:
        response = client.get(f"/admin/games/game/{query}")
        assert response.status_code == 200, query
        return {game.pk for game in response.context["cl"].result_list}

    assert listed("") == {g1.pk, g2.pk, g3.pk}
    assert listed("?status__exact=active") == {g1.pk}
    assert listed("?status__exact=aborted") == {g3.pk}
    assert listed(f"?variant__id__exact={jokers.pk}") == {g2.pk}
    assert listed("?player=ann") == {g1.pk}
    assert listed("?player=BOB&status__exact=open") == {g2.pk}
    assert listed("?player=nobody") == set()
    assert listed("?q=ann") == {g1.pk}
    assert listed("?q=cleopat") == set()  # she left g3: no seat any more
    g2_cleo = services.game_create(creator=cleo, variant=classic, seat_count=3)
    assert listed("?q=cleopat") == {g2_cleo.pk}
    day = g1.created_at
    assert g1.pk in listed(f"?created_at__year={day.year}&created_at__month={day.month}&created_at__day={day.day}")
    assert listed("?created_at__year=2000") == set()
    page = client.get("/admin/games/game/?player=ann").content.decode()
    assert 'name="player" value="ann"' in page  # the filter's text box keeps what was typed


def test_a_seat_held_for_a_person_invited_names_them(make_user, classic, role_client):
    """A helper: the admin's seat list said "open seat" for a seat only the person invited may take."""
    client, _moderator = role_client("moderator")
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, invited=[bob])
    page = client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    bobs = reverse("admin:accounts_user_change", args=[bob.pk])
    assert re.search(rf'held for <a href="{re.escape(bobs)}">bob</a>', page), page


def test_a_games_page_shows_seats_move_log_and_round_results_but_no_hidden_cards(make_user, classic, role_client):
    client, moderator = role_client("moderator")
    ann, bob = make_user("ann"), make_user("bob")
    finished = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3, 4]}, seed=5
    )
    services.seat_hand_to_bot(game_id=finished.pk, position=0, moderator=moderator, reason=REASON)
    finished.refresh_from_db()
    assert finished.status == Game.Status.FINISHED and finished.round_results.count() == 4
    response = client.get(f"/admin/games/game/{finished.pk}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    for title in ("Seats", "Round results", "Move log", "Moderation of this game"):
        assert title in page, title
    assert f"Move log ({finished.moves.count()} moves)" in page
    assert len(response.context["move_log"]) == finished.moves.count()
    move = finished.moves.filter(action__type="discard").first()
    assert f"discards {short_name(move.action['card'])}" in page  # "10♣", as the site writes it, not "TC"
    result = finished.round_results.filter(went_out=False).first()
    assert " ".join(short_name(card) for card in result.deadwood) in page
    assert REASON in page and "ann" in page
    assert 'name="_save"' not in page  # nothing here is edited by hand

    # An active game: nothing on the page gives away a hand or the stock.
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=918_273_645_546)
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    page = client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    state = GameState.from_dict(game.state)
    hidden = set(view(state, 0).to_dict()["hand"]) | set(view(state, 1).to_dict()["hand"])
    shown = set(re.findall(r"\b[A2-9TJQK][CDHS]\b", page))
    assert not hidden & shown
    assert "engine state" not in page.lower() and "918273645546" not in page


# -- abort ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changelist", "action"),
    [
        ("/admin/games/game/", "abort_games"),
        ("/admin/games/seat/", "hand_to_bot"),
        ("/admin/accounts/user/", "deactivate_users"),
        ("/admin/accounts/user/", "mute_from_chat"),
        ("/admin/games/chatmessage/", "hide_messages"),
        ("/admin/games/chatsuspension/", "unmute_users"),
    ],
)
@pytest.mark.parametrize("selected", ["abc", "1.5", "", "9" * 40, "1\x00"])
def test_an_action_on_rows_that_are_no_ids_is_a_400_and_changes_nothing(
    two_player_game, role_client, changelist, action, selected
):
    game, _ann, _bob = two_player_game
    client, _moderator = role_client("moderator")
    before = state_fingerprint(game)
    form = {"action": action, "_selected_action": [str(game.pk), selected], "confirm": "yes", "reason": REASON}
    response = client.post(changelist, {**form, "hours": 1})
    assert response.status_code == 400
    assert state_fingerprint(game) == before and audit_count() == 0


def test_abort_from_the_game_list_asks_for_a_reason_then_stops_the_game(two_player_game, role_client):
    game, ann, bob = two_player_game
    client, moderator = role_client("moderator")
    before = state_fingerprint(game)
    response = client.post("/admin/games/game/", {"action": "abort_games", "_selected_action": [game.pk]})
    assert response.status_code == 200
    assert "Reason" in response.content.decode() and 'name="confirm"' in response.content.decode()
    assert state_fingerprint(game) == before and audit_count() == 0  # only a confirmation page so far

    response = client.post(
        "/admin/games/game/",
        {"action": "abort_games", "_selected_action": [game.pk], "confirm": "yes", "reason": f"  {REASON}  "},
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED and game.finished_at is not None and game.current_seat is None
    record = AuditRecord.objects.get()
    assert (record.actor, record.action, record.reason, record.game, record.target_user) == (
        moderator,
        AuditRecord.Action.GAME_ABORT,
        REASON,
        game,
        None,
    )
    assert f"#{game.pk}" in record.target and record.created_at is not None

    # The players are told, on the game page, and cannot move any more.
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert "This game was aborted by a moderator." in page and REASON in page and "nothing is rated" in page
    assert "Draw from stock" not in page
    frozen = state_fingerprint(game)
    for player in (ann, bob):  # whoever's turn it was
        response = post_action(logged_in(player), game, {"type": "draw", "source": "stock"})
        assert response.status_code == 409 and "called off" in response.content.decode()
    assert state_fingerprint(game) == frozen
    # In the lobby the game leaves "my games" for the finished list, marked aborted.
    lobby = logged_in(ann).get("/")
    assert game not in lobby.context["my_games"] and game in lobby.context["finished_games"]
    assert re.search(rf"#{game.pk}</span> <span class=\"pill warn\">aborted", lobby.content.decode())


def test_abort_from_the_games_own_page(two_player_game, role_client):
    game, _ann, _bob = two_player_game
    client, _moderator = role_client("moderator")
    page = client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert f"/admin/games/game/{game.pk}/abort/" in page
    assert client.get(f"/admin/games/game/{game.pk}/abort/").status_code == 200
    response = client.post(f"/admin/games/game/{game.pk}/abort/", {"confirm": "yes", "reason": REASON})
    assert response.status_code == 302 and response["Location"] == f"/admin/games/game/{game.pk}/change/"
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    page = client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert f"/admin/games/game/{game.pk}/abort/" not in page  # nothing left to abort
    # Its players still find it in their games, marked as aborted (its page says why)
    for player in (_ann, _bob):
        mine = logged_in(player).get("/games/mine/").content.decode()
        finished = mine.split("<h2>Finished</h2>", 1)[1]
        assert f'href="/games/{game.pk}/"' in finished and ">aborted</span>" in finished


@pytest.mark.parametrize("reason", [None, "", "    \n\t ", " \u200b\u2060\ufeff ", "x" * 501])
def test_a_missing_or_bad_reason_is_refused_and_changes_nothing(two_player_game, role_client, reason):
    game, _ann, bob = two_player_game
    client, _moderator = role_client("moderator")
    before = state_fingerprint(game)
    data = {"confirm": "yes"} if reason is None else {"confirm": "yes", "reason": reason}
    for url, extra in (
        (f"/admin/games/game/{game.pk}/abort/", {}),
        (f"/admin/games/game/{game.pk}/seats/1/bot/", {"bot_level": "easy"}),
        ("/admin/games/game/", {"action": "abort_games", "_selected_action": [game.pk]}),
        (f"/admin/accounts/user/{bob.pk}/deactivate/", {}),
    ):
        response = client.post(url, {**data, **extra})
        assert response.status_code == 400, url
        assert response.context["form"].errors["reason"], url
        assert 'class="errorlist' in response.content.decode()
    assert state_fingerprint(game) == before and audit_count() == 0
    bob.refresh_from_db()
    assert bob.is_active and not game.seats.get(position=1).is_bot


def test_the_services_refuse_a_missing_reason_too(two_player_game, role_client):
    game, _ann, _bob = two_player_game
    _client, moderator = role_client("moderator")
    for reason in ("", "   ", None, 42):
        with pytest.raises(services.GameError) as refused:
            services.game_abort(game_id=game.pk, moderator=moderator, reason=reason)
        assert refused.value.code == "reason_missing"
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE and audit_count() == 0


def test_a_reason_is_kept_as_one_line_of_what_can_be_seen(two_player_game, role_client):
    """Found by a tester: a reason of a zero-width space alone was taken, and the player read "Reason:" and
    nothing; a direction override turned the rest of the line the players read around."""
    game, _ann, _bob = two_player_game
    _client, moderator = role_client("moderator")
    services.seat_hand_to_bot(
        game_id=game.pk, position=1, moderator=moderator, reason="Left \u202eunannounced\u202c.\n Sorry"
    )
    assert AuditRecord.objects.get().reason == "Left unannounced. Sorry"


def test_one_whose_seat_was_handed_to_a_bot_is_told_so_when_they_resign(two_player_game, role_client):
    """Found by a tester: "You have left this game already", to someone who had not left."""
    game, _ann, _bob = two_player_game
    _client, moderator = role_client("moderator")
    services.seat_hand_to_bot(game_id=game.pk, position=1, moderator=moderator, reason=REASON)
    person = game.seats.get(position=1).user
    response = logged_in(person).post(f"/games/{game.pk}/resign/", {"confirm": "yes"}, follow=True)
    assert "A bot plays your seat already: a moderator handed it over." in response.content.decode()
    assert "You have left this game already." not in response.content.decode()


def test_only_open_or_active_games_can_be_aborted(two_player_game, role_client, make_user, classic):
    game, _ann, _bob = two_player_game
    client, moderator = role_client("moderator")
    services.game_abort(game_id=game.pk, moderator=moderator, reason=REASON)
    response = client.post(f"/admin/games/game/{game.pk}/abort/", {"confirm": "yes", "reason": REASON}, follow=True)
    assert "only open or active games can be aborted" in response.content.decode()
    assert audit_count() == 1
    waiting = services.game_create(creator=make_user("dan"), variant=classic, seat_count=3)
    services.game_abort(game_id=waiting.pk, moderator=moderator, reason=REASON)
    assert Game.objects.get(pk=waiting.pk).status == Game.Status.ABORTED


# -- hand a seat to a bot ----------------------------------------------------------------


def test_hand_a_seat_to_a_bot_from_the_game_page(two_player_game, role_client):
    game, ann, bob = two_player_game
    client, moderator = role_client("moderator")
    turn = game.current_seat
    person, other = (ann, bob) if turn == 0 else (bob, ann)
    page = client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert f"/admin/games/game/{game.pk}/seats/{turn}/bot/" in page
    response = client.get(f"/admin/games/game/{game.pk}/seats/{turn}/bot/")
    assert response.status_code == 200 and "Bot level" in response.content.decode()
    moves_before = game.moves.count()
    response = client.post(
        f"/admin/games/game/{game.pk}/seats/{turn}/bot/", {"confirm": "yes", "reason": REASON, "bot_level": "easy"}
    )
    assert response.status_code == 302
    game.refresh_from_db()
    seat = game.seats.get(position=turn)
    assert seat.bot_level == "easy" and seat.user == person  # the person stays on the seat for history
    # It was that seat's turn: the bot played it at once, and now the other person is to move.
    assert game.moves.filter(by_bot=True, seat=turn).count() >= 2 and game.moves.count() > moves_before
    assert game.current_seat == 1 - turn
    record = AuditRecord.objects.get()
    assert (record.action, record.actor, record.target_user, record.seat_position, record.game) == (
        AuditRecord.Action.SEAT_TO_BOT,
        moderator,
        person,
        turn,
        game,
    )
    # The person whose seat a bot plays cannot move there any more.
    frozen = state_fingerprint(game)
    response = post_action(logged_in(person), game, {"type": "draw", "source": "stock"})
    assert response.status_code == 409 and "A bot plays your seat" in response.content.decode()
    assert state_fingerprint(game) == frozen
    assert post_action(logged_in(other), game, {"type": "draw", "source": "stock"}).status_code == 302
    # The person is told, with the moderator's reason, and offered no resignation (it would be refused).
    table = logged_in(person).get(game.get_absolute_url()).content.decode()
    assert "A moderator handed your seat to a bot" in table and REASON in table
    assert f"/games/{game.pk}/resign/" not in table
    other_table = logged_in(other).get(game.get_absolute_url()).content.decode()
    assert "handed your seat" not in other_table and REASON not in other_table  # the reason is theirs alone
    # A seat a bot already plays is not handed again.
    response = client.post(
        f"/admin/games/game/{game.pk}/seats/{turn}/bot/",
        {"confirm": "yes", "reason": REASON, "bot_level": "easy"},
        follow=True,
    )
    assert "already plays seat" in response.content.decode() and audit_count() == 1
    # Once the game is over (the other seat handed too, the bots play it out) the person is still told why.
    services.seat_hand_to_bot(game_id=game.pk, position=1 - turn, moderator=moderator, reason="both idle")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    table = logged_in(person).get(game.get_absolute_url()).content.decode()
    assert "A moderator handed your seat to a bot, which played it to the end of the game." in table
    assert REASON in table and "Rematch" in table


@pytest.mark.parametrize("where", ["game page", "seat list"])
def test_the_hand_over_form_says_that_the_person_on_the_seat_reads_the_reason(two_player_game, role_client, where):
    """The table shows that person the reason (above); the form said only "kept in the audit log", so a
    moderator could write there a note meant for staff (found by a tester)."""
    game, _ann, bob = two_player_game
    client, _moderator = role_client("moderator")
    if where == "game page":
        page = client.get(f"/admin/games/game/{game.pk}/seats/1/bot/")
    else:
        seat = game.seats.get(position=1)
        page = client.post("/admin/games/seat/", {"action": "hand_to_bot", "_selected_action": [seat.pk]})
    assert page.status_code == 200
    assert "The person on the seat sees it on the game page" in html.unescape(page.content.decode())
    assert game.seats.get(position=1).bot_level == "" and audit_count() == 0


def test_hand_seats_to_a_bot_from_the_seat_list(two_player_game, role_client):
    game, _ann, bob = two_player_game
    client, _moderator = role_client("superuser")
    seat = game.seats.get(user=bob)
    response = client.post("/admin/games/seat/", {"action": "hand_to_bot", "_selected_action": [seat.pk]})
    assert response.status_code == 200 and not Seat.objects.get(pk=seat.pk).is_bot
    response = client.post(
        "/admin/games/seat/",
        {
            "action": "hand_to_bot",
            "_selected_action": [seat.pk],
            "confirm": "yes",
            "reason": REASON,
            "bot_level": "hard",
        },
    )
    assert response.status_code == 302
    assert Seat.objects.get(pk=seat.pk).bot_level == "hard"
    assert AuditRecord.objects.get().target_user == bob


def test_a_seat_of_a_game_not_in_play_is_not_handed_to_a_bot(make_user, classic, role_client):
    _client, moderator = role_client("moderator")
    waiting = services.game_create(creator=make_user("ann"), variant=classic, seat_count=3)
    with pytest.raises(services.GameError) as refused:
        services.seat_hand_to_bot(game_id=waiting.pk, position=0, moderator=moderator, reason=REASON)
    assert refused.value.code == "game_not_active" and audit_count() == 0
    assert not waiting.seats.get(position=0).is_bot


def test_a_bad_seat_or_game_is_a_404(two_player_game, role_client):
    game, _ann, _bob = two_player_game
    client, _moderator = role_client("moderator")
    assert client.get(f"/admin/games/game/{game.pk}/seats/7/bot/").status_code == 404
    assert client.get("/admin/games/game/99999/abort/").status_code == 404
    assert client.get("/admin/games/game/abc/abort/").status_code == 404
    assert client.get("/admin/accounts/user/abc/deactivate/").status_code == 404


# -- deactivate a user -------------------------------------------------------------------------


def test_deactivating_a_user_hands_their_active_seats_to_bots(two_player_game, role_client, make_user, classic):
    game, ann, bob = two_player_game
    client, moderator = role_client("moderator")
    cleo = make_user("cleo")
    alone = services.game_create(creator=bob, variant=classic, seat_count=3)  # open, bob the only person
    shared = services.game_create(creator=bob, variant=classic, seat_count=3, invitees=[cleo])  # open
    assert shared.created_by == bob
    bobs_client = logged_in(bob)
    assert bobs_client.get("/accounts/profile/").status_code == 200
    client.cookies["django_language"] = "af"  # a real plural (a tester read "1 aktiewe spel(le)")
    page = client.get(f"/admin/accounts/user/{bob.pk}/deactivate/").content.decode()
    assert "bob: 3 aktiewe spelle" in page
    client.cookies["django_language"] = "en"

    response = client.post("/admin/accounts/user/", {"action": "deactivate_users", "_selected_action": [bob.pk]})
    assert response.status_code == 200 and "Bots take their seats" in response.content.decode()
    bob.refresh_from_db()
    assert bob.is_active
    response = client.post(
        "/admin/accounts/user/",
        {"action": "deactivate_users", "_selected_action": [bob.pk], "confirm": "yes", "reason": REASON},
    )
    assert response.status_code == 302
    bob.refresh_from_db()
    assert not bob.is_active
    assert game.seats.get(position=1).bot_level and game.seats.get(position=1).user == bob
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE  # ann plays on against the bot
    assert Game.objects.get(pk=alone.pk).status == Game.Status.ABORTED
    shared.refresh_from_db()
    assert shared.status == Game.Status.OPEN and shared.seats.get(position=0).is_open
    assert shared.created_by == cleo  # she may start it now
    records = AuditRecord.objects.order_by("pk")
    assert [(r.action, r.game_id) for r in records] == [
        (AuditRecord.Action.USER_DEACTIVATE, None),
        (AuditRecord.Action.SEAT_TO_BOT, game.pk),
        (AuditRecord.Action.SEAT_VACATE, alone.pk),
        (AuditRecord.Action.SEAT_VACATE, shared.pk),
    ]
    assert all(r.actor == moderator and r.target_user == bob and REASON in r.reason for r in records)
    # Bob's session no longer logs him in.
    assert bobs_client.get("/accounts/profile/").status_code == 302


def test_deactivate_from_the_users_page(make_user, role_client):
    client, _moderator = role_client("moderator")
    dan = make_user("dan")
    page = client.get(f"/admin/accounts/user/{dan.pk}/change/").content.decode()
    assert f"/admin/accounts/user/{dan.pk}/deactivate/" in page
    response = client.post(f"/admin/accounts/user/{dan.pk}/deactivate/", {"confirm": "yes", "reason": REASON})
    assert response.status_code == 302
    dan.refresh_from_db()
    assert not dan.is_active and AuditRecord.objects.get().target_user == dan


def test_a_moderator_cannot_deactivate_a_superuser_or_themselves(role_client):
    client, moderator = role_client("moderator")
    _c, boss = role_client("superuser", "boss")
    for target in (boss, moderator):
        response = client.post(
            f"/admin/accounts/user/{target.pk}/deactivate/", {"confirm": "yes", "reason": REASON}, follow=True
        )
        assert response.status_code == 200
        target.refresh_from_db()
        assert target.is_active
    assert audit_count() == 0
    _c, other = role_client("moderator", "other-mod")
    services.user_deactivate(user_id=other.pk, moderator=boss, reason=REASON)
    other.refresh_from_db()
    assert not other.is_active


def test_the_users_page_shows_their_games_and_audit_history(two_player_game, role_client):
    game, _ann, bob = two_player_game
    client, moderator = role_client("moderator")
    services.seat_hand_to_bot(game_id=game.pk, position=1, moderator=moderator, reason=REASON)
    response = client.get(f"/admin/accounts/user/{bob.pk}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    assert f"/admin/games/game/{game.pk}/change/" in page and "Audit history" in page and REASON in page
    assert 'name="_save"' not in page  # moderators look; they do not edit accounts
    # And the moderator's own page lists what they did.
    page = client.get(f"/admin/accounts/user/{moderator.pk}/change/").content.decode()
    assert "moderation done by this user" in page and REASON in page


# -- the audit log cannot be changed -----------------------------------------------------------


@pytest.mark.parametrize("role", ["superuser", "moderator"])
def test_audit_records_cannot_be_added_changed_or_deleted_from_the_admin(two_player_game, role_client, role):
    game, _ann, _bob = two_player_game
    client, _user = role_client(role)
    _c, moderator = role_client("moderator", "mod-who-aborted")
    services.game_abort(game_id=game.pk, moderator=moderator, reason=REASON)
    record = AuditRecord.objects.get()
    url = f"/admin/games/auditrecord/{record.pk}"
    listing = client.get("/admin/games/auditrecord/")
    assert listing.status_code == 200 and REASON in listing.content.decode()
    assert "delete_selected" not in listing.content.decode()
    page = client.get(f"{url}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.post(f"{url}/change/", {"reason": "nothing happened", "action": "game_abort"}).status_code == 403
    assert client.post(f"{url}/delete/", {"post": "yes"}).status_code == 403
    assert client.get("/admin/games/auditrecord/add/").status_code == 403
    assert client.post("/admin/games/auditrecord/add/", {"reason": "forged"}).status_code == 403
    client.post(
        "/admin/games/auditrecord/", {"action": "delete_selected", "_selected_action": [record.pk], "post": "yes"}
    )
    assert list(AuditRecord.objects.values_list("pk", "reason")) == [(record.pk, REASON)]


def test_a_stored_audit_record_refuses_to_be_rewritten_or_deleted(two_player_game, role_client):
    game, _ann, _bob = two_player_game
    _client, moderator = role_client("moderator")
    services.game_abort(game_id=game.pk, moderator=moderator, reason=REASON)
    record = AuditRecord.objects.get()
    record.reason = "rewritten"
    with pytest.raises(ValueError):
        record.save()
    with pytest.raises(ValueError):
        record.delete()
    assert AuditRecord.objects.get().reason == REASON


# -- who reaches what ---------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ROLES)
def test_permission_boundaries(two_player_game, role_client, role):
    game, ann, bob = two_player_game
    client, me = role_client(role)
    moderates = role in ("superuser", "moderator")
    looks = {"superuser": 200, "moderator": 200, "staff": 403, "user": 302, "anonymous": 302}[role]

    index = client.get("/admin/")
    assert index.status_code == (200 if role in ("superuser", "moderator", "staff") else 302)
    for url in (
        "/admin/games/game/",
        f"/admin/games/game/{game.pk}/change/",
        "/admin/games/auditrecord/",
        f"/admin/accounts/user/{bob.pk}/change/",
        "/admin/games/seat/",
        "/admin/games/move/",
        f"/admin/games/game/{game.pk}/abort/",
        f"/admin/games/game/{game.pk}/seats/1/bot/",
        f"/admin/accounts/user/{bob.pk}/deactivate/",
    ):
        response = client.get(url)
        assert response.status_code == looks, url
        if looks == 302:
            assert response["Location"].startswith("/admin/login/"), url

    before = state_fingerprint(game)
    expected = 302 if moderates else looks
    assert (
        client.post(
            f"/admin/games/game/{game.pk}/seats/1/bot/", {"confirm": "yes", "reason": REASON, "bot_level": "easy"}
        ).status_code
        == expected
    )
    assert Seat.objects.get(game=game, position=1).is_bot is moderates
    assert (
        client.post(f"/admin/games/game/{game.pk}/abort/", {"confirm": "yes", "reason": REASON}).status_code == expected
    )
    assert (Game.objects.get(pk=game.pk).status == Game.Status.ABORTED) is moderates
    assert (
        client.post(f"/admin/accounts/user/{ann.pk}/deactivate/", {"confirm": "yes", "reason": REASON}).status_code
        == expected
    )
    ann.refresh_from_db()
    assert ann.is_active is not moderates
    assert audit_count() == (3 if moderates else 0)
    if not moderates:
        assert state_fingerprint(game) == before
    if role != "superuser":  # nobody below superuser edits a user account by hand
        response = client.post(f"/admin/accounts/user/{bob.pk}/change/", {"username": "renamed", "is_superuser": "on"})
        bob.refresh_from_db()
        assert bob.username == "bob" and not bob.is_superuser
        assert response.status_code in (302, 403)


def test_a_moderation_step_posted_without_the_csrf_token_is_refused_and_changes_nothing(two_player_game, role_client):
    """A page elsewhere that makes a moderator's browser post a step (a forged form): every step's page and
    every action of the lists needs the token, like the rest of the admin."""
    game, ann, bob = two_player_game
    _client, moderator = role_client("moderator")
    message = services.chat_post(game_id=game.pk, user=bob, text="You play like a potato", channel="players")
    report = services.chat_report(game_id=game.pk, user=ann, message_id=message.pk)
    services.chat_mute_user(user_id=ann.pk, moderator=moderator, reason=REASON, hours=1)
    suspension = ann.chat_suspensions.get()
    records = audit_count()
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(moderator)
    reason = {"confirm": "yes", "reason": REASON}
    mute = {"hours": 1}
    seat = game.seats.get(position=1)
    posts = [
        (f"/admin/games/game/{game.pk}/abort/", reason),
        (f"/admin/games/game/{game.pk}/seats/1/bot/", {**reason, "bot_level": "easy"}),
        (f"/admin/accounts/user/{bob.pk}/deactivate/", reason),
        ("/admin/games/game/", {**reason, "action": "abort_games", "_selected_action": [game.pk]}),
        ("/admin/games/seat/", {**reason, "action": "hand_to_bot", "_selected_action": [seat.pk]}),
        ("/admin/accounts/user/", {**reason, "action": "deactivate_users", "_selected_action": [bob.pk]}),
        ("/admin/accounts/user/", {**reason, "action": "mute_from_chat", "_selected_action": [bob.pk], **mute}),
        ("/admin/accounts/user/", {**reason, "action": "let_chat_again", "_selected_action": [ann.pk]}),
        ("/admin/games/chatmessage/", {**reason, "action": "hide_messages", "_selected_action": [message.pk]}),
        ("/admin/games/chatreport/", {**reason, "action": "dismiss_reports", "_selected_action": [report.pk]}),
        ("/admin/games/chatmessage/", {**reason, "action": "mute_authors", "_selected_action": [message.pk], **mute}),
        ("/admin/games/chatsuspension/", {**reason, "action": "unmute_users", "_selected_action": [suspension.pk]}),
    ]
    before = state_fingerprint(game)
    for url, data in posts:
        assert forged.post(url, data).status_code == 403, (url, data.get("action"))
    assert audit_count() == records and state_fingerprint(game) == before
    game.refresh_from_db()
    bob.refresh_from_db()
    for row in (message, report, suspension):
        row.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and bob.is_active and not message.is_hidden and report.is_open
    assert not game.seats.filter(bot_level__gt="").exists() and suspension.in_force


def test_an_action_on_a_game_the_list_does_not_show_does_nothing(two_player_game, role_client):
    """The abort posted from the list of open games with the id of a game in play (another game's id, typed
    into the form): the action acts on the rows of the list as filtered, so nothing is aborted."""
    game, _ann, _bob = two_player_game
    client, _moderator = role_client("moderator")
    response = client.post(
        "/admin/games/game/?status__exact=open",
        {"action": "abort_games", "_selected_action": [game.pk], "confirm": "yes", "reason": REASON},
    )
    assert response.status_code == 302
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE and audit_count() == 0


def test_even_a_superuser_deactivates_only_through_the_audited_action(two_player_game, role_client):
    """The user form has no "active" box: unticking it would skip the bots and the audit record."""
    game, ann, _bob = two_player_game
    client, _root = role_client("superuser", "root")
    form = client.get(f"/admin/accounts/user/{ann.pk}/change/").content.decode()
    assert 'name="is_active"' not in form and 'name="is_staff"' in form
    assert (
        client.post(f"/admin/accounts/user/{ann.pk}/deactivate/", {"confirm": "yes", "reason": REASON}).status_code
        == 302
    )
    ann.refresh_from_db()
    assert not ann.is_active and AuditRecord.objects.filter(target_user=ann).exists()


def test_a_users_dates_are_the_sites_record_not_a_form_field(two_player_game, role_client):
    """A date near year 9999 in the admin's zone was past PostgreSQL's range in UTC: no read of the user worked."""
    _game, ann, _bob = two_player_game
    client, _root = role_client("superuser", "root")
    form = client.get(f"/admin/accounts/user/{ann.pk}/change/").content.decode()
    assert 'name="date_joined_0"' not in form and 'name="last_login_0"' not in form
    joined = ann.date_joined
    forged = {"date_joined_0": "9999-12-31", "date_joined_1": "23:59:59", "last_login_0": "0001-01-01"}
    client.post(f"/admin/accounts/user/{ann.pk}/change/", {"username": "ann", "email": ann.email, **forged})
    ann.refresh_from_db()
    assert ann.date_joined == joined
    assert ann.last_login is None or ann.last_login.year > 1


@pytest.mark.parametrize("language", ["hr", "af", "cs"])
@pytest.mark.parametrize(
    "changelist", ["/admin/games/chatmessage/", "/admin/games/game/", "/admin/games/seat/", "/admin/games/variant/"]
)
def test_a_moderators_lists_speak_their_language(two_player_game, role_client, language, changelist):
    """Django's Croatian admin catalog lacks some of the admin's words; the site's catalogs carry them."""
    client, _moderator = role_client("moderator")
    client.cookies["django_language"] = language
    page = client.get(changelist).content.decode()
    for english in ("Skip to main content", "Start typing to filter", "Show counts", "Toggle theme", "to view"):
        assert english not in page, english
    if changelist.endswith(("game/", "variant/")):  # a built-in variant by its name in the reader's language
        assert {"hr": "Klasična", "af": "Klassiek", "cs": "Klasická"}[language] in page and "Classic" not in page
    if changelist.endswith("chatmessage/"):
        # the game-number box asks for a game number, not a user name
        assert f'placeholder="{ {"hr": "broj igre", "af": "spelnommer", "cs": "číslo hry"}[language] }"' in page


# Words of Django's admin that Django's own catalogs leave in English (all three, or Croatian's alone): the
# app list's column heads a screen reader reads out on every page with the navigation, the auth app's name,
# a user's superuser box.  Afrikaans' one translation of "Add link" is an order ("add a link").
ADMIN_ENGLISH = (
    "Model name",
    "Add link",
    "Change or view list link",
    "Authentication and Authorization",
    "Superuser status",
    "Voeg skakel by",
)


@pytest.mark.parametrize("language", ["hr", "af", "cs"])
def test_the_admins_navigation_and_user_page_leave_no_english(two_player_game, role_client, language):
    _game, ann, _bob = two_player_game
    client, _root = role_client("superuser", "root")
    urls = ("/admin/", f"/admin/accounts/user/{ann.pk}/change/")

    def pages(language: str) -> str:
        client.cookies["django_language"] = language
        return "".join(client.get(url).content.decode() for url in urls)

    assert all(english in pages("en") for english in ADMIN_ENGLISH[:-1])  # the pages do say them, in English
    translated = pages(language)
    assert [english for english in ADMIN_ENGLISH if english in translated] == []


@pytest.mark.parametrize(
    "language, dealt, glued",
    # one message, in each language's order and case, not "wild" glued to the rank ("(divlja 3)")
    [
        ("hr", "karata: 3 · divlje: 3", "divlja 3"),
        ("cs", "po 3 kartách · žolík 3", "(žolík 3)"),
        ("af", "3 kaarte · 3 is wild", "(wild 3)"),
    ],
)
def test_a_games_round_results_say_the_cards_dealt_and_the_wild_rank_in_one_message(
    make_user, classic, role_client, language, dealt, glued
):
    client, moderator = role_client("moderator")
    game = services.game_create(
        creator=make_user("ann"), variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]}, seed=5
    )
    services.seat_hand_to_bot(game_id=game.pk, position=0, moderator=moderator, reason=REASON)
    client.cookies["django_language"] = language
    page = html.unescape(client.get(f"/admin/games/game/{game.pk}/change/").content.decode())
    assert dealt in page and glued not in page


@pytest.mark.parametrize(
    "language, viewing, changing, history",
    # Django's "View %s", "Change %s" put the model's name after the verb in the nominative ("Prikaži igra",
    # "Zobrazit hra": ungrammatical), and its Croatian and Afrikaans "Change history" is an order ("change the
    # history"); the site says them as Django's Czech "Change %s" does, the name first.
    [
        ("hr", "igra: pregled", "varijanta: promjena", "Povijest promjena: Klasična"),
        ("cs", "hra: zobrazit", "varianta: změnit", "Historie změn: Klasická"),
        ("af", "Beskou spel", "Wysig variant", "Wysigingsgeskiedenis: Klassiek"),
    ],
)
def test_the_admins_page_titles_read_right(two_player_game, role_client, classic, language, viewing, changing, history):
    game, _ann, _bob = two_player_game
    moderator, _ = role_client("moderator")
    root, _ = role_client("superuser", "root")

    def title(client, url: str) -> str:
        client.cookies["django_language"] = language
        page = client.get(url).content.decode()
        heading = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S)
        assert heading is not None, url
        return html.unescape(heading.group(1)).strip()

    assert title(moderator, f"/admin/games/game/{game.pk}/change/") == viewing
    assert title(root, f"/admin/games/variant/{classic.pk}/change/") == changing
    assert title(root, f"/admin/games/variant/{classic.pk}/history/") == history


def test_staff_who_may_look_at_games_but_not_moderate_get_no_moderation(two_player_game, role_client):
    game, _ann, _bob = two_player_game
    client, clerk = role_client("staff", "clerk")
    clerk.user_permissions.add(Permission.objects.get(codename="view_game"))
    listing = client.get("/admin/games/game/")
    assert listing.status_code == 200 and "abort_games" not in listing.content.decode()
    assert "/abort/" not in client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
    assert client.get(f"/admin/games/game/{game.pk}/abort/").status_code == 403
    # A forged action post does nothing.
    client.post(
        "/admin/games/game/",
        {"action": "abort_games", "_selected_action": [game.pk], "confirm": "yes", "reason": REASON},
    )
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE and audit_count() == 0


def test_the_moderators_group_comes_from_a_migration(db):
    from django.contrib.auth.models import Group

    perms = set(Group.objects.get(name="Moderators").permissions.values_list("content_type__app_label", "codename"))
    assert {
        ("games", "moderate_game"),
        ("games", "moderate_user"),
        ("games", "view_game"),
        ("accounts", "view_user"),
        ("games", "view_auditrecord"),
    } <= perms
    assert not {p for p in perms if p[1].startswith(("change_", "add_", "delete_"))}


def test_a_games_page_names_its_time_per_move(two_player_game, role_client):
    # The choices are grouped (live / over days): the label must still be found, not "86400 seconds".
    game, _ann, _bob = two_player_game
    client, _moderator = role_client("moderator")
    for seconds, label in ((24 * 3600, "1 day"), (30, "30 seconds"), (45, "45 seconds")):
        Game.objects.filter(pk=game.pk).update(time_limit_seconds=seconds)
        page = client.get(f"/admin/games/game/{game.pk}/change/").content.decode()
        assert re.search(rf"<div class=\"readonly\">\s*{label}\s*</div>", page), label


# -- a superuser may not take over a player's account by setting its password (found by a tester) ------


def test_a_superuser_cannot_set_a_players_password_and_read_their_hand(role_client, two_player_game):
    game, ann, bob = two_player_game
    client, _root = role_client("superuser")
    old_hash = bob.password
    url = f"/admin/accounts/user/{bob.pk}/password/"
    page = client.get(url, follow=True)
    assert page.redirect_chain == [(f"/admin/accounts/user/{bob.pk}/change/", 302)]
    said = " ".join(str(m) for m in page.context["messages"])
    assert "cannot set another person's password" in said and "/accounts/password_reset/" in said
    posted = client.post(url, {"password1": "taken-over-42!", "password2": "taken-over-42!", "usable_password": "true"})
    assert posted.status_code == 302
    bob.refresh_from_db()
    assert bob.password == old_hash and not bob.check_password("taken-over-42!")
    # the change page offers no way there either
    change = client.get(f"/admin/accounts/user/{bob.pk}/change/").content.decode()
    assert f"/admin/accounts/user/{bob.pk}/password/" not in change and "../password/" not in change


def test_a_superuser_still_sets_their_own_password_in_the_admin(role_client):
    client, root = role_client("superuser")
    url = f"/admin/accounts/user/{root.pk}/password/"
    assert client.get(url).status_code == 200
    new = "my-own-new-pass-42!"
    assert client.post(url, {"password1": new, "password2": new, "usable_password": "true"}).status_code == 302
    root.refresh_from_db()
    assert root.check_password(new)


def test_a_superuser_cannot_change_a_players_e_mail_address_to_reset_their_password(role_client, two_player_game):
    """The way round the refusal above (found by a review): their address set to one's own, "Forgot your
    password?" would send the link there.  Someone else's address is shown, not a field; one's own is a field."""
    _game, _ann, bob = two_player_game
    client, root = role_client("superuser")
    page = client.get(f"/admin/accounts/user/{bob.pk}/change/").content.decode()
    assert 'name="email"' not in page and bob.email in page
    assert 'name="email"' in client.get(f"/admin/accounts/user/{root.pk}/change/").content.decode()


@pytest.mark.parametrize(("language", "yes", "no"), [("en", "yes", "no"), ("hr", "da", "ne"), ("cs", "ano", "ne")])
def test_the_yes_and_no_icons_are_read_out_in_the_moderators_language(
    language, yes, no, make_user, classic, role_client
):
    """Django's icons said alt="True" and alt="False" in every language (games/admin/icons.py)."""
    client, moderator = role_client("moderator")
    moderator.language = language
    moderator.save()
    ann = make_user("ann")
    ann.is_active = False
    ann.save()
    game = services.game_create(creator=make_user("bob"), variant=classic, seat_count=2, bot_count=1)
    pages = [client.get("/admin/accounts/user/"), client.get(f"/admin/games/game/{game.pk}/change/")]
    for response in pages:
        assert response.status_code == 200
        page = response.content.decode()
        assert 'alt="True"' not in page and 'alt="False"' not in page
    users = pages[0].content.decode()
    assert f'icon-yes.svg" alt="{yes}"' in users and f'icon-no.svg" alt="{no}"' in users


@pytest.mark.parametrize(("language", "count"), [("en", "Users: "), ("cs", "Uživatelé: "), ("hr", "Korisnici: ")])
def test_the_count_under_a_list_reads_right_in_every_language(language, count, make_user, role_client):
    """Found by a tester: Django writes "11 uživatelé" and "9 igre" (its two forms of a name), where Czech and
    Croatian say "11 uživatelů", "9 igara"; the count now follows the name in its nominative plural."""
    client, moderator = role_client("moderator")
    moderator.language = language
    moderator.save()
    for name in ("ann", "bob", "cid", "dan", "eve"):
        make_user(name)
    page = client.get("/admin/accounts/user/").content.decode()
    total = get_user_model().objects.count()
    assert f"{count}{total}" in page and f"{total} uživatelé" not in page
