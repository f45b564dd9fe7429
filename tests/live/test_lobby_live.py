"""The lobby's open tables, live: ``/ws/lobby/`` and the lists it makes the page fetch.

A tester on the lobby saw nothing of a table another person created, nor of a
seat taken, until they reloaded; a Join on a table filled meanwhile was then
refused.  Now every change of a listed table (created, a seat taken or left,
started, called off by a moderator or by its last person leaving) tells the
lobby's sockets, which pass on a bare ``{"type": "lobby"}``; a socket says the
stamp of the lists as they are now on connect and at its heartbeat, so a page
that missed a change (the channel layer was down) catches up.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.test import Client

from games import live, selectors, services
from games.live import consumers
from games.models import Game
from tests.web.conftest import logged_in

from .test_consumers import communicator, connects
from .test_socket_permissions import closed_with, socket_with_session

pytestmark = pytest.mark.django_db(transaction=True)

LOBBY = "/ws/lobby/"
CHANGED = {"type": "lobby"}


def page_stamp(client: Client) -> str:
    """The stamp of the lists the lobby page shows ``client`` now."""
    found = re.search(r'id="lobby-lists"[^>]*data-lobby-stamp="([0-9a-f]+)"', client.get("/").content.decode())
    assert found is not None, "the lobby shows no stamp of its lists"
    return found.group(1)


def post_as(user: Any, path: str) -> int:
    """The status of ``user``'s post to ``path`` (sync: called through ``database_sync_to_async``)."""
    return logged_in(user).post(path).status_code


def test_a_signed_out_visitor_gets_no_lobby_socket():
    assert connects(LOBBY) == (False, consumers.CLOSE_NOT_LOGGED_IN)


