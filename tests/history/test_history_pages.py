"""The history list: finished games only, newest first, filters, pages; the leaderboard."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import services
from games.models import Rating
from tests.web.conftest import logged_in

from .conftest import make_finished_game

pytestmark = pytest.mark.django_db

GAME_LINK = re.compile(r'href="/games/(\d+)/record/"')


def test_history_lists_finished_games_newest_first_with_place_and_total(make_user, classic):
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    g1 = make_finished_game([ann, bob], [10, 20], number=1)
    g2 = make_finished_game([ann, cat, "hard"], [30, 5, 30], number=3)
    g3 = make_finished_game([bob, cat], [1, 2], number=2)  # not Ann's
    services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=1)  # active
    response = logged_in(ann).get("/history/", follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert [int(i) for i in GAME_LINK.findall(html)] == [g2.pk, g1.pk]
    assert g3.pk not in [int(i) for i in GAME_LINK.findall(html)]
    rows = response.context["rows"]
    assert [(r["place"], r["shared"], r["total"], r["seat_count"]) for r in rows] == [
        (2, True, 30, 3),
        (1, False, 10, 2),
    ]
    assert [p["name"] for p in rows[0]["players"]] == ["cat", "ann", "Bot2"]
    assert rows[1]["rating_change"] > 0 > rows[0]["rating_change"]


def test_history_filters_by_variant_and_by_opponent(make_user, classic):
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    a = make_finished_game([ann, bob], [10, 20], number=1, variant_name="Classic")
    b = make_finished_game([ann, cat], [10, 20], number=2, variant_name="Jokers")
    c = make_finished_game([ann, "easy"], [10, 20], number=3, variant_name="Classic")
    client = logged_in(ann)

    def shown(**params):
        return [int(i) for i in GAME_LINK.findall(client.get("/players/ann/games/", params).content.decode())]

    assert shown() == [c.pk, b.pk, a.pk]
    assert shown(variant="Classic") == [c.pk, a.pk]
    assert shown(opponent="cat") == [b.pk]
    assert shown(opponent="bot:easy") == [c.pk]
    assert shown(variant="Classic", opponent="bob") == [a.pk]
    assert shown(variant="Jokers", opponent="bob") == []
    # unknown filter values are ignored, not an error
    assert shown(variant="<script>", opponent="nobody") == [c.pk, b.pk, a.pk]
    filters = client.get("/players/ann/games/").context["filters"]
    assert [v for v, _ in filters["opponents"]] == ["bob", "cat", "bot:easy"]
    assert [v for v, _ in filters["variants"]] == ["Classic", "Jokers"]


def test_history_is_paginated_and_keeps_the_filters(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    games = [make_finished_game([ann, bob], [i, 50], number=i, rate=False) for i in range(23)]
    client = logged_in(ann)
    first = client.get("/players/ann/games/", {"opponent": "bob"})
    assert len(GAME_LINK.findall(first.content.decode())) == 20
    assert "opponent=bob&amp;page=2" in first.content.decode()
    second = client.get("/players/ann/games/", {"opponent": "bob", "page": 2})
    assert [int(i) for i in GAME_LINK.findall(second.content.decode())] == [g.pk for g in games[:3]][::-1]
    assert client.get("/players/ann/games/", {"page": "junk"}).status_code == 200
    assert client.get("/players/ann/games/", {"page": "999"}).status_code == 200


def test_the_redirects_to_a_players_pages_keep_the_page_and_the_filters(make_user):
    client = logged_in(make_user("ann"))
    make_user("Grinder")
    query = {"page": "2", "opponent": "bot:medium"}
    assert client.get("/history/", query)["Location"] == "/players/ann/games/?page=2&opponent=bot%3Amedium"
    assert client.get("/players/GRINDER/games/", query)["Location"] == (
        "/players/Grinder/games/?page=2&opponent=bot%3Amedium"
    )
    assert client.get("/players/grinder/", {"x": "1"})["Location"] == "/players/Grinder/?x=1"
    assert client.get("/players/grinder/")["Location"] == "/players/Grinder/"


def test_history_of_unknown_player_is_404_and_needs_login(make_user):
    from django.test import Client

    assert logged_in(make_user("ann")).get("/players/nobody/games/").status_code == 404
    assert Client().get("/history/").status_code == 302


def test_leaderboard_lists_people_with_five_rated_games_and_places_the_bots(make_user):
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    for i in range(5):
        make_finished_game([ann, bob, "medium"], [5, 20, 40], number=i)
    make_finished_game([cat, ann], [1, 9], number=9)  # cat: one rated game only
    html = logged_in(cat).get("/leaderboard/").content.decode()
    rows = re.findall(r"<tr class=\"([^\"]*)\">\s*<td class=\"num\">(\d*)</td>\s*<td>(.*?)</td>", html, re.S)
    names = [re.sub(r"<[^>]+>|⚙", "", name).strip() for _, _, name in rows]
    assert names == ["ann", "bob", "bot (medium)"]
    assert [rank for _, rank, _ in rows] == ["1", "2", ""]
    assert Rating.objects.get(user=cat).games == 1
    assert "You join the list after 4 more rated games." in html
    assert "You join the list" not in logged_in(ann).get("/leaderboard/").content.decode()
    # anyone may look at it
    from django.test import Client

    assert Client().get("/leaderboard/").status_code == 200


def leaderboard_people(html: str) -> list[tuple[str, str]]:
    """(rank, name) of each person's row of a leaderboard page."""
    rows = re.findall(r"<tr class=\"(?!bot-row)[^\"]*\">\s*<td class=\"num\">(\d*)</td>\s*<td>(.*?)</td>", html, re.S)
    return [(rank, re.sub(r"<[^>]+>", "", name).strip()) for rank, name in rows]


