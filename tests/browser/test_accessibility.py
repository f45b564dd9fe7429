"""ISSUE 13.5: automated accessibility checks (axe-core, through axe-playwright-python, which ships
axe.min.js: nothing is fetched) find no serious or critical problem on the pages a player uses (the
analysis page of issue 16 too), in the light and the dark colour scheme (colour contrast included), and each
has one main heading; every card is named in full for screen readers.
"""

from __future__ import annotations

from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from games import services
from games.models import Game
from tests.history.conftest import finish_with_bot_moves

from .conftest import game_between, off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

#: The impacts that fail the check (axe's others are "moderate" and "minor").
FAILING = ("serious", "critical")


def serious_violations(page: Page) -> list[str]:
    """axe's serious and critical findings on the page as it is now, one readable line each."""
    results = Axe().run(page)
    lines = []
    for violation in results.response["violations"]:
        if violation["impact"] in FAILING:
            for node in violation["nodes"]:
                lines.append(f"{violation['id']} ({violation['impact']}): {node['target']} {node['html'][:160]}")
    return lines


@pytest.fixture
def pages_to_check(make_user: Any, classic: Any) -> dict[str, tuple[str, str]]:
    """Every kind of page a player uses, by name: its address and who looks at it."""
    game, ann, bob = game_between(make_user, classic, rounds=[3, 4])
    game.refresh_from_db()
    waiting = "bob" if game.current_seat == 0 else "ann"
    # ann's own game against two bots of different levels, at her turn
    solo = off_loop(
        services.game_create,
        creator=ann,
        variant=classic,
        seat_count=3,
        bot_levels=["easy", "hard"],
        seed=5,
        coach=True,
        options={"rounds": [3, 4]},
    )
    finished = off_loop(
        services.game_create, creator=ann, variant=classic, seat_count=2, bot_count=1, seed=7, options={"rounds": [3]}
    )
    finished = off_loop(finish_with_bot_moves, finished)
    assert finished.status == Game.Status.FINISHED
    analysed = off_loop(services.analyse_game, game_id=finished.pk)
    assert analysed.is_done
    pages = {
        "lobby": "/",
        "table, your turn": f"/games/{solo.pk}/",
        "table, your hand in best melds": f"/games/{solo.pk}/?hand=melds",
        "table, game over": f"/games/{finished.pk}/",
        "round summary": f"/games/{finished.pk}/rounds/1/",
        "record": f"/games/{finished.pk}/record/",
        "analysis": f"/games/{finished.pk}/analysis/",
        "profile": "/accounts/profile/",
        "rules": "/rules/",
        "my games": "/games/mine/",
        "stats": "/players/ann/",
    }
    return {
        **{name: (url, "ann") for name, url in pages.items()},
        # the two-person game, seen by whoever is not to move
        "table, waiting": (f"/games/{game.pk}/", waiting),
    }


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_accessibility_problem_on_the_pages_a_player_uses(
    pages_to_check: dict[str, tuple[str, str]], signed_in: Any, browser: Any, live_url: str, scheme: str
) -> None:
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    contexts = {name: signed_in(users.get(username=name), color_scheme=scheme) for name in ("ann", "bob")}
    contexts[""] = browser.new_context(base_url=live_url, color_scheme=scheme)  # a newcomer, signed out
    pages_to_check = {**pages_to_check, "lobby, signed out": ("/", ""), "sign-up": ("/accounts/signup/", "")}
    found: dict[str, list[str]] = {}
    for name, (url, who) in pages_to_check.items():
        page = contexts[who].new_page()
        page.goto(url)
        page.wait_for_load_state("load")
        if name.startswith("table"):  # once its live updates are on
            expect(page.locator("[data-live-status]")).to_have_text("Live")
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") is (scheme == "dark")
        problems = serious_violations(page)
        # One main heading, which a screen reader jumps to (axe says so only as a "moderate" best practice):
        # the lobby and the round's summary had none (an accessibility tester).
        if (headings := page.locator("h1").count()) != 1:
            problems.append(f"{headings} h1 headings, not one")
        if problems:
            found[name] = problems
        page.close()
    contexts[""].close()
    assert not found, "\n".join(f"{name}:\n  " + "\n  ".join(lines) for name, lines in found.items())


