"""``{% away_panel %}``: the profile's time-away panel (its own block, so the profile page only includes it)."""

from __future__ import annotations

from typing import Any

from django import template

from games import presentation, selectors
from games.forms import AwayForm

register = template.Library()


@register.inclusion_tag("games/_away_panel.html", takes_context=True)
def away_panel(context: template.Context) -> dict[str, Any]:
    """The signed-in person's allowance, time away going on or planned, and the form (bound, with its
    errors, when ``games.views.away`` sent the profile back with ``away_form``)."""
    request = context["request"]
    summary = selectors.away_summary(user=request.user)
    form = context.get("away_form") or AwayForm(allowance_days=min(summary["left_days"], summary["allowance_days"]))
    return {"away": summary, "away_form": form, "request": request, "csrf_token": context.get("csrf_token")}


@register.filter
def away_duration(duration: Any) -> str:
    """``{{ away.left|away_duration }}``: "3 days and 5 hours"."""
    return presentation.duration_text(duration)
