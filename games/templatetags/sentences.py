"""``{{ sentence|one_full_stop }}``: a translated sentence that ends on a name ending in a full stop keeps one."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString, mark_safe

from games.services.text import one_full_stop as _one_full_stop

register = template.Library()


@register.filter(is_safe=True)
def one_full_stop(text: str) -> str:
    cleaned = _one_full_stop(str(text))
    return mark_safe(cleaned) if isinstance(text, SafeString) else cleaned  # noqa: S308 (the same text, a dot less)
