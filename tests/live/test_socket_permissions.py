"""A game's socket follows ``may_watch`` for as long as it is open; unknown paths are refused cleanly.

- Private games: a stranger's socket is refused; a session that opened the
  invite link is let in (the session is in the socket's scope).
- Permission is asked again on every version: a socket opened while anyone
  could watch is closed (``CLOSE_FORBIDDEN``) the moment the game closes to
  that person, and hears no version after.
- A path that matches no route is refused at once, with nothing logged at ERROR.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser, Group
from django.test import Client

from games import live, selectors, services
from games.live import consumers
from games.models import Game
from tests.web.conftest import logged_in
from threethirteen_site.asgi import application
from threethirteen_site.socket_faults import CLOSE_SERVICE_DOWN

from .test_consumers import ORIGIN, communicator, connects

pytestmark = pytest.mark.django_db(transaction=True)


def socket_with_session(path: str, client: Client) -> WebsocketCommunicator:
    """A tab of the browser ``client`` (its own session cookie, so what that session remembers)."""
    cookie = client.cookies["sessionid"].value
    headers = [(b"origin", ORIGIN), (b"host", b"127.0.0.1"), (b"cookie", f"sessionid={cookie}".encode())]
    return WebsocketCommunicator(application, path, headers=headers)


async def closed_with(comm: WebsocketCommunicator) -> int | None:
    """The close code the server sent next (None if it sent something else)."""
    output = await comm.receive_output(timeout=2)
    return output.get("code") if output["type"] == "websocket.close" else None


@pytest.fixture
def private_game(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, seed=9, options={"rounds": [3]}, is_private=True
    )
    assert game.status == Game.Status.ACTIVE and game.spectators_allowed
    return game, ann


def test_a_private_games_socket_is_for_its_players_and_the_invite_holders(private_game, make_user):
    game, ann = private_game
    cid = make_user("cid")
    path = f"/ws/games/{game.pk}/"
    assert connects(path, ann)[0] is True
    assert connects(path, cid) == (False, consumers.CLOSE_FORBIDDEN)
    browser = logged_in(cid)
    assert browser.get(game.invite_path()).status_code == 200
    comm = socket_with_session(path, browser)

    async def scenario():
        assert (await comm.connect())[0]
        assert (await comm.receive_json_from())["type"] == "version"
        # It keeps hearing versions: asking again on each one still finds the invite.
        await database_sync_to_async(live.send_game_version)(game.pk, 99)
        assert await comm.receive_json_from() == {"type": "version", "version": 99}
        await comm.disconnect()

    async_to_sync(scenario)()
    # A session that opened another game's link is still a stranger here.
    other = services.game_create(creator=ann, variant=game.variant, seat_count=2, bot_count=1, is_private=True)
    elsewhere = logged_in(cid)
    assert elsewhere.get(other.invite_path()).status_code == 200

    async def stranger():
        result = await socket_with_session(path, elsewhere).connect()
        return result

    assert async_to_sync(stranger)() == (False, consumers.CLOSE_FORBIDDEN)


def test_a_watcher_is_dropped_when_a_players_only_game_starts(make_user, classic):
    ann, bob, cid, dan = (make_user(n) for n in ("ann", "bob", "cid", "dan"))
    game = services.game_create(creator=ann, variant=classic, seat_count=3, seed=5, spectators_allowed=False)
    watcher = communicator(f"/ws/games/{game.pk}/", dan)
    player = communicator(f"/ws/games/{game.pk}/", ann)

    def join(user: Any) -> int:
        services.game_join(game_id=game.pk, user=user)
        game.refresh_from_db()
        return game.version

    async def scenario():
        for comm in (watcher, player):
            assert (await comm.connect())[0]  # open: anyone may look, to take a seat
            await comm.receive_json_from()
        version = await database_sync_to_async(join)(bob)
        for comm in (watcher, player):
            assert await comm.receive_json_from() == {"type": "version", "version": version}
        started = await database_sync_to_async(join)(cid)  # the last seat: the cards are dealt
        assert await player.receive_json_from() == {"type": "version", "version": started}
        assert await closed_with(watcher) == consumers.CLOSE_FORBIDDEN
        # Later versions reach the player, never the dropped watcher.
        await database_sync_to_async(live.send_game_version)(game.pk, started + 1)
        assert await player.receive_json_from() == {"type": "version", "version": started + 1}
        assert await watcher.receive_nothing(timeout=0.1)
        await player.disconnect()

    async_to_sync(scenario)()
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert connects(f"/ws/games/{game.pk}/", dan) == (False, consumers.CLOSE_FORBIDDEN)


def test_a_watcher_is_dropped_when_the_game_is_closed_to_spectators(make_user, classic):
    ann, dan = make_user("ann"), make_user("dan")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=6)
    watcher = communicator(f"/ws/games/{game.pk}/", dan)

    def close_to_spectators() -> None:
        Game.objects.filter(pk=game.pk).update(spectators_allowed=False, version=game.version + 1)
        live.send_game_version(game.pk, game.version + 1)

    async def scenario():
        assert (await watcher.connect())[0]
        await watcher.receive_json_from()
        await database_sync_to_async(close_to_spectators)()
        assert await closed_with(watcher) == consumers.CLOSE_FORBIDDEN  # not the version message

    async_to_sync(scenario)()


def test_a_watcher_is_dropped_when_the_game_disappears(make_user, classic):
    ann, dan = make_user("ann"), make_user("dan")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=6)
    watcher = communicator(f"/ws/games/{game.pk}/", dan)

    def delete() -> None:
        Game.objects.filter(pk=game.pk).delete()
        live.send_game_version(game.pk, 1000)

    async def scenario():
        assert (await watcher.connect())[0]
        await watcher.receive_json_from()
        await database_sync_to_async(delete)()
        assert await closed_with(watcher) == consumers.CLOSE_FORBIDDEN

    async_to_sync(scenario)()


def test_a_version_that_says_who_may_watch_is_decided_by_it_without_asking_the_database(private_game, make_user):
    """The facts a change announces answer the socket (the database would say otherwise here)."""
    game, ann = private_game
    cid = make_user("cid")
    browser = logged_in(cid)
    assert browser.get(game.invite_path()).status_code == 200
    holder = socket_with_session(f"/ws/games/{game.pk}/", browser)
    player = communicator(f"/ws/games/{game.pk}/", ann)
    stays = {"private": True, "watchable": True, "players": [ann.pk]}
    closed = {"private": True, "watchable": False, "players": [ann.pk]}

    async def scenario():
        for comm in (holder, player):
            assert (await comm.connect())[0]
            await comm.receive_json_from()
        # The invite holder is let through by the invite its session held at connect.
        await database_sync_to_async(live.send_game_version)(game.pk, 50, stays)
        for comm in (holder, player):
            assert await comm.receive_json_from() == {"type": "version", "version": 50}
        # Closed to spectators by the facts alone (the stored game still allows them): only the player hears.
        await database_sync_to_async(live.send_game_version)(game.pk, 51, closed)
        assert await player.receive_json_from() == {"type": "version", "version": 51}
        assert await closed_with(holder) == consumers.CLOSE_FORBIDDEN
        # Facts that no longer name the player close the player's socket too, seated as ann is.
        await database_sync_to_async(live.send_game_version)(game.pk, 52, {**closed, "players": []})
        assert await closed_with(player) == consumers.CLOSE_FORBIDDEN

    async_to_sync(scenario)()
    game.refresh_from_db()
    assert game.spectators_allowed and game.seats.filter(user=ann).exists()


@pytest.mark.parametrize("private", [False, True])
@pytest.mark.parametrize("spectators", [False, True])
@pytest.mark.parametrize("started", [False, True])
def test_the_announced_facts_answer_as_may_watch_does(make_user, classic, private, spectators, started):
    """For the players, an invite holder, a stranger and someone signed out, in every kind of game."""
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, seed=4, is_private=private, spectators_allowed=spectators
    )
    services.game_join(game_id=game.pk, user=bob, invite_token=game.invite_token)
    if started:
        services.game_start(game_id=game.pk, user=ann)
    game.refresh_from_db()
    facts = selectors.watch_facts(game, game.seats.all())
    for user in (ann, bob, cid, AnonymousUser()):
        for invited in (False, True):
            expected = selectors.may_watch(game=game, user=user, invited=invited)
            assert selectors.may_watch_given(facts, user=user, invited=invited) is expected, (user, invited)
    assert selectors.may_watch_given({}, user=ann) is False  # missing facts refuse


UNROUTED_PATHS = [
    "/ws/",
    "/ws/games/abc/",
    "/ws/games/",
    "/ws/games/1",
    "/ws/games/-1/",
    "/ws/user/x/",
    "/ws/nothing/here/",
    "/",
    "/games/1/",
    "/ws/games/1/%00/",
]


def test_a_path_that_matches_no_route_is_refused_and_nothing_is_logged_as_an_error(make_user, caplog):
    ann = make_user("ann")
    with caplog.at_level(logging.DEBUG):
        for path in UNROUTED_PATHS:  # one test (one flush of the database), every path signed in and out
            assert connects(path, ann) == (False, consumers.CLOSE_NOT_FOUND), path
            assert connects(path) == (False, consumers.CLOSE_NOT_FOUND), path
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_game_number_too_big_for_the_database_is_no_game(make_user, caplog):
    with caplog.at_level(logging.DEBUG):
        for number in ("9223372036854775808", "99999999999999999999999999"):
            assert connects(f"/ws/games/{number}/", make_user(f"u{number[:3]}{len(number)}")) == (
                False,
                consumers.CLOSE_FORBIDDEN,
            )
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_asking_again_on_each_version_costs_at_most_two_reads(private_game, make_user, django_assert_max_num_queries):
    """The re-check runs for every version every socket hears: one read of the game, one of the seat."""
    game, ann = private_game
    consumer = consumers.GameConsumer()
    check = consumers.GameConsumer.__dict__["_may_watch"].func  # the sync body, without the thread hop
    for user, session, expected in (
        (ann, {}, True),
        (make_user("cid"), {}, False),
        (make_user("dan"), {"invited_games": [game.pk]}, True),
    ):
        consumer.scope = {"user": user, "session": session}
        with django_assert_max_num_queries(2):
            assert check(consumer, user, game.pk) is expected


def test_signing_out_closes_that_sessions_sockets_and_no_other(private_game, make_user):
    """A socket kept open after its session signed out heard the game on (a private game's versions and
    chat signals, found by an adversarial test): the log-out closes it, the person's other sessions stay."""
    game, ann = private_game
    dave = make_user("dave")
    browser = logged_in(dave)
    assert browser.get(game.invite_path()).status_code == 200
    tab, turns = socket_with_session(f"/ws/games/{game.pk}/", browser), socket_with_session("/ws/user/", browser)
    elsewhere = communicator("/ws/user/", dave)  # dave on another device: its own session
    player = communicator(f"/ws/games/{game.pk}/", ann)

    async def scenario():
        for comm in (tab, turns, elsewhere, player):
            assert (await comm.connect())[0]
            await comm.receive_json_from()  # the version, or the count of turns waiting
        assert (await database_sync_to_async(browser.post)("/accounts/logout/")).status_code == 302
        assert await closed_with(tab) == consumers.CLOSE_NOT_LOGGED_IN
        assert await closed_with(turns) == consumers.CLOSE_NOT_LOGGED_IN
        facts = await database_sync_to_async(lambda: selectors.watch_facts(game, list(game.seats.all())))()
        await database_sync_to_async(live.send_game_version)(game.pk, 99, facts)
        assert await player.receive_json_from() == {"type": "version", "version": 99}
        await elsewhere.send_json_to(consumers.PING)
        assert await elsewhere.receive_json_from() == consumers.PONG
        for comm in (elsewhere, player):
            await comm.disconnect()

    async_to_sync(scenario)()


