from typing import Any

from django.http import HttpRequest

from . import selectors


def turns_waiting(request: HttpRequest) -> dict[str, Any]:
    """How many games wait on the signed-in person (shown in the header)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"turns_waiting": selectors.turns_waiting_count(user=user)}
