"""No request ever gets a 500, whatever it posts."""

from __future__ import annotations

import pytest
from django.test import Client

from games import services
from games.engine import Rules
from games.models import Variant

from .conftest import logged_in, state_fingerprint

pytestmark = pytest.mark.django_db

JUNK = [
    {},
    {"version": "", "type": "", "card": "", "source": ""},
    {"version": "-1", "type": "draw", "source": "stock"},
    {"version": "99999999999999999999999", "type": "draw", "source": "stock"},
    {"version": "1", "type": "discard", "card": "x" * 500},
    {"version": "1", "type": "go_out", "card": "\x00"},
    {"version": "1", "type": "go_out", "card": "XX"},
    {"version": "1", "type": "DRAW", "source": "STOCK"},
    {"version": "1e3", "type": "draw", "source": "stock"},
    {"version": "1", "type": ["draw", "discard"], "source": "stock"},
    {"variant": "999", "people": "99", "easy_bots": "-1", "hard_bots": "7", "round_count": "0", "invite": ",,,"},
    {"variant": "abc", "medium_bots": "two", "time_limit_seconds": "soon"},
]


@pytest.mark.parametrize("data", JUNK)
def test_junk_posts_never_500(make_user, classic, data):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=1)
    services.game_join(game_id=game.pk, user=bob)
    before = state_fingerprint(game)
    for client in (logged_in(ann), logged_in(bob), logged_in(make_user("cleo")), Client()):
        for url in (
            f"/games/{game.pk}/play/",
            f"/games/{game.pk}/join/",
            f"/games/{game.pk}/leave/",
            f"/games/{game.pk}/start/",
            "/games/new/",
            "/accounts/profile/",
            "/accounts/signup/",
            f"/games/{game.pk}/resign/",
            f"/games/{game.pk}/rematch/",
            f"/games/{game.pk}/invite/{game.invite_token}/",
            f"/games/{game.pk}/invite/junk/",
        ):
            response = client.post(url, data)
            assert response.status_code < 500, (url, data, response.status_code)
        client.logout()
    # Only a move could change the game, and none of the junk is a legal move... except uppercase
    # "DRAW"/"STOCK", which the form normalises (a real draw); everything else left the game alone.
    if data.get("type") != "DRAW":
        assert state_fingerprint(game) == before


def test_a_variant_with_options_the_engine_refuses_is_not_saved_and_pages_survive(make_user, classic, admin_client):
    from .test_admin_variants import form_data

    response = admin_client.post(f"/admin/games/variant/{classic.pk}/change/", form_data(classic, decks="9"))
    assert response.status_code == 200 and "decks" in response.context["adminform"].form.errors
    assert Variant.objects.get(pk=classic.pk).options == Rules().to_dict()
    Variant.objects.filter(pk=classic.pk).update(options={"decks": 9})  # bypassing validation
    assert Client().get("/rules/?variant=classic").status_code == 200
    client = logged_in(make_user("ann"))
    response = client.post(
        "/games/new/",
        {"variant": classic.pk, "medium_bots": 1, "time_limit_seconds": 120},
    )
    assert response.status_code == 400 and "decks" in response.content.decode()
