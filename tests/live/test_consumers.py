"""The WebSocket consumers, through the whole ASGI stack (origin check, session auth, routing).

Each scenario is a coroutine run with ``async_to_sync``; database calls made
with ``database_sync_to_async`` run on the test's own thread.  The tests are
transactional: every move really commits, so ``transaction.on_commit`` fires
as in production (and Channels may close the thread's connection between
calls, which a test wrapped in one transaction would not survive).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import translation

from games import bots, live, services
from games.engine import GameState, view
from games.live import consumers
from games.models import Game
from tests.web.conftest import logged_in, post_action
from threethirteen_site.asgi import application

from .conftest import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = b"http://127.0.0.1"
#: A card code standing alone anywhere in a message (e.g. "TH", "XX").
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQKX][CDHSX](?![A-Za-z0-9])")


def communicator(path: str, user: Any = None, origin: bytes = ORIGIN) -> WebsocketCommunicator:
    """A browser tab opening ``path``: its Origin and, for ``user``, a session cookie (made here, in sync code)."""
    headers = [(b"origin", origin), (b"host", b"127.0.0.1")]
    if user is not None:
        headers.append((b"cookie", f"sessionid={session_cookie(user)}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


def connects(path: str, user: Any = None, origin: bytes = ORIGIN) -> tuple[bool, Any]:
    comm = communicator(path, user, origin)

    async def scenario():
        result = await comm.connect()
        await comm.disconnect()
        return result

    return async_to_sync(scenario)()


@pytest.fixture
def two_player_game(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        invitees=[bob],
        seed=21,
        options={"rounds": [3, 4]},
        spectators_allowed=False,
    )
    assert game.status == Game.Status.ACTIVE
    return game, ann, bob


@pytest.mark.parametrize("path", ["/ws/user/", "/ws/games/1/"])
def test_a_forged_session_cookie_is_a_visitor_not_an_error(path):
    """Python's cookie parser makes ``\\000`` a NUL, which PostgreSQL refused in the session query."""
    headers = [(b"origin", ORIGIN), (b"host", b"127.0.0.1"), (b"cookie", b'sessionid="aaaaaaaaaaaa\\000"')]
    comm = WebsocketCommunicator(application, path, headers=headers)

    async def scenario():
        result = await comm.connect()
        await comm.disconnect()
        return result

    assert async_to_sync(scenario)() == (False, consumers.CLOSE_NOT_LOGGED_IN)


def test_a_logged_out_visitor_is_refused(two_player_game):
    game, _, _ = two_player_game
    assert connects(f"/ws/games/{game.pk}/") == (False, consumers.CLOSE_NOT_LOGGED_IN)
    assert connects("/ws/user/") == (False, consumers.CLOSE_NOT_LOGGED_IN)


def test_a_stranger_is_refused_when_only_players_may_watch(two_player_game, make_user):
    game, _, _ = two_player_game
    assert connects(f"/ws/games/{game.pk}/", make_user("cid")) == (False, consumers.CLOSE_FORBIDDEN)


def test_a_players_only_table_whose_free_seats_are_all_held_is_closed_to_a_stranger(make_user, classic):
    """Found by a tester: a stranger typing the number of such a table (a rematch, or one made with
    "Invite players") read its players' chat on the page and the chat partial, and its socket let them in,
    though no seat there could ever be theirs.  The person a seat is held for looks in; once a seat opens to
    anyone (the person declines), anyone may look, to take it."""
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=1, invited=[bob], spectators_allowed=False
    )
    services.chat_post(game_id=game.pk, user=ann, text="for bob only")
    stranger = logged_in(eve)
    for path in (f"/games/{game.pk}/", f"/games/{game.pk}/chat/", f"/games/{game.pk}/table/"):
        refused = stranger.get(path)
        assert refused.status_code == 403 and "for bob only" not in refused.content.decode(), path
    assert connects(f"/ws/games/{game.pk}/", eve) == (False, consumers.CLOSE_FORBIDDEN)
    assert "for bob only" in logged_in(bob).get(f"/games/{game.pk}/").content.decode()
    assert connects(f"/ws/games/{game.pk}/", bob)[0]
    services.game_decline(game_id=game.pk, user=bob)  # the seat opens to anyone
    assert stranger.get(f"/games/{game.pk}/").status_code == 200
    assert connects(f"/ws/games/{game.pk}/", eve)[0]