def test_the_lobby_hears_a_table_created_a_seat_taken_and_left_and_the_start(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    comm = communicator(LOBBY, cid)
    shown = page_stamp(logged_in(cid))

    async def scenario():
        assert (await comm.connect())[0]
        assert await comm.receive_json_from() == {"type": "lobby", "stamp": shown}
        game = await database_sync_to_async(services.game_create)(creator=ann, variant=classic, seat_count=3)
        assert await comm.receive_json_from() == CHANGED
        for path, user in (("join", bob), ("leave", bob), ("join", bob), ("start", ann)):
            assert await database_sync_to_async(post_as)(user, f"/games/{game.pk}/{path}/") == 302, path
            assert await comm.receive_json_from() == CHANGED, path
        assert await comm.receive_nothing(timeout=0.1)
        await comm.disconnect()

    async_to_sync(scenario)()


def test_the_lobby_hears_the_last_seat_taken_and_the_last_person_leaving(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    full = services.game_create(creator=ann, variant=classic, seat_count=2)
    alone = services.game_create(creator=ann, variant=classic, seat_count=3)
    comm = communicator(LOBBY, make_user("cid"))

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        assert await database_sync_to_async(post_as)(bob, f"/games/{full.pk}/join/") == 302
        assert await comm.receive_json_from() == CHANGED  # dealt: it leaves the list
        assert await database_sync_to_async(post_as)(ann, f"/games/{alone.pk}/leave/") == 302
        assert await comm.receive_json_from() == CHANGED  # called off: it leaves the list
        assert await comm.receive_nothing(timeout=0.1)
        await comm.disconnect()

    async_to_sync(scenario)()
    assert Game.objects.get(pk=alone.pk).status == Game.Status.ABORTED


def test_a_moderator_calling_off_an_open_table_takes_it_from_the_lobby(make_user, classic, django_user_model):
    ann = make_user("ann")
    moderator = django_user_model.objects.create_superuser("mod", "mod@example.com", "a-long-pass-phrase-42")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    comm = communicator(LOBBY, make_user("cid"))

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        await database_sync_to_async(services.game_abort)(game_id=game.pk, moderator=moderator, reason="spam")
        assert await comm.receive_json_from() == CHANGED
        await comm.disconnect()

    async_to_sync(scenario)()


def test_private_tables_and_games_in_play_tell_the_lobby_nothing(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    comm = communicator(LOBBY, make_user("cid"))

    def changes() -> None:
        private = services.game_create(creator=ann, variant=classic, seat_count=2, is_private=True)
        services.game_join(game_id=private.pk, user=bob, invite_token=private.invite_token)
        services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1)  # dealt at once: never listed

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        await database_sync_to_async(changes)()
        assert await comm.receive_nothing(timeout=0.2)
        await comm.disconnect()

    async_to_sync(scenario)()


def test_a_private_table_is_told_to_its_own_people_alone(make_user, classic):
    """A person invited to a private table hears of it (their own socket: their lobby fetches its lists), as
    they do when it starts without them; a stranger's lobby hears nothing of it (a review: every lobby heard
    "lobby changed" when a private table was made, so its making reached strangers, and the person invited
    was not told when it started)."""
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    bobs, eves = communicator("/ws/user/", bob), communicator(LOBBY, eve)

    async def scenario():
        for comm in (bobs, eves):
            assert (await comm.connect())[0]
            await comm.receive_json_from()  # the count of games waiting, the lists' stamp
        game = await database_sync_to_async(services.game_create)(
            creator=ann, variant=classic, seat_count=3, is_private=True, invited=[bob]
        )
        assert await bobs.receive_json_from() == CHANGED
        await database_sync_to_async(services.game_start)(game_id=game.pk, user=ann)
        assert await bobs.receive_json_from() == CHANGED  # the seat held for him went to a bot
        assert await eves.receive_nothing(timeout=0.3)
        for comm in (bobs, eves):
            await comm.disconnect()

    async_to_sync(scenario)()


def test_a_table_called_off_holds_no_seat_and_shows_its_people_nothing_more(make_user, classic):
    """A review: the creator of a private table left it (called off), and the person invited could still open
    the dead table and read its chat, and found it among their invitations."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, is_private=True, invited=[bob])
    assert "Invited: take your seat" in logged_in(bob).get("/lobby/lists/").content.decode()
    services.game_leave(game_id=game.pk, user=ann)
    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED and not game.seats.filter(reserved_for__isnull=False).exists()
    assert logged_in(bob).get(game.get_absolute_url()).status_code in (403, 404)
    assert "Invited: take your seat" not in logged_in(bob).get("/lobby/lists/").content.decode()


def test_the_lists_the_page_fetches_are_the_lobbys_with_their_stamp(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    browser = logged_in(bob)
    before = page_stamp(browser)
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    response = browser.get("/lobby/lists/")
    html = response.content.decode()
    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    assert f"#{game.pk}" in html and f'action="/games/{game.pk}/join/"' in html
    assert 'id="new-game"' not in html  # the lists alone, not the create form nor the page around them
    assert f'data-lobby-stamp="{page_stamp(browser)}"' in html
    fetched = page_stamp(browser)
    assert fetched == selectors.lobby_stamp_for(user=bob) != before
    # A seat taken changes the stamp (the same games, one at another version).
    services.game_join(game_id=game.pk, user=make_user("cid"))
    assert selectors.lobby_stamp_for(user=bob) == page_stamp(browser) != fetched
    # Signed out, the open tables without a way to join them, and no socket to open.
    anonymous = Client().get("/lobby/lists/").content.decode()
    assert f"#{game.pk}" in anonymous and "/join/" not in anonymous and "/ws/lobby/" not in anonymous
    assert Client().post("/lobby/lists/").status_code == 405


def test_a_seat_taken_while_the_channel_layer_is_down_is_kept_and_the_lobby_catches_up(make_user, classic, monkeypatch):
    """The join is stored whatever the layer does; the lobby page's socket, open again, says another stamp."""
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    browser = logged_in(cid)
    shown = page_stamp(browser)

    class LayerDown:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            raise ConnectionError("the channel layer is down")

    with monkeypatch.context() as patched:
        patched.setattr(live.groups, "get_channel_layer", LayerDown)
        assert logged_in(bob).post(f"/games/{game.pk}/join/").status_code == 302
    assert game.seats.filter(user=bob).exists()
    tab = socket_with_session(LOBBY, browser)

    async def scenario():
        assert (await tab.connect())[0]
        heard = await tab.receive_json_from()
        assert heard["type"] == "lobby" and heard["stamp"] != shown
        assert heard["stamp"] == await database_sync_to_async(page_stamp)(browser)
        await tab.disconnect()

    async_to_sync(scenario)()


def test_the_heartbeat_says_the_stamp_and_a_signed_out_socket_closes(make_user, classic, monkeypatch):
    """A lobby socket that stayed open while its announcement was lost hears the new stamp at its heartbeat."""
    cid = make_user("cid")
    browser = logged_in(cid)
    tab = socket_with_session(LOBBY, browser)
    monkeypatch.setattr(consumers, "HEARTBEAT_REFRESH_SECONDS", 0.0)

    class LayerDown:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            raise ConnectionError("the channel layer is down")

    def create_unheard() -> Game:
        with monkeypatch.context() as patched:
            patched.setattr(live.groups, "get_channel_layer", LayerDown)
            return services.game_create(creator=make_user("ann"), variant=classic, seat_count=2)

    async def scenario():
        assert (await tab.connect())[0]
        first = await tab.receive_json_from()
        await database_sync_to_async(create_unheard)()
        assert await tab.receive_nothing(timeout=0.1)
        await tab.send_json_to(consumers.PING)
        assert await tab.receive_json_from() == consumers.PONG
        again = await tab.receive_json_from()
        assert again["type"] == "lobby" and again["stamp"] != first["stamp"]
        await database_sync_to_async(browser.post)("/accounts/logout/")
        assert await closed_with(tab) == consumers.CLOSE_NOT_LOGGED_IN

    async_to_sync(scenario)()


def test_the_lobby_lists_a_persons_most_urgent_games_and_links_the_rest(make_user, classic, monkeypatch):
    """Every open lobby fetches its lists at each change of a listed table: with all of a person's games in
    them, 50 games made each fetch cost 82 ms (a review).  The lobby shows the first few, most urgent first,
    with the stamp of what it shows; "My games" has them all."""
    monkeypatch.setattr(selectors, "LOBBY_MY_GAMES", 3)
    monkeypatch.setattr(services.playing, "MAX_OPEN_TABLES", 4)  # four tables waiting for players
    ann = make_user("ann")
    games = [services.game_create(creator=ann, variant=classic, seat_count=3) for _ in range(4)]
    lists = selectors.lobby_lists(user=ann)
    assert len(lists["my_games"]) == 3 and lists["more_games"]
    assert lists["lobby_stamp"] == selectors.lobby_stamp_for(user=ann)
    html = logged_in(ann).get("/lobby/lists/").content.decode()
    assert 'href="/games/mine/">All your games' in html
    assert sum(f'href="/games/{game.pk}/"' in html for game in games) == 3
    services.game_leave(game_id=games[0].pk, user=ann)  # three left: all shown, no link
    assert "All your games" not in logged_in(ann).get("/lobby/lists/").content.decode()


def test_one_who_leaves_a_private_table_hears_of_it_on_their_other_pages(make_user, classic):
    """A second review: the message was made after the seat was let go, so the person leaving was not among
    those told, and their lobby open in another tab went on listing the table."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, is_private=True, invited=[bob])
    services.game_join(game_id=game.pk, user=bob)
    bobs = communicator("/ws/user/", bob)

    async def scenario():
        assert (await bobs.connect())[0]
        await bobs.receive_json_from()  # the count of games waiting
        await database_sync_to_async(services.game_leave)(game_id=game.pk, user=bob)
        assert await bobs.receive_json_from() == CHANGED
        await bobs.disconnect()

    async_to_sync(scenario)()
