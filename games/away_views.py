"""Time away, from the profile's panel (``games/_away_panel.html``): declare it, come back or cancel.

Thin like ``games.views``: the form reads the input, ``services.away_*`` decides.  A refusal sends
the profile page back with the panel's form and the reason (4xx), changing nothing.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from accounts.forms import ProfileForm

from . import services
from .forms import AwayForm
from .views import _refused, http_status, post_only


def _when(moment: object) -> str:
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")  # type: ignore[arg-type]


def _profile_with(request: HttpRequest, form: AwayForm, status: int) -> HttpResponse:
    return render(
        request, "accounts/profile.html", {"form": ProfileForm(instance=request.user), "away_form": form}, status=status
    )


@post_only
def away(request: HttpRequest) -> HttpResponse:
    """Declare time away: ``days`` and an optional ``start`` day (in the reader's time zone)."""
    if not request.user.is_authenticated:
        return _refused(request, services.GameError("not_logged_in", _("Log in first.")))
    form = AwayForm(request.POST)
    if not form.is_valid():
        return _profile_with(request, form, 400)
    try:
        absence = services.away_declare(
            user=request.user,
            days=form.cleaned_data["days"],
            start=form.cleaned_data["start"],
            zone=timezone.get_current_timezone(),
        )
    except services.GameError as error:
        form.add_error(None, error.message)
        return _profile_with(request, form, http_status(error))
    if absence.starts_at <= timezone.now():
        messages.success(
            request,
            _("You are away until %(until)s: your clocks in games over days are stopped.")
            % {"until": _when(absence.until)},
        )
    else:
        messages.success(
            request,
            _("Your time away is planned from %(start)s until %(until)s.")
            % {"start": _when(absence.starts_at), "until": _when(absence.until)},
        )
    return redirect("profile")


@post_only
def away_back(request: HttpRequest) -> HttpResponse:
    """Come back before the end (the clocks run again, with the paused time given back), or cancel
    time away that has not begun."""
    if not request.user.is_authenticated:
        return _refused(request, services.GameError("not_logged_in", _("Log in first.")))
    now = timezone.now()
    try:
        absence = services.away_come_back(user=request.user, now=now)
    except services.GameError as error:
        return _refused(request, error)
    if absence.starts_at > now:
        messages.success(request, _("Your planned time away is cancelled."))
    else:
        messages.success(request, _("Welcome back: your clocks run again."))
    return redirect("profile")
