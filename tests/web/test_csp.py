"""The Content-Security-Policy: every page sends a strict one, and no template needs more.

The header allows scripts, styles, images and fonts from this site only, WebSockets to the
host the page came from, no plugins, no framing, no foreign <base> and no form posted away.
That holds only while no template carries inline script or style, so every project template
is scanned for them (the browser tests check that chromium reports no violation).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from games import services
from tests.history.conftest import finish_with_bot_moves

from .conftest import logged_in

EXPECTED = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'"},
    "font-src": {"'self'"},
    "connect-src": {"'self'", "ws://testserver", "wss://testserver"},
    "object-src": {"'none'"},
    "base-uri": {"'self'"},
    "form-action": {"'self'"},
    "frame-ancestors": {"'none'"},
}


def directives(response) -> dict[str, set[str]]:
    header = response.headers.get("Content-Security-Policy")
    assert header, f"no Content-Security-Policy on {response.request['PATH_INFO']} ({response.status_code})"
    policy: dict[str, set[str]] = {}
    for part in header.split(";"):
        name, *sources = part.split()
        assert name not in policy, f"{name} twice in {header}"
        policy[name] = set(sources)
    return policy


def assert_strict(response) -> None:
    policy = directives(response)
    assert policy == EXPECTED
    for loose in ("'unsafe-inline'", "'unsafe-eval'", "*", "data:", "ws:", "wss:", "http:", "https:"):
        assert not any(loose in sources for sources in policy.values()), loose


# -- the header on the pages -------------------------------------------------------


@pytest.fixture
def short_game(make_user, classic):
    """A one-round game between ann and bob; still in play."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=5, options={"rounds": [3]})
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    return game, ann, bob


@pytest.mark.django_db
def test_public_pages_send_the_strict_policy(client, short_game):
    game, _ann, _bob = short_game
    for path in ("/", "/rules/", "/leaderboard/", "/accounts/login/", "/accounts/signup/"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert_strict(response)


@pytest.mark.django_db
def test_a_players_table_record_and_replay_send_it(short_game):
    game, ann, _bob = short_game
    client = logged_in(ann)
    for path in (
        f"/games/{game.pk}/",
        f"/games/{game.pk}/table/",
        f"/games/{game.pk}/rules/",
        "/games/mine/",
        "/accounts/profile/",
    ):
        response = client.get(path)
        assert response.status_code == 200, path
        assert_strict(response)
    finish_with_bot_moves(game)
    for path in (f"/games/{game.pk}/record/", f"/games/{game.pk}/replay/", f"/games/{game.pk}/replay/?step=3"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert_strict(response)


@pytest.mark.django_db
def test_the_admin_sends_it(role_client, short_game):
    game, ann, _bob = short_game
    client, _user = role_client("superuser")
    paths = [
        "/admin/",
        "/admin/games/game/",
        f"/admin/games/game/{game.pk}/change/",
        "/admin/games/variant/",
        f"/admin/games/variant/{game.variant_id}/change/",
        "/admin/accounts/user/",
        f"/admin/accounts/user/{ann.pk}/change/",
    ]
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        assert_strict(response)
    assert_strict(Client().get("/admin/login/"))


@pytest.mark.django_db
def test_refusals_and_errors_send_it_too(client):
    assert_strict(client.get("/games/999999/"))  # 404
    assert_strict(client.post("/accounts/login/", {}, HTTP_X_REQUESTED_WITH="fetch"))  # a form error
    strict = Client(enforce_csrf_checks=True)
    response = strict.post("/accounts/login/", {"username": "x", "password": "y"})
    assert response.status_code == 403
    assert_strict(response)


@pytest.mark.django_db
def test_the_websocket_origins_follow_the_host_asked_for(client, settings):
    settings.ALLOWED_HOSTS = ["play.example.org", "testserver"]
    policy = directives(client.get("/rules/", HTTP_HOST="play.example.org"))
    assert policy["connect-src"] == {"'self'", "ws://play.example.org", "wss://play.example.org"}
    # A host that is not allowed gets its 400, and no origin of its own in any header.
    response = client.get("/rules/", HTTP_HOST="evil.example.com")
    assert response.status_code == 400
    assert "evil" not in response.headers.get("Content-Security-Policy", "")
    assert directives(response)["connect-src"] == {"'self'"}


# -- no template needs more ----------------------------------------------------------

INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>", re.I)
HANDLER = re.compile(r"<[a-z][^>]*?\son[a-z]+\s*=", re.I | re.S)
SCRIPT_URL = re.compile(r"javascript:", re.I)
STYLE_ATTR = re.compile(r"<[a-z][^>]*?\sstyle\s*=", re.I | re.S)
STYLE_ELEMENT = re.compile(r"<style\b", re.I)
PROBLEMS = {
    "inline <script>": INLINE_SCRIPT,
    "on*= handler": HANDLER,
    "javascript: URL": SCRIPT_URL,
    "style= attribute": STYLE_ATTR,
    "<style> element": STYLE_ELEMENT,
}


def project_templates() -> list[Path]:
    roots = [Path(settings.BASE_DIR) / "templates"]
    roots += [Path(settings.BASE_DIR) / app / "templates" for app in ("accounts", "games")]
    return sorted(p for root in roots for p in root.rglob("*.html"))


def csp_problems(source: str) -> list[str]:
    return [name for name, pattern in PROBLEMS.items() if pattern.search(source)]


def test_the_scan_catches_each_kind_of_inline_code():
    assert csp_problems('<script src="/static/x.js" defer></script>') == []
    assert csp_problems('<input data-select-on-focus data-one="1">') == []
    assert csp_problems("<script>alert(1)</script>") == ["inline <script>"]
    assert csp_problems('<script type="module">x()</script>') == ["inline <script>"]
    assert csp_problems('<input id="x"\n  onfocus="this.select()">') == ["on*= handler"]
    assert csp_problems('<a href="JavaScript:void(0)">') == ["javascript: URL"]
    assert csp_problems('<body style="margin: 0">') == ["style= attribute"]
    assert csp_problems("<style>p { color: red }</style>") == ["<style> element"]


def test_no_project_template_carries_inline_script_or_style():
    templates = project_templates()
    names = {p.name for p in templates}
    assert {"base.html", "replay.html", "500.html", "_invite.html", "change_form.html"} <= names
    assert len(templates) > 30
    found = {
        str(p.relative_to(settings.BASE_DIR)): problems for p in templates if (problems := csp_problems(p.read_text()))
    }
    assert found == {}


def test_the_site_scripts_need_no_eval_nor_inline_style():
    scripts = sorted((Path(settings.BASE_DIR) / "games" / "static").rglob("*.js"))
    assert {p.name for p in scripts} >= {"live.js", "clock.js", "page.js"}
    for path in scripts:
        source = path.read_text()
        for unsafe in (
            "eval(",
            "new Function",
            'setAttribute("style"',
            "setAttribute('style'",
            ".innerHTML",
            "cssText",
        ):
            assert unsafe not in source, f"{path.name}: {unsafe}"
