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
    bob_box.evaluate("el => el.setAttribute('data-kept', 'yes')")  # the very box, never swapped under him
    cid_page.get_by_placeholder("Say something to the other watchers").fill("bob holds the winner")
    cid_page.get_by_role("button", name="Send").click()
    expect(lines(cid_page, "watchers")).to_have_text(["bob holds the winner"])
    bob_page.get_by_role("button", name="Good game").click()  # a quick phrase
    expect(lines(ann_page)).to_have_text(["Hello bob <b>not bold</b>", "Good game"])
    expect(bob_box).to_have_value("half a sent")
    expect(bob_box).to_have_attribute("data-kept", "yes")
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


def moderate(admin: Page, changelist: str, pk: int, action: str, button: str) -> None:
    """Run a moderation action of the admin on one row, with a reason (the initial length for a mute)."""
    admin.goto(changelist)
    admin.locator(f'input[name="_selected_action"][value="{pk}"]').check()
    admin.locator('select[name="action"]').select_option(action)
    admin.locator('button[name="index"]').click()
    admin.get_by_label("Reason").fill("Testing the mute on an open page.")
    admin.get_by_role("button", name=button).click()
    expect(admin.locator(".messagelist")).to_be_visible()


def test_a_moderators_mute_and_its_end_reach_the_open_page_and_new_lines_are_counted_out_of_view(
    make_user, classic, signed_in, django_user_model
):
    """Found by a play-test: the mute left the message box on bob's open page (inviting posts that were
    refused) and its end left the page saying he was muted until he reloaded; on a phone, the chat far
    under the hand gave no sign of a new message; a screen reader heard nothing of it."""
    from django.contrib.auth.models import Group

    game, ann, bob = game_between(make_user, classic, rounds=[3, 4])
    ann_page, bob_page = open_table(signed_in(ann), game), open_table(signed_in(bob), game)
    ann_page.set_viewport_size({"width": 390, "height": 844})
    ann_page.evaluate("window.scrollTo(0, 0)")
    unread = ann_page.locator("[data-chat-unread]")
    expect(unread).to_be_hidden()
    bob_page.get_by_placeholder("Say something to the table").fill("are you there?")
    bob_page.get_by_role("button", name="Send").click()
    expect(lines(ann_page)).to_have_text(["are you there?"])
    expect(unread).to_have_text("1")
    expect(ann_page.locator("[data-chat-announce]")).to_have_text("bob: are you there?")
    expect(bob_page.locator("[data-chat-announce]")).to_have_text("")  # one's own words are not read back
    ann_page.locator(".chat-jump").click()  # to the chat: the count is read
    expect(unread).to_be_hidden()

    moderator = django_user_model.objects.create_user("mod", "mod@example.com", "a-long-pass-phrase-42", is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    admin = signed_in(moderator).new_page()
    box = bob_page.get_by_placeholder("Say something to the table")
    box.fill("half typed")
    moderate(admin, "/admin/accounts/user/?q=bob", bob.pk, "mute_from_chat", "Mute")
    expect(bob_page.locator("#chat")).to_contain_text("A moderator muted you from chat until")
    expect(box).to_have_count(0)
    suspension = bob.chat_suspensions.get()
    moderate(admin, "/admin/games/chatsuspension/", suspension.pk, "unmute_users", "Let them chat")
    expect(bob_page.get_by_placeholder("Say something to the table")).to_be_visible()
    expect(bob_page.locator("#chat")).not_to_contain_text("A moderator muted you")
    for page in (ann_page, bob_page):
        assert page.evaluate(NOT_RELOADED)
