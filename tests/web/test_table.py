"""What the table page offers: only the actions the seat may take now."""

from __future__ import annotations

import re

import pytest

from games import bots, services
from games.engine import GameState, GoOut

from .conftest import engine_view, logged_in, post_action

pytestmark = pytest.mark.django_db

FORM = re.compile(r'<form method="post" action="/games/\d+/play/"[^>]*>(.*?)</form>', re.S)


def _forms(html: str) -> list[dict]:
    forms = []
    for body in FORM.findall(html):
        assert "csrfmiddlewaretoken" in body
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', body))
        fields["cards"] = re.findall(r'name="card" value="(\w\w)"(?![^>]*disabled)', body)
        forms.append(fields)
    return forms


@pytest.mark.slow
def test_the_page_offers_exactly_the_legal_actions_with_the_version(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, seed=12, options={"rounds": [3, 4, 5, 6]}
    )
    client = logged_in(ann)
    saw_go_out = 0
    while True:
        game.refresh_from_db()
        if game.status != game.Status.ACTIVE:
            break
        v = engine_view(game, 0)
        forms = _forms(client.get(f"/games/{game.pk}/").content.decode())
        assert all(f["version"] == str(game.version) for f in forms)
        offered = set()
        for f in forms:
            if f["type"] == "draw":
                offered.add(("draw", f["source"]))
            else:
                offered.update((f["type"], card) for card in f["cards"])
        legal = {(a["type"], a.get("source") or a.get("card")) for a in v.to_dict()["legal_actions"]}
        assert offered == legal
        saw_go_out += any(kind == "go_out" for kind, _ in legal)
        assert post_action(client, game, bots.choose_action(v).to_dict()).status_code == 302
    assert saw_go_out  # the test met at least one go-out offer


def test_hand_sorts_by_suit_or_rank_and_marks_wilds(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, seed=7, options={"rounds": [13]}
    )
    client = logged_in(ann)
    by_rank = client.get(f"/games/{game.pk}/?sort=rank").context["hand"]
    by_suit = client.get(f"/games/{game.pk}/?sort=suit").context["hand"]
    assert sorted(f["code"] for f in by_rank) == sorted(f["code"] for f in by_suit)
    for hand in (by_rank, by_suit):
        flags = [f["wild"] for f in hand]
        assert flags == sorted(flags)  # wilds last
        assert all(f["wild"] == (f["code"][0] == "K") for f in hand)
    ranks = ["A23456789TJQK".index(f["code"][0]) for f in by_rank if not f["wild"]]
    assert ranks == sorted(ranks)
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert html.count('class="card-wild"') >= sum(f["wild"] for f in by_suit)  # + a wild top discard


def test_after_going_out_the_empty_hand_says_so_instead_of_offering_tools(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=0, invitees=[bob], seed=5, options={"rounds": [3, 4, 5]}
    )
    client_at = {seat.position: logged_in(seat.user) for seat in game.seats.all()}
    for _ in range(500):
        v = engine_view(game, 0).to_dict()
        if v["went_out"] is not None:
            break
        seat = v["current_seat"]
        assert (
            post_action(client_at[seat], game, bots.choose_action(engine_view(game, seat)).to_dict()).status_code == 302
        )
    else:
        pytest.fail("nobody went out")
    game.refresh_from_db()
    assert game.status == game.Status.ACTIVE and engine_view(game, 0).to_dict()["final_lap"]
    out_page = client_at[v["went_out"]].get(f"/games/{game.pk}/").content.decode()
    assert "You went out: every card of yours is in the melds above." in out_page
    assert "data-arrange-toggle" not in out_page and "?sort=rank" not in out_page
    other_page = client_at[1 - v["went_out"]].get(f"/games/{game.pk}/").content.decode()
    assert "You went out" not in other_page and "data-arrange-toggle" in other_page


@pytest.mark.parametrize("penalty", [None, 20])
def test_with_the_go_out_penalty_the_table_lets_a_player_try_to_go_out_with_any_card(make_user, classic, penalty):
    """Found by a tester: the table offered "Go out" only with the cards that do go out, so in a game with
    ``bad_go_out_penalty`` nobody could ever try a go-out that fails, and the buttons told who could go out
    (the rules page promised 20 points for a wrong try).  Now such a game offers it with every card the
    player may discard, and the server judges the try; without the option only the go-outs that succeed."""
    ann = make_user("ann")
    options = {"rounds": [3, 4], "bad_go_out_penalty": penalty}
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=1, options=options)
    client = logged_in(ann)
    v = engine_view(game, 0)
    assert v.current_seat == 0 and v.phase == "draw"
    assert post_action(client, game, {"type": "draw", "source": "stock"}).status_code == 302
    v = engine_view(game, 0)
    legal_go_outs = {a.discard.code for a in v.legal_actions if isinstance(a, GoOut)}
    assert not legal_go_outs  # this hand cannot go out
    html = client.get(f"/games/{game.pk}/").content.decode()
    go_out_cards = [f["cards"] for f in _forms(html) if f["type"] == "go_out"]
    if penalty is None:
        assert go_out_cards == []
        return
    assert go_out_cards == [sorted({card.code for card in v.hand})]
    assert "costs you 20 penalty points" in html  # the form says what a wrong try costs
    card = v.hand[0].code
    assert post_action(client, game, {"type": "go_out", "card": card}).status_code == 302
    game.refresh_from_db()
    state = GameState.from_dict(game.state)
    assert state.penalties[0] == 20 and card not in [c.code for c in state.hands[0]]


@pytest.mark.parametrize("language", ["en", "hr", "af", "cs"])
def test_a_sentence_ending_on_a_name_that_ends_in_a_full_stop_has_one(table, language):
    """Found by a tester: "Čeká se na hráče Hrvoje Č.." (hr and cs shorten a surname so: "Hrvoje Č."), and
    "Už nevidíte, co píše Hrvoje Č.. Ztlumení…" after a mute."""
    game, _mover, other, seat = table
    person = game.seats.get(position=seat).user
    person.display_name = "Hrvoje Č."
    person.save()
    other.cookies["django_language"] = language
    page = other.get(f"/games/{game.pk}/").content.decode()
    assert "Hrvoje Č." in page and "Č.." not in page
    muted = other.post(f"/games/{game.pk}/chat/mute/", {"user": person.pk}, follow=True).content.decode()
    assert 'class="message' in muted and "Č.." not in muted


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Čeká se na hráče Hrvoje Č..", "Čeká se na hráče Hrvoje Č."),
        ("Už nevidíte, co píše Hrvoje Č.. Ztlumení", "Už nevidíte, co píše Hrvoje Č. Ztlumení"),
        ("<p>Waiting for Jana Š..</p>", "<p>Waiting for Jana Š.</p>"),
        ("Waiting for A..B.", "Waiting for A..B."),  # two inside a name are the name's (a review)
        ("Ann (bot) is thinking…", "Ann (bot) is thinking…"),
        ("Wait...", "Wait..."),
    ],
)
def test_one_full_stop_ends_a_sentence_on_a_name_and_touches_nothing_else(said, kept):
    from games.services.text import one_full_stop

    assert one_full_stop(said) == kept
