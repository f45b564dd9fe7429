"""Web Push turn notices, end to end: a browser's subscription posted from the profile, the clock
sending the notice to a stand-in push service (http.server on a loopback thread) that checks the
VAPID signature and decrypts the body with the subscription's own key pair and auth secret
(RFC 8291, ``http_ece``), then reads its words and its link.  Also: off and invisible without
VAPID keys, once per turn and kind like the e-mails, gone subscriptions removed, and every
malformed, forged or foreign request refused with a clear 4xx and nothing stored.
"""

from __future__ import annotations

import base64
import datetime
import io
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.core import mail
from django.core.management import call_command
from django.test import Client
from py_vapid import Vapid02

from accounts import push
from accounts.models import PushSubscription
from games import services
from games.engine import GameState
from games.models import Game, Move, TurnNotice
from games.services import push as web_push
from tests.leaks import find_leaks_in_message, secrets_of

from .conftest import NOTICE_DUE, logged_in

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
SECOND = datetime.timedelta(seconds=1)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


# -- the stand-in push service -------------------------------------------------------------------


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """Records every POST; answers ``statuses[path]`` (201 by default)."""

    url: str
    received: list[Received] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    #: When set, each POST waits there for the others before it is answered (504 if they never come).
    barrier: threading.Barrier | None = None


