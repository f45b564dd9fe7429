"""Time away (a vacation, as on correspondence sites): while a player is away, their clocks in games
over days stop.

* A player declares a number of whole days away, starting now or at the start of a later day (in
  their time zone); each UTC calendar year allows ``settings.AWAY_DAYS_PER_YEAR`` days (the time
  actually away counts: coming back early gives the rest back; a planned stretch counts in full
  until it is cancelled).  One stretch at a time.
* While it lasts, a turn of theirs in a game over days never times out (the clock worker skips it
  and ``clock.game_timeout`` refuses it) and no turn e-mail or push notice goes out to them.
* When it is over (its chosen end, or they come back: the profile's button, or any move they make)
  the deadline of every turn of theirs moves on by the time that turn spent paused, so they get
  back exactly the time they had left when they went away (or the whole time per move for a turn
  that began while they were away).  The clock worker does this for stretches that ran to their
  end (:func:`settle_due`); until then the clock stays held, so no turn is ever timed out in
  between.
* Live games (time limits under ``Game.ASYNC_MIN_SECONDS``) are not affected at all.

The opponents see "away until …" on the table (``selectors.away_by_user``); every game of the
player is announced (new version) when the time away begins and when it is settled, so open
tables show it live.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games.models import Absence, Game, Seat
from games.models.away import time_away_in_year
from games.presentation import duration_text

from .errors import GameError
from .turns import announce, lock_game_still, log_on_commit, move_turn_clock_on

logger = logging.getLogger(__name__)

#: A planned time away starts at most this many days ahead.
MAX_DAYS_AHEAD = 90

DAY = datetime.timedelta(days=1)


def allowance() -> datetime.timedelta:
    """Time away allowed per UTC calendar year."""
    return DAY * settings.AWAY_DAYS_PER_YEAR


def time_left_in_year(user: Any, year: int) -> datetime.timedelta:
    """What is left of the year's allowance (planned time away counted in full)."""
    used = time_away_in_year(Absence.objects.filter(user=user), year, user.zone)
    return max(datetime.timedelta(0), allowance() - used)


def holds_clock(user_id: int | None, now: datetime.datetime) -> bool:
    """Is this person's clock stopped (away, or back a moment ago and not yet settled)?"""
    return user_id is not None and Absence.objects.filter(user_id=user_id).holding_clock(now).exists()


def holds_clock_now(now: datetime.datetime) -> Exists:
    """For a query of seats: whether the seat's person holds their clock at ``now`` (away, or back by the
    end they chose and not yet settled by the clock worker; false for a bot's seat)."""
    return Exists(Absence.objects.filter(user_id=OuterRef("user_id")).holding_clock(now))


def clock_stopped(now: datetime.datetime) -> Q:
    """The games over days whose player to move holds their clock (for ``Game`` querysets: the clock
    worker leaves them alone, no turn notice goes out)."""
    held = Seat.objects.filter(
        game=OuterRef("pk"),
        position=OuterRef("current_seat"),
        bot_level="",
        user__absences__starts_at__lte=now,
        user__absences__settled_at__isnull=True,
    )
    return Q(time_limit_seconds__gte=Game.ASYNC_MIN_SECONDS) & Q(Exists(held))


def _lock_user(user: Any) -> User:
    """The person's row, locked: their time away changes one request or clock pass at a time.

    FOR NO KEY UPDATE: those still wait for each other, but not a row that only names the person, written
    under the lock of one of their games (the audit record of their seat handed to a bot, a game's results)
    while this waits for that game: with FOR UPDATE, PostgreSQL found a deadlock and failed one of the two.
    """
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in first."))
    return User.objects.select_for_update(no_key=True).get(pk=user.pk)


def _start_of(day: datetime.date, zone: datetime.tzinfo) -> datetime.datetime:
    return datetime.datetime.combine(day, datetime.time(0), tzinfo=zone).astimezone(datetime.UTC)


def _days_later(moment: datetime.datetime, days: int, zone: datetime.tzinfo) -> datetime.datetime:
    """The same time of day (midnight for a planned start) ``days`` calendar days later in ``zone``: whole
    days as the player counts them, 23 or 25 hours long where summer time begins or ends."""
    return (moment.astimezone(zone) + DAY * days).astimezone(datetime.UTC)


