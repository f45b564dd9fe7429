"""The lobby follows its open tables live, on a phone and on a desktop.

Found by a tester: with the lobby open, a table another person created did not
show until a reload, nor did a seat taken (the Join offered on a table that
had filled was then refused).  Now the lobby's socket says the lists changed
and the page swaps them in, without a reload, and not while the person is
typing a seed contribution for a join.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


def create_open_table(page: Any, people: int) -> int:
    """Create a table with ``people`` seats for others and no bot from the lobby's form; its number.

    Through the served site (its process announces to its own sockets), as a person would.
    """
    page.goto("/")
    page.select_option("select[name=medium_bots]", "0")
    page.select_option("select[name=people]", str(people))
    page.get_by_role("button", name="Create game").click()
    expect(page).to_have_url(re.compile(r"/games/\d+/$"))
    found = re.search(r"/games/(\d+)/$", page.url)
    assert found is not None
    return int(found.group(1))


def type_a_contribution(page: Any, game: int) -> Any:
    """Open the join of ``game``'s row in the lobby and type a seed contribution there; the row."""
    row = page.locator("#open-games li", has_text=f"#{game}")
    row.locator("summary").click()
    row.locator("input[name=seed_contribution]").fill("my own words")
    return row


def fetches_of_the_lists(page: Any) -> list[str]:
    """The addresses of the page's fetches of its lists from now on, as they are made."""
    fetches: list[str] = []
    page.on("request", lambda request: fetches.append(request.url) if "/lobby/lists/" in request.url else None)
    return fetches


def wait_until(page: Any, condition: Any, seconds: float = 10) -> None:
    """Let the page's events (its socket's frames, its requests) come in until ``condition()`` holds."""
    for _ in range(int(seconds * 10)):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"not seen within {seconds} s")


def join_from_the_lobby(page: Any, game: int) -> None:
    page.goto("/")
    page.locator("#open-games li", has_text=f"#{game}").get_by_role("button", name="Join").click()
    expect(page).to_have_url(re.compile(rf"/games/{game}/$"))


def test_a_table_created_and_its_seats_taken_show_in_the_lobby_without_a_reload(make_user, signed_in):
    ann, bob, cid, dan = (make_user(name) for name in ("ann", "bob", "cid", "dan"))
    phone = signed_in(cid, viewport=PHONE).new_page()
    desktop = signed_in(bob, viewport=DESKTOP).new_page()
    for page in (phone, desktop):
        page.goto("/")
        expect(page.locator("#open-games")).to_contain_text("No table is waiting for players right now.")
    phone.evaluate("window.notReloaded = true")

    game = create_open_table(signed_in(ann, viewport=DESKTOP).new_page(), people=2)
    for page in (phone, desktop):
        row = page.locator("#open-games li", has_text=f"#{game}")
        expect(row).to_contain_text("ann, open seat, open seat")
        expect(row.get_by_role("button", name="Join")).to_be_visible()

    # Bob takes a seat from his lobby; the phone's row says so without a reload.
    desktop.locator("#open-games li", has_text=f"#{game}").get_by_role("button", name="Join").click()
    expect(desktop).to_have_url(re.compile(rf"/games/{game}/$"))
    expect(phone.locator("#open-games li", has_text=f"#{game}")).to_contain_text("ann, bob, open seat")

    # The last seat taken elsewhere: the table is dealt and leaves the list.
    join_from_the_lobby(signed_in(dan, viewport=DESKTOP).new_page(), game)
    expect(phone.locator("#open-games")).to_contain_text("No table is waiting for players right now.")
    assert phone.evaluate("window.notReloaded === true")  # the same page: swapped, not reloaded


def test_the_lists_wait_while_a_seed_contribution_is_typed(make_user, signed_in):
    ann, cid = make_user("ann"), make_user("cid")
    creator = signed_in(ann, viewport=DESKTOP).new_page()
    first = create_open_table(creator, people=2)
    page = signed_in(cid, viewport=PHONE).new_page()
    page.goto("/")
    row = type_a_contribution(page, first)
    fetches = fetches_of_the_lists(page)

    second = create_open_table(creator, people=1)
    page.wait_for_timeout(4000)
    expect(page.locator("#open-games")).not_to_contain_text(f"#{second}")
    # Fetched once, and kept until the person is done: a review saw a fetch every 2 s while they typed.
    assert len(fetches) == 1, fetches
    expect(row.locator("input[name=seed_contribution]")).to_have_value("my own words")
    # Once the person is done there (the field folded, the focus elsewhere) the lists catch up.
    row.locator("summary").click()
    page.locator("h2", has_text="New game").click()
    expect(page.locator("#open-games")).to_contain_text(f"#{second}")


def test_lists_kept_for_later_are_not_fetched_again_at_each_heartbeat(make_user, signed_in):
    """A review counted a fetch of the lists at every heartbeat while the page kept fetched ones for later:
    the heartbeat's stamp was compared with the lists shown, not with those waiting. The page's clock is
    Playwright's, moved on past a heartbeat; the socket and the server are real."""
    ann, cid = make_user("ann"), make_user("cid")
    creator = signed_in(ann, viewport=DESKTOP).new_page()
    first = create_open_table(creator, people=2)
    page = signed_in(cid, viewport=PHONE).new_page()
    page.clock.install()
    stamps: list[str] = []
    page.on(
        "websocket",
        lambda socket: socket.on(
            "framereceived", lambda frame: stamps.append(frame) if '"stamp"' in str(frame) else None
        ),
    )
    page.goto("/")
    wait_until(page, lambda: len(stamps) > 0)  # the stamp said on connect
    row = type_a_contribution(page, first)
    fetches = fetches_of_the_lists(page)

    second = create_open_table(creator, people=1)
    page.clock.run_for(2000)  # past the random spread of the fetches
    wait_until(page, lambda: len(fetches) == 1)
    page.wait_for_timeout(500)  # (the fetched lists arrive and are kept)
    expect(page.locator("#open-games")).not_to_contain_text(f"#{second}")

    heard = len(stamps)
    # Past a heartbeat: a ping after 15 s of silence, answered with the stamp (within the 8 s of grace,
    # which a longer jump of the page's clock would leave no real time for).
    page.clock.run_for(16_000)
    wait_until(page, lambda: len(stamps) > heard)
    page.wait_for_timeout(1000)
    assert len(fetches) == 1, fetches  # the stamp is that of the lists kept: nothing to fetch
    expect(row.locator("input[name=seed_contribution]")).to_have_value("my own words")
