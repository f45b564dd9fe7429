"""Game moderation in the admin (the "Moderators" group).

Games, seats, moves, round results: read-only for everyone.  Games change
only through the moderation services (abort, hand a seat to a bot), each
asking for a reason on a confirmation page (:func:`moderation_step`, which
the user admin uses too) and writing an audit record.  Audit records:
read-only for everyone, no add, change or delete.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import services
from games.engine import Rules, RulesError, wild_rank_label
from games.models import AuditRecord, BotLevel, Game, Move, RoundResult, Seat
from games.presentation import short_name
from games.services.rule_errors import describe_rules_error
from threethirteen_site.errors import NotFound

from .lookups import StrictLookupsMixin
from .variants import rounds_text

# -- moderation: the confirmation page ------------------------------------------------


if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise


def reason_field(help_text: StrOrPromise) -> forms.CharField:
    """A moderation step's reason (required), with what becomes of it: ``help_text``."""
    return forms.CharField(
        label=gettext_lazy("Reason"),
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        required=True,
        max_length=services.REASON_MAX_LENGTH,
        help_text=help_text,
    )


class ReasonForm(forms.Form):
    reason = reason_field(gettext_lazy("Required. Kept in the audit log with your name and the time."))

    def clean_reason(self) -> str:
        try:
            return services.moderation_reason(self.cleaned_data["reason"])
        except services.GameError as error:
            raise forms.ValidationError(error.message) from None


class AbortForm(ReasonForm):
    reason = reason_field(
        gettext_lazy(
            "Required. The players see it on the game page; it is kept in the audit log with your name and the time."
        )
    )


class SeatToBotForm(ReasonForm):
    # The table shows the person on the seat why a bot plays it (their own reason alone): the moderator is told.
    reason = reason_field(
        gettext_lazy(
            "Required. The person on the seat sees it on the game page; it is kept in the audit log with your "
            "name and the time."
        )
    )
    bot_level = forms.ChoiceField(label=gettext_lazy("Bot level"), choices=BotLevel.choices, initial=BotLevel.MEDIUM)


def moderation_step(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    objects: list[Any],
    *,
    form_class: type[ReasonForm],
    title: str,
    consequences: str,
    button: str,
    perform: Callable[[Any, dict[str, Any]], Any],
    done: Callable[[int], str],
    action_name: str | None = None,
    back_url: str,
    describe: Callable[[Any], str] = str,
) -> HttpResponse | None:
    """Ask for a reason on a confirmation page; once given, ``perform`` each object.

    Used by the changelist actions (``action_name`` set: the page re-posts the
    selection to the changelist) and by the per-object moderation pages.
    Returns ``None`` when done (the changelist redirects), else a response.
    """
    if request.method == "POST" and "confirm" in request.POST:
        form = form_class(request.POST)
        if form.is_valid():
            count = 0
            for obj in objects:
                try:
                    perform(obj, form.cleaned_data)
                    count += 1
                except services.GameError as error:
                    modeladmin.message_user(request, error.message, messages.ERROR)
            if count:
                modeladmin.message_user(request, done(count), messages.SUCCESS)
            return None if action_name else HttpResponseRedirect(back_url)
    else:
        form = form_class()
    opts = modeladmin.model._meta
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": title,
        "subtitle": None,
        "opts": opts,
        "app_label": opts.app_label,
        "form": form,
        "objects": [(obj, describe(obj)) for obj in objects],
        "consequences": consequences,
        "button": button,
        "action_name": action_name,
        # The changelist's own selection goes back to it as it came: the objects acted on may be others (the
        # authors of selected messages), whose ids would be read there as ids of its rows.
        "selected": request.POST.getlist(ACTION_CHECKBOX_NAME) if action_name else [],
        "select_across": request.POST.get("select_across") == "1",
        "back_url": back_url,
        "action_checkbox_name": ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(
        request,
        "admin/games/moderation_confirm.html",
        context,
        status=200 if form.is_bound is False or form.is_valid() else 400,
    )


# -- games -----------------------------------------------------------------------------