def test_people_with_the_same_rating_share_a_rank_on_every_page(make_user, monkeypatch):
    """Three people who tied every game have one rating: they were ranked 1, 2 and 3 by their names."""
    from games.history import views

    ann, bob, cat, dan, eve = (make_user(name) for name in ("ann", "bob", "cat", "dan", "eve"))
    for i in range(5):
        make_finished_game([ann, bob, cat, dan, eve], [5, 5, 5, 40, 50], number=i)
    assert Rating.objects.get(user=ann).ordinal == Rating.objects.get(user=cat).ordinal
    client = Client()
    assert leaderboard_people(client.get("/leaderboard/").content.decode()) == [
        ("1", "ann"),
        ("1", "bob"),
        ("1", "cat"),
        ("4", "dan"),
        ("5", "eve"),
    ]
    monkeypatch.setattr(views, "LEADERBOARD_PAGE_SIZE", 2)  # the tie runs over a page's end
    assert leaderboard_people(client.get("/leaderboard/", {"page": 2}).content.decode()) == [("1", "cat"), ("4", "dan")]


def test_a_deactivated_account_leaves_the_leaderboard_and_the_ranks_close_up(make_user):
    """A moderator deactivated the best-rated account (cheating, say): it stayed first on the leaderboard."""
    from django.contrib.auth.models import Group

    ann, bob, cat, moderator = make_user("ann"), make_user("bob"), make_user("cat"), make_user("mod")
    moderator.is_staff = True
    moderator.save()
    moderator.groups.add(Group.objects.get(name="Moderators"))
    for i in range(5):
        make_finished_game([ann, bob, cat], [5, 20, 40], number=i)
    services.user_deactivate(user_id=ann.pk, moderator=moderator, reason="played with two accounts")
    assert leaderboard_people(Client().get("/leaderboard/").content.decode()) == [("1", "bob"), ("2", "cat")]
    assert Client().get("/leaderboard/", {"page": "2"}).status_code == 200


@pytest.mark.parametrize("bot_rating", [11, 10, 9.5, 8, 7.5, 7, 6.5, 5, 4.5, 4, 3])
def test_a_bot_shows_once_on_the_leaderboards_pages_where_its_rating_falls(bot_rating):
    """Rated between the last person of one page and the first of the next, a bot was on neither page."""
    from games.history import leaderboard_rows

    people = [Rating(ordinal=value, games=5) for value in (10, 9, 8, 7, 6, 5, 4)]
    for rank, person in enumerate(people, start=1):
        person.rank = rank  # as leaderboard() annotates it
    bot = Rating(ordinal=bot_rating, bot_level="medium")
    size, shown = 3, []
    for start in range(0, len(people), size):
        page = leaderboard_rows(
            people[start : start + size],
            bots=[bot],
            previous=people[start - 1].ordinal if start else None,
            last_page=start + size >= len(people),
        )
        shown += [row["rating"].ordinal for row in page]
    assert shown.count(bot_rating) == 1 + sum(p.ordinal == bot_rating for p in people)
    assert shown == sorted(shown, reverse=True)