def test_a_private_tables_invite_link_opens_it_while_it_looks_for_players_whatever_its_seats(make_user, classic):
    """A review: its free seats all held for people named, the holder of its link was refused with a page
    saying that those its link was sent to may look.  The creator sent it: they look, as before."""
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invited=[bob], is_private=True, spectators_allowed=False
    )
    holder = logged_in(eve)
    assert holder.get(f"/games/{game.pk}/").status_code == 403  # no link: private
    assert holder.get(game.invite_path()).status_code == 200
    assert holder.get(f"/games/{game.pk}/").status_code == 200


def test_a_player_of_another_game_is_refused(two_player_game, make_user, classic):
    game, ann, _ = two_player_game
    dan = make_user("dan")
    other = services.game_create(
        creator=dan, variant=classic, seat_count=2, bot_count=1, seed=3, spectators_allowed=False
    )
    assert connects(f"/ws/games/{other.pk}/", dan)[0] is True
    assert connects(f"/ws/games/{game.pk}/", dan) == (False, consumers.CLOSE_FORBIDDEN)
    assert connects(f"/ws/games/{other.pk}/", ann) == (False, consumers.CLOSE_FORBIDDEN)


def test_an_unknown_game_or_a_foreign_page_is_refused(two_player_game):
    game, ann, _ = two_player_game
    assert connects("/ws/games/999999/", ann) == (False, consumers.CLOSE_FORBIDDEN)
    # AllowedHostsOriginValidator: a page of another site cannot open the socket with ann's cookie.
    assert connects(f"/ws/games/{game.pk}/", ann, origin=b"http://evil.example")[0] is False
    assert connects(f"/ws/games/{game.pk}/", ann)[0] is True


def test_a_spectator_is_let_in_when_the_game_allows_it(make_user, classic):
    ann, cid = make_user("ann"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=4)
    assert game.spectators_allowed
    assert connects(f"/ws/games/{game.pk}/", cid)[0] is True
    # ... and the table they fetch is the public one: no hand at all.
    page = logged_in(cid).get(f"/games/{game.pk}/table/")
    assert page.status_code == 200 and page.context["me"] is None and page.context["hand"] == []


def test_players_only_tables_are_refused_to_strangers_over_http_too(two_player_game, make_user):
    game, _, _ = two_player_game
    cid = logged_in(make_user("cid"))
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/table/"):
        response = cid.get(url)
        assert response.status_code == 403
        assert "Only the players of this game may look at it" in response.content.decode()
        assert not CARD_CODE.search(re.sub(r"<[^>]+>", " ", response.content.decode()).replace("3|13", ""))
    # A forged move from the stranger is refused without showing the table either.
    response = post_action(cid, game, {"type": "draw", "source": "stock"})
    assert response.status_code == 403 and 'id="table"' not in response.content.decode()


def test_a_player_hears_the_new_version_after_the_other_moves(two_player_game):
    game, ann, bob = two_player_game
    bob_client = logged_in(bob)

    def bob_moves() -> int:
        game.refresh_from_db()
        action = bots.choose_action(view(GameState.from_dict(game.state), game.current_seat)).to_dict()
        player = bob_client if game.current_seat == 1 else logged_in(ann)
        assert post_action(player, game, action).status_code == 302
        game.refresh_from_db()
        return game.version

    comm = communicator(f"/ws/games/{game.pk}/", ann)

    async def scenario():
        connected, _ = await comm.connect()
        assert connected
        assert await comm.receive_json_from() == {"type": "version", "version": game.version}
        new_version = await database_sync_to_async(bob_moves)()
        assert await comm.receive_json_from() == {"type": "version", "version": new_version}
        await comm.disconnect()

    async_to_sync(scenario)()


