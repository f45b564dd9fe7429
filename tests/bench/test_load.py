"""What ``bench/load.py`` and ``bench/cluster.py`` rely on, so that the benches do not rot unnoticed.

The benches themselves start servers and print figures (no test runs them
whole); here are their pure parts and the site's answers they read.
"""

from __future__ import annotations

import math

import pytest
from django.db import OperationalError
from django.test import Client

from bench.load import TABLE_VERSION, Plan, backoff, failure_name, percentile
from games import services

pytestmark = pytest.mark.django_db


def test_percentiles_are_nearest_rank():
    values = [float(n) for n in range(100, 0, -1)]  # 1 to 100, in any order
    assert percentile(values, 50) == 50 and percentile(values, 95) == 95 and percentile(values, 99) == 99
    assert percentile(values, 100) == 100 and percentile([7.0], 99) == 7.0
    assert percentile([1.0, 2.0, 3.0], 50) == 2.0 and percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert math.isnan(percentile([], 50))


def test_a_request_fails_at_500_and_above_and_the_designed_503_is_counted_apart():
    assert [failure_name(status) for status in (200, 302, 409, 500, 502, 503, 504, None)] == [
        None,
        None,
        None,
        "500",
        "502-504",
        "503 try again",
        "502-504",
        "no connection",
    ]


def test_pauses_double_up_to_their_cap_as_live_js_does():
    assert [backoff(n, (0.5, 5.0)) for n in range(1, 7)] == [0.5, 1.0, 2.0, 4.0, 5.0, 5.0]


def test_the_version_says_which_planned_move_is_next():
    plan = Plan(pk=1, dealt_version=3, cookies=("a", "b"), moves=[(0, {"type": "draw"}), (0, {"type": "discard"})])
    assert plan.move_at(3) == (0, {"type": "draw"}) and plan.move_at(4) == (0, {"type": "discard"})
    assert plan.move_at(5) is None and plan.move_at(2) is None


@pytest.fixture
def player_and_game(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=4)
    game.refresh_from_db()
    client = Client(raise_request_exception=False)
    client.force_login(ann)
    return client, game


def test_the_bench_reads_the_version_of_the_table_page_and_of_its_live_fetch(player_and_game):
    client, game = player_and_game
    for path in (f"/games/{game.pk}/", f"/games/{game.pk}/table/"):
        found = TABLE_VERSION.search(client.get(path).content)
        assert found is not None and int(found.group(1)) == game.version, path


def test_the_bench_site_answers_a_lost_database_connection_with_the_sites_503(player_and_game, settings, monkeypatch):
    settings.ROOT_URLCONF = "bench.site_urls"
    client, game = player_and_game
    assert client.get("/bench/trivial/").content == b"ok\n"

    def lost(**kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr("games.selectors.game_table", lost)
    response = client.get(f"/games/{game.pk}/")
    assert response.status_code == 503 and response["Retry-After"]


def test_the_bench_floor_pages_read_who_asks_and_the_empty_page_is_the_sites_own(player_and_game, settings):
    settings.ROOT_URLCONF = "bench.site_urls"
    client, _game = player_and_game
    assert client.get("/bench/signed-in/").content == b"ann\n"
    page = client.get("/bench/empty-page/")
    assert page.status_code == 200
    # The site's header as the signed-in person sees it: their name and the way to sign out.
    assert b"ann" in page.content and b'action="/accounts/logout/"' in page.content
