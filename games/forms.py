from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.engine import Rules, RulesError
from games.engine.rules import MAX_SEATS, MIN_SEATS
from games.engine.shuffle import MAX_CONTRIBUTION_LENGTH, check_contribution
from games.engine.verify import noted_commitment

from .models import MESSAGE_MAX_LENGTH, BotLevel, Game, Variant
from .services import PLAY_NOW_BOTS


def _check_contribution(value: str) -> None:
    try:
        check_contribution(value)
    except ValueError:
        raise forms.ValidationError(
            _("Use plain characters only: letters A-Z, digits, spaces and punctuation."), code="not_printable"
        ) from None


def contribution_field() -> forms.CharField:
    """The optional seed contribution a person adds to the shuffles when creating or joining a game."""
    return forms.CharField(
        label=_("Your seed contribution"),
        required=False,
        max_length=MAX_CONTRIBUTION_LENGTH,
        validators=[_check_contribution],
        help_text=_(
            "Optional: any text, mixed into every shuffle of the game and shown to everyone. "
            "Empty: a random one is made for you."
        ),
    )


#: A number of seats of one kind (missing: none).
_SEAT_COUNT: dict[str, Any] = {
    "required": False,
    "empty_value": 0,
    "choices": [(n, str(n)) for n in range(0, MAX_SEATS)],
}