class PlayerFilter(admin.SimpleListFilter):
    """Games where a given user name has a seat (a text box: there may be thousands of players)."""

    title = gettext_lazy("player")
    parameter_name = "player"
    template = "admin/games/input_filter.html"
    #: The box's hint and the link that clears it (input_filter.html).
    placeholder = gettext_lazy("user name")
    clear_label = gettext_lazy("Any player")

    def lookups(self, request: HttpRequest, model_admin: Any) -> tuple[tuple[str, str], ...]:
        return (("", ""),)  # the filter is only shown when it has lookups

    def choices(self, changelist: Any) -> Iterator[Any]:  # its dicts carry query_parts as well
        query_parts = [
            (key, value)
            for key, values in changelist.params.items()
            if key not in (self.parameter_name, "p")
            for value in (values if isinstance(values, list) else [values])
        ]
        yield {
            "selected": self.value() is None,
            "query_string": changelist.get_query_string(remove=[self.parameter_name]),
            "query_parts": query_parts,
            "display": _("All"),
        }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        name = (self.value() or "").strip()
        if not name:
            return queryset
        return queryset.filter(
            Q(seats__user__username__iexact=name) | Q(seats__user__display_name__iexact=name)
        ).distinct()


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class AuditTargetMixin:
    """An audit record's target in the reader's language."""

    @admin.display(description=gettext_lazy("target"))
    def target_words(self, record: AuditRecord) -> str:
        return record.target_in_words()


def user_link(user: Any) -> str:
    if user is None:
        return "—"
    url = reverse("admin:accounts_user_change", args=[user.pk])
    return format_html(
        '<a href="{}">{}</a>{}',
        url,
        user.username,
        "" if user.is_active else format_html(' <span class="mod-pill">{}</span>', _("deactivated")),
    )


def game_link(game: Game) -> str:
    return format_html(
        '<a href="{}">#{} {}</a>', reverse("admin:games_game_change", args=[game.pk]), game.pk, game.variant_label
    )


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("position", "player", "played_by", "total_score", "joined_at", "moderate")
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("seats")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Seat]:
        return super().get_queryset(request).select_related("user", "game", "reserved_for")

    @admin.display(description=gettext_lazy("player"))
    def player(self, seat: Seat) -> str:
        if seat.user_id:
            return user_link(seat.user)
        if seat.reserved_for_id:  # an open seat only the person invited may take
            return format_html("{} {}", _("held for"), user_link(seat.reserved_for))
        return "—"

    @admin.display(description=gettext_lazy("played by"))
    def played_by(self, seat: Seat) -> str:
        if seat.is_bot:
            return _("bot %(name)s (%(level)s)") % {"name": seat.bot_name, "level": seat.get_bot_level_display()}
        return _("the player") if seat.user_id else _("open seat")

    @admin.display(description=gettext_lazy("moderation"))
    def moderate(self, seat: Seat) -> str:
        if seat.game.status != Game.Status.ACTIVE or seat.is_bot:
            return "—"
        url = reverse("admin:games_game_seat_to_bot", args=[seat.game_id, seat.position])
        return format_html('<a class="button" href="{}">{}</a>', url, _("Hand to a bot…"))


def card_text(code: Any) -> str:
    """A card as the site's lines of text name it, "10♣" (a tester read the codes "TC" and "QD", with English
    suit initials, on a moderator's page in Afrikaans); a stored code the site cannot read as it is."""
    try:
        return short_name(str(code))
    except (KeyError, IndexError):
        return str(code)