@pytest.mark.slow
def test_every_card_has_its_full_name_for_screen_readers(make_user: Any, classic: Any, signed_in: Any) -> None:
    ann = make_user("ann")
    game = off_loop(
        services.game_create, creator=ann, variant=classic, seat_count=2, bot_count=1, seed=5, options={"rounds": [3]}
    )
    page = signed_in(ann).new_page()
    page.goto(f"/games/{game.pk}/")
    page.get_by_role("button", name="Draw from stock").click()
    hand = page.locator("#table form[data-hand] button.card")
    expect(hand).to_have_count(4)
    # In round 1 threes are wild; each card button is named "<rank> of <suit>", "(wild)" for a three.
    names = [hand.nth(i).evaluate("b => b.innerText + '|' + b.textContent") for i in range(4)]
    for i in range(4):
        code = hand.nth(i).get_attribute("data-card")
        assert code is not None
        accessible = page.locator(f'#table form[data-hand] button.card[data-card="{code}"]').first
        label = accessible.evaluate(
            "b => Array.from(b.childNodes).filter(n => !(n.getAttribute && n.getAttribute('aria-hidden') === 'true'))"
            ".map(n => n.textContent).join('').trim()"
        )
        assert " of " in label, (label, names)
        assert label.endswith("(wild)") == code.startswith("3"), label
        expect(page.get_by_role("button", name=label, exact=True).first).to_be_attached()
    # The discard pile's top card and the player's own cards are named; the suit symbols are not read out.
    top = page.locator("#table .piles [data-card]")
    assert " of " in (top.get_attribute("aria-label") or "")
    assert page.locator("#table .card-suit:not([aria-hidden='true'])").count() == 0


def test_what_a_thumb_taps_on_a_phone_is_big_enough(make_user: Any, classic: Any, signed_in: Any) -> None:
    """A play-test measured 19 px high sort links, a 19 px language menu and 13 px checkboxes on a phone."""
    ann = make_user("ann")
    game = off_loop(
        services.game_create, creator=ann, variant=classic, seat_count=2, bot_count=1, seed=5, options={"rounds": [3]}
    )
    off_loop(services.game_create, creator=make_user("bob"), variant=classic, seat_count=3)  # an open table
    page = signed_in(ann, viewport={"width": 390, "height": 844}).new_page()
    page.goto("/")
    summaries = page.locator(".join-form details.seed-field summary").evaluate_all(
        "els => els.map(el => el.getBoundingClientRect().height)"
    )
    assert summaries and min(summaries) >= 36, summaries
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    page.locator(".resign summary").click()
    smallest = {  # the selector: the least height (CSS pixels) each of its elements must have
        ".site-nav a": 36,
        ".site-footer select": 36,
        ".hand-view-links a": 44,
        ".sort-links a": 44,
        ".resign input[type=checkbox]": 22,
    }
    for selector, least in smallest.items():
        heights = page.locator(selector).evaluate_all("els => els.map(el => el.getBoundingClientRect().height)")
        assert heights and min(heights) >= least, (selector, heights)
    page.get_by_role("button", name="Arrange").click()
    arrows = page.locator(".arrange-move").evaluate_all(
        "els => els.map(el => [el.getBoundingClientRect().width, el.getBoundingClientRect().height])"
    )
    assert arrows and min(width for width, _ in arrows) >= 32 and min(height for _, height in arrows) >= 44, arrows


def test_in_forced_colours_a_small_wild_card_keeps_a_mark_that_shows(browser: Any, live_url: str) -> None:
    """An accessibility tester: in forced colours (Windows high contrast) the gold disc of a small wild card went,
    and what was left was a 6 px star in its corner.  The mark keeps the system's highlight colours, larger."""
    marks = {}
    for forced in ("none", "active"):
        context = browser.new_context(base_url=live_url, forced_colors=forced)
        page = context.new_page()
        page.goto("/rules/")  # its examples show the wild cards small
        card = page.locator(".cards.small .card.wild").first.element_handle()
        assert card is not None
        marks[forced] = page.evaluate(
            """card => {
              const mark = getComputedStyle(card, '::after'), probe = document.createElement('span');
              probe.style.color = 'Highlight';
              document.body.append(probe);
              const highlight = getComputedStyle(probe).color;
              return { width: parseFloat(mark.width), background: mark.backgroundColor, highlight: highlight };
            }""",
            card,
        )
        context.close()
    assert marks["active"]["width"] >= 16 > marks["none"]["width"]
    assert marks["active"]["background"] == marks["active"]["highlight"]


def test_the_live_status_is_read_as_its_word_alone(make_user: Any, classic: Any, signed_in: Any) -> None:
    """An accessibility tester heard "black circle Live": the dot is drawn, not said."""
    game, ann, _bob = game_between(make_user, classic, rounds=[3])
    page = signed_in(ann).new_page()
    page.goto(f"/games/{game.pk}/")
    expect(page.locator("[data-live-status]")).to_have_text("Live")
    assert "- text: Live\n" in page.locator("[data-live-status]").locator("..").aria_snapshot()