def test_a_refused_move_announces_nothing(two_player_game):
    game, ann, bob = two_player_game

    def stale_move() -> None:
        response = post_action(logged_in(ann), game, {"type": "draw", "source": "stock"}, version=game.version - 1)
        assert response.status_code == 409

    comm = communicator(f"/ws/games/{game.pk}/", bob)

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        await database_sync_to_async(stale_move)()
        assert await comm.receive_nothing(timeout=0.2)
        await comm.disconnect()

    async_to_sync(scenario)()


@pytest.mark.slow
def test_no_message_ever_carries_a_card_over_a_whole_game(two_player_game, make_user):
    game, ann, bob = two_player_game
    game.spectators_allowed = True
    game.save(update_fields=["spectators_allowed"])
    cid = make_user("cid")
    clients = {0: logged_in(ann), 1: logged_in(bob)}

    def play_one() -> bool:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return False
        action = bots.choose_action(view(GameState.from_dict(game.state), game.current_seat)).to_dict()
        assert post_action(clients[game.current_seat], game, action).status_code == 302
        return True

    comms = [communicator(f"/ws/games/{game.pk}/", user) for user in (ann, bob, cid)]

    async def scenario() -> list[list[str]]:
        texts: list[list[str]] = [[] for _ in comms]
        for comm, seen in zip(comms, texts, strict=True):
            assert (await comm.connect())[0]
            seen.append(await comm.receive_from())  # the version at connect
        moves = 0
        while await database_sync_to_async(play_one)():
            moves += 1
            for comm, seen in zip(comms, texts, strict=True):
                seen.append(await comm.receive_from())
        for comm, seen in zip(comms, texts, strict=True):
            # the game's end also tells every page to fetch its chat (the players may now read the watchers')
            seen.append(await comm.receive_from())
        for comm in comms:
            assert await comm.receive_nothing(timeout=0.05)
            await comm.disconnect()
        assert moves > 10
        return texts

    texts = async_to_sync(scenario)()
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    for seen in texts:
        versions = []
        for text in seen:
            message = json.loads(text)
            assert not CARD_CODE.search(text)
            if message == {"type": "chat"}:
                continue
            assert set(message) == {"type", "version"} and message["type"] == "version"
            versions.append(message["version"])
        assert versions == sorted(set(versions)) and versions[-1] == game.version
        assert [json.loads(text) for text in seen].count({"type": "chat"}) == 1  # at the end, once


def test_what_a_client_sends_is_refused_with_a_message_and_changes_nothing(two_player_game):
    game, ann, _ = two_player_game
    before = (game.version, game.state)

    comm = communicator(f"/ws/games/{game.pk}/", ann)

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        for junk in ('{"type": "discard", "card": "TH"}', "not json at all", "{}"):
            await comm.send_to(text_data=junk)
            reply = await comm.receive_json_from()
            assert reply["type"] == "error" and "play through" in reply["message"]
        await comm.send_to(bytes_data=b"\x00\xff")
        assert (await comm.receive_json_from())["type"] == "error"
        await comm.disconnect()

    async_to_sync(scenario)()
    game.refresh_from_db()
    assert (game.version, game.state) == before


@pytest.mark.parametrize(
    "profile, cookie, accept, language",
    [
        ("hr", "", "cs", "hr"),  # the profile's language first
        ("", "af", "cs", "af"),  # then the switcher's cookie
        ("", "", "xx, cs-CZ;q=0.8", "cs"),  # then the browser's
        ("", "", "xx", "en"),  # else the site's default
    ],
)
def test_the_refusal_of_what_a_client_sends_is_in_the_language_of_its_pages(
    two_player_game, profile, cookie, accept, language
):
    game, ann, _ = two_player_game
    ann.language = profile
    ann.save(update_fields=["language"])
    comm = communicator(f"/ws/games/{game.pk}/", ann)
    comm.scope["headers"].append((b"accept-language", accept.encode()))
    if cookie:
        headers = dict(comm.scope["headers"])
        headers[b"cookie"] += f"; django_language={cookie}".encode()
        comm.scope["headers"] = list(headers.items())
    with translation.override(language):
        expected = translation.gettext("This connection only announces changes; play through the table's buttons.")

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        await comm.send_to(text_data="not json at all")
        reply = await comm.receive_json_from()
        await comm.disconnect()
        return reply

    assert async_to_sync(scenario)() == {"type": "error", "message": expected}


