"""The site's addresses plus the benches' trivial page (see ``bench/site.py``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import include, path

# The site's error handlers live in its root URLconf, which this one replaces: without this, a request that met
# a lost database connection got Django's 500 page here instead of the site's 503 "try again".
from threethirteen_site.urls import handler500  # noqa: F401


def trivial(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok\n", content_type="text/plain")


urlpatterns = [
    path("bench/trivial/", trivial),
    path("", include("threethirteen_site.urls")),
]