class GameCreateForm(forms.Form):
    variant = forms.ModelChoiceField(
        label=_("Variant"), queryset=Variant.objects.filter(is_active=True), empty_label=None
    )
    # Who sits at the table besides the creator: seats for people, and bots of each level (a mix is
    # fine).  The defaults suit a person alone: PLAY_NOW_BOTS medium bots, dealt at once.
    people = forms.TypedChoiceField(
        label=_("People"),
        coerce=int,
        initial=0,
        **_SEAT_COUNT,
        help_text=_("Seats for the people you invite, or for anyone who joins from the lobby."),
    )
    easy_bots = forms.TypedChoiceField(label=_("Easy bots"), coerce=int, initial=0, **_SEAT_COUNT)
    medium_bots = forms.TypedChoiceField(label=_("Medium bots"), coerce=int, initial=PLAY_NOW_BOTS, **_SEAT_COUNT)
    hard_bots = forms.TypedChoiceField(label=_("Hard bots"), coerce=int, initial=0, **_SEAT_COUNT)
    expert_bots = forms.TypedChoiceField(label=_("Expert bots"), coerce=int, initial=0, **_SEAT_COUNT)
    invite = forms.CharField(
        label=_("Invite players"),
        required=False,
        max_length=400,
        help_text=_(
            "User names, separated by commas: a seat is held for each until they take it (or the game starts "
            "without them). Other seats stay open for anyone."
        ),
    )
    time_limit_seconds = forms.TypedChoiceField(
        label=_("Time per move"), coerce=int, choices=Game.TIME_LIMIT_CHOICES, initial=24 * 3600
    )
    round_count = forms.IntegerField(
        label=_("Rounds"),
        required=False,
        min_value=1,
        max_value=30,
        help_text=_("Play only the first rounds of the variant (empty: all)."),
    )
    coach = forms.BooleanField(
        label=_("Coach"), required=False, help_text=_("Show next to each card the penalty left if you discard it.")
    )
    is_private = forms.BooleanField(
        label=_("Private"), required=False, help_text=_("Not listed in the lobby: people join through an invite link.")
    )
    players_only = forms.BooleanField(
        label=_("Players only"),
        required=False,
        help_text=_("Nobody else may watch (spectators only ever see the public table)."),
    )
    no_chat = forms.BooleanField(
        label=_("No table talk"),
        required=False,
        help_text=_("Nobody may post messages at this table (players and watchers alike)."),
    )
    seed_contribution = contribution_field()

    def __init__(self, *args: Any, creator: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.creator = creator  # who creates the game: not one of the people invited

    def clean_round_count(self) -> int | None:
        """At most the variant's own rounds: a larger number would quietly play them all."""
        count = self.cleaned_data.get("round_count")
        variant = self.cleaned_data.get("variant")
        if not count or variant is None:
            return count
        try:
            rounds = len(Rules.from_dict(variant.options).rounds)
        except RulesError:
            return count  # options the engine refuses: game_create says what is wrong with them
        if count > rounds:
            raise forms.ValidationError(
                ngettext(
                    "This variant has %(count)s round: choose %(count)s or fewer.",
                    "This variant has %(count)s rounds: choose %(count)s or fewer.",
                    rounds,
                )
                % {"count": rounds},
                code="too_many_rounds",
            )
        return count

    def clean_invite(self) -> list:
        """The people invited, each once, however their names were written (``Ann, ann``)."""
        names = [name.strip() for name in self.cleaned_data["invite"].replace(";", ",").split(",") if name.strip()]
        users: dict[int, Any] = {}
        User = get_user_model()
        for name in names:
            try:
                user = User.objects.get(username__iexact=name, is_active=True)
            except User.DoesNotExist:
                raise forms.ValidationError(_("No player is called “%(name)s”.") % {"name": name}) from None
            if self.creator is not None and user.pk == self.creator.pk:
                raise forms.ValidationError(_("You have a seat at your own table already: invite other players."))
            users.setdefault(user.pk, user)
        return list(users.values())

    def clean(self) -> dict[str, Any]:
        """Adds ``seat_count`` (the creator, the people's seats, the bots) and ``bot_levels`` (one per bot)."""
        data = super().clean() or {}
        counts = {level: data.get(f"{level}_bots") for level in BotLevel.values}
        people, invited = data.get("people"), data.get("invite")
        if people is None or any(count is None for count in counts.values()):
            return data  # a field error says what is wrong
        bot_levels = [level for level, count in counts.items() for _n in range(count or 0)]
        seats = 1 + people + len(bot_levels)
        if seats > MAX_SEATS:
            raise forms.ValidationError(
                _("A table has at most %(max)s seats: you, the people and the bots make %(seats)s.")
                % {"max": MAX_SEATS, "seats": seats}
            )
        if invited is not None and len(invited) > people:
            raise forms.ValidationError(
                _("You invited %(invited)s player(s) but left %(people)s seat(s) for people: add seats for them.")
                % {"invited": len(invited), "people": people}
            )
        if seats < MIN_SEATS:
            raise forms.ValidationError(_("Nobody to play with: add a bot or a seat for a person."))
        data["seat_count"], data["bot_levels"] = seats, bot_levels
        return data


class PlayNowForm(forms.Form):
    """ "Play now": the level of the bots, the one choice of a game dealt in one click."""

    bot_level = forms.ChoiceField(
        label=_("Bot level"), choices=BotLevel.choices, initial=BotLevel.MEDIUM, required=False
    )

    def clean_bot_level(self) -> str:
        return self.cleaned_data["bot_level"] or BotLevel.MEDIUM


class JoinForm(forms.Form):
    """Taking a seat (lobby, table, invite page): the optional seed contribution."""

    seed_contribution = contribution_field()

    def reasons(self) -> str:
        return " ".join(str(e) for errors in self.errors.values() for e in errors)


class NotedCommitmentForm(forms.Form):
    """The seed commitment a player wrote down at the table, to check a finished game's seed against.

    The record page's only check of the seed that does not take the site's
    word for it: the stored commitment comes from the same database as the
    seed.
    """

    commitment = forms.CharField(
        label=_("The commitment you noted"),
        max_length=200,
        help_text=_("64 hex digits (0-9, a-f), copied from the table before the deal."),
    )

    def clean_commitment(self) -> str:
        try:
            return noted_commitment(self.cleaned_data["commitment"])
        except ValueError:
            raise forms.ValidationError(
                _("A commitment is 64 hex digits (0-9, a-f), as the table showed it."), code="bad_commitment"
            ) from None


class ChatPostForm(forms.Form):
    """A chat message from the table: typed text or a quick phrase; the service checks everything else."""

    text = forms.CharField(required=False, strip=False, max_length=MESSAGE_MAX_LENGTH * 4)
    phrase = forms.CharField(required=False, max_length=20)
    channel = forms.CharField(required=False, max_length=10)


class PlayForm(forms.Form):
    """One action posted from the table; the service checks everything else."""

    version = forms.IntegerField(
        min_value=0,
        error_messages={
            "required": _("The form is missing the game version it was made for."),
            "invalid": _("The game version must be a whole number."),
        },
    )
    type = forms.CharField(max_length=20, error_messages={"required": _("Say which action you take.")})
    source = forms.CharField(max_length=20, required=False)
    card = forms.CharField(max_length=10, required=False)

    def action(self) -> dict:
        data = {"type": self.cleaned_data["type"].strip().lower()}
        if self.cleaned_data.get("source"):
            data["source"] = self.cleaned_data["source"].strip().lower()
        if self.cleaned_data.get("card"):
            data["card"] = self.cleaned_data["card"].strip()
        return data


class AwayForm(forms.Form):
    """Declaring time away (the profile): how many days, from now or from a later day.

    The range of days and of start days is checked by ``services.away_declare`` too (with the allowance).
    """

    # The range is the service's to check: it names the allowance ("Choose from 1 to 14 days"), where
    # the field's own bounds would say only "greater than or equal to 1".
    days = forms.IntegerField(
        label=_("Days away"),
        widget=forms.NumberInput(attrs={"min": 1}),
        error_messages={"invalid": _("Give a whole number of days."), "required": _("Say how many days.")},
    )
    start = forms.DateField(
        label=_("Starting on"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        input_formats=["%Y-%m-%d"],
        help_text=_("Leave empty to start now."),
        error_messages={"invalid": _("Give the day as year-month-day, e.g. 2027-07-14.")},
    )

    def __init__(self, *args: Any, allowance_days: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if allowance_days:
            self.fields["days"].widget.attrs["max"] = allowance_days
