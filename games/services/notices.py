"""Turn notices for games played over days, and invitations: e-mail (opt-in on the profile) and Web Push
(the browsers where the person turned it on, :mod:`games.services.push`).

The clock worker (``manage.py gameclock``) sends them, never a web request:
a slow or broken mail server never delays or fails a move.  For each game,
turn and kind a :class:`~games.models.TurnNotice` row is written before the
message goes out; the row is unique, so a turn gets at most one "your turn"
message and one reminder, even with two workers running (the one record
covers the e-mail and the pushes of that notice).

* "your turn": a few minutes after a person's turn starts in an asynchronous
  game (time limit of 12 hours or more; never for live limits), if it is
  still theirs and not begun: one who plays such a game at the table moves
  (or draws) before then and gets no message for each turn
  (``settings.TURN_NOTICE_DELAY_SECONDS``);
* a reminder once 80% of the time for the move has gone (counted back
  from the deadline, which time away may have moved on: see
  :mod:`games.services.away`; no notice goes out while the player is away);
* an invitation: a seat held for the person at an open table (invited by name, or asked to a rematch),
  once, recorded on the seat (``Seat.invitation_sent_at``), when it has been held as long as a turn
  waits for its notice.
"""

from __future__ import annotations

import datetime
import logging
import time

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef, Q
from django.template.loader import render_to_string
from django.utils import timezone, translation

from accounts import push as push_settings
from accounts.models import PushSubscription, User
from games.models import Absence, Game, InvitationNotice, Move, Seat, TurnNotice

from . import away, push
from .playing import lock_people

logger = logging.getLogger(__name__)

#: Share of the time per move after which the reminder goes out.
REMINDER_AT = 0.8

#: Seconds of sending per clock pass: the notices still due after that wait for the next pass (they are
#: not recorded yet), so that a mail server or push service that is slow to answer (up to
#: ``EMAIL_TIMEOUT`` and ``push.TIMEOUT`` a message) holds up the next pass's timeouts only briefly.
SECONDS_PER_PASS = 5.0
#: At most one invitation told from one person to another in this time (``InvitationNotice``).
INVITATIONS_FROM_ONE_PERSON_EVERY = datetime.timedelta(days=1)


def send_due_notices(*, now: datetime.datetime | None = None) -> dict[str, int]:
    """Send the notices that are due now, most urgent deadline first: by e-mail to those who ticked it,
    by Web Push to the browsers of those who turned it on.  The numbers of e-mails and of pushes sent.

    Stops after ``SECONDS_PER_PASS`` of sending; the next pass sends the rest.
    """
    now = now or timezone.now()
    began = time.monotonic()
    push_on = push_settings.enabled()
    wants = Q(user__notify_by_email=True)
    if push_on:
        wants |= Q(Exists(PushSubscription.objects.filter(user=OuterRef("user"))))
    wants_notice = Seat.objects.filter(game=OuterRef("pk"), position=OuterRef("current_seat"), bot_level="").filter(
        wants
    )
    reminded = TurnNotice.objects.filter(
        game=OuterRef("pk"), turn_number=OuterRef("turn_number"), kind=TurnNotice.Kind.REMINDER
    )
    games = (
        Game.objects.filter(
            status=Game.Status.ACTIVE,
            time_limit_seconds__gte=Game.ASYNC_MIN_SECONDS,
            current_seat__isnull=False,
            turn_started_at__isnull=False,
        )
        .exclude(turn_deadline__lte=now)
        .exclude(away.clock_stopped(now))  # no notice while the player is away: it waits for their return
        .filter(Exists(wants_notice))
        .exclude(Exists(reminded))
    )
    # Not while the turn is young: whoever is at the table moves before the message would go out.
    games = games.filter(turn_started_at__lte=now - datetime.timedelta(seconds=settings.TURN_NOTICE_DELAY_SECONDS))
    # Whether the person has begun the turn (drawn, and thinking over the discard): they were at the table.
    begun = Move.objects.filter(
        game=OuterRef("pk"), seat=OuterRef("current_seat"), by_bot=False, created_at__gte=OuterRef("turn_started_at")
    )
    games = games.annotate(begun=Exists(begun)).order_by("turn_deadline", "pk")
    sent = {"emails": 0, "pushes": 0}
    for game in games:
        if time.monotonic() - began >= SECONDS_PER_PASS:
            break  # the rest are not recorded: the next pass sends them
        if game.current_seat is None or game.turn_started_at is None:
            continue  # excluded by the query already
        seat = Seat.objects.select_related("user").filter(game=game, position=game.current_seat).first()
        if seat is None or not seat.person_plays:
            continue
        user = seat.user
        if user is None or not user.is_active:
            continue
        by_email = user.notify_by_email and bool(user.email)
        by_push = push_on and PushSubscription.objects.filter(user=user).exists()
        if not (by_email or by_push):
            continue
        # Counted back from the deadline, which time away may have moved on (without it: 80% after the start).
        limit = game.time_limit_seconds
        reminder_due = game.turn_deadline is not None and now >= game.turn_deadline - datetime.timedelta(
            seconds=limit
        ) + datetime.timedelta(seconds=limit * REMINDER_AT)
        kind = TurnNotice.Kind.REMINDER if reminder_due else TurnNotice.Kind.TURN
        if kind == TurnNotice.Kind.TURN and game.begun:
            continue  # no "your turn" to one in the middle of it; the reminder still comes if they leave it there
        # Past 80% only the reminder goes out (if the worker was down when the turn began,
        # one message says it all).  One record for both ways: never a second notice of a kind.
        if not _claim(game, kind, user, now):
            continue
        if by_email:
            _send(game, user, kind)
            sent["emails"] += 1
        if by_push:
            sent["pushes"] += push.send_turn_notice(
                user=user, game=game, reminder=kind == TurnNotice.Kind.REMINDER, link=_link(game), now=now
            )
    _send_invitations(now=now, began=began, push_on=push_on, sent=sent)  # (after the turns: no deadline)
    return sent


