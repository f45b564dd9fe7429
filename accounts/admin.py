"""Users in the admin: superusers edit them; moderators look (games, audit history) and deactivate."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.formats import localize
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import services
from games.admin import (
    AuditTargetMixin,
    ReadOnlyInline,
    ReasonForm,
    StrictLookupsMixin,
    game_link,
    may_moderate_chat,
    moderation_step,
    mute_users_step,
    restrict_lookups,
    unmute_users_step,
)
from games.models import AuditRecord, Seat
from threethirteen_site.errors import NotFound

from .models import User


class UserSeatInline(ReadOnlyInline):
    """The user's games (newest first), with links to their moderation pages."""

    model = Seat
    fk_name = "user"
    fields = ("game_link", "status", "position", "played_by", "total_score", "created")
    readonly_fields = fields
    verbose_name = gettext_lazy("game")
    verbose_name_plural = gettext_lazy("games")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Seat]:
        return super().get_queryset(request).select_related("game").order_by("-game__created_at")

    @admin.display(description=gettext_lazy("game"))
    def game_link(self, seat: Seat) -> str:
        return game_link(seat.game)

    @admin.display(description=gettext_lazy("status"))
    def status(self, seat: Seat) -> str:
        return seat.game.get_status_display()

    @admin.display(description=gettext_lazy("played by"))
    def played_by(self, seat: Seat) -> str:
        return _("bot %(name)s") % {"name": seat.bot_name} if seat.is_bot else _("the player")

    @admin.display(description=gettext_lazy("created"))
    def created(self, seat: Seat) -> str:
        return localize(timezone.localtime(seat.game.created_at))


class AuditAboutUserInline(AuditTargetMixin, ReadOnlyInline):
    model = AuditRecord
    fk_name = "target_user"
    fields = ("created_at", "actor", "action", "target_words", "reason")
    readonly_fields = fields
    verbose_name = gettext_lazy("moderation of this user")
    verbose_name_plural = gettext_lazy("audit history: moderation of this user")


class AuditByUserInline(AuditTargetMixin, ReadOnlyInline):
    model = AuditRecord
    fk_name = "actor"
    fields = ("created_at", "action", "target_words", "reason")
    readonly_fields = fields
    verbose_name = gettext_lazy("moderation by this user")
    verbose_name_plural = gettext_lazy("audit history: moderation done by this user")


def _active_games(user: User) -> str:
    """A user to be deactivated, with the games they play or wait in (a real plural: "spel(le)" was read)."""
    count = user.seats.filter(game__status__in=["open", "active"], bot_level="").count()
    return ngettext("%(name)s: %(count)s active game", "%(name)s: %(count)s active games", count) % {
        "name": user.username,
        "count": count,
    }


