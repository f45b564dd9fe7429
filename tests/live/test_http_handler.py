"""HTTP through the site's ASGI application (``threethirteen_site.http.OneTripASGIHandler``).

Each request's middleware chain and view run in one call on the handler's
worker threads, not on the event loop: these tests drive the real
application with Channels' communicators and check what a person gets (a
page, a move applied and heard live on another socket, a refusal, an error
page) and that a worker thread survives what goes wrong in it.
"""

from __future__ import annotations

import asyncio
import datetime
import io
import re
import threading
import urllib.parse
from typing import Any

import pytest
import time_machine
from asgiref.sync import async_to_sync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from channels.testing import HttpCommunicator, WebsocketCommunicator
from django.contrib.auth import get_user_model
from django.db import connections
from django.http import StreamingHttpResponse
from django.urls import path
from django.utils import timezone

from games import bots, selectors, services
from games.models import Game
from tests.web.conftest import engine_view, state_fingerprint
from threethirteen_site.asgi import application, django_asgi_app
from threethirteen_site.http import OneTripASGIHandler

from .conftest import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


def streamed_names(request: Any) -> StreamingHttpResponse:
    """A streaming answer whose view reads the database (the site has none; the handler must allow one)."""
    names = list(get_user_model().objects.order_by("username").values_list("username", flat=True))
    return StreamingHttpResponse(f"{name}\n".encode() for name in names)


#: This module is also the URLconf of the streaming test (``ROOT_URLCONF``).
urlpatterns = [path("streamed/", streamed_names)]

HOST = [(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")]


@pytest.fixture
def game(make_user, classic) -> Game:
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=21, options={"rounds": [3, 4]}
    )
    assert game.status == Game.Status.ACTIVE
    return game


def cookie_of(user: Any) -> bytes:
    return f"sessionid={session_cookie(user)}".encode()


async def http(app: Any, method: str, path: str, cookie: bytes = b"", body: bytes = b"") -> dict[str, Any]:
    headers = [*HOST, (b"cookie", cookie)]
    if body:
        headers.append((b"content-type", b"application/x-www-form-urlencoded"))
    return await HttpCommunicator(app, method, path, body=body, headers=headers).get_response(timeout=10)


def set_cookies(response: dict[str, Any]) -> dict[str, str]:
    cookies = {}
    for name, value in response["headers"]:
        if name.lower() == b"set-cookie":
            key, _, rest = value.decode().partition("=")
            cookies[key] = rest.split(";", 1)[0]
    return cookies


def http_scope(path: str, cookie: bytes = b"") -> dict[str, Any]:
    """The ASGI scope of ``GET path`` from this host (a browser's request, as daphne hands it over)."""
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [*HOST, (b"cookie", cookie)],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }


async def respond_then_look(handler: OneTripASGIHandler, scope: dict[str, Any]) -> tuple[Any, list[tuple[str, bool]]]:
    """``handler.respond`` on its worker thread, then, on that thread and in that request's context, (alias,
    still open) of each database connection the request made."""

    def connections_after() -> list[tuple[str, bool]]:
        return [(wrapper.alias, wrapper.connection is not None) for wrapper in connections.all(initialized_only=True)]

    response, _work = await sync_to_async(handler.respond, thread_sensitive=False, executor=handler.executor)(
        scope, io.BytesIO()
    )
    after = await sync_to_async(connections_after, thread_sensitive=False, executor=handler.executor)()
    return response, after


def mover_and_move(game: Game) -> tuple[Any, dict[str, Any]]:
    game.refresh_from_db()
    seat = game.current_seat
    assert seat is not None
    mover = game.seats.get(position=seat).user
    return mover, bots.choose_action(engine_view(game, seat)).to_dict()


def test_a_move_posted_over_http_is_applied_and_heard_on_the_other_players_socket(game):
    mover, action = mover_and_move(game)
    other = game.seats.exclude(user=mover).get().user
    mover_cookie, other_cookie = cookie_of(mover), cookie_of(other)
    version = game.version

    async def scenario() -> tuple[int, dict[str, Any]]:
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[*HOST, (b"cookie", other_cookie)])
        assert (await socket.connect())[0]
        page = await http(application, "GET", f"/games/{game.pk}/", mover_cookie)
        assert page["status"] == 200
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"])
        assert token is not None
        csrf = set_cookies(page)["csrftoken"]
        form = {"csrfmiddlewaretoken": token.group(1).decode(), "version": version, **action}
        cookies = mover_cookie + f"; csrftoken={csrf}".encode()
        moved = await http(
            application, "POST", f"/games/{game.pk}/play/", cookies, urllib.parse.urlencode(form).encode()
        )
        heard = await socket.receive_json_from(timeout=5)
        while heard.get("version") == version:  # the version the socket was opened at
            heard = await socket.receive_json_from(timeout=5)
        await socket.disconnect()
        return moved["status"], heard

    status, heard = async_to_sync(scenario)()
    game.refresh_from_db()
    assert status == 302
    assert game.version > version and game.moves.count() >= 1
    assert heard == {"type": "version", "version": game.version}


