"""A finished game's move-by-move analysis: one per game, computed once in the background.

``GameAnalysis`` is asked for by a player of the finished game and worked
through by the clock worker (``games.services.analysis``), a bounded chunk
of decisions at a time; each decision analysed is one ``AnalysedDecision``
row, so the progress survives restarts and the figures are read back
without computing anything again.  ``version`` is the analysis's version
(``games.analysis.VERSION``) when it was made: another version's analysis is
made again when asked for.  ``seed`` fixes every sample, so the figures are
reproducible.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .play import Game


class GameAnalysis(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", _("waiting")
        RUNNING = "running", _("in progress")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    game = models.OneToOneField(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="analysis")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("asked for by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PENDING)
    version = models.PositiveSmallIntegerField(_("analysis version"))
    seed = models.CharField(_("seed"), max_length=64, help_text=_("Fixes every sample: the figures are reproducible."))
    samples = models.PositiveSmallIntegerField(_("samples per decision"))
    decisions_total = models.PositiveIntegerField(_("decisions"))
    decisions_done = models.PositiveIntegerField(_("decisions analysed"), default=0)
    lease_until = models.DateTimeField(
        _("worked on until"),
        null=True,
        blank=True,
        help_text=_("A worker holds the analysis until then; after that another may take it over."),
    )
    summary = models.JSONField(
        _("summary"),
        default=list,
        blank=True,
        help_text=_("Each seat's accuracy, points lost and flagged turns, once done."),
    )
    explanations = models.JSONField(
        _("explanations"),
        null=True,
        blank=True,
        help_text=_(
            "Why each flagged turn was flagged: the hand and what each choice leaves, worked out once it is done."
        ),
    )
    error = models.CharField(_("error"), max_length=300, blank=True)
    requested_at = models.DateTimeField(_("asked for at"))
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    #: When a worker last wrote some of its decisions: the worker takes the analyses in turn by it.
    worked_at = models.DateTimeField(
        _("last worked on"),
        null=True,
        blank=True,
        help_text=_("The worker takes the analyses in turn: new ones first, then the one left longest."),
    )
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("game analysis")
        verbose_name_plural = _("game analyses")
        indexes = [models.Index(fields=["status", "requested_at"])]

    def __str__(self) -> str:
        return f"analysis of game {self.game_id}: {self.status} {self.decisions_done}/{self.decisions_total}"

    @property
    def percent(self) -> int:
        """How far it has got, in whole percent."""
        if not self.decisions_total:
            return 100 if self.status == self.Status.DONE else 0
        return min(100, 100 * self.decisions_done // self.decisions_total)

    @property
    def is_done(self) -> bool:
        return self.status == self.Status.DONE

    @property
    def in_progress(self) -> bool:
        return self.status in (self.Status.PENDING, self.Status.RUNNING)


class AnalysedDecision(models.Model):
    """One decision of the game (one move of the log) as analysed: the figures of ``grading.analyse_decision``."""

    analysis = models.ForeignKey(
        GameAnalysis, verbose_name=_("analysis"), on_delete=models.CASCADE, related_name="decisions"
    )
    seq = models.PositiveIntegerField(_("move number"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    round_number = models.PositiveSmallIntegerField(_("round"))
    turn = models.PositiveIntegerField(_("turn"))
    kind = models.CharField(_("kind"), max_length=10)
    by_bot = models.BooleanField(_("played by a bot"), default=False)
    forced = models.BooleanField(_("no choice"), default=False)
    total_before = models.IntegerField(_("total before the round"))
    chosen = models.JSONField(_("chosen"))
    top = models.CharField(
        _("top of the discard pile"), max_length=3, blank=True, help_text=_("At a draw: the card a take would take.")
    )
    best = models.JSONField(_("best found"), null=True, blank=True)
    options = models.JSONField(_("options compared"), default=list)
    expected = models.FloatField(_("expected points of the round"), null=True, blank=True)
    best_expected = models.FloatField(_("expected points of the best"), null=True, blank=True)
    cost = models.FloatField(_("cost"), default=0.0)

    #: The fields that come from ``games.analysis.analyse_decision``'s row.
    ROW_FIELDS = (
        "seq",
        "seat",
        "round_number",
        "turn",
        "kind",
        "by_bot",
        "forced",
        "total_before",
        "chosen",
        "top",
        "best",
        "options",
        "expected",
        "best_expected",
        "cost",
    )

    class Meta:
        ordering = ("analysis", "seq")
        verbose_name = _("analysed decision")
        verbose_name_plural = _("analysed decisions")
        constraints = [models.UniqueConstraint(fields=["analysis", "seq"], name="analyseddecision_unique_seq")]

    def __str__(self) -> str:
        return f"{self.analysis_id}#{self.seq} seat {self.seat}: cost {self.cost}"