@transaction.atomic
def away_declare(
    *,
    user: Any,
    days: int,
    start: datetime.date | None = None,
    zone: datetime.tzinfo | None = None,
    now: datetime.datetime | None = None,
) -> Absence:
    """``user`` will be away for ``days`` whole days from now (``start`` empty or today) or from the
    start of the day ``start`` in ``zone`` (the reader's zone).

    Refused, changing nothing: a number of days outside 1..the yearly allowance, a start in the past
    or more than ``MAX_DAYS_AHEAD`` days ahead, time away already going on or planned, or more than
    is left of the allowance of any calendar year it touches.
    """
    now = now or timezone.now()
    zone = zone or datetime.UTC
    most = settings.AWAY_DAYS_PER_YEAR
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= most:
        raise GameError(
            "away_days",
            ngettext("Choose %(count)s day of time away.", "Choose from 1 to %(count)s days of time away.", most)
            % {"count": most},
        )
    today = now.astimezone(zone).date()
    if start is None or start == today:
        starts_at = now
    elif start < today:
        raise GameError("away_start_past", _("Time away cannot start in the past."))
    elif start > today + datetime.timedelta(days=MAX_DAYS_AHEAD):
        raise GameError(
            "away_start_too_far",
            ngettext(
                "Time away can start at most %(count)s day ahead.",
                "Time away can start at most %(count)s days ahead.",
                MAX_DAYS_AHEAD,
            )
            % {"count": MAX_DAYS_AHEAD},
        )
    else:
        starts_at = _start_of(start, zone)
    ends_at = _days_later(starts_at, days, zone)
    person = _lock_user(user)
    if Absence.objects.filter(user=person).not_over(now).exists():
        raise GameError(
            "away_already", _("You already have time away going on or planned: end it before you plan more.")
        )
    new = Absence(user=person, starts_at=starts_at, ends_at=ends_at)
    mine = list(Absence.objects.filter(user=person))
    # Counted on the player's clocks: whole days over a change of summer time (an hour longer or shorter
    # than so many times 24 hours) take the days chosen, now and in every later count.
    for year in range(starts_at.year, (ends_at - datetime.timedelta(microseconds=1)).year + 1):
        left = allowance() - time_away_in_year(mine, year, zone)
        if time_away_in_year([new], year, zone) > left:
            raise GameError(
                "away_allowance",
                _("That is more time away than you have left in %(year)s: %(left)s.")
                % {"year": year, "left": duration_text(max(left, datetime.timedelta(0)))},
            )
    new.save()
    log_on_commit(logger, "user %s: away from %s until %s", person.pk, starts_at, ends_at)
    if starts_at <= now:
        _announce_start(new)
    return new


@transaction.atomic
def away_come_back(*, user: Any, now: datetime.datetime | None = None) -> Absence:
    """``user`` is back: time away going on ends now (their turns get their paused time back at once);
    time away that has not begun yet is cancelled (deleted: it takes nothing from the allowance).

    Refused (``not_away``, nothing changed) when there is neither.
    """
    now = now or timezone.now()
    person = _lock_user(user)
    absence = Absence.objects.filter(user=person).not_over(now).order_by("starts_at").first()
    if absence is None:
        raise GameError("not_away", _("You are not away, and no time away is planned."))
    if absence.starts_at > now:
        absence.delete()
        log_on_commit(logger, "user %s: planned time away cancelled", person.pk)
        return absence
    absence.returned_at = now
    absence.save(update_fields=["returned_at"])
    _settle(absence, now)
    return absence


def come_back_if_away(*, user: Any, now: datetime.datetime | None = None) -> int:
    """A person who plays a move is back: end and settle their time away first (own transaction, before
    the move's, so that the move sees the deadlines moved on).  How many stretches were settled (each
    moved the person's tables over days on by one version): 0 when there was none.

    Time away whose chosen end has passed but that no clock pass has settled yet (the worker runs every
    few seconds, or was stopped) is settled here too: until then the deadline of a turn that fell due
    while they were away still stands, and the move would be refused as out of time although the clock
    leaves the turn alone (``clock.game_timeout``) and gives the time back once it settles it.
    """
    now = now or timezone.now()
    if user is None or not user.is_authenticated or not Absence.objects.filter(user=user).holding_clock(now).exists():
        return 0
    return _back_for_a_move(user, now)