def test_the_user_socket_carries_messages_to_that_person_only(make_user):
    ann, bob = make_user("ann"), make_user("bob")

    ann_tabs = [communicator("/ws/user/", ann), communicator("/ws/user/", ann)]
    bob_tab = communicator("/ws/user/", bob)

    async def scenario():
        for comm in [*ann_tabs, bob_tab]:
            assert (await comm.connect())[0]
            assert await comm.receive_json_from() == {"type": "turns", "count": 0}  # said on connect
        await database_sync_to_async(live.send_to_user)(ann.pk, {"type": "turns", "count": 2})
        for comm in ann_tabs:
            assert await comm.receive_json_from() == {"type": "turns", "count": 2}
        assert await bob_tab.receive_nothing(timeout=0.1)
        for comm in [*ann_tabs, bob_tab]:
            await comm.disconnect()

    async_to_sync(scenario)()


def test_every_tab_of_a_player_hears_the_change(two_player_game):
    game, ann, bob = two_player_game

    def bob_or_ann_moves() -> int:
        game.refresh_from_db()
        seat = game.current_seat
        action = bots.choose_action(view(GameState.from_dict(game.state), seat)).to_dict()
        services.game_play(game_id=game.pk, user=[ann, bob][seat], action=action, expected_version=game.version)
        game.refresh_from_db()
        return game.version

    tabs = [communicator(f"/ws/games/{game.pk}/", ann) for _ in range(3)]

    async def scenario():
        for tab in tabs:
            assert (await tab.connect())[0]
            await tab.receive_json_from()
        version = await database_sync_to_async(bob_or_ann_moves)()
        for tab in tabs:
            assert await tab.receive_json_from() == {"type": "version", "version": version}
            await tab.disconnect()

    async_to_sync(scenario)()


def test_a_waiting_player_hears_when_someone_takes_a_seat_and_the_cards_are_dealt(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, seed=5, spectators_allowed=False)
    comm = communicator(f"/ws/games/{game.pk}/", ann)

    def join(user: Any) -> int:
        assert logged_in(user).post(f"/games/{game.pk}/join/").status_code == 302
        game.refresh_from_db()
        return game.version

    async def scenario():
        assert (await comm.connect())[0]
        assert (await comm.receive_json_from())["version"] == game.version
        for user in (bob, cid):
            version = await database_sync_to_async(join)(user)
            assert await comm.receive_json_from() == {"type": "version", "version": version}
        assert await comm.receive_nothing(timeout=0.1)
        await comm.disconnect()

    async_to_sync(scenario)()
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_players_hear_when_a_moderator_aborts_the_game(two_player_game, django_user_model):
    game, ann, _ = two_player_game
    moderator = django_user_model.objects.create_superuser("mod", "mod@example.com", "a-long-pass-phrase-42")
    comm = communicator(f"/ws/games/{game.pk}/", ann)

    def abort() -> int:
        services.game_abort(game_id=game.pk, moderator=moderator, reason="Testing the live table.")
        game.refresh_from_db()
        return game.version

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        version = await database_sync_to_async(abort)()
        assert await comm.receive_json_from() == {"type": "version", "version": version}
        await comm.disconnect()

    async_to_sync(scenario)()
    assert game.status == Game.Status.ABORTED


