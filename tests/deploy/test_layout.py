"""The layout of ``deploy/`` on loopback: a game played through nginx reaches pages on two server processes.

``layout.deployed_layout`` starts PostgreSQL, Redis, ``deploy/update.sh``,
two daphne processes and the move clock from the shipped systemd units, and
nginx with the shipped site file (HTTPS, a certificate made for 127.0.0.1).
Then, as people would, only through the proxy: two players sign up, one
creates a game inviting the other, each opens the table's WebSocket (nginx
shares them out: they land on different processes, as the ``X-Upstream``
header of the upgrade shows), a move is posted, and both pages hear it, so
one of them from a process the move did not go through.  The clock then
plays a turn whose time ran out, and both pages hear that too.  Also: the
health check through the proxy (and its "stale" clock once the clock
process stops), static files served by nginx (hashed names
kept for good), HTTP redirected to HTTPS, and what ``check --deploy`` said.
"""

from __future__ import annotations

import contextlib
import http.client
import http.cookiejar
import json
import os
import re
import signal
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
import redis
from websockets.sync.client import connect as websocket_connect
from websockets.typing import Origin

from tests.servers import stop

from .layout import Layout, deployed_layout, start, unit_command, wait_for

pytestmark = pytest.mark.slow

#: Where a game stands, read from the layout's database.
TURN = "SELECT version, turn_number, current_seat FROM games_game WHERE id = %s"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Browser:
    """A person's browser on the site: cookies, the CSRF token of the last form, a Referer on every POST."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.jar = http.cookiejar.CookieJar()
        https = urllib.request.HTTPSHandler(context=layout.ssl_context)
        self.opener = urllib.request.build_opener(https, urllib.request.HTTPCookieProcessor(self.jar), NoRedirect)

    def request(self, path: str, data: dict[str, str] | None = None, referer: str = "") -> Any:
        url = self.layout.base_url + path
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(url, data=body, headers={"Referer": self.layout.base_url + referer})
        try:
            return self.opener.open(request, timeout=30)
        except urllib.error.HTTPError as error:  # 3xx (not followed) and 4xx/5xx: the answer all the same
            return error

    def get(self, path: str) -> tuple[Any, str]:
        response = self.request(path)
        return response, response.read().decode()

    def submit(self, form_path: str, post_path: str, fields: dict[str, str]) -> Any:
        """Load the form's page (CSRF cookie and token), then post the fields from it."""
        response, page = self.get(form_path)
        assert response.status == 200, (form_path, response.status)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token is not None, f"{form_path} has no form"
        response = self.request(post_path, {"csrfmiddlewaretoken": token.group(1), **fields}, referer=form_path)
        response.read()
        return response

    def cookie(self, name: str) -> str:
        return next(cookie.value for cookie in self.jar if cookie.name == name and cookie.value is not None)


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Layout]:
    with deployed_layout(tmp_path_factory.mktemp("layout")) as running:
        yield running


def sql(layout: Layout, query: str, params: tuple = ()) -> list[tuple]:
    with psycopg.connect(layout.database_url, autocommit=True) as connection:
        cursor = connection.execute(query, params)
        return cursor.fetchall() if cursor.description else []


def open_table_socket(layout: Layout, browser: Browser, game_id: int, stack: contextlib.ExitStack) -> tuple[Any, str]:
    """The table page's WebSocket through the proxy (closed with ``stack``); the server process nginx gave it to."""
    socket = stack.enter_context(
        websocket_connect(
            f"{layout.base_url.replace('https', 'wss')}/ws/games/{game_id}/",
            ssl=layout.ssl_context,
            origin=Origin(layout.base_url),
            additional_headers={"Cookie": f"sessionid={browser.cookie('sessionid')}"},
            open_timeout=15,
        )
    )
    assert socket.response is not None
    upstream = socket.response.headers.get("X-Upstream", "")
    assert upstream, "nginx did not say which process took the socket"
    return socket, upstream


