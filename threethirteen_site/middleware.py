"""Requests the site cannot store or look up are refused with a page, before any view runs."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


class RejectNulBytesMiddleware:
    """A NUL byte in the query string or a posted form is a 400 page, not a 500.

    PostgreSQL text cannot hold NUL (``\\x00``): a view that looks a value up
    (``/rules/?variant=%00``, a history filter, a user name) would otherwise
    fail inside the database.  No real input needs the character.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if _has_nul(request):
            return render(request, "400.html", status=400)
        return self.get_response(request)


def _has_nul(request: HttpRequest) -> bool:
    if "\x00" in request.path:
        return True
    for data in (request.GET, request.POST if request.method == "POST" else None):
        if data is None:
            continue
        for key, values in data.lists():
            if "\x00" in key or any("\x00" in value for value in values):
                return True
    return False
