"""Chat moderation in the admin: reports, message history, mutes from chat.

Read-only lists for the Moderators group (``view_chatmessage``,
``view_chatreport``, ``view_chatsuspension``); the moderation steps need
``games.moderate_chat`` as well: hide messages, dismiss their reports, mute
their authors from chat for a time, let someone chat again.  Each asks for a
reason on the same confirmation page as the other moderation steps
(:func:`~games.admin.moderation.moderation_step`) and goes through
``games.services.chat``, which writes the audit record.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import services
from games.models import ChatMessage, ChatReport, ChatSuspension
from games.numbers import plain_number

from .moderation import PlayerFilter, ReadOnlyAdmin, ReadOnlyInline, ReasonForm, game_link, moderation_step, user_link

MUTE_CHOICES = [
    (1, gettext_lazy("1 hour")),
    (24, gettext_lazy("1 day")),
    (7 * 24, gettext_lazy("7 days")),
    (30 * 24, gettext_lazy("30 days")),
]
assert tuple(hours for hours, _label in MUTE_CHOICES) == services.MUTE_HOURS


class MuteForm(ReasonForm):
    hours = forms.TypedChoiceField(label=gettext_lazy("For"), coerce=int, choices=MUTE_CHOICES, initial=24)


def may_moderate_chat(request: HttpRequest) -> bool:
    user = request.user
    return user.is_active and user.is_staff and user.has_perm("games.moderate_chat")


class ChatModerationAdmin(ReadOnlyAdmin):
    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return may_moderate_chat(request)


# -- the steps, shared by the lists of messages, reports and users ---------------------------------


def hide_messages_step(
    model_admin: admin.ModelAdmin, request: HttpRequest, messages: list[ChatMessage], *, action_name: str
) -> HttpResponse | None:
    return moderation_step(
        model_admin,
        request,
        messages,
        form_class=ReasonForm,
        action_name=action_name,
        back_url=request.get_full_path(),
        title=ngettext("Hide a chat message", "Hide chat messages", len(messages)),
        button=_("Hide"),
        consequences=_(
            "A hidden message disappears from every page at once (the open tables update by themselves); "
            "it stays here for the record. Its reports count as dealt with."
        ),
        describe=services.audit.message_label,
        perform=lambda m, data: services.chat_hide(message_id=m.pk, moderator=request.user, reason=data["reason"]),
        done=lambda count: (
            ngettext("%(count)s message hidden.", "%(count)s messages hidden.", count) % {"count": count}
        ),
    )


def dismiss_reports_step(
    model_admin: admin.ModelAdmin, request: HttpRequest, messages: list[ChatMessage], *, action_name: str
) -> HttpResponse | None:
    return moderation_step(
        model_admin,
        request,
        messages,
        form_class=ReasonForm,
        action_name=action_name,
        back_url=request.get_full_path(),
        title=_("Dismiss reports"),
        button=_("Dismiss"),
        consequences=_("The messages stay where they are; their open reports count as dealt with."),
        describe=services.audit.message_label,
        perform=lambda m, data: services.chat_dismiss_reports(
            message_id=m.pk, moderator=request.user, reason=data["reason"]
        ),
        done=lambda count: (
            ngettext(
                "The reports of %(count)s message were dismissed.",
                "The reports of %(count)s messages were dismissed.",
                count,
            )
            % {"count": count}
        ),
    )


def mute_users_step(
    model_admin: admin.ModelAdmin, request: HttpRequest, users: list[Any], *, action_name: str
) -> HttpResponse | None:
    return moderation_step(
        model_admin,
        request,
        users,
        form_class=MuteForm,
        action_name=action_name,
        back_url=request.get_full_path(),
        title=ngettext("Mute a user from chat", "Mute users from chat", len(users)),
        button=_("Mute"),
        consequences=_("They can read every chat but post in none until the time is up (their games go on as before)."),
        describe=lambda user: user.username,
        perform=lambda user, data: services.chat_mute_user(
            user_id=user.pk, moderator=request.user, reason=data["reason"], hours=data["hours"]
        ),
        done=lambda count: (
            ngettext("%(count)s user muted from chat.", "%(count)s users muted from chat.", count) % {"count": count}
        ),
    )


def unmute_users_step(
    model_admin: admin.ModelAdmin, request: HttpRequest, users: list[Any], *, action_name: str
) -> HttpResponse | None:
    return moderation_step(
        model_admin,
        request,
        users,
        form_class=ReasonForm,
        action_name=action_name,
        back_url=request.get_full_path(),
        title=_("Let users chat again"),
        button=_("Let them chat"),
        consequences=_("Their mute from chat ends now."),
        describe=lambda user: user.username,
        perform=lambda user, data: services.chat_unmute_user(
            user_id=user.pk, moderator=request.user, reason=data["reason"]
        ),
        done=lambda count: (
            ngettext("%(count)s user may chat again.", "%(count)s users may chat again.", count) % {"count": count}
        ),
    )


def _authors(messages: QuerySet[ChatMessage]) -> list[Any]:
    return list({m.author_id: m.author for m in messages.select_related("author")}.values())


# -- messages --------------------------------------------------------------------------------------


class GameNumberFilter(PlayerFilter):
    """The messages of one game (a box for its number)."""

    title = gettext_lazy("game number")
    parameter_name = "game_number"
    placeholder = gettext_lazy("game number")
    clear_label = gettext_lazy("Any game")

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = (self.value() or "").strip().lstrip("#")
        if not value:
            return queryset
        if not plain_number(value, 0, 10**12 - 1):
            return queryset.none()
        return queryset.filter(game_id=int(value))


class ShownFilter(admin.SimpleListFilter):
    title = gettext_lazy("shown")
    parameter_name = "shown"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("shown", _("shown")), ("hidden", _("hidden by a moderator"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> QuerySet[ChatMessage]:
        if self.value() == "shown":
            return queryset.filter(hidden_at__isnull=True)
        if self.value() == "hidden":
            return queryset.filter(hidden_at__isnull=False)
        return queryset


class ReportedFilter(admin.SimpleListFilter):
    title = gettext_lazy("reports")
    parameter_name = "reports"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("open", _("open reports")), ("any", _("ever reported"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> QuerySet[ChatMessage]:
        if self.value() == "open":
            return queryset.filter(reports__resolved_at__isnull=True, reports__isnull=False).distinct()
        if self.value() == "any":
            return queryset.filter(reports__isnull=False).distinct()
        return queryset


class ReportInline(ReadOnlyInline):
    model = ChatReport
    fields = ("created_at", "reporter", "note", "resolved_at", "resolved_by")
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("reports of this message")


@admin.register(ChatMessage)
class ChatMessageAdmin(ChatModerationAdmin):
    """Every message of every game (hidden ones too), newest first; hide, dismiss reports, mute the author."""

    list_display = ("created_at", "game_column", "channel", "author_column", "words", "shown", "open_reports")
    list_filter = ("channel", ShownFilter, ReportedFilter, GameNumberFilter, "created_at")
    search_fields = ("author__username", "author__display_name", "text")
    search_help_text = gettext_lazy("Search by the author's user name or display name, or by words of the message.")
    date_hierarchy = "created_at"
    list_select_related = ("game", "author")
    ordering = ("-created_at", "-pk")
    fields = (
        "created_at",
        "game_column",
        "channel",
        "author_column",
        "text",
        "phrase",
        "hidden_at",
        "hidden_by",
        "hidden_reason",
    )
    readonly_fields = fields
    inlines = [ReportInline]
    actions = ["hide_messages", "dismiss_reports", "mute_authors"]

    @admin.display(description=gettext_lazy("text"))
    def words(self, message: ChatMessage) -> str:
        return message.shown_text  # a quick phrase in the moderator's language, not as stored

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChatMessage]:
        return (
            super()
            .get_queryset(request)
            .annotate(open_report_count=Count("reports", filter=Q(reports__resolved_at__isnull=True)))
        )

    @admin.display(description=gettext_lazy("game"), ordering="game")
    def game_column(self, message: ChatMessage) -> str:
        return game_link(message.game)

    @admin.display(description=gettext_lazy("author"), ordering="author__username")
    def author_column(self, message: ChatMessage) -> str:
        return user_link(message.author)

    @admin.display(description=gettext_lazy("shown"), boolean=True)
    def shown(self, message: ChatMessage) -> bool:
        return not message.is_hidden

    @admin.display(description=gettext_lazy("open reports"), ordering="open_report_count")
    def open_reports(self, message: ChatMessage) -> str:
        count = getattr(message, "open_report_count", 0)
        return format_html('<strong class="mod-pill">{}</strong>', count) if count else "—"

    @admin.action(description=gettext_lazy("Hide the selected messages…"), permissions=["moderate"])
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        messages = list(queryset.select_related("author"))
        return hide_messages_step(self, request, messages, action_name="hide_messages")

    @admin.action(description=gettext_lazy("Dismiss the reports of the selected messages…"), permissions=["moderate"])
    def dismiss_reports(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        messages = list(queryset.select_related("author"))
        return dismiss_reports_step(self, request, messages, action_name="dismiss_reports")

    @admin.action(description=gettext_lazy("Mute the authors from chat…"), permissions=["moderate"])
    def mute_authors(self, request: HttpRequest, queryset: QuerySet[ChatMessage]) -> HttpResponse | None:
        return mute_users_step(self, request, _authors(queryset), action_name="mute_authors")


# -- reports ---------------------------------------------------------------------------------------


class OpenFilter(admin.SimpleListFilter):
    title = gettext_lazy("status")
    parameter_name = "status"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("open", _("open")), ("done", _("dealt with"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> QuerySet[ChatReport]:
        if self.value() == "open":
            return queryset.filter(resolved_at__isnull=True)
        if self.value() == "done":
            return queryset.filter(resolved_at__isnull=False)
        return queryset


#: How much of a report's note its row in the list shows.
NOTE_SHOWN = 60


@admin.register(ChatReport)
class ChatReportAdmin(ChatModerationAdmin):
    """What people reported, newest first; the steps act on the reported messages."""

    list_display = (
        "created_at",
        "message_text",
        "message_author",
        "game_column",
        "reporter_column",
        "note_column",
        "status",
    )
    list_filter = (OpenFilter, "created_at")
    search_fields = ("reporter__username", "message__author__username", "message__text", "note")
    search_help_text = gettext_lazy("Search by a user name (who reported, or who wrote) or by words.")
    date_hierarchy = "created_at"
    list_select_related = ("message__author", "message__game", "reporter")
    fields = ("created_at", "message_link", "message_author", "reporter", "note", "resolved_at", "resolved_by")
    readonly_fields = fields
    actions = ["hide_messages", "dismiss_reports", "mute_authors"]

    @admin.display(description=gettext_lazy("message"))
    def message_text(self, report: ChatReport) -> str:
        text = report.message.shown_text  # a quick phrase in the moderator's language
        suffix = format_html(' <span class="mod-pill">{}</span>', _("hidden")) if report.message.is_hidden else ""
        return format_html("{}{}", text, suffix)

    @admin.display(description=gettext_lazy("message"))
    def message_link(self, report: ChatReport) -> str:
        from django.urls import reverse

        url = reverse("admin:games_chatmessage_change", args=[report.message_id])
        return format_html('<a href="{}">#{} {}</a>', url, report.message_id, report.message.shown_text)

    @admin.display(description=gettext_lazy("author"))
    def message_author(self, report: ChatReport) -> str:
        return user_link(report.message.author)

    @admin.display(description=gettext_lazy("game"))
    def game_column(self, report: ChatReport) -> str:
        return game_link(report.message.game)

    @admin.display(description=gettext_lazy("reported by"), ordering="reporter__username")
    def reporter_column(self, report: ChatReport) -> str:
        return user_link(report.reporter)  # the user name, as the author's column shows it

    @admin.display(description=gettext_lazy("note"))
    def note_column(self, report: ChatReport) -> str:
        """The note cut to a line (the report's own page has it whole): a long one pushed the status off the list."""
        return format_html('<span title="{}">{}</span>', report.note, Truncator(report.note).chars(NOTE_SHOWN))

    @admin.display(description=gettext_lazy("status"))
    def status(self, report: ChatReport) -> str:
        return _("open") if report.is_open else _("dealt with")

    def _messages(self, queryset: QuerySet[ChatReport]) -> list[ChatMessage]:
        return list({r.message_id: r.message for r in queryset.select_related("message__author")}.values())

    @admin.action(description=gettext_lazy("Hide the reported messages…"), permissions=["moderate"])
    def hide_messages(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> HttpResponse | None:
        return hide_messages_step(self, request, self._messages(queryset), action_name="hide_messages")

    @admin.action(description=gettext_lazy("Dismiss these reports…"), permissions=["moderate"])
    def dismiss_reports(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> HttpResponse | None:
        return dismiss_reports_step(self, request, self._messages(queryset), action_name="dismiss_reports")

    @admin.action(description=gettext_lazy("Mute the authors from chat…"), permissions=["moderate"])
    def mute_authors(self, request: HttpRequest, queryset: QuerySet[ChatReport]) -> HttpResponse | None:
        authors = list({m.author_id: m.author for m in self._messages(queryset)}.values())
        return mute_users_step(self, request, authors, action_name="mute_authors")


# -- mutes from chat -------------------------------------------------------------------------------


class InForceFilter(admin.SimpleListFilter):
    title = gettext_lazy("in force")
    parameter_name = "in_force"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", _("in force")), ("no", _("over"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ChatSuspension]) -> QuerySet[ChatSuspension]:
        now = timezone.now()
        if self.value() == "yes":
            return queryset.filter(until__gt=now)
        if self.value() == "no":
            return queryset.filter(until__lte=now)
        return queryset


@admin.register(ChatSuspension)
class ChatSuspensionAdmin(ChatModerationAdmin):
    list_display = ("created_at", "user_column", "until", "in_force", "moderator", "reason")
    list_filter = (InForceFilter, "created_at")
    search_fields = ("user__username", "user__display_name", "moderator__username")
    date_hierarchy = "created_at"
    list_select_related = ("user", "moderator")
    fields = ("created_at", "user_column", "until", "moderator", "reason")
    readonly_fields = fields
    actions = ["unmute_users"]

    @admin.display(description=gettext_lazy("user"), ordering="user__username")
    def user_column(self, suspension: ChatSuspension) -> str:
        return user_link(suspension.user)

    @admin.display(description=gettext_lazy("in force"), boolean=True)
    def in_force(self, suspension: ChatSuspension) -> bool:
        return suspension.in_force

    @admin.action(description=gettext_lazy("Let these users chat again…"), permissions=["moderate"])
    def unmute_users(self, request: HttpRequest, queryset: QuerySet[ChatSuspension]) -> HttpResponse | None:
        users = list({s.user_id: s.user for s in queryset.select_related("user")}.values())
        return unmute_users_step(self, request, users, action_name="unmute_users")