def test_the_header_count_follows_the_turn_over_the_user_socket(two_player_game):
    """When a move hands the turn over, both players hear their new "games waiting" count."""
    game, ann, bob = two_player_game
    game.refresh_from_db()
    mover, other = (ann, bob) if game.current_seat == 0 else (bob, ann)
    mover_tab, other_tab = communicator("/ws/user/", mover), communicator("/ws/user/", other)

    def play_whole_turn() -> None:
        for _ in range(2):  # draw, then discard: the turn passes to the other player
            game.refresh_from_db()
            action = bots.choose_action(view(GameState.from_dict(game.state), game.current_seat)).to_dict()
            assert post_action(logged_in(mover), game, action).status_code == 302

    async def scenario():
        assert (await mover_tab.connect())[0] and (await other_tab.connect())[0]
        # Each page hears its count as it connects (a reconnecting page missed the ones sent meanwhile).
        assert await mover_tab.receive_json_from() == {"type": "turns", "count": 1}
        assert await other_tab.receive_json_from() == {"type": "turns", "count": 0}
        await database_sync_to_async(play_whole_turn)()
        assert await mover_tab.receive_json_from() == {"type": "turns", "count": 0}
        assert await other_tab.receive_json_from() == {"type": "turns", "count": 1}
        await mover_tab.disconnect()
        await other_tab.disconnect()

    async_to_sync(scenario)()


def test_each_open_page_counts_its_persons_turns_when_told_they_changed(two_player_game, make_user, monkeypatch):
    """A move only tells the people at the table that their turns changed (no count, no query in
    the move's request); each of their open pages counts for its own person when it hears it."""
    from games import selectors

    game, ann, bob = two_player_game
    game.refresh_from_db()
    waiting_on = (ann, bob)[game.current_seat]
    counted: list[int] = []
    real = selectors.turns_waiting_count

    def spy(*, user):
        counted.append(user.pk)
        return real(user=user)

    monkeypatch.setattr(selectors, "turns_waiting_count", spy)
    tabs = {ann.pk: communicator("/ws/user/", ann), bob.pk: communicator("/ws/user/", bob)}
    live.send_turns_changed([ann.pk, bob.pk])  # nobody listens yet: nothing is counted
    assert counted == []

    async def scenario():
        for tab in tabs.values():
            assert (await tab.connect())[0]
            await tab.receive_json_from()  # the count said on connect
        counted.clear()
        await database_sync_to_async(live.send_turns_changed)([ann.pk, bob.pk])
        for user_id, tab in tabs.items():
            expected = 1 if user_id == waiting_on.pk else 0
            assert await tab.receive_json_from() == {"type": "turns", "count": expected}
        for tab in tabs.values():
            await tab.disconnect()

    async_to_sync(scenario)()
    assert sorted(counted) == sorted([ann.pk, bob.pk])


def test_the_other_players_finished_table_hears_of_the_rematch_and_then_leads_to_it(two_player_game):
    """The rematch asks the other player to take the seat held for them: their open page of the finished
    game hears a new version, and the table it fetches then offers the seat and links to the rematch."""
    from tests.history.conftest import finish_with_bot_moves

    game, ann, bob = two_player_game
    finish_with_bot_moves(game)
    game.refresh_from_db()
    assert game.is_finished
    comm = communicator(f"/ws/games/{game.pk}/", bob)

    def ann_asks_for_a_rematch() -> Game:
        assert logged_in(ann).post(f"/games/{game.pk}/rematch/").status_code == 302
        return Game.objects.get(rematch_of=game)

    async def scenario() -> Game:
        connected, _ = await comm.connect()
        assert connected
        assert await comm.receive_json_from() == {"type": "version", "version": game.version}
        rematch = await database_sync_to_async(ann_asks_for_a_rematch)()
        assert await comm.receive_json_from() == {"type": "version", "version": game.version + 1}
        await comm.disconnect()
        return rematch

    rematch = async_to_sync(scenario)()
    table = logged_in(bob).get(f"/games/{game.pk}/table/").content.decode()
    assert f'href="{rematch.get_absolute_url()}"' in table
    assert "Take your seat in the rematch" in table
