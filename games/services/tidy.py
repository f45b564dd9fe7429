"""What the site keeps only for a while, deleted once nothing reads it (the clock calls :func:`tidy_if_due`).

* **Expired sessions.** Django leaves them in the database until ``manage.py clearsessions`` runs, and
  nothing here ran it: every browser that ever signed in, or chose a language, left a row for ever.  (With
  ``REDIS_URL`` the cache's copy of a session expires on its own.)
* **Invitation notices older than the one-a-day window** (``notices.INVITATIONS_FROM_ONE_PERSON_EVERY``):
  only the last day's are read, and one is written for every invitation told.
* **The log-in records django-axes kept** before ``AXES_DISABLE_ACCESS_LOG`` (an address and a browser for
  every log-in, read by nothing).

In batches, for a few seconds a pass at most: the first tidy of a site deletes every session that ever
expired, and a clock pass that deleted them all at once would hold up every table's timed-out turns.  Several
clocks (one per server process with the in-server clock) take turns through the shared cache: one tidies an
hour.  Were two to delete at once, each skips the rows the other has locked (PostgreSQL).
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from importlib import import_module
from typing import Any

from axes.models import AccessLog
from django.conf import settings
from django.core.cache import cache
from django.db import models, transaction
from django.utils import timezone

from games.models import InvitationNotice

from .notices import INVITATIONS_FROM_ONE_PERSON_EVERY

logger = logging.getLogger(__name__)

#: How often the site deletes what has run out.
TIDY_EVERY = datetime.timedelta(hours=1)
#: After a tidy that failed (a lock held long, the database gone), the next try.
RETRY_AFTER = datetime.timedelta(minutes=5)
#: Rows deleted in one statement, and the seconds of deleting a pass may spend (the rest: the next pass).
BATCH = 5000
SECONDS_PER_PASS = 2.0
#: The shared cache's key that one clock took this hour's tidy.
TAKEN_KEY = "tidy:taken"

_lock = threading.Lock()
_next_at: float | None = None  # time.monotonic() when this process may tidy next
_unfinished = False  # this process's tidy ran out of time: it goes on at the next pass, without asking again


def tidy(*, now: datetime.datetime | None = None, seconds: float | None = None) -> dict[str, Any]:
    """Delete, in batches for about ``seconds`` (:data:`SECONDS_PER_PASS`), the expired sessions, the invitation
    notices nobody reads any more and axes's old log-in records; how many of each, and whether all are (``done``)."""
    now = now or timezone.now()
    stop_at = time.monotonic() + (SECONDS_PER_PASS if seconds is None else seconds)
    session_model = import_module(settings.SESSION_ENGINE).SessionStore.get_model_class()
    kinds: list[tuple[str, models.QuerySet[Any]]] = [
        ("sessions", session_model.objects.filter(expire_date__lt=now)),
        ("invitation_notices", InvitationNotice.objects.filter(sent_at__lte=now - INVITATIONS_FROM_ONE_PERSON_EVERY)),
        ("access_log", AccessLog.objects.all()),
    ]
    counts: dict[str, Any] = {name: 0 for name, _rows in kinds}
    for name, rows in kinds:
        while True:
            deleted = _delete_a_batch(rows)
            counts[name] += deleted
            if deleted < BATCH:
                break
            if time.monotonic() >= stop_at:
                counts["done"] = False
                return counts
    counts["done"] = True
    if any(counts[name] for name, _rows in kinds):
        logger.info("tidied %s", ", ".join(f"{counts[name]} {name}" for name, _rows in kinds))
    return counts


def _delete_a_batch(rows: models.QuerySet[Any]) -> int:
    """Delete up to ``BATCH`` of ``rows``, skipping any another process has locked (PostgreSQL; SQLite writes one at
    a time): two deleting the same rows in another order could deadlock."""
    with transaction.atomic():
        batch = rows.order_by("pk").select_for_update(skip_locked=True).values_list("pk", flat=True)[:BATCH]
        deleted, _by_model = rows.model.objects.filter(pk__in=list(batch)).delete()
    return deleted


def tidy_if_due(*, monotonic: float | None = None) -> dict[str, Any] | None:
    """:func:`tidy`, once every :data:`TIDY_EVERY` in all the clocks (None when not due here, taken by another
    clock, or failed: then one warning line, and a try again after :data:`RETRY_AFTER`).  A tidy that ran out of
    time goes on at the next pass."""
    global _next_at, _unfinished
    at = time.monotonic() if monotonic is None else monotonic
    with _lock:
        if _next_at is not None and at < _next_at:
            return None
        _next_at = at + RETRY_AFTER.total_seconds()  # unless it goes well (below)
        going_on = _unfinished
    if not going_on and not _take_this_hour():
        with _lock:
            _next_at = at + TIDY_EVERY.total_seconds()
        return None
    try:
        done = tidy()
    except Exception as error:
        logger.warning("tidying failed, tried again in %s: %s: %s", RETRY_AFTER, type(error).__name__, error)
        with _lock:
            _unfinished = True  # this clock took the hour: it tries again, the others leave it to it
        return None
    with _lock:
        _unfinished = not done["done"]
        _next_at = None if _unfinished else at + TIDY_EVERY.total_seconds()
    return done


def _take_this_hour() -> bool:
    """Whether this clock tidies this hour: the first to ask the shared cache (each alone when it cannot be
    reached, or with each process's own memory as the cache)."""
    try:
        return bool(cache.add(TAKEN_KEY, timezone.now().isoformat(), timeout=int(TIDY_EVERY.total_seconds())))
    except Exception:
        return True