@pytest.fixture
def push_service(monkeypatch) -> Iterator[PushService]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    service = PushService(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802  (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            service.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            status = service.statuses.get(self.path, 201)
            if service.barrier is not None:
                try:
                    service.barrier.wait()
                except threading.BrokenBarrierError:
                    status = 504
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    service.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def vapid(settings) -> dict[str, str]:
    """Web Push on: a fresh VAPID pair (from the management command), loopback endpoints allowed."""
    out = io.StringIO()
    call_command("vapid_keys", stdout=out)
    keys = dict(line.split("=", 1) for line in out.getvalue().split())
    settings.VAPID_PUBLIC_KEY = keys["VAPID_PUBLIC_KEY"]
    settings.VAPID_PRIVATE_KEY = keys["VAPID_PRIVATE_KEY"]
    settings.VAPID_SUBJECT = "mailto:admin@example.com"
    settings.PUSH_ALLOW_LOOPBACK = True
    return keys


@pytest.fixture
def push_off(settings) -> None:
    settings.VAPID_PUBLIC_KEY = ""
    settings.VAPID_PRIVATE_KEY = ""


@dataclass
class Browser:
    """What a browser holds for one subscription: its key pair and auth secret (the test made them)."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey
    auth: bytes

    @property
    def fields(self) -> dict[str, str]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {"endpoint": self.endpoint, "p256dh": b64(point), "auth": b64(self.auth)}

    def decrypt(self, received: Received) -> dict[str, Any]:
        assert received.headers["content-encoding"] == "aes128gcm"
        plain = http_ece.decrypt(received.body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        return json.loads(plain.decode("utf-8"))


def new_browser(service: PushService, name: str = "a") -> Browser:
    return Browser(
        f"{service.url}/push/{name}-{os.urandom(6).hex()}", ec.generate_private_key(ec.SECP256R1()), os.urandom(16)
    )


def game_over_days(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, time_limit_seconds=DAY, seed=3, options={"rounds": [3, 4]}
    )
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    mover = game.seats.get(position=game.current_seat).user
    return game, mover


def subscribe(client: Client, browser: Browser):
    return client.post("/accounts/push/subscribe/", browser.fields)


# -- end to end --------------------------------------------------------------------------------------


def test_the_turn_notice_and_the_reminder_arrive_once_each_decrypted_with_the_link(
    make_user, classic, vapid, push_service, settings
):
    settings.SITE_URL = "https://cards.example.com"
    game, mover = game_over_days(make_user, classic)
    browser = new_browser(push_service)
    response = subscribe(logged_in(mover), browser)
    assert response.status_code == 200 and response.json() == {"ok": True, "devices": 1}

    start = game.turn_started_at
    assert services.clock_tick(now=start + NOTICE_DUE) == {
        "called_off": 0,
        "timeouts": 0,
        "emails": 0,
        "pushes": 1,
        "away": 0,
        "bots": 0,
        "paused": 0,
    }
    assert services.clock_tick(now=start + NOTICE_DUE + SECOND)["pushes"] == 0  # once per turn
    (first,) = push_service.received
    assert first.path == browser.endpoint.removeprefix(push_service.url)
    # Signed with the site's VAPID key (RFC 8292), for this push service, with a TTL up to the deadline.
    authorization = first.headers["authorization"]
    assert authorization.startswith("vapid t=") and f"k={vapid['VAPID_PUBLIC_KEY']}" in authorization
    assert Vapid02.verify(authorization)
    claims = json.loads(base64.urlsafe_b64decode(authorization.split("t=")[1].split(".")[1] + "=="))
    assert claims["aud"] == push_service.url and claims["sub"] == "mailto:admin@example.com"
    assert 0 < int(first.headers["ttl"]) <= DAY and first.headers["topic"] == f"game-{game.pk}"
    notice = browser.decrypt(first)
    assert notice["title"] == f"Your turn in Classic #{game.pk}"
    assert notice["body"].startswith("Move before ") and "(UTC), or a bot plays this turn for you." in notice["body"]
    assert notice["url"] == f"https://cards.example.com/games/{game.pk}/"
    assert notice["tag"] == f"game-{game.pk}"
    assert set(notice) == {"title", "body", "url", "tag", "icon"}

    at_80 = start + datetime.timedelta(seconds=DAY * 0.8)
    assert services.clock_tick(now=at_80 - SECOND)["pushes"] == 0
    assert services.clock_tick(now=at_80)["pushes"] == 1
    assert services.clock_tick(now=at_80 + SECOND)["pushes"] == 0
    reminder = browser.decrypt(push_service.received[1])
    assert reminder["title"] == f"Reminder: your move in Classic #{game.pk}"
    assert push_service.received[1].headers["urgency"] == "high"
    assert len(push_service.received) == 2 and not mail.outbox  # e-mail not asked for
    assert sorted(TurnNotice.objects.filter(game=game).values_list("kind", flat=True)) == ["reminder", "turn"]
    # No card in any notice: checked like every page (tests/leaks.py), as if read by anyone.
    game.refresh_from_db()
    state = GameState.from_dict(game.state)
    events = [e for m in Move.objects.filter(game=game) for e in m.events]
    for payload in (notice, reminder):
        assert find_leaks_in_message(json.dumps(payload), secrets_of(state, None, events=events)) == []
        hand = {card.code for card in state.hands[game.current_seat]}
        assert not any(code in payload["title"] + payload["body"] for code in hand)


def test_the_notice_speaks_the_players_language_and_time_zone(make_user, classic, vapid, push_service):
    game, mover = game_over_days(make_user, classic)
    mover.language, mover.time_zone = "cs", "Europe/Prague"
    mover.save()
    browser = new_browser(push_service)
    assert subscribe(logged_in(mover), browser).status_code == 200
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["pushes"] == 1
    notice = browser.decrypt(push_service.received[0])
    assert notice["title"] == f"Jste na tahu ve hře Klasická č. {game.pk}"
    assert "(Praha)" in notice["body"] and notice["body"].startswith("Táhněte")  # the zone's city, in Czech


@pytest.mark.parametrize(("time_limit", "kept_for"), [(DAY, web_push.MAX_TTL), (30, 30 * 60)])
def test_a_seat_held_for_a_person_is_pushed_once_in_their_language(
    time_limit, kept_for, make_user, classic, vapid, push_service, settings
):
    """Invited by name (or asked to a rematch): one push once the seat has waited, with the table's link; a
    push service keeps it no longer than a live table waits for its players (``clock.LIVE_TABLE_WAITS``)."""
    settings.SITE_URL = "https://cards.example.com"
    ann, bob = make_user("ann"), make_user("bob")
    bob.language = "hr"
    bob.save()
    browser = new_browser(push_service)
    assert subscribe(logged_in(bob), browser).status_code == 200
    table = services.game_create(
        creator=ann, variant=classic, seat_count=2, time_limit_seconds=time_limit, invited=[bob]
    )
    due = table.created_at + NOTICE_DUE
    assert services.clock_tick(now=due - SECOND)["pushes"] == 0
    assert services.clock_tick(now=due)["pushes"] == 1
    assert services.clock_tick(now=due + SECOND)["pushes"] == 0
    (received,) = push_service.received
    assert received.headers["topic"] == f"invitation-{table.pk}" and int(received.headers["ttl"]) == kept_for
    notice = browser.decrypt(received)
    assert notice["title"] == f"ann vas poziva na igru: Klasična #{table.pk}"
    assert notice["body"] == "Zauzmite svoje mjesto ili ga odbijte za stolom."
    assert notice["url"] == f"https://cards.example.com/games/{table.pk}/" and notice["tag"] == f"invitation-{table.pk}"
    assert not mail.outbox  # e-mail not asked for


def test_e_mail_and_push_share_one_record_one_of_each(make_user, classic, vapid, push_service):
    game, mover = game_over_days(make_user, classic)
    mover.notify_by_email = True
    mover.save()
    phone, laptop = new_browser(push_service, "phone"), new_browser(push_service, "laptop")
    client = logged_in(mover)
    assert subscribe(client, phone).status_code == 200 and subscribe(client, laptop).status_code == 200
    done = services.clock_tick(now=game.turn_started_at + NOTICE_DUE)
    assert done["emails"] == 1 and done["pushes"] == 2
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE + SECOND)["pushes"] == 0
    assert len(mail.outbox) == 1 and TurnNotice.objects.filter(game=game).count() == 1
    assert {r.path.split("-")[0] for r in push_service.received} == {"/push/phone", "/push/laptop"}


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_reports_gone_is_removed(make_user, classic, vapid, push_service, status):
    game, mover = game_over_days(make_user, classic)
    gone, kept = new_browser(push_service, "gone"), new_browser(push_service, "kept")
    client = logged_in(mover)
    subscribe(client, gone)
    subscribe(client, kept)
    push_service.statuses[gone.endpoint.removeprefix(push_service.url)] = status
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["pushes"] == 1
    assert list(PushSubscription.objects.values_list("endpoint", flat=True)) == [kept.endpoint]


def test_a_failing_push_service_keeps_the_subscription_and_the_clock_goes_on(
    make_user, classic, vapid, push_service, caplog
):
    game, mover = game_over_days(make_user, classic)
    browser = new_browser(push_service)
    subscribe(logged_in(mover), browser)
    push_service.statuses[browser.endpoint.removeprefix(push_service.url)] = 500
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["pushes"] == 0
    assert PushSubscription.objects.count() == 1 and "push to subscription" in caplog.text
    # never sent twice: the notice was recorded, the next pass does not try again
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE + SECOND)["pushes"] == 0
    assert len(push_service.received) == 1


def test_a_persons_push_services_are_asked_at_once_not_one_after_another(
    make_user, classic, vapid, push_service, monkeypatch
):
    """Each subscription waited for its push service in turn: ten that hang held the clock's pass for ten
    times ``push.TIMEOUT`` (100 s), timeouts of every game waiting.  Here each service answers only once
    all of them have been asked: one after another, the first times out before the next is asked."""
    monkeypatch.setattr(web_push, "TIMEOUT", 1)
    game, mover = game_over_days(make_user, classic)
    client = logged_in(mover)
    for name in "abcd":
        subscribe(client, new_browser(push_service, name))
    push_service.barrier = threading.Barrier(4, timeout=6)
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["pushes"] == 4
    assert PushSubscription.objects.filter(last_sent_at__isnull=False).count() == 4


def test_no_push_while_away(make_user, classic, vapid, push_service):
    game, mover = game_over_days(make_user, classic)
    subscribe(logged_in(mover), new_browser(push_service))
    absence = services.away_declare(user=mover, days=1, now=game.turn_started_at)
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["pushes"] == 0
    assert services.clock_tick(now=absence.ends_at)["pushes"] == 0  # the turn starts again on the return,
    assert services.clock_tick(now=absence.ends_at + NOTICE_DUE)["pushes"] == 1  # and its notice waits as ever
    assert len(push_service.received) == 1


# -- off and invisible without keys ------------------------------------------------------------------


def test_without_vapid_keys_nothing_shows_and_nothing_is_sent(make_user, classic, push_off, push_service):
    game, mover = game_over_days(make_user, classic)
    client = logged_in(mover)
    page = client.get("/accounts/profile/").content.decode()
    assert "data-push" not in page and "push.js" not in page and "sw.js" not in page
    assert client.get("/sw.js").status_code == 404
    browser = new_browser(push_service)
    assert subscribe(client, browser).status_code == 404
    assert client.post("/accounts/push/unsubscribe/", {"all": "1"}).status_code == 404
    # a subscription kept from when push was on gets nothing now
    PushSubscription.objects.create(user=mover, **browser.fields)
    done = services.clock_tick(now=game.turn_started_at + NOTICE_DUE)
    assert done["pushes"] == 0 and push_service.received == []
    assert not TurnNotice.objects.exists()  # nothing was due by any way: no record either


def test_with_vapid_keys_the_profile_offers_it_and_serves_the_worker(make_user, vapid):
    client = logged_in(make_user("ann"))
    page = client.get("/accounts/profile/").content.decode()
    assert f'data-vapid-key="{vapid["VAPID_PUBLIC_KEY"]}"' in page and "/static/games/push.js" in page
    assert 'data-worker-url="/sw.js"' in page and "On for 0 devices." in page
    worker = client.get("/sw.js")
    assert worker.status_code == 200 and worker["Content-Type"].startswith("text/javascript")
    assert worker["Service-Worker-Allowed"] == "/" and b"showNotification" in worker.content
    assert "script-src 'self'" in worker["Content-Security-Policy"]


# -- the endpoints: validated, owner-only, never a 500 ------------------------------------------------


def _bad_inputs(service_url: str) -> list[dict[str, str]]:
    good = new_browser(PushService(url=service_url)).fields
    point = base64.urlsafe_b64decode(good["p256dh"] + "=")
    return [
        {},
        {**good, "endpoint": ""},
        {**good, "endpoint": "http://push.example.com/abc"},
        {**good, "endpoint": "https://10.0.0.8/abc"},
        {**good, "endpoint": "https://[fe80::1]:443/abc"},
        {**good, "endpoint": "https://192.168.1.1.nip.io.evil/x"},
        {**good, "endpoint": "https://evil.example.com/fcm.googleapis.com"},
        {**good, "endpoint": "https://fcm.googleapis.com.evil.example.com/x"},
        {**good, "endpoint": "https://user:pw@fcm.googleapis.com/x"},
        {**good, "endpoint": "https://fcm.googleapis.com/" + "a" * 1000},
        {**good, "endpoint": "https://fcm.googleapis.com/a b"},
        {**good, "endpoint": "https://fcm.googleapis.com:99999/x"},
        {**good, "endpoint": "javascript:alert(1)"},
        {**good, "endpoint": "ftp://127.0.0.1/x"},
        {**good, "p256dh": ""},
        {**good, "p256dh": "not base64!"},
        {**good, "p256dh": b64(point[:64])},
        {**good, "p256dh": b64(b"\x04" + b"\x01" * 64)},  # not a point of the curve
        {**good, "p256dh": "A" * 101},
        {**good, "auth": b64(b"x" * 15)},
        {**good, "auth": "%%%%"},
        {**good, "auth": "A" * 41},
    ]


def test_bad_subscriptions_are_a_clear_400_and_nothing_is_stored(make_user, vapid, push_service):
    client = logged_in(make_user("ann"))
    for data in _bad_inputs(push_service.url):
        response = client.post("/accounts/push/subscribe/", data)
        assert response.status_code == 400, data
        assert response.json()["ok"] is False and response.json()["error"], data
    assert not PushSubscription.objects.exists()


def test_a_real_push_services_address_is_accepted(make_user, vapid, settings):
    settings.PUSH_ALLOW_LOOPBACK = False
    client = logged_in(make_user("ann"))
    browser = new_browser(PushService(url="https://fcm.googleapis.com"))
    assert subscribe(client, browser).status_code == 200
    for url in ("http://127.0.0.1:9", "https://127.0.0.1", "https://[::1]", "https://localhost"):
        assert subscribe(client, new_browser(PushService(url=url))).status_code == 400  # only where tests allow it


def test_forged_foreign_and_anonymous_requests_change_nothing(make_user, vapid, push_service):
    ann, bob = make_user("ann"), make_user("bob")
    browser = new_browser(push_service)
    assert subscribe(logged_in(ann), browser).status_code == 200
    # bob posting ann's endpoint (with his own keys) is refused; her keys stay
    stolen = {**new_browser(push_service).fields, "endpoint": browser.endpoint}
    response = logged_in(bob).post("/accounts/push/subscribe/", stolen)
    assert response.status_code == 409 and "another account" in response.json()["error"]
    kept = PushSubscription.objects.get()
    assert kept.user == ann and kept.p256dh == browser.fields["p256dh"]
    # bob withdrawing it, or all of "his": nothing of ann's goes
    answer = logged_in(bob).post(
        "/accounts/push/unsubscribe/", {"endpoint": browser.endpoint}, HTTP_X_REQUESTED_WITH="fetch"
    )
    assert answer.json()["removed"] == 0
    logged_in(bob).post("/accounts/push/unsubscribe/", {"all": "1"})
    assert PushSubscription.objects.filter(user=ann).count() == 1
    # signed out, without the CSRF token, or a GET
    assert Client().post("/accounts/push/subscribe/", new_browser(push_service).fields).status_code == 403
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(bob)
    assert forged.post("/accounts/push/subscribe/", new_browser(push_service).fields).status_code == 403
    get = logged_in(bob).get("/accounts/push/subscribe/")
    assert get.status_code == 405 and get["Allow"] == "POST"
    assert logged_in(bob).post("/accounts/push/unsubscribe/", {}).status_code == 400
    assert PushSubscription.objects.count() == 1


def test_with_the_csrf_token_in_the_header_as_push_js_sends_it(make_user, vapid, push_service):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("ann"))
    client.get("/accounts/profile/")
    token = client.cookies["csrftoken"].value
    response = client.post("/accounts/push/subscribe/", new_browser(push_service).fields, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200


def test_turning_off_here_and_everywhere(make_user, vapid, push_service):
    ann = make_user("ann")
    client = logged_in(ann)
    one, two = new_browser(push_service, "one"), new_browser(push_service, "two")
    subscribe(client, one)
    subscribe(client, two)
    answer = client.post("/accounts/push/unsubscribe/", {"endpoint": one.endpoint}, HTTP_X_REQUESTED_WITH="fetch")
    assert answer.json() == {"ok": True, "removed": 1, "devices": 1}
    page = client.get("/accounts/profile/").content.decode()
    assert "On for 1 device." in page and "Turn push notices off on every device" in page
    response = client.post("/accounts/push/unsubscribe/", {"all": "1"})  # the plain form, no JavaScript
    assert response.status_code == 302 and not PushSubscription.objects.exists()
    assert "Push notices are off on 1 device." in client.get("/accounts/profile/").content.decode()


def test_the_same_browser_again_renews_its_keys_and_a_person_keeps_ten(make_user, vapid, push_service):
    ann = make_user("ann")
    client = logged_in(ann)
    browser = new_browser(push_service)
    subscribe(client, browser)
    renewed = {**new_browser(push_service).fields, "endpoint": browser.endpoint}
    assert client.post("/accounts/push/subscribe/", renewed).json()["devices"] == 1
    assert PushSubscription.objects.get().p256dh == renewed["p256dh"]
    first = PushSubscription.objects.get().endpoint
    for number in range(push.MAX_SUBSCRIPTIONS):
        subscribe(client, new_browser(push_service, f"d{number}"))
    endpoints = set(PushSubscription.objects.values_list("endpoint", flat=True))
    assert len(endpoints) == push.MAX_SUBSCRIPTIONS and first not in endpoints  # the oldest went


# -- the keys --------------------------------------------------------------------------------------


def test_the_command_makes_a_working_pair_and_the_check_catches_a_wrong_one(settings):
    out = io.StringIO()
    call_command("vapid_keys", stdout=out)
    lines = out.getvalue().split()
    assert [line.split("=", 1)[0] for line in lines] == ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"]
    keys = dict(line.split("=", 1) for line in lines)
    assert len(push.b64url_decode(keys["VAPID_PUBLIC_KEY"])) == 65
    assert len(push.b64url_decode(keys["VAPID_PRIVATE_KEY"])) == 32
    settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY = keys["VAPID_PUBLIC_KEY"], keys["VAPID_PRIVATE_KEY"]
    assert push.keys_match() and push.check_vapid_keys() == []
    other = io.StringIO()
    call_command("vapid_keys", stdout=other)
    settings.VAPID_PUBLIC_KEY = dict(line.split("=", 1) for line in other.getvalue().split())["VAPID_PUBLIC_KEY"]
    assert [error.id for error in push.check_vapid_keys()] == ["accounts.E002"]
    settings.VAPID_PRIVATE_KEY = ""
    assert [error.id for error in push.check_vapid_keys()] == ["accounts.E001"]
    assert not push.enabled()


def test_a_game_over_days_only(make_user, classic, vapid, push_service):
    """Live games send no notice, as with the e-mails."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, time_limit_seconds=120, seed=3)
    services.game_join(game_id=game.pk, user=bob)
    game = Game.objects.get(pk=game.pk)
    mover = game.seats.get(position=game.current_seat).user
    subscribe(logged_in(mover), new_browser(push_service))
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["pushes"] == 0
    assert push_service.received == []
