"""Work a request leaves until its answer has been sent: the bots' turns after a person's move.

Under the site's ASGI handler (``threethirteen_site.http``) the request's
synchronous part runs inside :func:`collecting`; what it hands to
:func:`later` is kept, and once the answer's last byte has gone the handler
runs it with :func:`run` on a thread of its own (not one of the request
threads), in order, each piece with fresh database connections like a
request.  So a person who moves at a table of bots sees their move at once,
and the bots' moves reach the page live a moment later, instead of the
answer waiting for every bot to think.

Anywhere else (the clock worker, a management command, Django's test
client, which calls the handler's machinery without this one) nothing is
collecting, and :func:`later` says so: the caller does the work at once, as
before.  Nothing is kept across a restart: what was handed over and not run
when a process dies (or when the request's thread failed, or the request was
cancelled, before the answer went) is the caller's to find again: the move
clock plays bot turns left waiting (``services.clock_tick``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import close_old_connections

logger = logging.getLogger(__name__)

_local = threading.local()


@contextmanager
def collecting() -> Iterator[list[Callable[[], object]]]:
    """Keep what this thread hands to :func:`later` until the block ends; yields the list it fills."""
    work: list[Callable[[], object]] = []
    _local.work = work
    try:
        yield work
    finally:
        _local.work = None


def later(task: Callable[[], object]) -> bool:
    """Hand ``task`` over to run after the answer is sent; False (nothing kept) when no request is collecting."""
    work = getattr(_local, "work", None)
    if work is None:
        return False
    work.append(task)
    return True


def run(work: list[Callable[[], object]]) -> list[Callable[[], object]]:
    """Each task in turn, with the database connections a request would have; one that fails is logged and
    the next still runs.

    A task may do its work in slices: what it returns, when callable, is the rest, handed back here so that
    the caller queues it behind other work (a table of bots playing a whole game must not hold up the
    others).
    """
    rest: list[Callable[[], object]] = []
    for task in work:
        close_old_connections()
        try:
            more = task()
        except Exception:
            logger.exception("work left until after an answer failed: %r", task)
        else:
            if callable(more):
                rest.append(more)
        finally:
            close_old_connections()
    return rest
