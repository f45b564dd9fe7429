"""The move clock inside the server process, and the socket's heartbeat (which also repairs a lost group).

With the in-memory channel layer the clock must run in the process that holds
the sockets (``games.live.clock``), or the turns it plays reach no page.
"""

from __future__ import annotations

import asyncio
import datetime

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.utils import timezone

from games import services
from games.live import clock, consumers
from games.models import Game
from threethirteen_site import asgi

from .test_consumers import communicator

pytestmark = pytest.mark.django_db(transaction=True)


def timed_game(make_user, classic) -> Game:
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        invitees=[bob],
        seed=5,
        time_limit_seconds=30,
        options={"rounds": [3, 4]},
    )
    assert game.status == Game.Status.ACTIVE and game.turn_deadline is not None
    return game


@pytest.mark.parametrize(
    ("env", "redis_url", "expected"),
    [
        (None, "", True),  # the default set-up: in-memory layer, one process
        (None, "redis://127.0.0.1:6379/0", False),  # Redis: `manage.py gameclock` beside the servers
        ("1", "redis://127.0.0.1:6379/0", True),
        ("0", "", False),
        ("off", "", False),
    ],
)
def test_the_server_runs_the_clock_by_default_only_with_the_in_memory_layer(
    monkeypatch, settings, env, redis_url, expected
):
    if env is None:
        monkeypatch.delenv("GAMECLOCK_IN_SERVER", raising=False)
    else:
        monkeypatch.setenv("GAMECLOCK_IN_SERVER", env)
    settings.REDIS_URL = redis_url
    assert clock.enabled() is expected


def test_a_turn_the_in_server_clock_plays_reaches_the_open_socket(make_user, classic):
    game = timed_game(make_user, classic)
    person = game.seats.get(position=game.current_seat).user
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - datetime.timedelta(seconds=1))
    tab = communicator(f"/ws/games/{game.pk}/", person)
    ticking = clock.ServerClock(interval=0.2)

    async def scenario():
        assert (await tab.connect())[0]
        assert await tab.receive_json_from() == {"type": "version", "version": game.version}
        ticking.start()
        try:
            heard = await tab.receive_json_from(timeout=20)
        finally:
            await ticking.stop()
            await tab.disconnect()
        return heard

    before = game.version
    heard = async_to_sync(scenario)()
    game.refresh_from_db()
    assert heard["type"] == "version" and before < heard["version"] <= game.version
    assert game.seats.get(user=person).timeouts_in_row == 1  # the clock played that person's turn


def test_the_application_starts_the_clock_once_when_enabled_and_not_otherwise(monkeypatch):
    started = []
    monkeypatch.setattr(asgi.server_clock, "start", lambda: started.append(1))

    async def call(scope_type: str) -> None:
        async def receive():
            return {"type": "websocket.disconnect", "code": 1000}

        async def send(message):
            pass

        try:
            await asgi.application({"type": scope_type, "path": "/nowhere/", "headers": []}, receive, send)
        except Exception:  # the routed request itself is not what this test is about
            pass

    monkeypatch.setenv("GAMECLOCK_IN_SERVER", "0")
    async_to_sync(call)("websocket")
    assert started == []
    monkeypatch.setenv("GAMECLOCK_IN_SERVER", "1")
    async_to_sync(call)("websocket")
    assert started == [1]


def test_the_lifespan_protocol_starts_and_stops_the_clock(monkeypatch):
    monkeypatch.setenv("GAMECLOCK_IN_SERVER", "1")
    events: list[str] = []
    monkeypatch.setattr(asgi.server_clock, "start", lambda: events.append("start"))

    async def stop() -> None:
        events.append("stop")

    monkeypatch.setattr(asgi.server_clock, "stop", stop)

    async def scenario():
        inbox: asyncio.Queue = asyncio.Queue()
        sent: list[str] = []
        for message in ("lifespan.startup", "lifespan.shutdown"):
            inbox.put_nowait({"type": message})

        async def send(message):
            sent.append(message["type"])

        await asyncio.wait_for(asgi.application({"type": "lifespan"}, inbox.get, send), timeout=10)
        return sent

    assert async_to_sync(scenario)() == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert events == ["start", "stop"]


