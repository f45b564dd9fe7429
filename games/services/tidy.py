"""What the site keeps only for a while, deleted once nothing reads it (the clock calls :func:`tidy_if_due`).

* **Expired sessions.** Django leaves them in the database until ``manage.py clearsessions`` runs, and
  nothing here ran it: every browser that ever signed in, or chose a language, left a row for ever.  (With
  ``REDIS_URL`` the cache's copy of a session expires on its own.)
* **Invitation notices older than the one-a-day window** (``notices.INVITATIONS_FROM_ONE_PERSON_EVERY``):
  only the last day's are read, and one is written for every invitation told.

Deleting is safe in several clock processes at once (a row two of them delete is deleted once), and runs at
most once every :data:`TIDY_EVERY` in each.
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from importlib import import_module

from django.conf import settings
from django.utils import timezone

from games.models import InvitationNotice

from .notices import INVITATIONS_FROM_ONE_PERSON_EVERY

logger = logging.getLogger(__name__)

#: How often a clock process deletes what has run out.
TIDY_EVERY = datetime.timedelta(hours=1)

_lock = threading.Lock()
_last_tidied: float | None = None  # time.monotonic() of this process's last tidy


def tidy(*, now: datetime.datetime | None = None) -> dict[str, int]:
    """Delete the expired sessions and the invitation notices nobody reads any more; how many of each."""
    now = now or timezone.now()
    session_model = import_module(settings.SESSION_ENGINE).SessionStore.get_model_class()
    sessions, _ = session_model.objects.filter(expire_date__lt=now).delete()
    notices, _ = InvitationNotice.objects.filter(sent_at__lte=now - INVITATIONS_FROM_ONE_PERSON_EVERY).delete()
    if sessions or notices:
        logger.info("tidied %s expired session(s) and %s old invitation notice(s)", sessions, notices)
    return {"sessions": sessions, "invitation_notices": notices}


def tidy_if_due(*, monotonic: float | None = None) -> dict[str, int] | None:
    """:func:`tidy`, if this process has not in the last :data:`TIDY_EVERY` (None if not due, or if it
    failed: the clock's turns go on, and the next pass tries again)."""
    global _last_tidied
    at = time.monotonic() if monotonic is None else monotonic
    with _lock:
        if _last_tidied is not None and at - _last_tidied < TIDY_EVERY.total_seconds():
            return None
        _last_tidied = at
    try:
        return tidy()
    except Exception:
        logger.exception("tidying expired sessions and old invitation notices failed")
        with _lock:
            _last_tidied = None
        return None
