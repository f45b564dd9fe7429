"""The admin: rule variants (superusers) and game moderation (the "Moderators" group).

* Variants: one form field per rule option of RULES.md; the engine's
  ``Rules`` decides what is valid (its message is shown next to the field);
  the change form shows the round table and the decks per player count.
* Games, seats, moves, round results: read-only for everyone.  Games change
  only through the moderation services (abort, hand a seat to a bot), each
  asking for a reason on a confirmation page and writing an audit record.
* Audit records: read-only for everyone, no add, change or delete.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine import Rules, RulesError, wild_rank_label

from . import services
from .forms import MAX_SEATS, MIN_SEATS
from .models import AuditRecord, BotLevel, Game, Move, RoundResult, Seat, Variant

# -- variants -------------------------------------------------------------------

#: The rule options, grouped as on the change form (the names of Rules.to_dict()).
DEAL_OPTIONS = ("rounds", "decks", "jokers_per_deck", "max_stock_rebuilds")
MELD_OPTIONS = ("aces", "max_wilds_per_meld", "all_wild_melds", "redemption", "bad_go_out_penalty")
SCORE_OPTIONS = ("ace_points", "face_points", "wild_points", "double_royal_rounds", "jokers_free")
RULE_OPTIONS = DEAL_OPTIONS + MELD_OPTIONS + SCORE_OPTIONS

_RANGE = re.compile(r"^(\d+)\s*(?:-|–|\.\.)\s*(\d+)$")


def rounds_text(rounds: Iterable[int]) -> str:
    """``[3, 4, ..., 13, 13, ..., 3]`` as ``"3-13, 13-3"``: runs of consecutive sizes become ranges."""
    parts: list[list[int]] = []
    for size in rounds:
        if parts and len(parts[-1]) >= 1:
            run = parts[-1]
            step = run[-1] - run[-2] if len(run) > 1 else size - run[-1]
            if step in (1, -1) and size - run[-1] == step:
                run.append(size)
                continue
        parts.append([size])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in parts)


def parse_rounds(text: str) -> list[int]:
    """Read ``"3-13, 13-3"`` or ``"3, 4, 5"``; only the shape is checked here, the sizes by the engine."""
    sizes: list[int] = []
    text = re.sub(r"\s*(-|–|\.\.)\s*", r"\1", text.strip())  # "3 - 13" is the range 3-13
    for part in re.split(r"[,;\s]+", text):
        part = part.strip()
        if not part:
            continue
        if part.isdigit():
            sizes.append(int(part))
            continue
        match = _RANGE.match(part)
        if not match:
            raise forms.ValidationError(
                _("“%(part)s” is not a hand size: write whole numbers or ranges like 3-13, separated by commas.")
                % {"part": part}
            )
        start, end = int(match[1]), int(match[2])
        if abs(end - start) > 40:
            raise forms.ValidationError(_("The range “%(part)s” is far too long.") % {"part": part})
        sizes.extend(range(start, end + 1) if start <= end else range(start, end - 1, -1))
    return sizes


class RoundsField(forms.CharField):
    def to_python(self, value: Any) -> list[int]:
        text = super().to_python(value)
        return parse_rounds(text) if text else []


class VariantForm(forms.ModelForm):
    """A variant with one field per rule option; ``Rules.from_dict`` judges the whole."""

    rounds = RoundsField(
        label=gettext_lazy("Rounds (hand sizes)"),
        max_length=200,
        required=False,
        help_text=gettext_lazy(
            "The list of hand sizes, in order, e.g. 3-13 (the classic 11 rounds of 3 to 13 cards). "
            "“Fourteens”/“Fifteens” add rounds of 14 and 15 cards in which Aces and 2s are wild (3-15); the "
            "“up and down” game plays 3..13 then 13..3 (3-13, 13-3: 22 rounds). The wild rank of a round is "
            "the rank equal to the number of cards dealt."
        ),
    )
    decks = forms.ChoiceField(
        label=gettext_lazy("Decks"),
        choices=[
            ("auto", gettext_lazy("auto: one deck for 2 players, two for 3-4, one more per 2 players")),
            ("1", "1"),
            ("2", "2"),
            ("3", "3"),
            ("4", "4"),
        ],
        help_text=gettext_lazy(
            "Number of 52-card decks. A game is refused if the decks cannot deal the largest "
            "round plus one up-card plus at least one stock card (see the table below)."
        ),
    )
    jokers_per_deck = forms.TypedChoiceField(
        label=gettext_lazy("Jokers per deck"),
        coerce=int,
        choices=[(0, "0"), (1, "1"), (2, "2")],
        help_text=gettext_lazy("Jokers are extra wild cards; an unmelded joker scores 20."),
    )
    max_stock_rebuilds = forms.IntegerField(
        label=gettext_lazy("Stock rebuilds"),
        help_text=gettext_lazy(
            "When the stock is empty, the discard pile less its top card is shuffled to "
            "become the new stock. After the stock has been rebuilt this many times, the next "
            "time it runs out the round ends at once and every player scores the hand they "
            "hold."
        ),
    )
    aces = forms.ChoiceField(
        label=gettext_lazy("Aces in runs"),
        choices=[
            ("low", gettext_lazy("low only: A-2-3 is a run, Q-K-A is not")),
            ("high_or_low", gettext_lazy("high or low: A-2-3 or Q-K-A (still no wrap-around K-A-2)")),
        ],
        help_text=gettext_lazy("High or low: an Ace may sit below 2 or above K in a run (still no wrap-around)."),
    )
    max_wilds_per_meld = forms.IntegerField(
        label=gettext_lazy("Wild cards per meld"),
        required=False,
        widget=forms.NumberInput(attrs={"placeholder": gettext_lazy("unlimited")}),
        help_text=gettext_lazy(
            "At most this many wild cards in one meld (one description allows 1); empty "
            "means unlimited. It wins over “melds of wild cards only”."
        ),
    )
    all_wild_melds = forms.BooleanField(
        label=gettext_lazy("Melds of wild cards only"),
        required=False,
        help_text=gettext_lazy(
            "A meld may be made only of wild cards. By default a meld needs at least one card that is not wild."
        ),
    )
    redemption = forms.BooleanField(
        label=gettext_lazy("Redemption"),
        required=False,
        help_text=gettext_lazy(
            "In the last turn after someone went out, a player may lay down melds and lay off "
            "cards onto any melds on the table (including stand-ins); who gets rid of every "
            "card but the discard scores 0."
        ),
    )
    bad_go_out_penalty = forms.ChoiceField(
        label=gettext_lazy("Failed go-out"),
        required=False,
        choices=[("", gettext_lazy("refused: nothing changes")), ("20", gettext_lazy("costs 20 points"))],
        help_text=gettext_lazy(
            "A go-out whose hand is not fully melded costs 20 points and the card is "
            "discarded as a normal discard; without it, the attempt is refused and nothing "
            "changes."
        ),
    )
    ace_points = forms.TypedChoiceField(
        label=gettext_lazy("Unmelded Ace"),
        coerce=int,
        choices=[(1, gettext_lazy("1 point")), (15, gettext_lazy("15 points"))],
        help_text=gettext_lazy(
            "An unmelded Ace scores 15 (usually chosen with Aces high or low; the options are independent)."
        ),
    )
    face_points = forms.ChoiceField(
        label=gettext_lazy("Unmelded J, Q, K"),
        choices=[("10", gettext_lazy("10 points each")), ("11-12-13", gettext_lazy("11, 12 and 13 points"))],
        help_text=gettext_lazy("Jack, Queen, King score 11, 12, 13 instead of 10 each."),
    )
    wild_points = forms.ChoiceField(
        label=gettext_lazy("Unmelded wild card"),
        choices=[("face", gettext_lazy("its own value")), ("15", gettext_lazy("15 points"))],
        help_text=gettext_lazy(
            "An unmelded wild-rank card scores 15 (a joker stays 20; in 14- and 15-card rounds Aces and 2s both)."
        ),
    )
    double_royal_rounds = forms.BooleanField(
        label=gettext_lazy("Double royal rounds"),
        required=False,
        help_text=gettext_lazy("Points of rounds where J, Q or K are wild (11, 12, 13 cards) are doubled."),
    )
    jokers_free = forms.BooleanField(
        label=gettext_lazy("Unmelded jokers free"),
        required=False,
        help_text=gettext_lazy(
            "An unmelded joker is laid on any player's melds at the end of the round and "
            "scores 0 (also when no melds are on the table); it never helps a player go "
            "out."
        ),
    )

    class Meta:
        model = Variant
        fields = ("name", "slug", "description", "is_active", "position")
        labels = {"is_active": gettext_lazy("Enabled")}
        help_texts = {
            "is_active": gettext_lazy(
                "Offered in the create-game form. Hidden variants stay on the games already played with them."
            )
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rules: Rules | None = None
        try:
            rules = Rules.from_dict(self.instance.options or {})
        except RulesError:
            rules = Rules()  # stored options the engine refuses: start from the defaults
        for option, value in rules.to_dict().items():
            self.fields[option].initial = self._as_field_value(option, value)

    @staticmethod
    def _as_field_value(option: str, value: Any) -> Any:
        if option == "rounds":
            return rounds_text(value)
        if option in ("decks", "wild_points"):
            return str(value)
        if option == "bad_go_out_penalty":
            return "" if value is None else str(value)
        return value

    @staticmethod
    def _as_option(option: str, value: Any) -> Any:
        """The form's value in the JSON form of ``Rules.to_dict()`` (only the type changes)."""
        if option in ("decks", "wild_points", "bad_go_out_penalty"):
            if value in ("", None):
                return None
            return int(value) if str(value).isdigit() else value
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if any(option in self.errors for option in RULE_OPTIONS):
            return data
        options = {option: self._as_option(option, data.get(option)) for option in RULE_OPTIONS}
        try:
            self.rules = Rules.from_dict(options)
        except RulesError as error:
            field = error.option if error.option in self.fields else None
            self.add_error(field, _("The rules engine refuses this: %(reason)s") % {"reason": error})
            return data
        self.instance.options = self.rules.to_dict()
        return data