def test_a_ping_is_answered_with_a_pong_and_changes_nothing(make_user, classic):
    game = timed_game(make_user, classic)
    tab = communicator(f"/ws/games/{game.pk}/", game.seats.get(position=0).user)
    before = (game.version, game.state)

    async def scenario():
        assert (await tab.connect())[0]
        await tab.receive_json_from()
        await tab.send_json_to({"type": "ping"})
        pong = await tab.receive_json_from()
        again = await tab.receive_json_from()  # the version again (a page that missed a change catches up)
        await tab.send_json_to({"type": "ping", "extra": "x"})  # anything else is still refused
        refused = await tab.receive_json_from()
        await tab.disconnect()
        return pong, again, refused

    pong, again, refused = async_to_sync(scenario)()
    assert pong == {"type": "pong"} and again == {"type": "version", "version": game.version}
    assert refused["type"] == "error"
    game.refresh_from_db()
    assert (game.version, game.state) == before


def test_a_socket_whose_group_was_forgotten_hears_again_after_its_heartbeat(make_user, classic):
    """A Redis restart forgets every group while a socket may stay open: its next ping repairs that."""
    game = timed_game(make_user, classic)
    mover = game.seats.get(position=game.current_seat).user
    watcher = game.seats.get(position=1 - game.current_seat).user
    tab = communicator(f"/ws/games/{game.pk}/", watcher)
    layer = get_channel_layer()

    async def scenario():
        assert (await tab.connect())[0]
        await tab.receive_json_from()
        layer.groups.clear()  # what a Redis restart does to the groups
        played = await database_sync_to_async(services.game_play)(
            game_id=game.pk, user=mover, action={"type": "draw", "source": "stock"}, expected_version=game.version
        )
        assert await tab.receive_nothing(timeout=0.5)  # the announcement reached nobody
        await tab.send_json_to({"type": "ping"})
        heard = [await tab.receive_json_from(), await tab.receive_json_from()]
        await database_sync_to_async(services.game_resign)(game_id=game.pk, user=mover)
        heard.append(await tab.receive_json_from(timeout=5))
        await tab.disconnect()
        return heard, played.version

    (pong, caught_up, next_change), missed = async_to_sync(scenario)()
    game.refresh_from_db()
    assert pong == {"type": "pong"}
    assert caught_up == {"type": "version", "version": missed}  # the page fetches the table it missed
    assert next_change == {"type": "version", "version": game.version} and game.version > missed


def test_a_heartbeat_from_someone_who_may_no_longer_watch_closes_the_socket(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=5)
    tab = communicator(f"/ws/games/{game.pk}/", cid)  # a spectator, while the game allows them

    async def scenario():
        assert (await tab.connect())[0]
        await tab.receive_json_from()
        await database_sync_to_async(Game.objects.filter(pk=game.pk).update)(spectators_allowed=False)
        await tab.send_json_to({"type": "ping"})
        return await tab.receive_output(timeout=5)

    assert async_to_sync(scenario)() == {"type": "websocket.close", "code": consumers.CLOSE_FORBIDDEN}


def test_pings_in_quick_succession_are_only_answered(make_user, classic):
    """A client that pings without pause gets pongs, not a database read and a Redis write each time."""
    game = timed_game(make_user, classic)
    tab = communicator(f"/ws/games/{game.pk}/", game.seats.get(position=0).user)

    async def scenario():
        assert (await tab.connect())[0]
        await tab.receive_json_from()
        heard = []
        for _ in range(3):
            await tab.send_json_to({"type": "ping"})
            heard.append(await tab.receive_json_from())
        heard.append(await tab.receive_json_from())
        quiet = await tab.receive_nothing(timeout=0.3)
        await tab.disconnect()
        return heard, quiet

    heard, quiet = async_to_sync(scenario)()
    pong, version = {"type": "pong"}, {"type": "version", "version": game.version}
    assert heard == [pong, version, pong, pong]  # the first ping's version; the next two only answered
    assert quiet
