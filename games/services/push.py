"""Web Push notices (``pywebpush``): one person's browsers hear that a turn started, or the
reminder, or that a seat is held for them at an open table, in that person's language and time zone,
with the link to the table and never a card.

Called by :mod:`games.services.notices` after the notice was recorded once for the game, turn and
kind (the same bookkeeping as the e-mails: never more than one of each).  A subscription the push
service reports gone (404 or 410) is deleted; any other failure is logged and the clock goes on.
Nothing is sent while Web Push is off (``accounts.push.enabled``).
"""

from __future__ import annotations

import datetime
import functools
import json
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.templatetags.static import static
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from accounts import push as push_settings
from accounts.models import PushSubscription, User
from accounts.zones import current_zone_city
from games.models import Game

logger = logging.getLogger(__name__)

#: Seconds to wait for a push service before giving up on one subscription.
TIMEOUT = 10
#: Push services keep an undelivered notice at most this long (and never past the deadline).
MAX_TTL = 28 * 24 * 3600


@functools.cache
def _vapid(private_key: str) -> Vapid:
    return Vapid.from_string(private_key=private_key)


def notice_payload(game: Game, *, reminder: bool, link: str) -> dict[str, str]:
    """The notice's words in the active language and time zone: the game, the deadline and the link."""
    names = {"game": game.variant_label, "number": game.pk}
    title = (
        _("Reminder: your move in %(game)s #%(number)s") % names
        if reminder
        else _("Your turn in %(game)s #%(number)s") % names
    )
    body = ""
    if game.turn_deadline is not None:
        body = _("Move before %(deadline)s (%(zone)s), or a bot plays this turn for you.") % {
            "deadline": formats.date_format(timezone.localtime(game.turn_deadline), "DATETIME_FORMAT"),
            "zone": current_zone_city(),
        }
    icon = static("games/favicon-turn.svg")
    return {"title": title, "body": body, "url": link, "tag": f"game-{game.pk}", "icon": icon}


def invitation_payload(game: Game, *, inviter: str | None, link: str) -> dict[str, str]:
    """The notice of a seat ``inviter`` (None: someone who left the table since) holds for the reader at
    ``game``'s open table, in the active language."""
    return {
        "title": invitation_subject(game, inviter),
        "body": str(_("Take your seat, or decline it, at the table.")),
        "url": link,
        "tag": f"invitation-{game.pk}",
        "icon": static("games/favicon-turn.svg"),
    }


def invitation_subject(game: Game, inviter: str | None) -> str:
    """ "Ann asks you to a rematch: Classic #12" (or "to a game"; without a name when ``inviter`` is None), in
    the active language."""
    names = {"name": inviter, "game": game.variant_label, "number": game.pk}
    rematch = game.rematch_of_id is not None
    if inviter is None:
        if rematch:
            return _("A seat is held for you in a rematch: %(game)s #%(number)s") % names
        return _("A seat is held for you: %(game)s #%(number)s") % names
    if rematch:
        return _("%(name)s asks you to a rematch: %(game)s #%(number)s") % names
    return _("%(name)s asks you to a game: %(game)s #%(number)s") % names


def send_turn_notice(*, user: User, game: Game, reminder: bool, link: str, now: datetime.datetime) -> int:
    """Send the notice to each of ``user``'s subscriptions; how many push services took it."""
    ttl = MAX_TTL
    if game.turn_deadline is not None:
        ttl = max(60, min(MAX_TTL, int((game.turn_deadline - now).total_seconds())))
    return _send(
        user,
        lambda: notice_payload(game, reminder=reminder, link=link),
        ttl=ttl,
        urgency="high" if reminder else "normal",
        topic=f"game-{game.pk}",
    )


def send_invitation_notice(*, user: User, game: Game, inviter: str | None, link: str, ttl: int) -> int:
    """Tell each of ``user``'s subscriptions that ``inviter`` holds a seat for them at ``game``'s open table
    (kept by the push service at most ``ttl`` seconds); how many push services took it."""
    return _send(
        user,
        lambda: invitation_payload(game, inviter=inviter, link=link),
        ttl=ttl,
        urgency="normal",
        topic=f"invitation-{game.pk}",
    )


def _send(user: User, payload: Callable[[], dict[str, str]], *, ttl: int, urgency: str, topic: str) -> int:
    """``payload()``, worked out in ``user``'s language and time zone, to each of their subscriptions."""
    if not push_settings.enabled():
        return 0
    subscriptions = list(PushSubscription.objects.filter(user=user))
    if not subscriptions:
        return 0
    with translation.override(user.notice_language), timezone.override(user.zone or datetime.UTC):
        data = json.dumps(payload(), ensure_ascii=False)
    # The push services are asked at once, each in a thread of its own (HTTP only: the database is written
    # here): a notice to ten slow services takes about one ``TIMEOUT``, not ten, off the clock's pass.
    with ThreadPoolExecutor(max_workers=len(subscriptions), thread_name_prefix="push") as pool:
        answers = list(pool.map(lambda s: _post(s, data, ttl=ttl, urgency=urgency, topic=topic), subscriptions))
    sent = 0
    for subscription, answer in zip(subscriptions, answers, strict=True):
        if answer == SENT:
            PushSubscription.objects.filter(pk=subscription.pk).update(last_sent_at=timezone.now())
            sent += 1
        elif answer == GONE:
            subscription.delete()
            logger.info("push subscription %s of user %s is gone: removed", subscription.pk, subscription.user_id)
    return sent


SENT, GONE, FAILED = "sent", "gone", "failed"


def _post(subscription: PushSubscription, data: str, *, ttl: int, urgency: str, topic: str) -> str:
    """Hand the notice to one subscription's push service: ``SENT``, ``GONE`` (404 or 410: the browser
    dropped it) or ``FAILED`` (logged).  No database access: it runs in a thread of its own."""
    headers: dict[str, Any] = {"Urgency": urgency, "Topic": topic}
    try:
        webpush(
            subscription.info(),
            data=data,
            vapid_private_key=_vapid(settings.VAPID_PRIVATE_KEY),
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            ttl=ttl,
            timeout=TIMEOUT,
            headers=headers,
        )
    except WebPushException as error:
        if error.status_code in (404, 410):
            return GONE
        logger.warning("push to subscription %s failed: %s", subscription.pk, error.status_code or error.message)
        return FAILED
    except Exception:  # a push service that cannot be reached must not stop the clock
        logger.warning("push to subscription %s failed", subscription.pk, exc_info=True)
        return FAILED
    return SENT
