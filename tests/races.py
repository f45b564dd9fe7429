"""Requests that race: each on a thread of its own, with a database connection of its own.

``race(calls, lock=game)`` holds the game's row lock (or any row's: a person's)
on the calling thread until every racer is queued behind it, then lets go.  On PostgreSQL that is
seen, not hoped for: the racers are found waiting on this connection's lock
(``pg_stat_activity``), so they really meet at ``select_for_update`` and the
database decides their order.  SQLite has no row locks (the site takes its
write lock when a transaction starts, see ``settings.py``): there the racers
queue on that lock, which the calling thread holds in the same way.

Needs a transactional test (``django_db(transaction=True)``): the racers'
connections see only what is committed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connection, transaction
from django.db.models import Model

from games.services import GameError

#: How long racers may take to queue on the lock before the test fails.
QUEUE_TIMEOUT = 30.0


def race(calls: Sequence[Callable[[], Any]], *, lock: Model | None = None, in_order: bool = False) -> list[Any]:
    """Run every call at once; their results in order, a refusal as its ``GameError`` code.

    ``in_order`` (with ``lock``): each racer starts once the one before it waits for a lock, so that on
    PostgreSQL they queue, and get the lock, in the order of ``calls`` (an interleaving that the database
    would otherwise pick only now and then).  Any other exception of a racer is raised here, after all of
    them finished.
    """
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []
    start = threading.Barrier(1 if in_order else len(calls) + 1)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            start.wait()
            try:
                results[index] = call()
            except GameError as refusal:
                results[index] = refusal.code
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=run, args=(i, call), daemon=True) for i, call in enumerate(calls)]
    if lock is None:
        for thread in threads:
            thread.start()
        start.wait()
    else:
        with transaction.atomic():
            type(lock)._default_manager.select_for_update().get(pk=lock.pk)
            if in_order:
                for count, thread in enumerate(threads, start=1):
                    thread.start()
                    _wait_until_queued(count)
            else:
                for thread in threads:
                    thread.start()
                start.wait()
                _wait_until_queued(len(calls))
    for thread in threads:
        thread.join(timeout=120)
        assert not thread.is_alive(), "a racer never finished"
    if errors:
        raise errors[0]
    return results


def _wait_until_queued(count: int) -> None:
    """On PostgreSQL, return once ``count`` sessions wait for a lock this session holds."""
    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + QUEUE_TIMEOUT
    with connection.cursor() as cursor:
        while True:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # pg_stat_activity is read afresh each time
            # The first racer waits for this session's lock, the others for the row's tuple lock that
            # the first holds while it waits: count every session of the test database waiting for a lock.
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            (waiting,) = cursor.fetchone()
            if waiting >= count:
                return
            assert time.monotonic() < deadline, f"only {waiting} of {count} racers reached the row lock"
            time.sleep(0.01)
