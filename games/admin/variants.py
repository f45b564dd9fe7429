"""Rule variants in the admin (superusers change them, moderators look).

One form field per rule option of RULES.md; the engine's ``Rules`` decides
what is valid (its message is shown next to the field); the change form
shows the round table and the decks per player count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import admin
from django.core import validators
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games.engine import Rules, RulesError, wild_rank_label
from games.engine.rules import MAX_SEATS, MIN_MELD_CARDS, MIN_SEATS
from games.models import Variant, variant_label
from games.services.rule_errors import describe_rules_error

from .lookups import StrictLookupsMixin

#: The rule options, grouped as on the change form (the names of Rules.to_dict()).
DEAL_OPTIONS = ("rounds", "decks", "jokers_per_deck", "max_stock_rebuilds")
MELD_OPTIONS = ("aces", "max_wilds_per_meld", "all_wild_melds", "redemption", "bad_go_out_penalty")
SCORE_OPTIONS = ("ace_points", "face_points", "wild_points", "double_royal_rounds", "jokers_free")
RULE_OPTIONS = DEAL_OPTIONS + MELD_OPTIONS + SCORE_OPTIONS

#: Hand sizes are written with the digits 0-9 (``\d`` would take ``١`` too), at most 3 of them.
_SIZE = r"[0-9]{1,3}"
_RANGE = re.compile(rf"^({_SIZE})\s*(?:-|–|\.\.)\s*({_SIZE})$", re.ASCII)
_NUMBER = re.compile(r"-?[0-9]+", re.ASCII)
#: Digits a number field takes: every option's limit is far below, and ``int()`` of 4,301 digits raises.
MAX_DIGITS = 6


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
        if re.fullmatch(_SIZE, part, re.ASCII):
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


class WholeNumberField(forms.IntegerField):
    """A whole number written with the digits 0-9 (and a leading minus), at most :data:`MAX_DIGITS` of them.

    Django's ``IntegerField`` reads ``int(text)``: it takes ``١`` (an Arabic-Indic one) as 1 and
    thousands of digits as a number; here both get a form error.
    """

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        text = str(value).strip()
        if text in self.empty_values:
            return None
        if not _NUMBER.fullmatch(text):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        if len(text.lstrip("-")) > MAX_DIGITS:
            raise forms.ValidationError(
                ngettext(
                    "Enter a number of at most %(digits)s digit.",
                    "Enter a number of at most %(digits)s digits.",
                    MAX_DIGITS,
                )
                % {"digits": MAX_DIGITS},
                code="too_long",
            )
        return int(text)


class RoundsField(forms.CharField):
    # Typed in text, cleaned to the list of hand sizes (CharField's to_python returns text).
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        # max_length limits the text typed, checked in to_python; CharField's own validator would
        # measure the cleaned list and refuse a long game "in at most 200 characters".
        self.validators = [v for v in self.validators if not isinstance(v, validators.MaxLengthValidator)]

    def to_python(self, value: Any) -> list[int]:  # type: ignore[override]
        text = super().to_python(value) or ""
        if self.max_length is not None and len(text) > self.max_length:
            # Before parsing: a refusal then never quotes thousands of characters back.
            raise forms.ValidationError(
                ngettext(
                    "Write the rounds in at most %(limit)s character.",
                    "Write the rounds in at most %(limit)s characters.",
                    self.max_length,
                )
                % {"limit": self.max_length},
                code="max_length",
            )
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
    max_stock_rebuilds = WholeNumberField(
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
    max_wilds_per_meld = WholeNumberField(
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
        field_classes = {"position": WholeNumberField}
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
        data = super().clean() or {}
        if any(option in self.errors for option in RULE_OPTIONS):
            return data
        options = {option: self._as_option(option, data.get(option)) for option in RULE_OPTIONS}
        try:
            self.rules = Rules.from_dict(options)
        except RulesError as error:
            field = error.option if error.option in self.fields else None
            self.add_error(field, describe_rules_error(error))
            return data
        limit = self.rules.max_wilds_per_meld
        if self.rules.all_wild_melds and limit is not None and limit < MIN_MELD_CARDS:
            # Not an engine error (the limit wins, RULES.md), but an option that can never apply: the
            # person who ticked it meant something else.
            self.add_error(
                "all_wild_melds",
                ngettext(
                    "A meld has at least 3 cards, so with at most %(count)s wild card per meld none is made of "
                    "wild cards only: leave this off, or allow 3 wild cards per meld or more.",
                    "A meld has at least 3 cards, so with at most %(count)s wild cards per meld none is made of "
                    "wild cards only: leave this off, or allow 3 wild cards per meld or more.",
                    limit,
                )
                % {"count": limit},
            )
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
            problem = describe_rules_error(error)
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
class VariantAdmin(StrictLookupsMixin, admin.ModelAdmin):
    """Only superusers add, change or delete variants; moderators may look."""

    form = VariantForm
    list_display = ("label", "slug", "is_active", "position", "round_count", "changed_options", "game_count")
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

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if self.has_change_permission(request, obj):
            return self.fieldsets
        # View-only: the option fields are form fields, so show the stored options in words instead, and the
        # name in the reader's language as the list does (a tester read the stored English under a Czech title).
        return ((None, {"fields": ("label", "slug", "description", "is_active", "position", "rules_in_words")}),)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("label", "rules_in_words") if not self.has_change_permission(request, obj) else ()

    @admin.display(description=gettext_lazy("name"), ordering="name")
    def label(self, obj: Variant) -> str:
        return variant_label(obj.name)

    @admin.display(description=gettext_lazy("rule options"))
    def rules_in_words(self, obj: Variant) -> str:
        from games.selectors import rules_summary

        try:
            rows = rules_summary(Rules.from_dict(obj.options))
        except RulesError as error:
            return describe_rules_error(error)
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
        from games.selectors import changed_rules_summary

        try:
            rows = changed_rules_summary(Rules.from_dict(obj.options), leave_out=["rounds"])  # a column of its own
        except RulesError as error:
            return describe_rules_error(error)
        return "; ".join(f"{label}: {value}" for label, value in rows) or "—"

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
