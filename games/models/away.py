"""Time away (a vacation): while it lasts, a player's clocks in games over days stop.

Declared and ended through ``games.services.away``; the clock worker settles
each one once it is over (the deadlines of the player's turns move on by the
time the turn spent paused).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _


class AbsenceQuerySet(models.QuerySet["Absence"]):
    def not_over(self, now: datetime.datetime) -> AbsenceQuerySet:
        """Going on or planned: not ended by its chosen end, nor by a return."""
        return self.filter(returned_at__isnull=True, ends_at__gt=now)

    def active(self, now: datetime.datetime) -> AbsenceQuerySet:
        """Going on at ``now``."""
        return self.not_over(now).filter(starts_at__lte=now)

    def holding_clock(self, now: datetime.datetime) -> AbsenceQuerySet:
        """Begun and not yet settled: the clock of the player's turns does not run out (going on, or over a
        moment ago and waiting for the clock worker to move the deadlines on)."""
        return self.filter(starts_at__lte=now, settled_at__isnull=True)


class Absence(models.Model):
    """One stretch of time away of one player, from ``starts_at`` until ``until``."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="absences"
    )
    starts_at = models.DateTimeField(_("away from"))
    ends_at = models.DateTimeField(_("away until"), help_text=_("The end the player chose."))
    returned_at = models.DateTimeField(
        _("came back at"), null=True, blank=True, help_text=_("Set when the player came back before the end.")
    )
    announced = models.BooleanField(
        _("start announced"), default=False, help_text=_("The tables of the player's games were told it began.")
    )
    settled_at = models.DateTimeField(
        _("settled at"),
        null=True,
        blank=True,
        help_text=_("When the deadlines of the player's turns were moved on by the time away (once it was over)."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    objects = AbsenceQuerySet.as_manager()

    class Meta:
        ordering = ("user", "starts_at")
        verbose_name = _("time away")
        verbose_name_plural = _("times away")
        indexes = [models.Index(fields=["settled_at", "starts_at"])]
        constraints = [
            models.CheckConstraint(name="absence_ends_after_it_starts", condition=Q(ends_at__gt=F("starts_at")))
        ]

    def __str__(self) -> str:
        return f"{self.user_id} away {self.starts_at:%Y-%m-%d %H:%M} – {self.until:%Y-%m-%d %H:%M}"

    @property
    def until(self) -> datetime.datetime:
        """When it ends: the chosen end, or the moment the player came back if that was earlier."""
        if self.returned_at is not None and self.returned_at < self.ends_at:
            return max(self.returned_at, self.starts_at)
        return self.ends_at

    def is_active(self, now: datetime.datetime) -> bool:
        return self.starts_at <= now < self.until

    def pause_of(self, turn_started_at: datetime.datetime) -> datetime.timedelta:
        """How long this stretch paused a turn that started at ``turn_started_at``: from the later of the two
        starts until its end (nothing for a turn that started after it ended).  Its settlement moves the
        turn's deadline on by this much."""
        return max(datetime.timedelta(0), self.until - max(turn_started_at, self.starts_at))


def year_bounds(year: int) -> tuple[datetime.datetime, datetime.datetime]:
    """The calendar year in UTC: the allowance of time away is counted per such year."""
    return (
        datetime.datetime(year, 1, 1, tzinfo=datetime.UTC),
        datetime.datetime(year + 1, 1, 1, tzinfo=datetime.UTC),
    )


def time_away_in_year(
    absences: Iterable[Absence], year: int, zone: datetime.tzinfo | None = None
) -> datetime.timedelta:
    """How much of the year's allowance these absences take: their time (planned, or until the return)
    that falls in that UTC calendar year.

    Counted on the clocks of ``zone`` (the player's): so many whole days away are so many days of the
    allowance, also over a change of summer time, when they last an hour more or less than so many
    times 24 hours.
    """
    first, last = year_bounds(year)
    total = datetime.timedelta(0)
    for absence in absences:
        start, end = max(absence.starts_at, first), min(absence.until, last)
        if end > start:
            total += _on_the_wall(end, zone) - _on_the_wall(start, zone)
    return total


def _on_the_wall(moment: datetime.datetime, zone: datetime.tzinfo | None) -> datetime.datetime:
    """``moment`` as the clocks of ``zone`` show it (naive), to count time as the player counts it."""
    return moment if zone is None else moment.astimezone(zone).replace(tzinfo=None)
