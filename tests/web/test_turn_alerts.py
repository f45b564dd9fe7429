"""Turn alerts without JavaScript: the title counts the games waiting on the reader and says
"Your turn" on the table whose turn is theirs; the icon has its dot; the chime is a preference
on the profile, switched by the table's toggle (a plain form) and the profile form."""

from __future__ import annotations

import re

import pytest

from accounts.models import User

from .conftest import logged_in

pytestmark = pytest.mark.django_db


def title_of(html: str) -> str:
    match = re.search(r"<title>(.*?)</title>", html, re.S)
    assert match is not None
    return match.group(1).strip()


def icon_of(html: str) -> str:
    match = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert match is not None
    return match.group(1)


def players(game):
    seats = {s.position: s.user for s in game.seats.all()}
    return seats[game.current_seat], seats[1 - game.current_seat]


def test_the_title_counts_the_games_waiting_and_the_icon_has_a_dot(two_player_game):
    game, _, _ = two_player_game
    mover, waiter = players(game)
    page = logged_in(mover).get("/rules/").content.decode()
    assert title_of(page).startswith("(1) ")
    assert icon_of(page).endswith("favicon-turn.svg")
    page = logged_in(waiter).get("/rules/").content.decode()
    assert not title_of(page).startswith("(")
    assert icon_of(page).endswith("/favicon.svg")


def test_the_table_title_says_your_turn_only_to_the_player_on_turn(two_player_game):
    game, _, _ = two_player_game
    mover, waiter = players(game)
    mine = title_of(logged_in(mover).get(f"/games/{game.pk}/").content.decode())
    assert mine.startswith(f"(1) Your turn — {game.variant_label} #{game.pk}")
    theirs = title_of(logged_in(waiter).get(f"/games/{game.pk}/").content.decode())
    assert theirs.startswith(f"{game.variant_label} #{game.pk}")


def test_the_title_is_translated(two_player_game):
    game, _, _ = two_player_game
    mover, _ = players(game)
    client = logged_in(mover)
    client.cookies["django_language"] = "cs"
    assert title_of(client.get(f"/games/{game.pk}/").content.decode()).startswith("(1) Váš tah — ")


def test_signed_out_pages_have_no_count_and_no_alert_settings(client):
    page = client.get("/rules/").content.decode()
    assert not title_of(page).startswith("(")
    assert 'name="turn-alerts"' not in page


def test_the_table_toggle_turns_the_sound_on_and_off_without_javascript(two_player_game):
    game, _, _ = two_player_game
    mover, _ = players(game)
    client = logged_in(mover)
    table = client.get(f"/games/{game.pk}/").content.decode()
    assert "Sound: off" in table and 'data-sound="off"' in table
    response = client.post("/accounts/turn-sound/", {"sound": "on", "next": f"/games/{game.pk}/"})
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    assert User.objects.get(pk=mover.pk).turn_sound is True
    table = client.get(f"/games/{game.pk}/").content.decode()
    assert "Sound: on" in table and 'data-sound="on"' in table
    # the script's request: an empty answer
    response = client.post("/accounts/turn-sound/", {"sound": "off"}, headers={"X-Requested-With": "fetch"})
    assert response.status_code == 204
    assert User.objects.get(pk=mover.pk).turn_sound is False


@pytest.mark.parametrize("target", ["https://elsewhere.example/", "//elsewhere.example/", "password_reset_confirm"])
def test_the_sound_toggle_never_sends_anyone_off_site(make_user, target):
    """Nor reverses a URL's name it is given (one that needs arguments was a 500)."""
    client = logged_in(make_user("ann"))
    response = client.post("/accounts/turn-sound/", {"sound": "on", "next": target})
    assert response.status_code == 302 and response["Location"] == "/accounts/profile/"


def test_the_sound_toggle_wants_a_signed_in_post(client, make_user):
    response = client.post("/accounts/turn-sound/", {"sound": "on"})
    assert response.status_code == 302 and "/login/" in response["Location"]
    assert logged_in(make_user("ann")).get("/accounts/turn-sound/").status_code == 405


def test_the_profile_keeps_the_sound_preference(make_user):
    ann = make_user("ann")
    client = logged_in(ann)
    page = client.get("/accounts/profile/").content.decode()
    assert 'name="turn_sound"' in page and "data-notify-toggle" in page
    response = client.post(
        "/accounts/profile/",
        {"display_name": "", "email": "ann@example.com", "language": "", "time_zone": "", "turn_sound": "on"},
    )
    assert response.status_code == 302
    assert User.objects.get(pk=ann.pk).turn_sound is True


def test_watchers_get_no_alert_toggles(two_player_game, make_user):
    game, _, _ = two_player_game
    page = logged_in(make_user("cleo")).get(f"/games/{game.pk}/")
    assert page.status_code == 200
    assert "data-sound-toggle" not in page.content.decode()