def _send_invitations(*, now: datetime.datetime, began: float, push_on: bool, sent: dict[str, int]) -> None:
    """Tell each person a seat is held for (invited by name, or asked to a rematch) once, when it has been
    held ``TURN_NOTICE_DELAY_SECONDS`` (one watching the lobby takes it before then), by e-mail and Web Push
    as for their turns. Before, they had to look: a table over days waited days on someone who never knew."""
    wants = Q(reserved_for__notify_by_email=True) & ~Q(reserved_for__email="")
    if push_on:
        wants |= Q(Exists(PushSubscription.objects.filter(user=OuterRef("reserved_for"))))
    held = (
        Seat.objects.filter(
            user__isnull=True,
            bot_level="",
            reserved_for__is_active=True,
            invitation_sent_at__isnull=True,
            game__status=Game.Status.OPEN,
            game__created_at__lte=now - datetime.timedelta(seconds=settings.TURN_NOTICE_DELAY_SECONDS),
        )
        .filter(wants)
        # Nor while the person is away (as for their turns): the seat's notice waits for their return.
        .exclude(Exists(Absence.objects.filter(user_id=OuterRef("reserved_for_id")).holding_clock(now)))
        .select_related("game", "reserved_for", "reserved_by")
        .order_by("game__created_at", "pk")
    )
    for seat in held:
        if time.monotonic() - began >= SECONDS_PER_PASS:
            return  # the rest are not recorded: the next pass sends them
        user, game = seat.reserved_for, seat.game
        assert user is not None  # (the query)
        if not _claim_invitation(seat, user, now):
            continue
        inviter = _inviter(seat)
        if user.notify_by_email and user.email:
            _send_invitation(game, user, inviter)
            sent["emails"] += 1
        if push_on:
            sent["pushes"] += push.send_invitation_notice(
                user=user, game=game, inviter=inviter, link=_link(game), ttl=_invitation_lifetime(game)
            )


