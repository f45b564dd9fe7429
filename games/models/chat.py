"""Table talk: the messages of a game's chat, reports of them, and who may not chat.

- :class:`ChatMessage`: one line posted at a table, in the players' channel or
  the watchers' one (the latter is for people watching the game and stays
  hidden from its players until the game is over).  Quick phrases keep their
  key, so each reader sees them in their own language.  A moderator may hide
  a message: it then shows on no page (the admin keeps it).
- :class:`ChatReport`: someone who could read a message asks a moderator to
  look at it (one report per person and message).
- :class:`ChatMute`: one person hides another's messages from themselves.
- :class:`ChatSuspension`: a moderator keeps someone out of every chat until
  a time.

Every change goes through ``games.services.chat``; who may read what is
decided in ``games.chat_selectors``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise
else:
    StrOrPromise = str

from .play import Game

#: The longest message, in characters.
MESSAGE_MAX_LENGTH = 200

#: Quick phrases: a stable key and the English words (each reader sees them in their language).
QUICK_PHRASES: dict[str, StrOrPromise] = {
    "hello": _("Hello!"),
    "good_luck": _("Good luck!"),
    "your_turn": _("Your turn"),
    "nice_move": _("Nice move!"),
    "thanks": _("Thanks!"),
    "busy_today": _("Sorry, busy today"),
    "back_soon": _("Back soon"),
    "good_game": _("Good game"),
    "rematch": _("Rematch?"),
}


class ChatMessage(models.Model):
    class Channel(models.TextChoices):
        PLAYERS = "players", _("players")
        WATCHERS = "watchers", _("watchers")

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="chat_messages")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("author"), on_delete=models.PROTECT, related_name="chat_messages"
    )
    channel = models.CharField(_("channel"), max_length=10, choices=Channel.choices, default=Channel.PLAYERS)
    text = models.CharField(_("text"), max_length=MESSAGE_MAX_LENGTH)
    phrase = models.CharField(
        _("quick phrase"),
        max_length=20,
        blank=True,
        choices=[(key, label) for key, label in QUICK_PHRASES.items()],
        help_text=_("Shown in each reader's language instead of the text."),
    )
    created_at = models.DateTimeField(_("time"), default=timezone.now, db_index=True)
    hidden_at = models.DateTimeField(_("hidden at"), null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("hidden by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    hidden_reason = models.TextField(_("reason for hiding"), blank=True)

    class Meta:
        ordering = ("created_at", "pk")
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        indexes = [
            models.Index(fields=["game", "channel", "created_at"]),
            models.Index(fields=["author", "created_at"]),
        ]
        permissions = [("moderate_chat", _("Can hide chat messages and mute users from chat"))]

    def __str__(self) -> str:
        return f"#{self.pk} {self.author}: {self.shown_text}"[:80]

    @property
    def shown_text(self) -> str:
        """The words as the current reader sees them (a quick phrase in their language)."""
        label = QUICK_PHRASES.get(self.phrase)
        return str(label) if label is not None else self.text

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None


class ChatReport(models.Model):
    """Someone asked a moderator to look at a message."""

    message = models.ForeignKey(
        ChatMessage, verbose_name=_("chat message"), on_delete=models.CASCADE, related_name="reports"
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("reported by"), on_delete=models.PROTECT, related_name="+"
    )
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("time"), default=timezone.now, db_index=True)
    resolved_at = models.DateTimeField(_("dealt with at"), null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("dealt with by"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_once_per_person")]

    def __str__(self) -> str:
        return f"{self.reporter} → #{self.message_id}"

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None


class ChatMute(models.Model):
    """``user`` does not see what ``muted`` writes in any chat (only ``user`` is affected)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("person"), on_delete=models.CASCADE, related_name="chat_mutes"
    )
    muted = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("muted person"), on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(_("time"), default=timezone.now)

    class Meta:
        verbose_name = _("muted person")
        verbose_name_plural = _("muted people")
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="chat_mute_once"),
            models.CheckConstraint(condition=~Q(user=models.F("muted")), name="chat_mute_not_oneself"),
        ]

    def __str__(self) -> str:
        return f"{self.user} mutes {self.muted}"


class ChatSuspension(models.Model):
    """A moderator kept ``user`` out of every chat until ``until`` (they still read)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.PROTECT, related_name="chat_suspensions"
    )
    until = models.DateTimeField(_("muted until"), db_index=True)
    reason = models.TextField(_("reason"))
    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("moderator"), on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("time"), default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-pk")
        verbose_name = _("chat mute by a moderator")
        verbose_name_plural = _("chat mutes by moderators")

    def __str__(self) -> str:
        return f"{self.user} until {self.until:%Y-%m-%d %H:%M}"

    @property
    def in_force(self) -> bool:
        return self.until > timezone.now()