@transaction.atomic
def _back_for_a_move(user: Any, now: datetime.datetime) -> int:
    person = _lock_user(user)
    # Oldest first: one that ran to its end unsettled, then one declared since and going on.
    holding = list(Absence.objects.filter(user=person).holding_clock(now).order_by("starts_at"))
    for absence in holding:  # none: came back, or settled by the clock, in another request meanwhile
        if absence.returned_at is None and absence.ends_at > now:
            absence.returned_at = now
            absence.save(update_fields=["returned_at"])
        _settle(absence, now)
    return len(holding)


def settle_due(*, now: datetime.datetime | None = None) -> int:
    """The clock worker's part: announce the time away that has begun, settle the time away that is over.

    Safe in several workers at once: each stretch is handled under its player's row lock and checked again
    there.  The number of stretches handled.  One stretch that cannot be handled is logged and left as
    it was (its player's clock stays stopped until it can be): the rest of the pass, and the clock's
    timeouts after it, go on.
    """
    now = now or timezone.now()
    handled = 0
    starting = Absence.objects.filter(announced=False, settled_at__isnull=True, starts_at__lte=now)
    for absence_id, user_id in starting.values_list("pk", "user_id"):
        handled += _each(absence_id, user_id, "announce", _announce_start, announced=False)
    over = Absence.objects.holding_clock(now).exclude(returned_at__isnull=True, ends_at__gt=now)
    for absence_id, user_id in over.values_list("pk", "user_id"):
        handled += _each(absence_id, user_id, "settle", lambda a: _settle(a, now), settled_at__isnull=True)
    return handled


def _each(absence_id: int, user_id: int, what: str, step: Any, **still: Any) -> int:
    """``step`` on one stretch of time away, under its player's row lock, if it is still to do (``still``):
    1 if done, 0 if another worker did it meanwhile or it failed (logged, rolled back)."""
    try:
        with transaction.atomic():
            User.objects.select_for_update(no_key=True).filter(pk=user_id).first()  # as _lock_user
            absence = Absence.objects.filter(pk=absence_id, **still).first()
            if absence is None:
                return 0
            step(absence)
            return 1
    except Exception:
        logger.exception("could not %s time away %s of user %s", what, absence_id, user_id)
        return 0


def _games_over_days_of(user_id: int) -> list[int]:
    """The active games over days where the person plays a seat (not a bot in their place), by id."""
    return list(
        Game.objects.filter(
            status=Game.Status.ACTIVE,
            time_limit_seconds__gte=Game.ASYNC_MIN_SECONDS,
            seats__user_id=user_id,
            seats__bot_level="",
        )
        .order_by("pk")
        .values_list("pk", flat=True)
        .distinct()
    )


def _announce_start(absence: Absence) -> None:
    """Time away began: every table of the player's games over days hears a new version (it shows "away")."""
    for game_id in _games_over_days_of(absence.user_id):
        game = lock_game_still(game_id, [Game.Status.ACTIVE])  # (not one finished since: see there)
        if game is None:
            continue
        game.save(update_fields=game.bump_for_notice())
        announce(game)
    absence.announced = True
    absence.save(update_fields=["announced"])


def _settle(absence: Absence, now: datetime.datetime) -> None:
    """Time away is over: each turn of the player in a game over days gets the time it spent paused
    (from the later of the turn's start and the time away's start, until its end) added to its deadline
    and to its start (so that ``deadline = start + time per move`` still holds)."""
    for game_id in _games_over_days_of(absence.user_id):
        # Games in id order, after the user's row; not one finished since the list was read (``lock_game_still``).
        game = lock_game_still(game_id, [Game.Status.ACTIVE])
        seat = None if game is None else Seat.objects.filter(game=game, user_id=absence.user_id, bot_level="").first()
        if game is None or seat is None:
            continue
        fields = game.bump_for_notice()
        if (
            seat.position == game.current_seat
            and game.turn_deadline is not None
            and game.turn_started_at is not None
            and absence.pause_of(game.turn_started_at)
        ):
            paused = absence.pause_of(game.turn_started_at)
            fields += move_turn_clock_on(game, paused)
            log_on_commit(
                logger, "game %s: user %s back, the deadline moves on by %s", game.pk, absence.user_id, paused
            )
        game.save(update_fields=fields)
        announce(game)
    absence.settled_at = now
    absence.save(update_fields=["settled_at"])
