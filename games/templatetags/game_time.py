"""``time_left``: how long until a deadline, in the reader's language ("23h 59m", "0:45").

The very text the page's countdown (games/static/games/clock.js) shows for the
same number of seconds, so the time left does not change its format when the
script takes over (or when a live update swaps the clock in again): the same
msgids, translated in both the django and the djangojs catalogs.  Under a
minute it is minutes and seconds, "0:45", as the countdown ticks.
"""

from __future__ import annotations

import datetime

from django import template
from django.utils import timezone
from django.utils.translation import gettext

register = template.Library()


def time_left_text(seconds: int) -> str:
    """``seconds`` as the countdown shows them: days, hours and minutes; hours and minutes; or m:ss."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes, rest = divmod(rest, 60)
    values = {"days": days, "hours": hours, "minutes": f"{minutes:02d}"}
    if days:
        # Translators: a countdown of days, hours and minutes, e.g. "2d 5h 07m" (as the page's countdown).
        return gettext("%(days)sd %(hours)sh %(minutes)sm") % values
    if hours:
        # Translators: a countdown of hours and minutes, e.g. "5h 07m" (as the page's countdown).
        return gettext("%(hours)sh %(minutes)sm") % values
    return f"{minutes}:{rest:02d}"


@register.filter
def time_left(deadline: datetime.datetime | None) -> str:
    """``{{ game.turn_deadline|time_left }}``: the time from now until ``deadline``."""
    if deadline is None:
        return ""
    return time_left_text(int((deadline - timezone.now()).total_seconds()))


@register.filter
def seconds_text(seconds: int | None) -> str:
    """``{{ clock.left_after|seconds_text }}``: a number of seconds as the countdown writes it."""
    return "" if seconds is None else time_left_text(seconds)
