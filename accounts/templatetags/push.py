"""``{% push_panel %}``: the profile's Web Push block (nothing at all while push is off)."""

from __future__ import annotations

from typing import Any

from django import template

from accounts import push

register = template.Library()


@register.inclusion_tag("accounts/_push_panel.html", takes_context=True)
def push_panel(context: template.Context) -> dict[str, Any]:
    request = context["request"]
    return {"push": push.panel(request.user), "csrf_token": context.get("csrf_token"), "request": request}