def round_table(rules: Rules) -> list[dict[str, Any]]:
    """Hand size and wild rank of every round (the engine decides both)."""
    return [
        {"round": number, "hand_size": size, "wild": wild_rank_label(size), "doubled": rules.round_multiplier(size) > 1}
        for number, size in enumerate(rules.rounds, start=1)
    ]


def deck_table(rules: Rules) -> list[dict[str, Any]]:
    """Decks per number of players, and whether the engine can deal the largest round to them."""
    rows = []
    largest = max(rules.rounds)
    for players in range(MIN_SEATS, MAX_SEATS + 1):
        decks = rules.deck_count(players)
        try:
            rules.check_seats(players)
            problem = ""
        except RulesError as error:
            problem = str(error)
        rows.append(
            {
                "players": players,
                "decks": decks,
                "cards": decks * (52 + rules.jokers_per_deck),
                "needed": largest * players + 2,
                "problem": problem,
            }
        )
    return rows


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    """Only superusers add, change or delete variants; moderators may look."""

    form = VariantForm
    list_display = ("name", "slug", "is_active", "position", "round_count", "changed_options", "game_count")
    list_filter = ("is_active",)
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    fieldsets = (
        (None, {"fields": ("name", "slug", "description", "is_active", "position")}),
        (gettext_lazy("Deal"), {"fields": DEAL_OPTIONS}),
        (gettext_lazy("Melds and going out"), {"fields": MELD_OPTIONS}),
        (gettext_lazy("Penalty points"), {"fields": SCORE_OPTIONS}),
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.games.exists():
            return False  # hide it instead: games keep a link to the variant they were made from
        return request.user.is_active and request.user.is_superuser

    def get_fieldsets(self, request: HttpRequest, obj: Any = None):
        if self.has_change_permission(request, obj):
            return self.fieldsets
        # View-only: the option fields are form fields, so show the stored options in words instead.
        return ((None, {"fields": ("name", "slug", "description", "is_active", "position", "rules_in_words")}),)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None):
        return ("rules_in_words",) if not self.has_change_permission(request, obj) else ()

    @admin.display(description=gettext_lazy("rule options"))
    def rules_in_words(self, obj: Variant) -> str:
        from .selectors import rules_summary

        try:
            rows = rules_summary(Rules.from_dict(obj.options))
        except RulesError as error:
            return str(error)
        return format_html(
            '<table class="rules-in-words">{}</table>',
            format_html_join("", "<tr><th scope='row'>{}</th><td>{}</td></tr>", rows),
        )

    @admin.display(description=gettext_lazy("rounds"))
    def round_count(self, obj: Variant) -> str:
        try:
            return rounds_text(Rules.from_dict(obj.options).rounds)
        except RulesError:
            return "?"

    @admin.display(description=gettext_lazy("options that differ from the classic game"))
    def changed_options(self, obj: Variant) -> str:
        try:
            changed = Rules.from_dict(obj.options).changed_options()
        except RulesError as error:
            return str(error)
        changed.pop("rounds", None)
        return ", ".join(f"{key}={value}" for key, value in changed.items()) or "—"

    @admin.display(description=gettext_lazy("games"))
    def game_count(self, obj: Variant) -> int:
        return obj.games.count()

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Any = None,
    ) -> HttpResponse:
        form = context["adminform"].form
        rules = getattr(form, "rules", None)
        preview_of_unsaved = rules is not None and form.is_bound
        if rules is None:
            try:
                rules = Rules.from_dict(obj.options) if obj is not None else Rules()
            except RulesError:
                rules = None
        context.update(
            {
                "rules_preview": rules,
                "preview_of_unsaved": preview_of_unsaved,
                "round_rows": round_table(rules) if rules else [],
                "deck_rows": deck_table(rules) if rules else [],
            }
        )
        return super().render_change_form(request, context, add, change, form_url, obj)