def test_a_socket_that_missed_the_sign_out_finds_it_at_its_next_heartbeat(private_game, monkeypatch):
    """The channel layer was down as the person signed out: the heartbeat reads the session afresh."""
    game, ann = private_game
    browser = logged_in(ann)
    tab = socket_with_session(f"/ws/games/{game.pk}/", browser)
    turns = socket_with_session("/ws/user/", browser)

    class LayerDown:
        async def group_send(self, group: str, message: dict[str, Any]) -> None:
            raise ConnectionError("the channel layer is down")

    async def scenario():
        assert (await tab.connect())[0] and (await turns.connect())[0]
        await tab.receive_json_from()
        await turns.receive_json_from()
        with monkeypatch.context() as patched:
            patched.setattr(live.groups, "get_channel_layer", LayerDown)
            response = await database_sync_to_async(browser.post)("/accounts/logout/")
        assert response.status_code == 302  # the log-out itself does not fail
        assert await tab.receive_nothing(timeout=0.1) and await turns.receive_nothing(timeout=0.1)
        for socket in (tab, turns):
            await socket.send_json_to(consumers.PING)
            assert await closed_with(socket) == consumers.CLOSE_NOT_LOGGED_IN

    async_to_sync(scenario)()
    # Signed in, the same heartbeat is answered and says the version.
    tab = socket_with_session(f"/ws/games/{game.pk}/", logged_in(ann))

    async def signed_in():
        assert (await tab.connect())[0]
        await tab.receive_json_from()
        await tab.send_json_to(consumers.PING)
        assert await tab.receive_json_from() == consumers.PONG
        assert (await tab.receive_json_from())["type"] == "version"
        await tab.disconnect()

    async_to_sync(signed_in)()


