"""Sessions kept in the database (settings: ``SESSION_ENGINE`` without ``REDIS_URL``), whose keys are
only ever the ones Django makes.

A session cookie is whatever the browser sends.  Django's backends take any
key of eight characters or more to the database, and a cookie such as
``sessionid="aaaaaaaa\\000"`` (which Python's cookie parser turns into a NUL)
made PostgreSQL refuse the query: a 500 on every page and socket, before
anyone had signed in.  A key Django could not have made is no key at all
here: the request goes on without a session, as with an expired one.
"""

from __future__ import annotations

from typing import Any

from django.contrib.sessions.backends import db
from django.contrib.sessions.backends.base import VALID_KEY_CHARS


class MadeKeysOnly:
    """Mixed into a session store before Django's: a key of other characters than Django's is not valid."""

    def _validate_session_key(self, key: Any) -> bool:
        return bool(super()._validate_session_key(key)) and set(key) <= _KEY_CHARS  # type: ignore[misc]


_KEY_CHARS = frozenset(VALID_KEY_CHARS)

#: Django's backend (its stubs do not know the helpers the cached store uses).
DBStore: Any = db.SessionStore


class SessionStore(MadeKeysOnly, DBStore):
    pass
