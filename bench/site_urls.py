"""The site's addresses plus the benches' pages of known cost (see ``bench/site.py``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.urls import include, path

# The site's error handlers live in its root URLconf, which this one replaces: without this, a request that met
# a lost database connection got Django's 500 page here instead of the site's 503 "try again".
from threethirteen_site.urls import handler500  # noqa: F401


def trivial(request: HttpRequest) -> HttpResponse:
    """A short text, asked for without a cookie: no session, no database."""
    return HttpResponse("ok\n", content_type="text/plain")


def signed_in(request: HttpRequest) -> HttpResponse:
    """The signed-in person's name: their session and their user row read, nothing else (the least any page
    that knows who asks costs)."""
    return HttpResponse(f"{request.user.get_username()}\n", content_type="text/plain")


def empty_page(request: HttpRequest) -> HttpResponse:
    """The site's base template around nothing, as the signed-in person sees it: the header (with the count of
    the games waiting on them), the menu, the messages and the footer (the least any page of the site costs)."""
    return HttpResponse(_EMPTY_PAGE.render({}, request))


_EMPTY_PAGE = engines["django"].from_string('{% extends "base.html" %}{% block content %}{% endblock %}')


urlpatterns = [
    path("bench/trivial/", trivial),
    path("bench/signed-in/", signed_in),
    path("bench/empty-page/", empty_page),
    path("", include("threethirteen_site.urls")),
]
