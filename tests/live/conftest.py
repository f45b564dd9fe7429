from __future__ import annotations

import io
from typing import Any

import pytest
from django.test import Client


@pytest.fixture(autouse=True)
def _fast_passwords(settings: Any) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def make_user(django_user_model: Any):
    def make(username: str, password: str = "a-long-pass-phrase-42"):
        return django_user_model.objects.create_user(username=username, email=f"{username}@example.com",
                                                     password=password)
    return make


@pytest.fixture
def classic(db: Any):
    from django.core.management import call_command

    from games.models import Variant

    # Transactional tests empty the tables after each test, seeded variants included.
    call_command("load_variants", stdout=io.StringIO())
    return Variant.objects.get(slug="classic")


def session_cookie(user: Any) -> str:
    """The session id of a fresh log-in of ``user`` (stored in the database)."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value
