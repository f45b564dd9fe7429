from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from games import services
from games.engine import GameState, SeatView, view
from games.models import Game

#: A "your turn" notice goes out once the turn has waited this long and is still the person's.
NOTICE_DUE = datetime.timedelta(seconds=settings.TURN_NOTICE_DELAY_SECONDS)

ROOT = Path(__file__).resolve().parents[2]


def settings_read(expression: str, *, drop: Iterable[str], **env_vars: str) -> Any:
    """``expression`` (JSON-able, of the settings module ``s``) as a fresh process reads the settings with
    ``env_vars``, the environment's variables starting with a prefix in ``drop`` left out."""
    prefixes = tuple(drop)
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(env_vars)
    code = f"import json, threethirteen_site.settings as s; print(json.dumps({expression}))"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def engine_view(game: Game, position: int | None) -> SeatView:
    game.refresh_from_db()
    assert game.state is not None, "the game has not been dealt"
    return view(GameState.from_dict(game.state), position)


def post_action(client: Client, game: Game, action: dict, version: int | None = None, **extra: Any):
    game.refresh_from_db()
    data = {"version": game.version if version is None else version, **action, **extra}
    return client.post(f"/games/{game.pk}/play/", data)


def state_fingerprint(game: Game) -> tuple:
    game.refresh_from_db()
    return (game.version, game.state, game.status, game.moves.count(), game.round_results.count())


CARD_ATTR = re.compile(r'(?:data-card|value)="([A2-9TJQKX][CDHSX])"')


# -- admin roles -----------------------------------------------------------------

ROLES = ("superuser", "moderator", "staff", "user", "anonymous")


@pytest.fixture
def role_client(django_user_model: Any):
    """``role_client(role)`` gives a test client logged in as one of ROLES (and the user, None if anonymous).

    moderator: staff in the "Moderators" group (made by a migration); staff: staff without any group.
    """
    from django.contrib.auth.models import Group

    def make(role: str, username: str | None = None):
        name = username or role
        if role == "anonymous":
            return Client(), None
        if role == "superuser":
            user = django_user_model.objects.create_superuser(
                username=name, email=f"{name}@example.com", password="a-long-pass-phrase-42"
            )
        else:
            user = django_user_model.objects.create_user(
                username=name,
                email=f"{name}@example.com",
                password="a-long-pass-phrase-42",
                is_staff=role in ("moderator", "staff"),
            )
            if role == "moderator":
                user.groups.add(Group.objects.get(name="Moderators"))
        return logged_in(user), user

    return make


@pytest.fixture
def two_player_game(make_user, classic):
    """An active classic game between ann (seat 0) and bob (seat 1)."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=11)
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    return game, ann, bob


@pytest.fixture
def table(make_user, classic):
    """A two-player game where it is ann's (seat 0) or bob's turn, in the draw phase."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=4)
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    clients = {0: logged_in(ann), 1: logged_in(bob)}
    current = game.current_seat
    return game, clients[current], clients[1 - current], current
