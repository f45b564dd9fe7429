"""Looking back: each person's (and bot level's) rating, and how each seat ended a finished game."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .play import BotLevel, Game


class Rating(models.Model):
    """The current openskill rating of one person, or of one bot level.

    Bots are seats with a level, not users, so each level (easy, medium,
    hard) has one rating of its own: a person sees where they stand against
    each level.  Exactly one of ``user`` and ``bot_level`` is set.
    ``ordinal`` (``mu - 3 sigma``, a cautious estimate) is stored so that
    the leaderboard sorts in the database.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="rating",
    )
    bot_level = models.CharField(_("bot level"), max_length=10, choices=BotLevel.choices, blank=True)
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    ordinal = models.FloatField(_("rating"), db_index=True, help_text=_("mu - 3 sigma"))
    games = models.PositiveIntegerField(_("rated games"), default=0)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        ordering = ("-ordinal",)
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(bot_level="")) | (Q(user__isnull=True) & ~Q(bot_level="")),
                name="rating_user_or_bot_level",
            ),
            models.UniqueConstraint(fields=["bot_level"], condition=~Q(bot_level=""), name="rating_unique_bot_level"),
        ]

    def __str__(self) -> str:
        who = str(self.user) if self.user_id else f"bot ({self.bot_level})"
        return f"{who}: {self.ordinal:.1f}"


class GameResult(models.Model):
    """How one seat ended a finished game: its place, total, and the rating it moved.

    Written once, in the transaction that finishes the game (or by
    ``manage.py rate_games`` for games finished before ratings existed);
    the unique (game, position) constraint makes a second rating of the
    same game impossible.  ``user`` is the person of the seat (also when a
    bot finished the game for them); ``bot_level`` is set only for a seat a
    bot played from the start.
    """

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="results")
    position = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="game_results",
    )
    bot_level = models.CharField(_("bot level"), max_length=10, choices=BotLevel.choices, blank=True)
    place = models.PositiveSmallIntegerField(_("place"), help_text=_("1 is a win; equal totals share a place."))
    shared = models.BooleanField(_("place shared"), default=False)
    total_score = models.IntegerField(_("total score"))
    mu_before = models.FloatField(_("mu before"))
    sigma_before = models.FloatField(_("sigma before"))
    mu_after = models.FloatField(_("mu after"))
    sigma_after = models.FloatField(_("sigma after"))
    rating_after = models.FloatField(_("rating after"), help_text=_("mu - 3 sigma after this game"))
    finished_at = models.DateTimeField(_("finished at"))

    class Meta:
        ordering = ("finished_at", "game", "position")
        verbose_name = _("game result")
        verbose_name_plural = _("game results")
        constraints = [models.UniqueConstraint(fields=["game", "position"], name="gameresult_unique_seat")]
        indexes = [models.Index(fields=["user", "finished_at"]), models.Index(fields=["bot_level", "finished_at"])]

    def __str__(self) -> str:
        return f"{self.game_id}:{self.position} place {self.place} ({self.total_score})"