def next_version(socket: Any, after: int) -> int:
    """The next version the page hears that is past ``after`` (other signals, e.g. turn counts, are skipped)."""
    while True:
        message = json.loads(socket.recv(timeout=20))
        if message.get("type") == "version" and message["version"] > after:
            return message["version"]


def test_the_update_script_ran_and_check_deploy_names_only_the_loopback_host(layout):
    log = (layout.workdir / "update.log").read_text()
    assert "static files copied" in log
    reported = set(re.findall(r"\((\w+\.\w+)\)", log))
    # The loopback layout's one deliberate gap: it answers for 127.0.0.1 only.  Nothing else is missing.
    assert reported == {"threethirteen.W006"}, log


def test_health_check_through_the_proxy_and_on_each_process(layout):
    browser = Browser(layout)
    response, body = browser.get("/healthz")
    assert response.status == 200
    assert json.loads(body) == {"status": "ok", "database": "ok", "channel_layer": "ok", "clock": "ok"}
    assert "no-store" in response.headers["Cache-Control"]
    assert response.headers["X-Upstream"] in {url.removeprefix("http://") for url in layout.upstreams}
    for upstream in layout.upstreams:  # directly, over plain HTTP, as a monitor on the machine would
        with urllib.request.urlopen(f"{upstream}/healthz", timeout=10) as direct:
            assert direct.status == 200 and json.loads(direct.read())["status"] == "ok"


def test_plain_http_is_sent_to_https(layout):
    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as answer:
        opener.open(f"{layout.http_url}/rules/", timeout=10)
    assert answer.value.code == 301 and answer.value.headers["Location"] == "https://127.0.0.1/rules/"


def test_the_acme_challenge_is_answered_over_plain_http(layout):
    """certbot's webroot renewals failed: the port-80 server sent the challenge to HTTPS with everything else."""
    challenges = layout.workdir / "letsencrypt" / ".well-known" / "acme-challenge"
    challenges.mkdir(parents=True, exist_ok=True)
    (challenges / "a-token-of-the-ca").write_text("a-token-of-the-ca.the-account-key-thumbprint")
    opener = urllib.request.build_opener(NoRedirect)
    with opener.open(f"{layout.http_url}/.well-known/acme-challenge/a-token-of-the-ca", timeout=10) as answer:
        assert answer.status == 200 and answer.read() == b"a-token-of-the-ca.the-account-key-thumbprint"