# -- moderation: the confirmation page ------------------------------------------------


class ReasonForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        required=True,
        max_length=services.REASON_MAX_LENGTH,
        help_text=gettext_lazy("Required. Kept in the audit log with your name and the time."),
    )

    def clean_reason(self) -> str:
        try:
            return services.moderation_reason(self.cleaned_data["reason"])
        except services.GameError as error:
            raise forms.ValidationError(error.message) from None


class AbortForm(ReasonForm):
    reason = forms.CharField(
        label=gettext_lazy("Reason"),
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=services.REASON_MAX_LENGTH,
        help_text=gettext_lazy(
            "Required. The players see it on the game page; it is kept in the audit log with your name and the time."
        ),
    )


class SeatToBotForm(ReasonForm):
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
        "back_url": back_url,
        "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
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

    def lookups(self, request: HttpRequest, model_admin: Any):
        return (("", ""),)  # the filter is only shown when it has lookups

    def choices(self, changelist: Any):
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
        '<a href="{}">#{} {}</a>', reverse("admin:games_game_change", args=[game.pk]), game.pk, game.variant_name
    )


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("position", "player", "played_by", "total_score", "joined_at", "moderate")
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("seats")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Seat]:
        return super().get_queryset(request).select_related("user", "game")

    @admin.display(description=gettext_lazy("player"))
    def player(self, seat: Seat) -> str:
        return user_link(seat.user) if seat.user_id else "—"

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


