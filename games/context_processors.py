from collections.abc import Callable
from functools import cache
from typing import Any

from django.http import HttpRequest

from . import selectors


def turns_waiting(request: HttpRequest) -> dict[str, Any]:
    """How many games wait on the signed-in person (shown in the header).

    Counted only if the template shows it, and then once: the template calls ``turns_waiting`` as it
    calls any callable, and the table partial that a page fetches after every move, which has no
    header, never does.
    """
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    @cache
    def count() -> int:
        return selectors.turns_waiting_count(user=user)

    waiting: Callable[[], int] = count
    return {"turns_waiting": waiting}