def test_changing_the_password_closes_the_other_sessions_sockets(make_user):
    """The other sessions are signed out by the new password, but their sockets went on hearing the
    games until their next heartbeat: each socket of the account now checks its session at once."""
    dave = make_user("dave")
    browser = logged_in(dave)
    elsewhere = communicator("/ws/user/", dave)  # dave on another device: its own session

    async def connected(comm: Any) -> None:
        assert (await comm.connect())[0]
        assert (await comm.receive_json_from())["type"] == "turns"

    async def scenario():
        await connected(elsewhere)
        await database_sync_to_async(type(dave).objects.filter(pk=dave.pk).update)(email="d@example.com")
        await database_sync_to_async(dave.save)(update_fields=["last_login"])  # asks nothing
        assert await elsewhere.receive_nothing(timeout=0.2)
        form = {
            "old_password": "a-long-pass-phrase-42",
            "new_password1": "another-long-phrase-77",
            "new_password2": "another-long-phrase-77",
        }
        response = await database_sync_to_async(browser.post)("/accounts/password_change/", form)
        assert response.status_code == 302
        assert await closed_with(elsewhere) == consumers.CLOSE_NOT_LOGGED_IN
        # The session that changed it is still signed in, and so is a socket it opens now.
        here = socket_with_session("/ws/user/", browser)
        await connected(here)
        await database_sync_to_async(dave.refresh_from_db)()
        await database_sync_to_async(dave.save)()  # a whole save asks again: that session stays
        assert await here.receive_nothing(timeout=0.3)
        await here.disconnect()

    async_to_sync(scenario)()