async def csrf_post(app: Any, path: str, cookie: bytes, page_path: str, fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` posted to ``path`` with the CSRF token of the page at ``page_path``, as a browser would."""
    page = await http(app, "GET", page_path, cookie)
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"])
    assert page["status"] == 200 and token is not None
    form = {"csrfmiddlewaretoken": token.group(1).decode(), **fields}
    cookies = cookie + f"; csrftoken={set_cookies(page)['csrftoken']}".encode()
    return await http(app, "POST", path, cookies, urllib.parse.urlencode(form).encode())


def test_a_move_is_answered_before_the_bots_think_and_their_moves_are_heard_after(make_user, classic, monkeypatch):
    """The bots' turns after a person's move run after the answer (``after_response``): the answer comes
    while the bot is still thinking, and the bot's moves reach the person's socket when it has played."""
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, bot_level="hard", seed=11, options={"rounds": [3, 4]}
    )
    assert game.current_seat == 0
    draw = {"type": "draw", "source": "stock"}
    services.game_play(game_id=game.pk, user=ann, action=draw, expected_version=game.version)
    game.refresh_from_db()
    assert game.current_seat == 0
    card = engine_view(game, 0).hand[0].code
    version, cookie = game.version, cookie_of(ann)
    thinking, may_play = threading.Event(), threading.Event()
    real_choice = bots.choose_action

    def slow_bot(*args: Any, **kwargs: Any) -> Any:
        thinking.set()
        if not may_play.wait(timeout=20):
            raise RuntimeError("the bot was never let go")
        return real_choice(*args, **kwargs)

    monkeypatch.setattr(bots, "choose_action", slow_bot)

    async def scenario() -> tuple[int, bool, int | None, dict[str, Any]]:
        socket = WebsocketCommunicator(application, f"/ws/games/{game.pk}/", headers=[*HOST, (b"cookie", cookie)])
        assert (await socket.connect())[0]
        fields = {"version": version, "type": "discard", "card": card}
        moved = await csrf_post(application, f"/games/{game.pk}/play/", cookie, f"/games/{game.pk}/", fields)
        # Answered, and the bot, which cannot play until it is let go, has had its turn handed to it.
        had_turn = await asyncio.to_thread(thinking.wait, 10)
        seat_when_answered = await sync_to_async(lambda: Game.objects.get(pk=game.pk).current_seat)()
        may_play.set()
        heard = await socket.receive_json_from(timeout=10)
        while heard.get("version", 0) <= version + 1:  # ann's own move; then the bot's turn
            heard = await socket.receive_json_from(timeout=10)
        await asyncio.gather(*django_asgi_app.after_tasks)
        await socket.disconnect()
        return moved["status"], had_turn, seat_when_answered, heard

    try:
        status, had_turn, seat_when_answered, heard = async_to_sync(scenario)()
    finally:
        may_play.set()
    game.refresh_from_db()
    assert status == 302 and had_turn
    assert seat_when_answered == 1  # ann's discard saved, the bot to play
    assert game.moves.filter(by_bot=True, seat=1).count() == 2  # its draw and its discard
    assert heard == {"type": "version", "version": game.version}


def test_a_forged_post_is_refused_and_the_next_request_is_served(game):
    mover, action = mover_and_move(game)
    before = state_fingerprint(game)
    form = urllib.parse.urlencode({"version": game.version, **action}).encode()
    cookie = cookie_of(mover)

    async def scenario() -> tuple[int, int]:
        forged = await http(application, "POST", f"/games/{game.pk}/play/", cookie, form)
        page = await http(application, "GET", f"/games/{game.pk}/", cookie)
        return forged["status"], page["status"]

    assert async_to_sync(scenario)() == (403, 200)  # no CSRF token: refused
    assert state_fingerprint(game) == before


def test_an_error_in_a_view_is_the_error_page_and_the_worker_goes_on(game, monkeypatch):
    mover, _action = mover_and_move(game)
    cookie = cookie_of(mover)
    handler = OneTripASGIHandler(threads=1)  # one worker: the same thread must serve the next request

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug in the table")

    async def get() -> dict[str, Any]:
        return await http(handler, "GET", f"/games/{game.pk}/", cookie)

    with monkeypatch.context() as patch:
        patch.setattr(selectors, "game_table", broken)
        failed = async_to_sync(get)()
    served = async_to_sync(get)()
    assert failed["status"] == 500 and b"a bug in the table" not in failed["body"]
    assert served["status"] == 200 and b'id="table"' in served["body"]


def test_a_request_gives_its_database_connection_back_in_its_own_thread(game):
    """The connection a request opened is closed (given back to the pool, on PostgreSQL) by the end of
    the request's one call on its worker thread: left open, the thread would keep it from the others."""
    mover, _action = mover_and_move(game)
    handler = OneTripASGIHandler(threads=1)
    scope = http_scope(f"/games/{game.pk}/", cookie_of(mover))

    async def scenario() -> tuple[int, list[tuple[str, bool]]]:
        response, after = await respond_then_look(handler, scope)
        return response.status_code, after

    status, after = async_to_sync(scenario)()
    assert status == 200
    assert after == [("default", False)]  # the page read the database, and closed its connection


async def streamed(app: Any) -> dict[str, Any]:
    """``GET /streamed/``'s status and whole body (Channels' ``HttpCommunicator`` refuses the last, empty,
    body message a streaming answer ends with, which ASGI allows)."""
    communicator = ApplicationCommunicator(app, http_scope("/streamed/"))
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(timeout=10)
    body = b""
    while True:
        message = await communicator.receive_output(timeout=10)
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    await communicator.wait()
    return {"status": start["status"], "body": body}


@pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators")
def test_a_streaming_answer_is_sent_whole_after_its_connections_are_given_back(game, settings):
    settings.ROOT_URLCONF = __name__
    handler = OneTripASGIHandler(threads=1)

    async def scenario() -> tuple[bool, list[tuple[str, bool]], dict[str, Any]]:
        response, after = await respond_then_look(handler, http_scope("/streamed/"))
        return response.streaming, after, await streamed(handler)

    streaming, after, answer = async_to_sync(scenario)()
    assert streaming and after == [("default", False)]
    assert answer["status"] == 200 and answer["body"] == b"ann\nbob\n"


@pytest.mark.parametrize("made", ["before the deadline", "after it"])
def test_a_move_is_judged_by_when_it_reached_the_server_not_when_the_database_let_it_through(game, made, monkeypatch):
    """A fault tester froze PostgreSQL for 40 s: a draw made with 16 s left waited for it, was refused as late
    once it thawed, and the bot played the turn (counted against its person).  The move is judged by when it
    reached this process (``http.received_at``): one made in time is played however long the database held it."""
    from games.services import playing

    mover, action = mover_and_move(game)
    start = timezone.now()
    deadline = start + datetime.timedelta(seconds=5)
    Game.objects.filter(pk=game.pk).update(turn_deadline=deadline)
    game.refresh_from_db()
    sent = start if made == "before the deadline" else deadline + datetime.timedelta(seconds=1)
    real = playing.locked_game
    with time_machine.travel(sent, tick=False) as traveller:

        def held_up(*args: Any, **kwargs: Any) -> Any:
            traveller.shift(datetime.timedelta(seconds=10))  # the game's row lock came 10 s later: the database hung
            return real(*args, **kwargs)

        monkeypatch.setattr(playing, "locked_game", held_up)
        fields = {"version": game.version, **action}
        page = f"/games/{game.pk}/"
        answer = async_to_sync(csrf_post)(application, f"/games/{game.pk}/play/", cookie_of(mover), page, fields)
    if made == "before the deadline":
        assert answer["status"] == 302 and game.moves.filter(by_bot=False).count() == 1
    else:
        assert answer["status"] == 409 and b"Your time for this turn ran out" in answer["body"]
        assert not game.moves.exists()


def test_a_move_whose_body_came_after_the_deadline_is_late_though_its_headers_came_before(game):
    """Its arrival is stamped once the whole body is here: a client could send its headers in time, then choose
    its move after the deadline and send it as the rest of the body."""
    mover, action = mover_and_move(game)
    start = timezone.now()
    deadline = start + datetime.timedelta(seconds=5)
    Game.objects.filter(pk=game.pk).update(turn_deadline=deadline)
    game.refresh_from_db()
    cookie = cookie_of(mover)

    async def scenario(traveller: Any) -> int:
        page = await http(application, "GET", f"/games/{game.pk}/", cookie)
        token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page["body"])
        assert token is not None
        form = {"csrfmiddlewaretoken": token.group(1).decode(), "version": game.version, **action}
        body = urllib.parse.urlencode(form).encode()
        scope = {
            **http_scope(f"/games/{game.pk}/play/", cookie + f"; csrftoken={set_cookies(page)['csrftoken']}".encode()),
            "method": "POST",
        }
        scope["headers"] = [*scope["headers"], (b"content-type", b"application/x-www-form-urlencoded")]
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": body[:10], "more_body": True})
        await asyncio.sleep(0.5)  # the application has the request, and waits for the rest of its body
        traveller.shift(datetime.timedelta(seconds=10))  # the rest of the move comes after the deadline
        await communicator.send_input({"type": "http.request", "body": body[10:]})
        answer = await communicator.receive_output(timeout=10)
        await communicator.wait(timeout=10)
        return int(answer["status"])

    with time_machine.travel(start, tick=False) as traveller:
        status = async_to_sync(scenario)(traveller)
    assert status == 409 and not game.moves.exists()
