"""The audit log of moderation: one append-only record per moderator action."""

from __future__ import annotations

import datetime
from typing import Any, NoReturn

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.zones import when

from .play import Game, variant_label

#: What an action was done to, by the ``kind`` of a record's ``target_params`` (the rest are its parts).
TARGETS = {
    "game": _("game #%(id)s (%(variant)s)"),
    "seat": _("seat %(position)s of game #%(id)s (%(name)s)"),
    "deactivated_seat": _("seat %(position)s of game #%(id)s (%(name)s), whose account was deactivated"),
    "user": _("user %(name)s"),
    "mute": _("user %(name)s, from chat until %(until)s"),
    "message": _("chat message #%(id)s by %(name)s in game #%(game)s: “%(text)s”"),
}


class AuditRecord(models.Model):
    """One moderator action: who did what to which game, seat or user, when and why.

    Append-only: written by the moderation services, never changed or
    deleted (the admin shows it read-only; ``save`` refuses to rewrite a
    stored record and ``delete`` refuses to remove one).  The permissions of
    moderation live here too.
    """

    class Action(models.TextChoices):
        GAME_ABORT = "game_abort", _("aborted a game")
        SEAT_TO_BOT = "seat_to_bot", _("handed a seat to a bot")
        SEAT_VACATE = "seat_vacate", _("took a player off an open game")
        USER_DEACTIVATE = "user_deactivate", _("deactivated a user")
        CHAT_HIDE = "chat_hide", _("hid a chat message")
        CHAT_MUTE = "chat_mute", _("muted a user from chat")
        CHAT_UNMUTE = "chat_unmute", _("let a user chat again")
        CHAT_DISMISS = "chat_dismiss", _("dismissed chat reports")

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("moderator"),
        null=True,
        on_delete=models.PROTECT,
        related_name="audit_actions",
    )
    action = models.CharField(_("action"), max_length=20, choices=Action.choices)
    reason = models.TextField(_("reason"))
    created_at = models.DateTimeField(_("time"), default=timezone.now, editable=False, db_index=True)
    game = models.ForeignKey(
        Game, verbose_name=_("game"), null=True, blank=True, on_delete=models.PROTECT, related_name="audit_records"
    )
    seat_position = models.PositiveSmallIntegerField(_("seat"), null=True, blank=True)
    target_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user concerned"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_records",
    )
    # Text, not a bounded string: the words name a person (150 characters) and a message, in the moderator's language.
    target = models.TextField(_("target"), help_text=_("What the action was done to, in words."))
    # The same target in parts, read in each reader's language: target_in_words().
    target_params = models.JSONField(default=dict, blank=True, editable=False)

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name = _("audit record")
        verbose_name_plural = _("audit records")
        permissions = [
            ("moderate_game", _("Can abort games and hand seats to bots")),
            ("moderate_user", _("Can deactivate users")),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor}: {self.get_action_display()} {self.target_in_words()}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and AuditRecord.objects.filter(pk=self.pk).exists():
            raise ValueError("audit records are append-only: a stored record is never changed")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ValueError("audit records are append-only: a stored record is never deleted")

    def target_in_words(self) -> str:
        """The target in the active language and time zone (the stored words of a record made before the
        parts were kept), so that a Czech moderator does not read a Croatian colleague's record in Croatian."""
        parts = self.target_params or {}
        words = TARGETS.get(parts.get("kind", ""))
        if words is None:
            return self.target
        values = dict(parts)
        if "variant" in values:
            values["variant"] = variant_label(values["variant"])
        if "until" in values:
            values["until"] = when(datetime.datetime.fromisoformat(values["until"]))
        return str(words) % values