def test_deactivating_an_account_closes_its_sockets(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=21)
    moderator = make_user("mod")
    moderator.is_staff = True
    moderator.save()
    moderator.groups.add(Group.objects.get(name="Moderators"))
    tabs = [communicator(f"/ws/games/{game.pk}/", bob), communicator("/ws/user/", bob)]
    player = communicator(f"/ws/games/{game.pk}/", ann)

    async def scenario():
        for comm in (*tabs, player):
            assert (await comm.connect())[0]
        await tabs[0].receive_json_from()
        await player.receive_json_from()
        await database_sync_to_async(services.user_deactivate)(user_id=bob.pk, moderator=moderator, reason="spam")
        for comm in tabs:
            output = await comm.receive_output(timeout=2)
            while output["type"] != "websocket.close":  # the version of the handover may come first
                output = await comm.receive_output(timeout=2)
            assert output.get("code") == consumers.CLOSE_NOT_LOGGED_IN
        assert (await player.receive_json_from())["type"] == "version"  # ann's table goes on
        await player.disconnect()

    async_to_sync(scenario)()


@pytest.mark.parametrize("down", ["the channel layer", "the database"])
def test_a_socket_opened_while_a_service_is_down_is_told_to_try_again_later(
    make_user, classic, monkeypatch, caplog, down
):
    """It was a 500 with an error and its traceback in the log, once for each page trying to reconnect."""
    from django.db import OperationalError
    from redis.exceptions import ConnectionError as RedisConnectionError

    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=4)

    async def refuse(*args: Any, **kwargs: Any) -> None:
        if down == "the database":
            raise OperationalError("the connection to the database was lost")
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    if down == "the database":
        monkeypatch.setattr("channels.auth.get_user", refuse)
    else:
        monkeypatch.setattr(type(get_channel_layer()), "group_add", refuse)
    with caplog.at_level(logging.WARNING):
        assert connects(f"/ws/games/{game.pk}/", ann) == (False, 1013)
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert any("a service is down" in record.getMessage() for record in caplog.records)
    monkeypatch.undo()
    assert connects(f"/ws/games/{game.pk}/", ann)[0] is True  # back: the page's next try opens it