def describe_action(action: dict[str, Any]) -> str:
    kind = action.get("type")
    if kind == "draw":
        return _("draws from the stock") if action.get("source") == "stock" else _("takes the discard")
    if kind == "discard":
        return _("discards %(card)s") % {"card": action.get("card")}
    if kind == "go_out":
        return _("goes out, discarding %(card)s") % {"card": action.get("card")}
    return str(action)


class GameAuditInline(ReadOnlyInline):
    model = AuditRecord
    fk_name = "game"
    fields = ("created_at", "actor", "action", "target", "reason")
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


class ReadOnlyAdmin(admin.ModelAdmin):
    """Staff may look, nobody edits here: what games record changes only through the services."""

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

    list_display = ("id", "variant_name", "status", "players", "created_at")
    list_filter = ("status", "variant", "created_at", PlayerFilter)
    search_fields = ("seats__user__username", "seats__user__display_name", "created_by__username")
    search_help_text = gettext_lazy("Search by a player's user name or display name.")
    date_hierarchy = "created_at"
    list_select_related = ("variant",)
    fields = (
        "variant_name",
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
            return str(error)
        changed = rules.changed_options()
        rounds = changed.pop("rounds", None)
        parts = [_("rounds %(rounds)s") % {"rounds": rounds_text(rounds)}] if rounds else []
        parts += [f"{key}={value}" for key, value in changed.items()]
        return "; ".join(parts) or _("classic (no option changed)")

    def get_urls(self):
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
                    "melds": " · ".join(" ".join(meld) for meld in result.melds),
                    "deadwood": " ".join(result.deadwood),
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
            describe=lambda game: f"#{game.pk} {game.variant_name} ({game.get_status_display()}): {self.players(game)}",
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
            raise Http404(_("There is no such game."))
        return game

    def abort_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        game = self._moderated_game(request, object_id)
        back = reverse("admin:games_game_change", args=[game.pk])
        return self._abort(request, [game], action_name=None, back_url=back)

    def seat_to_bot_view(self, request: HttpRequest, object_id: str, position: int) -> HttpResponse:
        game = self._moderated_game(request, object_id)
        seat = game.seats.select_related("user").filter(position=position).first()
        if seat is None:
            raise Http404(_("There is no such seat."))
        return hand_seats_to_bot_step(
            self, request, [seat], action_name=None, back_url=reverse("admin:games_game_change", args=[game.pk])
        )


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
class AuditRecordAdmin(ReadOnlyAdmin):
    """The audit log: nobody adds, changes or deletes a record here (superusers neither)."""

    list_display = ("created_at", "actor", "action", "target", "reason")
    list_filter = ("action", "created_at")
    search_fields = ("actor__username", "target_user__username", "target", "reason", "=game__id")
    date_hierarchy = "created_at"
    list_select_related = ("actor", "target_user", "game")
    fields = ("created_at", "actor", "action", "target", "game", "seat_position", "target_user", "reason")
    readonly_fields = fields

    def get_actions(self, request: HttpRequest) -> dict:
        return {}  # not even "delete selected"