@admin.register(User)
class UserAdmin(StrictLookupsMixin, BaseUserAdmin):
    fieldsets = (
        *(BaseUserAdmin.fieldsets or ()),
        (gettext_lazy("Preferences"), {"fields": ("display_name", "language", "notify_by_email", "chat_enabled")}),
    )
    list_display = ("username", "display_name", "email", "is_active", "is_staff", "date_joined")
    search_fields = ("username", "display_name", "email", "first_name", "last_name")
    inlines = [UserSeatInline, AuditAboutUserInline, AuditByUserInline]
    actions = ["deactivate_users", "mute_from_chat", "let_chat_again"]

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff and request.user.has_perm("games.moderate_user")

    def has_moderate_chat_permission(self, request: HttpRequest) -> bool:
        return may_moderate_chat(request)

    @admin.action(description=gettext_lazy("Mute the selected users from chat…"), permissions=["moderate_chat"])
    def mute_from_chat(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        return mute_users_step(self, request, list(queryset), action_name="mute_from_chat")

    @admin.action(description=gettext_lazy("Let the selected users chat again…"), permissions=["moderate_chat"])
    def let_chat_again(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        return unmute_users_step(self, request, list(queryset), action_name="let_chat_again")

    def get_inline_instances(self, request: HttpRequest, obj: Any = None) -> list:
        if obj is None:
            return []  # none on the add form
        return [
            inline
            for inline in super().get_inline_instances(request, obj)
            if not isinstance(inline, AuditByUserInline) or obj.audit_actions.exists()
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        # Deactivating goes through the "Deactivate" action (services.user_deactivate: bots take the
        # seats, an audit record is written), never through a bare checkbox.
        # The dates are the site's record of what happened, not settings: and a date near year 1 or 9999 in the
        # admin's zone was stored by PostgreSQL past its range in UTC, after which no read of the user worked.
        # Someone else's e-mail address too: set to one's own, "Forgot your password?" would hand their
        # account over (the way round the refusal of user_change_password, found by a review).
        readonly = tuple(super().get_readonly_fields(request, obj))
        if obj is None:
            return readonly
        readonly += ("is_active", "last_login", "date_joined")
        return readonly + ("email",) if obj.pk != request.user.pk else readonly

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if obj is not None and (not self.has_change_permission(request, obj) or obj.pk != request.user.pk):
            # View-only (moderators), or someone else's account (user_change_password): no "reset
            # password" button that would only lead to a refusal.
            fieldsets = [
                (name, {**opts, "fields": tuple(f for f in opts["fields"] if f != "password")})
                for name, opts in fieldsets
            ]
        return fieldsets

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<path:object_id>/deactivate/",
                self.admin_site.admin_view(self.deactivate_view),
                name="accounts_user_deactivate",
            )
        ] + super().get_urls()

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        user = self.get_object(request, unquote(object_id))
        extra_context = {
            **(extra_context or {}),
            "can_deactivate": user is not None
            and user.is_active
            and user.pk != request.user.pk
            and self.has_moderate_permission(request),
        }
        return super().change_view(request, object_id, form_url, extra_context)

    def user_change_password(self, request: HttpRequest, id: str, form_url: str = "") -> HttpResponse:
        """Staff set their own password here, never someone else's: it would let them log in as that
        player and see a hidden hand mid-game ("not even staff" sees one).  A person who lost their
        password resets it by e-mail; the refusal says so and changes nothing."""
        user = self.get_object(request, unquote(id))
        if user is not None and user.pk != request.user.pk and self.has_change_permission(request, user):
            messages.error(
                request,
                _(
                    "You cannot set another person's password: you could then log in as them and see their "
                    "hidden cards. They can set a new one themselves with “Forgot your password?” on the log-in "
                    "page (%(url)s), which sends a link to their e-mail address."
                )
                % {"url": reverse("password_reset")},
            )
            return HttpResponseRedirect(reverse("admin:accounts_user_change", args=[user.pk]))
        return super().user_change_password(request, id, form_url)

    def _deactivate(
        self, request: HttpRequest, users: list[User], *, action_name: str | None, back_url: str
    ) -> HttpResponse | None:
        return moderation_step(
            self,
            request,
            users,
            form_class=ReasonForm,
            action_name=action_name,
            back_url=back_url,
            title=_("Deactivate users"),
            button=_("Deactivate"),
            consequences=_(
                "A deactivated user can no longer log in. Bots take their seats in the games they "
                "are playing; in games still waiting for players their seat opens again."
            ),
            describe=_active_games,
            perform=lambda user, data: services.user_deactivate(
                user_id=user.pk, moderator=request.user, reason=data["reason"]
            ),
            done=lambda count: (
                ngettext("%(count)s user deactivated.", "%(count)s users deactivated.", count) % {"count": count}
            ),
        )

    @admin.action(description=gettext_lazy("Deactivate the selected users…"), permissions=["moderate"])
    def deactivate_users(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        return self._deactivate(
            request, list(queryset), action_name="deactivate_users", back_url=request.get_full_path()
        )

    def deactivate_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if not self.has_moderate_permission(request):
            raise PermissionDenied
        user = self.get_object(request, unquote(object_id))
        if user is None:
            raise NotFound(_("There is no such user."))
        back = reverse("admin:accounts_user_change", args=[user.pk])
        # Without an action name the step always answers (the page, or a redirect once done).
        return self._deactivate(request, [user], action_name=None, back_url=back) or HttpResponseRedirect(back)


# Django's group admin: its list has no filter, so no lookup passes (auth's admin module is loaded first).
restrict_lookups(admin.site, Group)