def test_an_open_socket_whose_channel_layer_goes_away_is_closed_with_one_warning(
    make_user, classic, monkeypatch, caplog
):
    """A fault tester: every socket open when Redis went away logged an error with its traceback ("Exception inside
    application"), two for every open table page.  It is closed as before (the page reconnects), with one
    warning line."""
    import asyncio

    from redis.exceptions import ConnectionError as RedisConnectionError

    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=4)

    async def redis_goes_away(*args: Any, **kwargs: Any) -> None:
        await asyncio.sleep(0.2)  # the socket is open by then
        raise RedisConnectionError("Connection closed by server.")

    monkeypatch.setattr(type(get_channel_layer()), "receive", redis_goes_away)
    comm = communicator(f"/ws/games/{game.pk}/", ann)

    async def scenario() -> dict[str, Any]:
        opened, _ = await comm.connect()
        assert opened
        while True:
            output = await comm.receive_output(timeout=5)
            if output["type"] == "websocket.close":
                return output

    with caplog.at_level(logging.WARNING):
        closed = async_to_sync(scenario)()
    assert closed["code"] == CLOSE_SERVICE_DOWN
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
    assert [record.getMessage() for record in caplog.records if "a service is down" in record.getMessage()] == [
        f"socket /ws/games/{game.pk}/ closed, a service is down: ConnectionError: Connection closed by server."
    ]


def test_an_open_socket_whose_query_is_refused_still_fails_as_a_bug(make_user, classic, monkeypatch):
    """A review: every database and Redis error counted as a service down, so a missing migration or a bad query
    became one warning line and the page reconnected in a quiet loop.  A query the database refuses raises."""
    import asyncio

    from django.db import ProgrammingError

    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed=4)

    async def refused(*args: Any, **kwargs: Any) -> None:
        await asyncio.sleep(0.2)
        raise ProgrammingError('relation "games_game" does not exist')

    monkeypatch.setattr(type(get_channel_layer()), "receive", refused)
    comm = communicator(f"/ws/games/{game.pk}/", ann)

    async def scenario() -> None:
        opened, _ = await comm.connect()
        assert opened
        while True:
            await comm.receive_output(timeout=5)

    with pytest.raises(ProgrammingError):
        async_to_sync(scenario)()
