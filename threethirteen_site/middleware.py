"""Requests the site cannot store or look up are refused with a page, before any view runs; a typed
address of a button gets a page, not Django's blank 405."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import render

#: Where Django logs a request it refuses as suspicious (``threethirteen_site.logs``: one line, no traceback).
security_logger = logging.getLogger("django.security")


class RejectNulBytesMiddleware:
    """A NUL byte or a lone surrogate in the address, a posted form or a request header is a 400 page, not a 500.

    PostgreSQL text cannot hold NUL (``\\x00``): a view that looks a value up
    (``/rules/?variant=%00``, a history filter, a user name) would otherwise
    fail inside the database.  A lone surrogate (U+D800 to U+DFFF) cannot be
    written as UTF-8 at all: a form posted with ``charset=unicode_escape`` or
    ``utf-7`` decodes ``\\ud800`` into one, which then failed in the database
    (both of them), in a page that showed it back, or in a redirect.  Headers:
    the log-in throttle stores the user agent.  No real input needs these.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            unstorable = _holds_unstorable(request)
        except (TooManyFieldsSent, TooManyFilesSent, RequestDataTooBig) as refused:
            # Found by a tester: 1,200 parameters in an address were a 500 under `make run` (Django's own
            # 400 page read them again) and a traceback in the log for anyone who typed them.
            security_logger.warning("%s: %s", type(refused).__name__, refused)
            return render(request, "400.html", status=400)
        if unstorable:
            return render(request, "400.html", {"bad_character": True}, status=400)
        return self.get_response(request)


#: What no text of the site may hold: NUL and the UTF-16 surrogates.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _holds_unstorable(request: HttpRequest) -> bool:
    if UNSTORABLE.search(request.path):
        return True
    if any(UNSTORABLE.search(value) for name, value in request.META.items() if name.startswith("HTTP_")):
        return True
    for data in (request.GET, request.POST if request.method == "POST" else None):
        if data is None:
            continue
        for key, values in data.lists():
            if UNSTORABLE.search(key) or any(UNSTORABLE.search(value) for value in values):
                return True
    return False


class NotAllowedPageMiddleware:
    """A GET of an address that only a button posts to (``/accounts/logout/``, ``/accounts/turn-sound/``,
    typed or bookmarked), or a POST to a page that only shows, is answered with the site's 405 page, in
    the reader's language, instead of the empty body of Django's ``HttpResponseNotAllowed``, which
    browsers show as an error of their own.  (A HEAD's answer has no body anyway.)

    The game's buttons do the same with a way back to their table (``games.views.post_only``).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if isinstance(response, HttpResponseNotAllowed) and request.method != "HEAD" and not response.content:
            # A page that only shows (GET in Allow) is linked: the reader may have meant to open it.
            shows = "GET" in response["Allow"] and request.method != "GET"
            page = render(request, "405.html", {"game": None, "page_url": request.path if shows else ""}, status=405)
            page["Allow"] = response["Allow"]
            return page
        return response
