"""Under the site's Content-Security-Policy, chromium reports no violation while people play,
replay a game, invite someone and moderate in the admin, and the scripts still work.

Chromium writes every refused inline script, style or connection to the console as
"Refused to ... because it violates the following Content Security Policy directive";
the pages also report them as ``securitypolicyviolation`` events.  Both are collected.
A positive control shows that the collection catches a violation, i.e. that the policy is
enforced and the listeners hear it.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from games import services
from tests.history.conftest import finish_with_bot_moves

from .conftest import game_between, off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

LISTEN = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


class Watched:
    """A page whose console messages and CSP violation events are kept."""

    def __init__(self, context: Any) -> None:
        context.add_init_script(LISTEN)
        self.page: Page = context.new_page()
        self.console: list[str] = []
        self.page.on("console", lambda message: self.console.append(message.text))

    def violations(self) -> list[str]:
        heard = [text for text in self.console if "Content Security Policy" in text]
        try:
            events = self.page.evaluate("window.__cspViolations || []")
        except Exception:  # the page is navigating: its console lines are still here
            events = []
        return heard + [f"event: {event}" for event in events]

    def assert_none(self) -> None:
        assert self.violations() == []


def test_the_policy_is_enforced_and_a_violation_is_heard(make_user, signed_in):
    """Positive control: an inline script added to the page is refused, and both listeners hear it."""
    watched = Watched(signed_in(make_user("ann")))
    page = watched.page
    page.goto("/rules/")
    header = page.context.request.get("/rules/").headers.get("content-security-policy", "")
    assert "script-src 'self'" in header
    page.evaluate(
        """() => { const s = document.createElement("script"); s.textContent = "window.__ran = true";
                   document.head.appendChild(s); }"""
    )
    page.wait_for_function("window.__cspViolations.length > 0")
    assert page.evaluate("window.__ran === undefined")
    assert any("Content Security Policy" in text for text in watched.console)
    assert any(event.startswith("event: script-src") for event in watched.violations())


def test_playing_a_move_on_the_table_breaks_no_rule(make_user, classic, signed_in):
    game, ann, bob = game_between(make_user, classic, rounds=[7, 8])
    mover = ann if game.seats.get(position=game.current_seat).user == ann else bob
    watched = Watched(signed_in(mover))
    page = watched.page
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")  # the WebSocket is open
    page.evaluate("window.__sameDocument = true")
    before = page.locator("#table").get_attribute("data-version")
    page.get_by_role("button", name="Draw from stock").click()  # posted with fetch, table swapped in
    expect(page.locator("#table")).not_to_have_attribute("data-version", before or "")
    page.get_by_role("button", name="Arrange").click()
    page.get_by_role("button", name="Done arranging").click()
    card = page.locator("#table form[data-hand] button.card:not([disabled])").first
    before = page.locator("#table").get_attribute("data-version")
    card.click()
    expect(page.locator("#table")).not_to_have_attribute("data-version", before or "")
    assert page.evaluate("window.__sameDocument === true")  # live.js did it all, no reload
    watched.assert_none()


def test_the_replay_steps_with_the_arrow_keys_and_breaks_no_rule(make_user, classic, signed_in):
    game, ann, _bob = game_between(make_user, classic, rounds=[3], seed=7)
    off_loop(finish_with_bot_moves, game)
    watched = Watched(signed_in(ann))
    page = watched.page
    page.goto(f"/games/{game.pk}/replay/?step=0")
    expect(page.locator(".replay-count")).to_contain_text("Move 0 of")
    page.keyboard.press("ArrowRight")  # page.js, a static file
    expect(page).to_have_url(f"{page.url.split('?')[0]}?step=1")
    expect(page.locator(".replay-count")).to_contain_text("Move 1 of")
    page.wait_for_load_state("load")  # page.js (deferred) listens again on the new page before the next key
    page.keyboard.press("ArrowRight")
    expect(page.locator(".replay-count")).to_contain_text("Move 2 of")
    page.wait_for_load_state("load")
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".replay-count")).to_contain_text("Move 1 of")
    page.goto(f"/games/{game.pk}/record/")
    expect(page.locator("h1")).to_be_visible()
    watched.assert_none()


def test_the_invite_link_selects_itself_without_inline_script(make_user, classic, signed_in):
    ann = make_user("ann")
    game = off_loop(services.game_create, creator=ann, variant=classic, seat_count=2, seed=3)
    watched = Watched(signed_in(ann))
    page = watched.page
    page.goto(f"/games/{game.pk}/")
    field = page.locator("#invite-link")
    value = field.input_value()
    assert f"/games/{game.pk}/invite/" in value
    field.focus()
    selected = page.evaluate(
        "() => { const f = document.activeElement; return f.value.slice(f.selectionStart, f.selectionEnd); }"
    )
    assert selected == value
    watched.assert_none()


def test_the_admin_works_under_the_policy(make_user, classic, signed_in, django_user_model):
    game, ann, _bob = game_between(make_user, classic, rounds=[7, 8])
    admin = django_user_model.objects.create_superuser(
        username="root", email="root@example.com", password="x-long-pass-42"
    )
    watched = Watched(signed_in(admin))
    page = watched.page
    for path in (
        "/admin/",
        f"/admin/games/game/{game.pk}/change/",
        f"/admin/games/variant/{classic.pk}/change/",
        f"/admin/accounts/user/{ann.pk}/change/",
        "/admin/games/variant/add/",
    ):
        page.goto(path)
        expect(page.locator("#content")).to_be_visible()
    # The changelist's scripts run: "select all" ticks every row and the counter follows (actions.js).
    page.goto("/admin/accounts/user/")
    page.locator("#action-toggle").check()
    rows = page.locator("input.action-select")
    assert rows.count() >= 3
    for i in range(rows.count()):
        expect(rows.nth(i)).to_be_checked()
    expect(page.locator(".action-counter")).to_contain_text(f"{rows.count()} of {rows.count()} selected")
    # The user form's two-list permission picker is made by the admin's scripts (SelectFilter2.js), and it
    # works: its filter box narrows the list of permissions to choose from.
    page.goto(f"/admin/accounts/user/{ann.pk}/change/")
    available = page.locator("#id_user_permissions_from option")
    expect(available.first).to_be_attached()
    every = available.count()
    page.locator("#id_user_permissions_input").press_sequentially("chat")  # it filters on each key
    expect(available).not_to_have_count(every)
    assert 0 < available.count() < every
    watched.assert_none()
