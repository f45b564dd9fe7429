"""Two people at one table in two browser contexts: every change shows up
without a reload, after a reconnect and a reload, and the hand keeps the
order its owner gave it.  Actions are taken by clicking, as a person would.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from playwright.sync_api import Page, expect

from games.engine import GameState, view
from games.models import Game

from .conftest import game_between

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

NOT_RELOADED = "window.__sameDocument === true"


def open_table(context: Any, game: Game) -> Page:
    page = context.new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    page.evaluate("window.__sameDocument = true")
    return page


def version_of(page: Page) -> int:
    version = page.locator("#table").get_attribute("data-version")
    assert version is not None
    return int(version)


def current_version(game: Game) -> int:
    game.refresh_from_db()
    return game.version


def hand_codes(page: Page) -> list[str]:
    return page.locator("#table [data-hand] .hand-slot [data-card]").evaluate_all(
        "cards => cards.map(c => c.dataset.card)"
    )


def expect_version(page: Page, version: int) -> None:
    expect(page.locator("#table")).to_have_attribute("data-version", str(version))


def draw_from_stock(page: Page) -> None:
    before = version_of(page)
    page.get_by_role("button", name="Draw from stock").click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(before))


def discard_first_card(page: Page) -> str:
    card = page.locator("#table form[data-hand] button.card:not([disabled])").first
    code = card.get_attribute("data-card")
    assert code is not None
    before = version_of(page)
    card.click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(before))
    return code


@pytest.fixture
def table_for_two(make_user: Any, classic: Any, signed_in: Any):
    game, ann, bob = game_between(make_user, classic, rounds=[7, 8])
    return game, {0: signed_in(ann), 1: signed_in(bob)}


@pytest.mark.slow
def test_two_people_see_each_others_draws_and_discards_without_reloading(table_for_two, make_user, signed_in):
    game, contexts = table_for_two
    pages = {seat: open_table(context, game) for seat, context in contexts.items()}
    second_tab = open_table(contexts[0], game)  # ann has the game open twice
    spectator = open_table(signed_in(make_user("cid")), game)  # the game lets others watch
    names = {0: "ann", 1: "bob"}
    for _turn in range(4):
        game.refresh_from_db()
        mover = game.current_seat
        watcher = pages[1 - mover]

        draw_from_stock(pages[mover])
        expect(watcher.locator("#table .moves li").first).to_have_text(f"{names[mover]} drew from the stock.")
        expect_version(watcher, current_version(game))
        expect(watcher.locator(".player.current")).to_contain_text(names[mover])

        code = discard_first_card(pages[mover])
        version = current_version(game)
        for page in (watcher, second_tab, spectator):
            expect_version(page, version)
            expect(page.locator("#table .piles [data-card]")).to_have_attribute("data-card", code)
        # The turn passed: the watcher may draw now, and says so.
        expect(watcher.get_by_role("button", name="Draw from stock")).to_be_visible()
        expect(watcher.locator(".turn-line")).to_contain_text("Your turn")
        expect(pages[mover].get_by_role("button", name="Draw from stock")).to_have_count(0)
        # The header's count (outside the swapped table) follows over the user socket.
        expect(watcher.locator("#turns-waiting")).to_have_text("1")
        expect(pages[mover].locator("#turns-waiting")).to_have_text("0")
        # ... and its words with it (they kept the count the page was served with: a tester).
        expect(watcher.locator("#turns-waiting")).to_have_attribute("title", "1 game waits on you")
        expect(pages[mover].locator("#turns-waiting")).to_have_attribute("title", "0 games wait on you")
    for page in (*pages.values(), second_tab, spectator):
        assert page.evaluate(NOT_RELOADED)
    expect(spectator.locator("#table [data-hand]")).to_have_count(0)  # the public view: no hand
    # Nothing that was swapped in shows the other player's cards.
    for seat, page in pages.items():
        shown = set(hand_codes(page))
        game.refresh_from_db()
        assert shown and shown == set(view(GameState.from_dict(game.state), seat).to_dict()["hand"])


@pytest.mark.slow
def test_a_reconnected_or_reloaded_page_shows_the_right_state(table_for_two):
    game, contexts = table_for_two
    game.refresh_from_db()
    mover = game.current_seat
    watcher_context = contexts[1 - mover]
    network = {"down": False, "sockets": []}

    def route(ws: Any) -> None:
        if network["down"]:
            ws.close()
            return
        ws.connect_to_server()
        network["sockets"].append(ws)

    watcher = watcher_context.new_page()
    watcher.route_web_socket(re.compile(r".*/ws/games/\d+/$"), route)
    # The whole network is down: the page's checks of its table over HTTP fail too (they are tested below).
    watcher.route(re.compile(r".*/games/\d+/table/"), lambda r: r.abort() if network["down"] else r.continue_())
    watcher.goto(f"/games/{game.pk}/")
    expect(watcher.locator("[data-live-status]")).to_have_text("Live")
    watcher.evaluate("window.__sameDocument = true")
    shown_before = version_of(watcher)

    # The connection drops and stays down while the other player moves twice.
    network["down"] = True
    for ws in network["sockets"]:
        ws.close()
    expect(watcher.locator("[data-live-status]")).to_have_text("Reconnecting…")
    mover_page = open_table(contexts[mover], game)
    draw_from_stock(mover_page)
    code = discard_first_card(mover_page)
    version = current_version(game)
    assert version >= shown_before + 2  # the watcher skipped versions
    assert version_of(watcher) == shown_before

    network["down"] = False  # back: the page reconnects, hears the version, fetches the table
    expect(watcher.locator("[data-live-status]")).to_have_text("Live")
    expect_version(watcher, version)
    expect(watcher.locator("#table .piles [data-card]")).to_have_attribute("data-card", code)
    assert watcher.evaluate(NOT_RELOADED)

    watcher.reload()
    expect_version(watcher, version)
    expect(watcher.locator("#table .piles [data-card]")).to_have_attribute("data-card", code)
    expect(watcher.get_by_role("button", name="Draw from stock")).to_be_visible()


@pytest.mark.slow
def test_a_page_whose_socket_cannot_reconnect_still_shows_the_other_players_move(table_for_two):
    """Found by a fault tester: while Redis was down every reconnect was refused, and each refusal restarted the
    page's 10-second check of its table over HTTP, which so never came: a player was not shown that it was
    their turn until Redis was back, their clock running.  The check goes on through the retries."""
    game, contexts = table_for_two
    game.refresh_from_db()
    mover = game.current_seat
    network = {"down": False, "sockets": [], "refused": 0}

    def route(ws: Any) -> None:
        if network["down"]:
            network["refused"] += 1
            ws.close()
            return
        ws.connect_to_server()
        network["sockets"].append(ws)

    watcher = contexts[1 - mover].new_page()
    watcher.route_web_socket(re.compile(r".*/ws/games/\d+/$"), route)
    watcher.goto(f"/games/{game.pk}/")
    expect(watcher.locator("[data-live-status]")).to_have_text("Live")
    watcher.evaluate("window.__sameDocument = true")

    network["down"] = True  # sockets refused, HTTP still answers
    for ws in network["sockets"]:
        ws.close()
    mover_page = open_table(contexts[mover], game)
    draw_from_stock(mover_page)
    code = discard_first_card(mover_page)

    version = str(current_version(game))
    # The check every 10 s, while the socket is retried every 0.5 to 5 s.
    expect(watcher.locator("#table")).to_have_attribute("data-version", version, timeout=25_000)
    expect(watcher.locator("#table .piles [data-card]")).to_have_attribute("data-card", code)
    expect(watcher.get_by_role("button", name="Draw from stock")).to_be_visible()
    assert network["refused"] >= 3  # the socket was retried (and refused) meanwhile
    expect(watcher.locator("[data-live-status]")).to_have_text("Reconnecting…")  # and the page says so
    assert watcher.evaluate(NOT_RELOADED)


@pytest.mark.slow
def test_the_hand_keeps_its_arranged_order_through_updates_and_reloads(table_for_two):
    game, contexts = table_for_two
    game.refresh_from_db()
    first = game.current_seat
    pages = {seat: open_table(context, game) for seat, context in contexts.items()}
    arranger = pages[1 - first]  # waits for the first player: arranges meanwhile

    server_order = hand_codes(arranger)
    arranger.get_by_role("button", name="Arrange").click()
    slots = arranger.locator("#table [data-hand] .hand-slot")
    # Move the last card to the front with the buttons, one step at a time.
    for step in range(len(server_order) - 1):
        slots.nth(len(server_order) - 1 - step).get_by_role("button", name=re.compile("^Move left")).click()
    arranged = hand_codes(arranger)
    assert arranged == [server_order[-1], *server_order[:-1]]
    arranger.get_by_role("button", name="Done arranging").click()

    # The other player moves: the table is swapped in, the order stays.
    draw_from_stock(pages[first])
    discard_first_card(pages[first])
    expect_version(arranger, current_version(game))
    assert hand_codes(arranger) == arranged

    # Now it is the arranger's turn: a drag re-orders (and discards nothing), a drawn card joins at the end.
    draw_from_stock(arranger)
    after_draw = hand_codes(arranger)
    assert after_draw[:-1] == arranged and len(after_draw) == len(arranged) + 1
    # The arrange buttons are named after the card, not after the card's discard button.
    first_card = arranger.locator("#table [data-hand] .hand-slot").nth(0)
    assert first_card.locator("button.card").count() == 1  # the cards are discard buttons now
    label = first_card.locator(".arrange-move").first.get_attribute("aria-label")
    assert label == "Move left " + first_card.locator("[data-card]").get_attribute("data-name"), label
    assert "Discard" not in label
    version = version_of(arranger)
    source = arranger.locator("#table [data-hand] .hand-slot").nth(0).locator(".card")
    target = arranger.locator("#table [data-hand] .hand-slot").nth(3).locator(".card")
    box_from, box_to = source.bounding_box(), target.bounding_box()
    arranger.mouse.move(box_from["x"] + box_from["width"] / 2, box_from["y"] + box_from["height"] / 2)
    arranger.mouse.down()
    arranger.mouse.move(box_to["x"] + box_to["width"] * 0.8, box_to["y"] + box_to["height"] / 2, steps=8)
    arranger.mouse.up()
    dragged = hand_codes(arranger)
    assert dragged == [*after_draw[1:4], after_draw[0], *after_draw[4:]]
    assert version_of(arranger) == version == current_version(game)  # the drag was no discard

    arranger.reload()
    expect_version(arranger, version)
    assert hand_codes(arranger) == dragged
    assert hand_codes(pages[first]) != dragged


def test_a_phone_sized_screen_is_usable(table_for_two, signed_in):
    game, _contexts = table_for_two
    game.refresh_from_db()
    user = game.seats.get(position=game.current_seat).user
    phone = signed_in(user, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = open_table(phone, game)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    draw = page.get_by_role("button", name="Draw from stock")
    expect(draw).to_be_in_viewport()
    draw.tap()
    expect(page.locator("#table [data-hand] button.card:not([disabled])").first).to_be_visible()
    cards = page.locator("#table [data-hand] .card")
    boxes = [cards.nth(i).bounding_box() for i in range(cards.count())]
    assert len(boxes) == 8
    for box in boxes:
        assert box["width"] >= 38 and box["height"] >= 54  # big enough to read and to tap
        assert 0 <= box["x"] and box["x"] + box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    expect(page.get_by_role("button", name="Arrange")).to_be_visible()
    before = version_of(page)
    cards.first.tap()  # a tap discards
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(before))
    expect(page.locator("#table [data-hand] .card")).to_have_count(7)
    assert page.evaluate(NOT_RELOADED)


def test_without_javascript_the_forms_still_play(table_for_two, signed_in):
    game, _contexts = table_for_two
    game.refresh_from_db()
    mover = game.current_seat
    user = game.seats.get(position=mover).user
    context = signed_in(user, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_be_hidden()
    expect(page.locator("[data-arrange-tools]")).to_be_hidden()
    before = version_of(page)
    page.get_by_role("button", name="Draw from stock").click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", str(before))
    assert current_version(game) == version_of(page)


def test_a_move_refused_without_a_table_shows_the_reason(table_for_two):
    game, contexts = table_for_two
    game.refresh_from_db()
    page = open_table(contexts[game.current_seat], game)
    version = game.version
    Session.objects.all().delete()  # signed out on the server meanwhile
    page.get_by_role("button", name="Draw from stock").click()
    expect(page.get_by_role("alert")).to_have_text("Log in to play.")
    expect(page.locator("main").get_by_role("link", name="Log in")).to_be_visible()
    assert current_version(game) == version  # nothing was played


def test_the_resignation_stays_open_and_ticked_while_the_table_changes(make_user, classic, signed_in):
    """Another player's move swapped the table in and closed the panel under the person's finger."""
    game, ann, bob = game_between(make_user, classic, rounds=[3, 4])
    waiting, mover = (bob, ann) if game.current_seat == 0 else (ann, bob)
    page = signed_in(waiting).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    page.locator("#resign summary").click()
    page.locator("#resign input[name=confirm]").check()
    version = page.locator("#table").get_attribute("data-version")
    other = signed_in(mover).new_page()  # the other player draws, in their own browser
    other.goto(f"/games/{game.pk}/")
    expect(other.locator("[data-live-status]")).to_have_text("Live")
    other.get_by_role("button", name="Draw from stock").click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", version or "")
    expect(page.locator("#resign")).to_have_attribute("open", "")
    expect(page.locator("#resign input[name=confirm]")).to_be_checked()
