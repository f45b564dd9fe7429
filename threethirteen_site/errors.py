"""The page for a request that met a lost database (or Redis) connection: 503, "try again", never a 500.

A database restart, a failover or a dropped connection fails the request
that was using the connection at that moment (the transaction it was in is
rolled back by the database, so nothing is half-done).  Django turns the
exception into its 500 handler; this handler answers those with a 503 page
that says to try again, with ``Retry-After``.  The connection is dropped at
the end of the request (Django closes a connection that had an error and no
longer answers), and ``CONN_HEALTH_CHECKS`` replaces a kept connection that
died between requests before it is used, so the next request works.

The page is rendered without the database: no context processors (the
header's counts, the signed-in person), only the language the request
already has (``LocaleMiddleware`` runs before anything reads the database).
With ``DEBUG`` on, Django shows its own error page instead, as for any error.

Redis is the other store a request may need (``REDIS_URL``): sessions are read from the database when it
cannot be reached, but ending one (a log-out) must also end its cached copy, and the limits on sign-ups
and password resets are counted there.  Such a request gets the same page while Redis is down (a tester
met a 500 signing in); it changes nothing, and the next request after Redis is back works.
"""

from __future__ import annotations

import logging
import sys

import psycopg
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template import loader
from django.views import defaults
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

#: Seconds after which a client may try again (the ``Retry-After`` header).
RETRY_AFTER_SECONDS = 5


#: What a service that cannot be reached raises, rather than a bug: ``OperationalError`` covers a connection the
#: server closed or that cannot be opened, and a database that is restarting or shutting down (also SQLite's
#: "database is locked"; psycopg's own, and its pool's wait in vain, where Django did not wrap them);
#: ``InterfaceError`` a connection already closed; redis-py's a Redis that cannot be reached or does not answer
#: in time; the builtin ``ConnectionError`` a connection refused or reset.  Not a query the database refuses
#: (``ProgrammingError``, ``IntegrityError``), nor a command Redis refuses: those are bugs, and stay errors.
LOST_CONNECTION = (
    OperationalError,
    InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    RedisConnectionError,
    RedisTimeoutError,
    ConnectionError,
)


def is_lost_connection(error: BaseException | None) -> bool:
    """An error of a connection (the database's, Redis's), rather than of the request: worth trying again."""
    return isinstance(error, LOST_CONNECTION)


def log_failure(logger: logging.Logger, what: str, error: BaseException) -> None:
    """A worker's pass that failed: a lost connection as one warning line (it says itself what is down, and the
    next pass tries again), anything else as the error it is, with its traceback (call it in the ``except``)."""
    if is_lost_connection(error):
        first_line = next(iter(str(error).strip().splitlines()), "")
        logger.warning("%s: %s: %s", what, type(error).__name__, first_line)
    else:
        logger.exception(what)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``: a lost database connection is a 503 "try again" page; anything else Django's 500 page."""
    if not is_lost_connection(sys.exc_info()[1]):
        return defaults.server_error(request)
    retry_url = request.get_full_path() if request.method in ("GET", "HEAD") else request.path
    body = loader.get_template("503.html").render({"retry_url": retry_url})
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class NotFound(Http404):
    """A 404 whose message is for the reader (already in their language): the 404 page says it.

    Django's own ``Http404`` messages ("No Game matches the given query.") are for developers and
    stay off the page; ``DEBUG`` shows both.
    """


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """``handler404``: the site's 404 page, with the reason when the view gave one for the reader."""
    reason = str(exception) if isinstance(exception, NotFound) else ""
    return render(request, "404.html", {"reason": reason}, status=404)