def describe_action(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "draw":
        return _("draws from the stock") if action.get("source") == "stock" else _("takes the discard")
    if kind == "discard":
        return _("discards %(card)s") % {"card": card_text(action.get("card"))}
    if kind == "go_out":
        return _("goes out, discarding %(card)s") % {"card": card_text(action.get("card"))}
    return str(action)


class GameAuditInline(AuditTargetMixin, ReadOnlyInline):
    model = AuditRecord
    fk_name = "game"
    fields = ("created_at", "actor", "action", "target_words", "reason")
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("moderation of this game")


def hand_seats_to_bot_step(
    model_admin: admin.ModelAdmin, request: HttpRequest, seats: list[Seat], *, action_name: str | None, back_url: str
) -> HttpResponse | None:
    """Ask for a reason, then hand each seat to a bot (from a game's page or the seat list)."""
    return moderation_step(
        model_admin,
        request,
        seats,
        form_class=SeatToBotForm,
        action_name=action_name,
        back_url=back_url,
        title=ngettext("Hand a seat to a bot", "Hand seats to a bot", len(seats)),
        button=_("Hand to a bot"),
        consequences=_(
            "A bot plays each seat from now on (at once if it is the seat's turn). The players "
            "stay on their seats for the history but can no longer move in these games."
        ),
        describe=lambda s: (
            _("seat %(position)s of game #%(id)s: %(name)s") % {"position": s.position, "id": s.game_id, "name": s.name}
        ),
        perform=lambda s, data: services.seat_hand_to_bot(
            game_id=s.game_id,
            position=s.position,
            moderator=request.user,
            reason=data["reason"],
            bot_level=data["bot_level"],
        ),
        done=lambda count: (
            ngettext("A bot plays %(count)s seat now.", "Bots play %(count)s seats now.", count) % {"count": count}
        ),
    )


class ReadOnlyAdmin(StrictLookupsMixin, admin.ModelAdmin):
    """Staff may look, nobody edits here: what games record changes only through the services.

    Filters: only the list's own (:class:`StrictLookupsMixin`), never the seed or the state.
    """

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class GameModerationAdmin(ReadOnlyAdmin):
    """Read-only, with the moderation actions (``permissions=["moderate"]``) of the Moderators group."""

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff and request.user.has_perm("games.moderate_game")


@admin.register(Game)
class GameAdmin(GameModerationAdmin):
    """Read-only: a game changes only through the services (moderation actions below).

    The engine state and the seed are left out: with them anyone could read
    the hands and the stock of a game in play.
    """

    list_display = ("id", "variant_shown", "status", "players", "created_at")
    list_filter = ("status", "variant", "created_at", PlayerFilter)
    search_fields = ("seats__user__username", "seats__user__display_name", "created_by__username")
    search_help_text = gettext_lazy("Search by a player's user name or display name.")
    date_hierarchy = "created_at"
    list_select_related = ("variant",)
    fields = (
        "variant_shown",
        "variant",
        "status",
        "created_by",
        "seat_count",
        "time_limit",
        "coach",
        "version",
        "current_seat",
        "created_at",
        "started_at",
        "finished_at",
        "updated_at",
        "rule_options",
    )
    readonly_fields = fields
    # Round results and the move log are plain read-only tables below the inlines (change_form.html):
    # a whole game has a thousand moves or more, and an inline row costs far more to render.
    inlines = [SeatInline, GameAuditInline]
    actions = ["abort_games"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Game]:
        return super().get_queryset(request).prefetch_related("seats__user")

    @admin.display(description=Game._meta.get_field("variant_name").verbose_name, ordering="variant_name")
    def variant_shown(self, game: Game) -> str:
        """The variant's name in the reader's language (a built-in one's stored name is English)."""
        return game.variant_label

    @admin.display(description=gettext_lazy("players"))
    def players(self, game: Game) -> str:
        bot = _("bot")
        return ", ".join(f"{seat.name} ({bot})" if seat.is_bot else seat.name for seat in game.seats.all())

    @admin.display(description=gettext_lazy("time per move"))
    def time_limit(self, game: Game) -> str:
        return game.time_limit_label()

    @admin.display(description=gettext_lazy("rule options"))
    def rule_options(self, game: Game) -> str:
        try:
            rules = Rules.from_dict(game.rules)
        except RulesError as error:
            return describe_rules_error(error)
        from games.selectors import changed_rules_summary

        rounds = rules.changed_options().get("rounds")
        parts = [_("rounds %(rounds)s") % {"rounds": rounds_text(rounds)}] if rounds else []
        # in words, as the rules page says them (the engine's keys read as code in every language)
        parts += [f"{label}: {value}" for label, value in changed_rules_summary(rules, leave_out=["rounds"])]
        return "; ".join(parts) or _("classic (no option changed)")

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [
            path("<path:object_id>/abort/", wrap(self.abort_view), name="games_game_abort"),
            path(
                "<path:object_id>/seats/<int:position>/bot/", wrap(self.seat_to_bot_view), name="games_game_seat_to_bot"
            ),
        ] + super().get_urls()

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        game = self.get_object(request, unquote(object_id))
        extra_context = {
            **(extra_context or {}),
            "can_abort": game is not None
            and self.has_moderate_permission(request)
            and game.status in (Game.Status.OPEN, Game.Status.ACTIVE),
        }
        if game is not None and self.has_view_permission(request, game):
            names = {seat.position: seat.name for seat in game.seats.select_related("user")}
            extra_context["round_results"] = [
                {
                    "round": result.round_number,
                    "seat": result.seat,
                    "name": names.get(result.seat, "?"),
                    "hand_size": result.hand_size,
                    "wild": wild_rank_label(result.hand_size),
                    "points": result.points,
                    "went_out": result.went_out,
                    "melds": " · ".join(" ".join(card_text(card) for card in meld) for meld in result.melds),
                    "deadwood": " ".join(card_text(card) for card in result.deadwood),
                }
                for result in game.round_results.order_by("round_number", "seat")
            ]
            extra_context["move_log"] = [
                {
                    "seq": move.seq,
                    "round": move.round_number,
                    "seat": move.seat,
                    "name": names.get(move.seat, "?"),
                    "action": describe_action(move.action),
                    "by_bot": move.by_bot,
                    "time": move.created_at,
                }
                for move in game.moves.order_by("seq")
            ]
        return super().change_view(request, object_id, form_url, extra_context)

    # The moderation actions ------------------------------------------------------

    def _abort(
        self, request: HttpRequest, games: list[Game], *, action_name: str | None, back_url: str
    ) -> HttpResponse | None:
        return moderation_step(
            self,
            request,
            games,
            form_class=AbortForm,
            action_name=action_name,
            back_url=back_url,
            title=_("Abort games"),
            button=_("Abort"),
            consequences=_(
                "An aborted game stops for good: no more moves, nothing is rated. The players see "
                "that it was aborted, and why, on the game page."
            ),
            describe=lambda game: f"{game} ({game.get_status_display()}): {self.players(game)}",
            perform=lambda game, data: services.game_abort(
                game_id=game.pk, moderator=request.user, reason=data["reason"]
            ),
            done=lambda count: (
                ngettext("%(count)s game aborted.", "%(count)s games aborted.", count) % {"count": count}
            ),
        )

    @admin.action(description=gettext_lazy("Abort the selected games…"), permissions=["moderate"])
    def abort_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        return self._abort(request, list(queryset), action_name="abort_games", back_url=request.get_full_path())

    def _moderated_game(self, request: HttpRequest, object_id: str) -> Game:
        if not self.has_moderate_permission(request):
            raise PermissionDenied
        game = self.get_object(request, unquote(object_id))
        if game is None:
            raise NotFound(_("There is no such game."))
        return game

    def abort_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        game = self._moderated_game(request, object_id)
        back = reverse("admin:games_game_change", args=[game.pk])
        # Without an action name the step always answers (the page, or a redirect once done).
        return self._abort(request, [game], action_name=None, back_url=back) or HttpResponseRedirect(back)

    def seat_to_bot_view(self, request: HttpRequest, object_id: str, position: int) -> HttpResponse:
        game = self._moderated_game(request, object_id)
        seat = game.seats.select_related("user").filter(position=position).first()
        if seat is None:
            raise NotFound(_("There is no such seat."))
        back = reverse("admin:games_game_change", args=[game.pk])
        response = hand_seats_to_bot_step(self, request, [seat], action_name=None, back_url=back)
        return response or HttpResponseRedirect(back)


@admin.register(Seat)
class SeatAdmin(GameModerationAdmin):
    list_display = ("game", "position", "user", "bot_level", "total_score")
    list_filter = ("bot_level", "game__status")
    search_fields = ("user__username", "user__display_name", "=game__id")
    list_select_related = ("game", "user")
    actions = ["hand_to_bot"]

    @admin.action(description=gettext_lazy("Hand the selected seats to a bot…"), permissions=["moderate"])
    def hand_to_bot(self, request: HttpRequest, queryset: QuerySet[Seat]) -> HttpResponse | None:
        seats = list(queryset.select_related("game", "user"))
        return hand_seats_to_bot_step(self, request, seats, action_name="hand_to_bot", back_url=request.get_full_path())


@admin.register(Move)
class MoveAdmin(ReadOnlyAdmin):
    list_display = ("game", "seq", "round_number", "seat", "action", "by_bot", "created_at")
    search_fields = ("=game__id",)
    list_select_related = ("game",)


@admin.register(RoundResult)
class RoundResultAdmin(ReadOnlyAdmin):
    list_display = ("game", "round_number", "seat", "hand_size", "points", "went_out")
    search_fields = ("=game__id",)
    list_select_related = ("game",)


@admin.register(AuditRecord)
class AuditRecordAdmin(AuditTargetMixin, ReadOnlyAdmin):
    """The audit log: nobody adds, changes or deletes a record here (superusers neither)."""

    list_display = ("created_at", "actor", "action", "target_words", "reason")
    list_filter = ("action", "created_at")
    search_fields = ("actor__username", "target_user__username", "target", "reason", "=game__id")
    date_hierarchy = "created_at"
    list_select_related = ("actor", "target_user", "game")
    fields = ("created_at", "actor", "action", "target_words", "game", "seat_position", "target_user", "reason")
    readonly_fields = fields

    def get_actions(self, request: HttpRequest) -> dict:
        return {}  # not even "delete selected"