def _claim_invitation(seat: Seat, user: User, now: datetime.datetime) -> bool:
    """Record that ``user`` is told of the seat held for them: once, on the seat's own row (another worker's
    claim, a seat taken, declined or let go since the list was read: nothing to send; only the seat's columns,
    so PostgreSQL checks them again after waiting for a worker claiming it at the same moment).

    Not yet if whoever held it told ``user`` of another seat within ``INVITATIONS_FROM_ONE_PERSON_EVERY``: it
    waits until then, still held (a table made naming someone, left and made again was told each time: one
    account could have the site mail anyone every five minutes).  A rematch, which asks the people of a game
    just played, is always told: two friends' second rematch of a day waited for ever (a review).  Counted
    under the person's row lock, so two clocks telling of two tables of one inviter at once tell of one.
    """
    inviter = seat.reserved_by_id if seat.game.rematch_of_id is None else None  # whose invitations count
    with transaction.atomic():
        if inviter is not None:
            lock_people([user.pk])
            told = InvitationNotice.objects.filter(
                user=user, inviter_id=inviter, sent_at__gt=now - INVITATIONS_FROM_ONE_PERSON_EVERY
            )
            if told.exists():
                return False
        claimed = Seat.objects.filter(
            pk=seat.pk, reserved_for=user, user__isnull=True, bot_level="", invitation_sent_at__isnull=True
        ).update(invitation_sent_at=now)
        if claimed and inviter is not None:
            InvitationNotice.objects.create(user=user, inviter_id=inviter, game=seat.game, sent_at=now)
    return bool(claimed)


def _inviter(seat: Seat) -> str | None:
    """The name of who held the seat while they still sit at its table; None once they left it (the table's
    creator is then someone else, who never asked the reader: a review)."""
    by = seat.reserved_by
    if by is None or not Seat.objects.filter(game_id=seat.game_id, user=by, bot_level="").exists():
        return None
    return by.shown_name


def _invitation_lifetime(game: Game) -> int:
    """How long a push service keeps an invitation it could not deliver: a live table is called off after
    ``clock.LIVE_TABLE_WAITS`` unchanged; one over days waits as long as it takes."""
    from .clock import LIVE_TABLE_WAITS  # (the clock calls this module)

    return push.MAX_TTL if game.is_async else int(LIVE_TABLE_WAITS.total_seconds())


def _send_invitation(game: Game, user: User, inviter: str | None) -> None:
    context = {"game": game, "user": user, "link": _link(game), "inviter": inviter}
    with translation.override(user.notice_language), timezone.override(user.zone or datetime.UTC):
        subject = " ".join(push.invitation_subject(game, inviter).split())
        body = render_to_string("games/email/invitation_body.txt", context)
    try:
        send_mail(subject, body, None, [user.email])
    except Exception:  # as for the turns: the clock goes on, the notice stays recorded
        logger.exception("could not send the invitation to game %s to user %s", game.pk, user.pk)


def _link(game: Game) -> str:
    return settings.SITE_URL.rstrip("/") + game.get_absolute_url()


def _claim(game: Game, kind: str, user: User, now: datetime.datetime) -> bool:
    """Record the notice; False when it was recorded already (sent before, or by another worker)."""
    try:
        with transaction.atomic():
            _, created = TurnNotice.objects.get_or_create(
                game=game, turn_number=game.turn_number, kind=kind, defaults={"user": user, "sent_at": now}
            )
    except IntegrityError:
        return False
    return created


def _send(game: Game, user: User, kind: str) -> None:
    link = _link(game)
    context = {
        "game": game,
        "user": user,
        "link": link,
        "deadline": game.turn_deadline,
        "reminder": kind == TurnNotice.Kind.REMINDER,
    }
    # Plain text: the templates turn autoescaping off, so a name with ``<`` or ``&`` arrives as typed.
    # The subject is one line whatever a name holds (a line break there would be refused as a header).
    # In the recipient's language and time zone (the profile's; UTC when none is known).
    with translation.override(user.notice_language), timezone.override(user.zone or datetime.UTC):
        subject = " ".join(render_to_string("games/email/turn_subject.txt", context).split())
        body = render_to_string("games/email/turn_body.txt", context)
    try:
        send_mail(subject, body, None, [user.email])
    except Exception:  # a mail server problem must not stop the clock; the notice stays recorded
        logger.exception("could not send the %s notice of game %s to user %s", kind, game.pk, user.pk)
