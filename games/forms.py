from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from games.engine.rules import MAX_SEATS, MIN_SEATS
from games.engine.shuffle import MAX_CONTRIBUTION_LENGTH, check_contribution

from .models import BotLevel, Game, Variant


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


class GameCreateForm(forms.Form):
    variant = forms.ModelChoiceField(
        label=_("Variant"), queryset=Variant.objects.filter(is_active=True), empty_label=None
    )
    seat_count = forms.TypedChoiceField(
        label=_("Players"), coerce=int, initial=4, choices=[(n, str(n)) for n in range(MIN_SEATS, MAX_SEATS + 1)]
    )
    bot_count = forms.TypedChoiceField(
        label=_("Bots"),
        coerce=int,
        initial=0,
        choices=[(n, str(n)) for n in range(0, MAX_SEATS)],
        help_text=_("Seats played by the computer."),
    )
    bot_level = forms.ChoiceField(
        label=_("Bot level"),
        choices=BotLevel.choices,
        initial=BotLevel.MEDIUM,
        help_text=_(
            "Easy plays without much thought, medium keeps its penalty low, hard also counts the cards it has seen."
        ),
    )
    invite = forms.CharField(
        label=_("Invite players"),
        required=False,
        max_length=400,
        help_text=_("User names, separated by commas. Other seats stay open for anyone."),
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
    seed_contribution = contribution_field()

    def clean_invite(self) -> list:
        names = [name.strip() for name in self.cleaned_data["invite"].replace(";", ",").split(",") if name.strip()]
        users = []
        User = get_user_model()
        for name in dict.fromkeys(names):
            try:
                users.append(User.objects.get(username__iexact=name, is_active=True))
            except User.DoesNotExist:
                raise forms.ValidationError(_("No player is called “%(name)s”.") % {"name": name}) from None
        return users

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        seats, bots, invited = data.get("seat_count"), data.get("bot_count"), data.get("invite")
        if seats is not None and bots is not None and invited is not None:
            if 1 + bots + len(invited) > seats:
                raise forms.ValidationError(
                    _("%(seats)s seats cannot hold you, %(bots)s bot(s) and %(invited)s invited player(s).")
                    % {"seats": seats, "bots": bots, "invited": len(invited)}
                )
        return data


class JoinForm(forms.Form):
    """Taking a seat (lobby, table, invite page): the optional seed contribution."""

    seed_contribution = contribution_field()

    def reasons(self) -> str:
        return " ".join(str(e) for errors in self.errors.values() for e in errors)


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

    days = forms.IntegerField(
        label=_("Days away"),
        min_value=1,
        max_value=365,
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
