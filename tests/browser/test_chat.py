"""Table talk in the browser: two players chat live (typed and quick phrases), a watcher's channel
stays off the players' pages, a message a moderator hides leaves every open page, and a message
being typed survives the messages that arrive meanwhile.  Everything by clicking and typing, as a
person would, and without a reload."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games import services
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


def lines(page: Page, channel: str = "players") -> Any:
    return page.locator(f"#chat-lines-{channel} .chat-text")


def test_two_players_chat_live_and_a_hidden_message_leaves_every_page(make_user, classic, signed_in, django_user_model):
    from django.contrib.auth.models import Group

    game, ann, bob = game_between(make_user, classic, rounds=[3, 4])
    cid = make_user("cid")
    ann_page, bob_page = open_table(signed_in(ann), game), open_table(signed_in(bob), game)
    cid_page = open_table(signed_in(cid), game)

    # ann types and sends: her box empties, and bob's page shows it without a reload.
    box = ann_page.get_by_placeholder("Say something to the table")
    box.fill("Hello bob <b>not bold</b>")
    ann_page.get_by_role("button", name="Send").click()
    expect(box).to_have_value("")
    expect(lines(bob_page)).to_have_text(["Hello bob <b>not bold</b>"])
    expect(lines(cid_page, "players")).to_have_text(["Hello bob <b>not bold</b>"])
    assert bob_page.locator("#chat b").count() == 0  # text, never markup

    # bob is typing when a message arrives: what he typed stays in his box.
    bob_box = bob_page.get_by_placeholder("Say something to the table")
    bob_box.fill("half a sent")
    cid_page.get_by_placeholder("Say something to the other watchers").fill("bob holds the winner")
    cid_page.get_by_role("button", name="Send").click()
    expect(lines(cid_page, "watchers")).to_have_text(["bob holds the winner"])
    bob_page.get_by_role("button", name="Good game").click()  # a quick phrase
    expect(lines(ann_page)).to_have_text(["Hello bob <b>not bold</b>", "Good game"])
    expect(bob_box).to_have_value("half a sent")
    # The watchers' words never reached the players' pages (checked after a later message arrived).
    for page in (ann_page, bob_page):
        expect(page.locator("#chat")).not_to_contain_text("bob holds the winner")
        assert page.locator("#chat-lines-watchers").count() == 0

    # A moderator hides ann's message in the admin: it leaves every open page at once.
    moderator = django_user_model.objects.create_user("mod", "mod@example.com", "a-long-pass-phrase-42", is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    first = game.chat_messages.order_by("pk").first()
    assert first is not None
    admin = signed_in(moderator).new_page()
    admin.goto("/admin/games/chatmessage/?q=not+bold")
    admin.locator(f'input[name="_selected_action"][value="{first.pk}"]').check()
    admin.locator('select[name="action"]').select_option("hide_messages")
    admin.locator('button[name="index"]').click()
    admin.get_by_label("Reason").fill("Testing the hide.")
    admin.get_by_role("button", name="Hide").click()
    expect(admin.locator(".messagelist")).to_contain_text("1 message hidden.")
    for page in (ann_page, bob_page, cid_page):
        expect(lines(page)).to_have_text(["Good game"])
    for page in (ann_page, bob_page, cid_page):
        assert page.evaluate(NOT_RELOADED)


def test_refusals_show_in_the_chat_and_keep_what_was_typed(make_user, classic, signed_in):
    game, ann, bob = game_between(make_user, classic, rounds=[3, 4])
    page = open_table(signed_in(ann), game)
    box = page.get_by_placeholder("Say something to the table")
    count, _seconds = services.RATE_LIMITS[0]
    for n in range(count):
        box.fill(f"message {n}")
        page.get_by_role("button", name="Send").click()
        expect(lines(page)).to_have_count(n + 1)
    box.fill("one too many")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#chat-status [role=alert]")).to_contain_text("Not so fast")
    expect(box).to_have_value("one too many")
    assert page.evaluate(NOT_RELOADED)
