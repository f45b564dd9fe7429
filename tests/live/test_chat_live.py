"""Table talk over the game's WebSocket, through the whole ASGI stack: a post or a hidden message
reaches every page that may read its channel as a bare ``{"type": "chat"}`` (no words, no names),
and the watchers' channel never reaches a player while the game is in play.

Ordering, not time, shows that nothing came: the channel layer delivers each socket's messages in
the order they were sent, so when the next thing a player hears after a watchers' post is the
version of a later move, the post was not passed on to them.
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from games import bots, live, services
from games.engine import GameState, view
from games.models import Game
from tests.history.conftest import finish_with_bot_moves
from tests.web.conftest import logged_in, post_action

from .test_consumers import communicator

pytestmark = pytest.mark.django_db(transaction=True)

CHAT = {"type": "chat"}


@pytest.fixture
def table(make_user, classic):
    """ann and bob play (others may watch), cid watches."""
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=21, options={"rounds": [3, 4]}
    )
    assert game.in_play and game.spectators_allowed
    return game, ann, bob, cid


def say(game: Game, user: Any, text: str, channel: str = "players") -> None:
    services.chat_post(game_id=game.pk, user=user, text=text, channel=channel)


def move(game: Game, clients: dict[int, Any]) -> int:
    """The person to play makes a move (the bot's choice); the game's new version."""
    game.refresh_from_db()
    assert game.current_seat is not None and game.state is not None
    action = bots.choose_action(view(GameState.from_dict(game.state), game.current_seat)).to_dict()
    assert post_action(clients[game.current_seat], game, action).status_code == 302
    game.refresh_from_db()
    return game.version


def test_a_players_post_reaches_players_and_watchers_as_a_bare_signal(table):
    game, ann, bob, cid = table
    comms = {
        name: communicator(f"/ws/games/{game.pk}/", user) for name, user in (("ann", ann), ("bob", bob), ("cid", cid))
    }

    async def scenario():
        for comm in comms.values():
            assert (await comm.connect())[0]
            assert (await comm.receive_json_from())["type"] == "version"
        await database_sync_to_async(say)(game, ann, "Good luck <b>bob</b>")
        for name, comm in comms.items():
            assert await comm.receive_json_from() == CHAT, name
        for comm in comms.values():
            await comm.disconnect()

    async_to_sync(scenario)()


def test_players_never_hear_the_watchers_channel_during_play_and_do_after_the_game(table):
    game, ann, bob, cid = table
    clients = {0: logged_in(ann), 1: logged_in(bob)}
    comms = {
        name: communicator(f"/ws/games/{game.pk}/", user) for name, user in (("ann", ann), ("bob", bob), ("cid", cid))
    }

    async def scenario():
        for comm in comms.values():
            assert (await comm.connect())[0]
            await comm.receive_json_from()
        await database_sync_to_async(say)(game, cid, "bob is bluffing", "watchers")
        assert await comms["cid"].receive_json_from() == CHAT  # the watcher hears it...
        version = await database_sync_to_async(move)(game, clients)
        for name in ("ann", "bob"):  # ... the players' next message is the move's version, not the chat
            assert await comms[name].receive_json_from() == {"type": "version", "version": version}, name
        assert await comms["cid"].receive_json_from() == {"type": "version", "version": version}
        # Once the game is over, the players read the watchers' channel (on the table and the record).
        await database_sync_to_async(finish_with_bot_moves)(game)
        await database_sync_to_async(game.refresh_from_db)()
        assert game.status == Game.Status.FINISHED
        for name, comm in comms.items():  # every move's version, up to the last
            heard = []
            while (heard and heard[-1]) != {"type": "version", "version": game.version}:
                heard.append(await comm.receive_json_from())
            # the game's end tells every open page to fetch its chat: the players' now holds the watchers'
            assert CHAT in heard, name
        # (the watchers' channel takes no new message then; a change to it, such as a moderator hiding
        # a line, now reaches the players as well)
        await database_sync_to_async(live.groups.send_chat_changed)(game.pk, "watchers")
        for name, comm in comms.items():
            assert await comm.receive_json_from() == CHAT, name
        for comm in comms.values():
            await comm.disconnect()

    async_to_sync(scenario)()


def test_a_hidden_message_is_announced_to_its_channels_readers(table, django_user_model):
    from django.contrib.auth.models import Group

    game, ann, bob, cid = table
    moderator = django_user_model.objects.create_user("mod", "mod@example.com", "a-long-pass-phrase-42", is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    message = services.chat_post(game_id=game.pk, user=bob, text="rude", channel="players")
    comm = communicator(f"/ws/games/{game.pk}/", ann)

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        await database_sync_to_async(services.chat_hide)(message_id=message.pk, moderator=moderator, reason="Rude.")
        assert await comm.receive_json_from() == CHAT
        await comm.disconnect()

    async_to_sync(scenario)()
    page = logged_in(ann).get(f"/games/{game.pk}/chat/").content.decode()
    assert "rude" not in page


def test_someone_who_turned_chat_off_hears_no_chat_and_a_refused_post_announces_nothing(table):
    game, ann, bob, cid = table
    clients = {0: logged_in(ann), 1: logged_in(bob)}
    bob.chat_enabled = False
    bob.save(update_fields=["chat_enabled"])
    comm = communicator(f"/ws/games/{game.pk}/", bob)
    watcher = communicator(f"/ws/games/{game.pk}/", cid)

    def refused_post() -> None:
        response = clients[0].post(f"/games/{game.pk}/chat/post/", {"text": "x" * 500, "channel": "players"})
        assert response.status_code == 400

    async def scenario():
        for c in (comm, watcher):
            assert (await c.connect())[0]
            await c.receive_json_from()
        await database_sync_to_async(refused_post)()
        await database_sync_to_async(say)(game, ann, "bob will not see this")
        assert await watcher.receive_json_from() == CHAT  # exactly one: the refused post sent nothing
        version = await database_sync_to_async(move)(game, clients)
        assert await comm.receive_json_from() == {"type": "version", "version": version}
        assert await watcher.receive_json_from() == {"type": "version", "version": version}
        for c in (comm, watcher):
            await c.disconnect()

    async_to_sync(scenario)()


def test_a_watcher_who_takes_a_seat_stops_hearing_the_watchers_channel(make_user, classic):
    """Who reads what is asked again for every signal: a person seated since the socket opened is a player."""
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, seed=5)
    assert game.is_open
    comm = communicator(f"/ws/games/{game.pk}/", bob)

    async def scenario():
        assert (await comm.connect())[0]
        await comm.receive_json_from()
        await database_sync_to_async(say)(game, cid, "will anyone join?", "watchers")
        assert await comm.receive_json_from() == CHAT  # bob is watching the open game
        await database_sync_to_async(services.game_join)(game_id=game.pk, user=bob)
        joined = (await comm.receive_json_from())["version"]
        await database_sync_to_async(say)(game, cid, "bob joined!", "watchers")
        await database_sync_to_async(say)(game, ann, "welcome bob")
        assert await comm.receive_json_from() == CHAT  # the players' post, not the watchers' one:
        await database_sync_to_async(services.game_leave)(game_id=game.pk, user=ann)
        assert (await comm.receive_json_from())["version"] > joined
        await comm.disconnect()

    async_to_sync(scenario)()


def test_a_moderators_mute_and_its_end_tell_the_persons_open_pages_to_fetch_their_chat(table, django_user_model):
    from django.contrib.auth.models import Group

    game, ann, bob, cid = table
    moderator = django_user_model.objects.create_user("mod", "mod@example.com", "a-long-pass-phrase-42", is_staff=True)
    moderator.groups.add(Group.objects.get(name="Moderators"))
    bob_pages, ann_pages = communicator("/ws/user/", bob), communicator("/ws/user/", ann)

    async def scenario():
        for comm in (bob_pages, ann_pages):
            assert (await comm.connect())[0]
            assert (await comm.receive_json_from())["type"] == "turns"
        mute = services.chat_mute_user
        await database_sync_to_async(mute)(user_id=bob.pk, moderator=moderator, reason="Testing it.", hours=1)
        assert await bob_pages.receive_json_from() == CHAT
        unmute = services.chat_unmute_user
        await database_sync_to_async(unmute)(user_id=bob.pk, moderator=moderator, reason="Testing it.")
        assert await bob_pages.receive_json_from() == CHAT
        assert await ann_pages.receive_nothing(timeout=0.2)  # nobody else's pages
        for comm in (bob_pages, ann_pages):
            await comm.disconnect()

    async_to_sync(scenario)()
