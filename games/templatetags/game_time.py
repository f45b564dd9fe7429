"""``time_left``: how long until a deadline, in the reader's language ("23 hours, 59 minutes").

Django's ``timeuntil`` takes its words from Django's own catalogs, which do
not have them in every language this site speaks (Croatian shows "23 hours,59
minutes"); these words are the site's own, translated with everything else.
"""

from __future__ import annotations

import datetime

from django import template
from django.utils import timezone
from django.utils.translation import gettext, ngettext

register = template.Library()


def _days(count: int) -> str:
    return ngettext("%(count)s day", "%(count)s days", count) % {"count": count}


def _hours(count: int) -> str:
    return ngettext("%(count)s hour", "%(count)s hours", count) % {"count": count}


def _minutes(count: int) -> str:
    return ngettext("%(count)s minute", "%(count)s minutes", count) % {"count": count}


def time_left_text(seconds: int) -> str:
    """The two largest units of ``seconds`` left (days and hours, or hours and minutes, or minutes)."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3_600)
    minutes = rest // 60
    if days:
        parts = [_days(days)] + ([_hours(hours)] if hours else [])
    elif hours:
        parts = [_hours(hours)] + ([_minutes(minutes)] if minutes else [])
    elif minutes:
        parts = [_minutes(minutes)]
    else:
        return gettext("less than a minute")
    # Translators: joins two lengths of time, as in "23 hours, 59 minutes".
    return gettext(", ").join(parts)


@register.filter
def time_left(deadline: datetime.datetime | None) -> str:
    """``{{ game.turn_deadline|time_left }}``: the time from now until ``deadline``."""
    if deadline is None:
        return ""
    return time_left_text(int((deadline - timezone.now()).total_seconds()))
