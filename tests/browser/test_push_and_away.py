"""Push notices and time away in a browser.

- With VAPID keys (a second served site, started with them): the profile's button asks for the
  permission, registers /sw.js and posts the subscription; the service worker shows a pushed notice
  (delivered through Chromium's DevTools protocol, as a push service would) and opens its table.
  Headless Chromium cannot reach a real push service, so ``PushManager.subscribe`` is replaced
  before the page's scripts run by one that returns a subscription with keys this test made.
- Without keys (the usual served site): no push control, no service worker registered.
- An opponent who is away: the table says until when, in the reader's zone, at phone and
  desktop widths, and no countdown runs for that turn.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from playwright.sync_api import expect

from accounts.models import PushSubscription
from accounts.push import b64url_encode, public_point
from games import services
from tests.servers import REPO, free_port, server_env, stop, wait_until_serving

from .conftest import game_between, off_loop

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=15_000)

_VAPID = ec.generate_private_key(ec.SECP256R1())  # a pair for this run only
PUBLIC = b64url_encode(public_point(_VAPID.public_key()))
PRIVATE = b64url_encode(_VAPID.private_numbers().private_value.to_bytes(32, "big"))
ENDPOINT = "https://fcm.googleapis.com/fcm/send/browser-test"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def fake_push_manager() -> str:
    """A PushManager whose subscribe() returns a subscription with real keys (made here), offline."""
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    keys = {"p256dh": b64(point), "auth": b64(b"0123456789abcdef")}
    script = """
(function () {
  if (!window.PushManager) return;
  var held = null;
  function make() {
    return { endpoint: ENDPOINT, options: {},
             toJSON: function () { return { endpoint: ENDPOINT, keys: KEYS }; },
             unsubscribe: function () { held = null; return Promise.resolve(true); } };
  }
  PushManager.prototype.subscribe = function (options) {
    window.__subscribeKey = options && options.applicationServerKey ? options.applicationServerKey.length : 0;
    held = make();
    return Promise.resolve(held);
  };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(held); };
})();
"""
    return script.replace("ENDPOINT", json.dumps(ENDPOINT)).replace("KEYS", json.dumps(keys))


@pytest.fixture(scope="module")
def push_url(django_db_setup: Any, django_db_blocker: Any, tmp_path_factory: Any) -> Iterator[str]:
    """The site served with VAPID keys (push on), on a port of its own."""
    from django.db import connection

    with django_db_blocker.unblock():
        database = dict(connection.settings_dict)
    port = free_port()
    log = tmp_path_factory.mktemp("push-server") / "runserver.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", "--skip-checks", f"127.0.0.1:{port}"],
            cwd=REPO,
            env=server_env(database, GAMECLOCK_IN_SERVER="0", VAPID_PUBLIC_KEY=PUBLIC, VAPID_PRIVATE_KEY=PRIVATE),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(url + "/rules/", process, log)
        yield url
    finally:
        stop(process)


def test_turning_push_on_subscribes_and_the_worker_shows_a_notice(browser, push_url, make_user):
    from django.test import Client

    ann = make_user("ann")
    client = Client()
    client.force_login(ann)
    context = browser.new_context(base_url=push_url, viewport={"width": 390, "height": 844})
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": push_url}])
    context.grant_permissions(["notifications"], origin=push_url)
    context.add_init_script(fake_push_manager())
    try:
        page = context.new_page()
        page.goto("/accounts/profile/")
        button = page.locator("[data-push-toggle]")
        expect(button).to_have_text("Push notices in this browser: off")
        expect(page.locator("[data-push-unsupported]")).to_be_hidden()
        button.click()
        expect(button).to_have_text("Push notices in this browser: on")
        expect(page.locator(".push-devices")).to_have_text("On for 1 device.")
        assert page.evaluate("window.__subscribeKey") == 65  # the site's VAPID key, as bytes
        subscription = PushSubscription.objects.get()
        assert subscription.user == ann and subscription.endpoint == ENDPOINT
        scope = page.evaluate("navigator.serviceWorker.getRegistration('/').then(r => r && r.scope)")
        assert scope == push_url + "/"

        # A push arrives (as the push service would deliver it): the worker shows it.
        cdp = context.new_cdp_session(page)
        registrations: list[dict[str, Any]] = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda event: registrations.extend(event["registrations"]))
        cdp.send("ServiceWorker.enable")
        page.wait_for_timeout(200)
        registration_id = next(r["registrationId"] for r in registrations if r["scopeURL"] == push_url + "/")
        notice = {
            "title": "Your turn in Classic #7",
            "body": "Move before …",
            "url": "https://elsewhere.example/games/7/",
        }
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": push_url, "registrationId": registration_id, "data": json.dumps(notice)},
        )
        shown = page.wait_for_function(
            "navigator.serviceWorker.ready.then(r => r.getNotifications())"
            ".then(list => list.length ? list.map(n => [n.title, n.body, n.data.url, n.tag]) : null)"
        ).json_value()
        # Only this site's addresses are opened: another origin keeps its path, on this site.
        assert shown == [["Your turn in Classic #7", "Move before …", push_url + "/games/7/", "threethirteen-turn"]]

        # Turned off again: withdrawn here and on the server.
        button.click()
        expect(button).to_have_text("Push notices in this browser: off")
        expect(page.locator(".push-devices")).to_have_text("On for 0 devices.")
        assert not PushSubscription.objects.exists()
    finally:
        context.close()


def test_without_keys_there_is_no_push_control_and_no_worker(signed_in, make_user):
    context = signed_in(make_user("ann"))
    page = context.new_page()
    page.goto("/accounts/profile/")
    expect(page.locator("#away")).to_be_visible()
    assert page.locator("[data-push]").count() == 0
    page.wait_for_load_state("load")
    assert page.evaluate("navigator.serviceWorker.getRegistrations().then(list => list.length)") == 0
    assert page.request.get("/sw.js").status == 404


@pytest.mark.parametrize("width", [390, 1280])
def test_an_opponent_away_shows_on_the_table_without_a_countdown(signed_in, make_user, classic, width):
    game, ann, bob = game_between(make_user, classic, rounds=[3, 4])  # a day per move
    assert game.is_async
    mover = game.seats.get(position=game.current_seat).user
    other = bob if mover == ann else ann
    other.time_zone = "Europe/Zagreb"
    other.save()
    off_loop(services.away_declare, user=mover, days=3)
    page = signed_in(other, viewport={"width": width, "height": 900}).new_page()
    page.goto(game.get_absolute_url())
    pill = page.locator(".player .pill.away")
    expect(pill).to_have_count(1)
    expect(pill).to_contain_text("away until")
    expect(pill).to_contain_text("(Zagreb)")  # the zone named by its city
    expect(page.locator(".clock.paused")).to_contain_text("The clock is stopped")
    assert page.locator(".countdown").count() == 0
    box = pill.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width  # fits the screen
