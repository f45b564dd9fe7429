from __future__ import annotations

from typing import Any

from django.test import Client


def session_cookie(user: Any) -> str:
    """The session id of a fresh log-in of ``user`` (stored in the database)."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value
