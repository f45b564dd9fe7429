"""Sessions kept in the database and read from the shared cache (settings: ``SESSION_ENGINE`` with ``REDIS_URL``).

Every request of a signed-in person reads their session.  Django's ``cached_db``
backend reads it from the cache (Redis, shared by every server process) and goes
to the database only when the cache does not have it; writes go to both, so the
database stays the record and the cache can be emptied at any time (a Redis
restart costs one database read per session, nothing more).

Only with a shared cache: with each process's own memory, a session deleted by
one process (a log-out) would live on in another's.

Django's backend fails the page when the cache cannot be reached while it
copies a session it read from the database into the cache; here that copy is
skipped (and logged) instead, so a Redis outage costs database reads, never a
page; so is the check that a new session's key is free (at log-in and sign-up),
which the database answers.  Deleting a session (log-out, a new key at log-in)
still fails when the cache cannot be reached, as in Django: a session must not
live on in the cache after the person was told they are signed out.  It fails
before anything is deleted, and the person gets the "try again" page
(``errors.py``).

As in ``sessions_db``, a key Django could not have made is no session (a NUL in a
cookie made PostgreSQL fail the page).
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from django.contrib.sessions.backends import cached_db

from .sessions_db import MadeKeysOnly

logger = logging.getLogger(__name__)


def _unreachable(what: str) -> None:
    """One line for each request that met the cache down (with a traceback each, a fault tester counted 167 in
    a Redis outage of half a minute)."""
    error = sys.exc_info()[1]
    logger.warning("Session cache unreachable: %s (%s: %s)", what, type(error).__name__, error)


#: Django's backend (its stubs do not know the cache and database helpers used below).
CachedDBStore: Any = cached_db.SessionStore


class SessionStore(MadeKeysOnly, CachedDBStore):
    def load(self) -> dict[str, Any]:
        try:
            data = self._cache.get(self.cache_key)
        except Exception:  # the cache is down: the database has every session
            _unreachable("the session is read from the database")
            data = None
        if data is not None:
            return data
        stored = self._get_session_from_db()
        if not stored:
            return {}
        data = self.decode(stored.session_data)
        try:
            self._cache.set(self.cache_key, data, self.get_expiry_age(expiry=stored.expire_date))
        except Exception:
            _unreachable("the session was not cached")
        return data

    async def aload(self) -> dict[str, Any]:
        try:
            data = await self._cache.aget(await self.acache_key())
        except Exception:
            _unreachable("the session is read from the database")
            data = None
        if data is not None:
            return data
        stored = await self._aget_session_from_db()
        if not stored:
            return {}
        data = self.decode(stored.session_data)
        try:
            await self._cache.aset(await self.acache_key(), data, await self.aget_expiry_age(expiry=stored.expire_date))
        except Exception:
            _unreachable("the session was not cached")
        return data

    def check_cache(self) -> None:
        """Raise what the cache raises when it cannot be reached (``SessionCacheMustAnswer``)."""
        self._cache.get(self.cache_key_prefix + "reachable")

    def save(self, must_create: bool = False) -> None:
        """Django's: the database, then the cache; a cache that cannot be reached is one warning line (Django's
        logged an error with its traceback for every request that saved a session: a review).  A copy the
        cache held before keeps its old data until it expires or Redis forgets it, as in Django."""
        super(CachedDBStore, self).save(must_create)
        try:
            self._cache.set(self.cache_key, self._session, self.get_expiry_age())
        except Exception:
            _unreachable("the session was saved in the database only")

    async def asave(self, must_create: bool = False) -> None:
        await super(CachedDBStore, self).asave(must_create)
        try:
            await self._cache.aset(await self.acache_key(), self._session, await self.aget_expiry_age())
        except Exception:
            _unreachable("the session was saved in the database only")

    def exists(self, session_key: str | None) -> bool:
        """Whether a key is taken (a new session's key, at log-in and sign-up): the database knows every
        session when the cache cannot be reached (Django's backend failed the log-in)."""
        try:
            if session_key and (self.cache_key_prefix + session_key) in self._cache:
                return True
        except Exception:
            _unreachable("a new key is checked in the database")
        return bool(super(CachedDBStore, self).exists(session_key))

    async def aexists(self, session_key: str | None) -> bool:
        try:
            if session_key and await self._cache.ahas_key(self.cache_key_prefix + session_key):
                return True
        except Exception:
            _unreachable("a new key is checked in the database")
        return bool(await super(CachedDBStore, self).aexists(session_key))

    def delete(self, session_key: str | None = None) -> None:
        """End a session (log-out, a new key at log-in): its cached copy first, so that while Redis cannot be
        reached nothing is deleted (the database's row went first, and the person told "try again" was
        signed out, though not in the cache, which signed them in again once Redis answered).  Then Django's:
        the row, and the cached copy again, in case a request read the row back into the cache meanwhile (one
        that read the row before it went and caches it after this can still leave a copy until it expires, as
        in Django)."""
        key = session_key if session_key is not None else self.session_key
        if key is None:
            return
        self._cache.delete(self.cache_key_prefix + key)
        super().delete(key)

    async def adelete(self, session_key: str | None = None) -> None:
        key = session_key if session_key is not None else self.session_key
        if key is None:
            return
        await self._cache.adelete(self.cache_key_prefix + key)
        await super().adelete(key)


#: The views whose POST ends or renews the session (the admin's log-in and log-out too): a log-in over a
#: session the browser had, a log-out, a password change.
_ENDS_THE_SESSION = {"login", "logout", "password_change"}


class SessionCacheMustAnswer:
    """Middleware: such a POST is the 503 "try again" page, before its view writes anything, while the session
    cache cannot be reached.

    Ending a session must end its cached copy, which cannot be done while Redis is down: the view failed half
    way.  A password change saved the new password and then failed, answered "try again" and left the browser a
    session whose hash no longer matched: every page was a 503 until Redis was back (a review).  Only with the
    cached sessions (``REDIS_URL``); a log-in from a browser without a session needs no cache.
    """

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        return self.get_response(request)

    def process_view(self, request: Any, view: Any, args: Any, kwargs: Any) -> None:
        match = request.resolver_match
        session = getattr(request, "session", None)
        if (
            request.method == "POST"
            and match is not None
            and match.url_name in _ENDS_THE_SESSION
            and isinstance(session, SessionStore)
            and session.session_key is not None
        ):
            session.check_cache()  # a Redis error: the site's 503 page (threethirteen_site.errors)