def test_static_files_come_from_the_proxy_and_hashed_names_are_kept_for_good(layout):
    browser = Browser(layout)
    response, page = browser.get("/rules/")
    assert response.status == 200
    stylesheet = re.search(r'href="(/static/games/site\.[0-9a-f]{12}\.css)"', page)
    assert stylesheet is not None, "the page does not link the hashed stylesheet"
    response, css = browser.get(stylesheet.group(1))
    assert response.status == 200 and response.headers["Content-Type"] == "text/css"
    assert response.headers["Cache-Control"] == "max-age=315360000" and "X-Upstream" not in response.headers
    assert ".card" in css
    response, _ = browser.get("/static/games/site.css")  # the plain name: an hour
    assert response.status == 200 and response.headers["Cache-Control"] == "max-age=3600"
    # The server processes do not serve them (asked as the proxy asks, so that no redirect to HTTPS comes first).
    direct = urllib.request.Request(
        f"{layout.upstreams[0]}{stylesheet.group(1)}", headers={"X-Forwarded-Proto": "https"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.build_opener(NoRedirect).open(direct, timeout=10)
    assert refused.value.code == 404


def test_a_move_through_the_proxy_reaches_a_page_on_another_process_and_so_does_the_clock(layout):
    ann, bob = Browser(layout), Browser(layout)
    for browser, name in ((ann, "ann"), (bob, "bob")):
        password = f"a-long-pass-phrase-of-{name}-42"
        fields = {"username": name, "email": f"{name}@example.com", "password1": password, "password2": password}
        response = browser.submit("/accounts/signup/", "/accounts/signup/", fields)
        assert response.status == 302 and response.headers["Location"] == "/", response.status
    [(classic,)] = sql(layout, "SELECT id FROM games_variant WHERE slug = 'classic'")
    created = ann.submit(
        "/",
        "/games/new/",
        {
            "variant": str(classic),
            "people": "1",
            "easy_bots": "0",
            "medium_bots": "0",
            "hard_bots": "0",
            "invite": "bob",
            "time_limit_seconds": "120",
        },
    )
    assert created.status == 302, created.status
    game_id = int(re.fullmatch(r"/games/(\d+)/", created.headers["Location"]).group(1))
    # The seat held for bob is his to take: the cards are dealt when he does.
    joined = bob.submit(f"/games/{game_id}/", f"/games/{game_id}/join/", {})
    assert joined.status == 302, joined.status
    [(status, version, mover)] = sql(
        layout,
        "SELECT g.status, g.version, u.username FROM games_game g JOIN games_seat s"
        " ON s.game_id = g.id AND s.position = g.current_seat JOIN accounts_user u ON u.id = s.user_id WHERE g.id = %s",
        (game_id,),
    )
    assert status == "active"
    players = {"ann": ann, "bob": bob}

    # Each player's table page opens its socket through the proxy; nginx shares them out in turn.
    with contextlib.ExitStack() as stack:
        sockets = {"ann": open_table_socket(layout, ann, game_id, stack)}
        for _ in range(4):
            sockets["bob"] = open_table_socket(layout, bob, game_id, stack)
            if sockets["bob"][1] != sockets["ann"][1]:
                break
        assert sockets["ann"][1] != sockets["bob"][1], "both sockets landed on one process"
        for socket, _upstream in sockets.values():
            assert json.loads(socket.recv(timeout=20)) == {"type": "version", "version": version}

        # The mover's move, posted through the proxy from the table's form.
        fields = {"version": str(version), "type": "draw", "source": "stock"}
        moved = players[mover].submit(f"/games/{game_id}/", f"/games/{game_id}/play/", fields)
        assert moved.status == 302 and moved.headers["Location"] == f"/games/{game_id}/"
        posted_to = moved.headers["X-Upstream"]
        heard = {name: next_version(socket, version) for name, (socket, _upstream) in sockets.items()}
        [(stored, turn, seat)] = sql(layout, TURN, (game_id,))
        assert heard == {"ann": stored, "bob": stored} and stored > version
        other = next(name for name, (_socket, upstream) in sockets.items() if upstream != posted_to)
        assert sockets[other][1] != posted_to  # this page is on a process the move never went through

        # The mover's time runs out: the clock process plays the rest of the turn, and both pages hear it.
        sql(layout, "UPDATE games_game SET turn_deadline = now() - interval '1 second' WHERE id = %s", (game_id,))
        heard_clock = {name: next_version(socket, stored) for name, (socket, _upstream) in sockets.items()}
        [(after_clock, turn_after, seat_after)] = sql(layout, TURN, (game_id,))
        assert heard_clock == {"ann": after_clock, "bob": after_clock}
        assert turn_after == turn + 1 and seat_after != seat  # the turn was played out and passed on

        # The other page fetches its table through the proxy, as live.js does when it hears a version.
        response, table = players[other].get(f"/games/{game_id}/table/")
        assert response.status == 200 and f'data-version="{after_clock}"' in table


def test_health_check_says_the_clock_is_stale_when_the_clock_process_stops(layout):
    """Its heartbeat is in Redis, read by every server process: a stopped clock stops it (removed here, as if
    30 s had passed), and each process says so until the clock runs again."""
    stop(layout.processes["gameclock"])
    client = redis.Redis.from_url(layout.redis_url)
    [key] = client.keys("*gameclock:heartbeat")  # the clock recorded its passes in the shared cache
    client.delete(key)
    for upstream in layout.upstreams:
        with pytest.raises(urllib.error.HTTPError) as answer:
            urllib.request.urlopen(f"{upstream}/healthz", timeout=10)
        assert answer.value.code == 503
        assert json.loads(answer.value.read()) == {
            "status": "unavailable",
            "database": "ok",
            "channel_layer": "ok",
            "clock": "stale",
        }
    clock = start(layout, "gameclock", unit_command("threethirteen-gameclock.service"))
    wait_for(f"{layout.base_url}/healthz", layout.ssl_context, clock, "gameclock", layout.workdir / "gameclock.log")


def test_the_server_processes_log_their_start_and_the_players_address(layout):
    """The journal of a server process said nothing on start, and its access log gave nginx's address."""
    for index, upstream in enumerate(layout.upstreams):
        log = (layout.workdir / f"daphne-{index}.log").read_text(errors="replace")
        assert f"INFO daphne.server: Listening on TCP address {upstream.removeprefix('http://')}" in log, log[-3000:]
    # A player at another address (the loopback network has them all), through the proxy.
    https_port = int(layout.base_url.rsplit(":", 1)[1])
    player = http.client.HTTPSConnection(
        "127.0.0.1", https_port, context=layout.ssl_context, source_address=("127.0.0.2", 0), timeout=10
    )
    player.request("GET", "/no-such-page-of-a-player-at-127-0-0-2/")
    answer = player.getresponse()
    answer.read()
    assert answer.status == 404
    index = [url.removeprefix("http://") for url in layout.upstreams].index(answer.getheader("X-Upstream"))
    deadline = time.monotonic() + 10
    while True:
        log = (layout.workdir / f"daphne-{index}.log").read_text(errors="replace")
        line = next((line for line in log.splitlines() if '"GET /no-such-page-of-a-player' in line), "")
        if line or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert line.startswith("127.0.0.2"), line or log[-3000:]


def test_restarting_the_server_processes_one_at_a_time_answers_every_request(layout):
    """Restarted both at once, as the README said, they left ~8 s of nginx's "502 Bad Gateway"; one at a time
    (deploy/restart.sh), each once the one before answers again, nginx sends a request that finds a process
    down to the other (proxy_next_upstream), and nobody sees an error."""
    statuses: list[int] = []
    done = threading.Event()

    def player() -> None:
        browser = Browser(layout)
        while not done.is_set():
            response, _page = browser.get("/rules/")
            statuses.append(response.status)

    asking = threading.Thread(target=player)
    asking.start()
    try:
        for index, upstream in enumerate(layout.upstreams):
            name = f"daphne-{index}"
            stop(layout.processes[name])  # systemctl restart: the process stops, then starts again
            port = upstream.rsplit(":", 1)[1]
            process = start(layout, name, unit_command("threethirteen-daphne@.service", port))
            wait_for(f"{upstream}/healthz", None, process, name, layout.workdir / f"{name}.log")
    finally:
        done.set()
        asking.join(timeout=30)
    assert len(statuses) > 20 and set(statuses) == {200}, sorted(set(statuses))


def test_a_server_process_that_hangs_costs_a_wait_not_a_failed_page(layout):
    """A fault tester: a process that hangs (not dead: its port still takes connections) held half of every
    page's requests for nginx's default minute, longer than a browser waits.  A read now gives up after 20 s
    and the request goes on to the other process."""
    hung = layout.processes["daphne-0"]
    os.kill(hung.pid, signal.SIGSTOP)
    try:
        answers = [Browser(layout).get("/rules/")[0] for _ in range(2)]  # one of the two is sent to it first
    finally:
        os.kill(hung.pid, signal.SIGCONT)
    assert [answer.status for answer in answers] == [200, 200]
    other = layout.upstreams[1].removeprefix("http://")
    assert [answer.headers["X-Upstream"].split(", ")[-1] for answer in answers] == [other, other]
    assert any(answer.headers["X-Upstream"].count(",") == 1 for answer in answers)  # tried the hung one first


def test_the_logs_have_no_errors(layout):
    for name in ("daphne-0", "daphne-1", "gameclock"):
        # Django logs every 503 as an error: those of the health check the stopped clock's test asked for.
        log = "\n".join(line for line in layout.log(name).splitlines() if "Service Unavailable: /healthz" not in line)
        assert "Traceback" not in log and " ERROR " not in log, f"{name}:\n{log}"
