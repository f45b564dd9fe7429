"""The site's addresses plus the benches' trivial page (see ``bench/site.py``)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def trivial(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok\n", content_type="text/plain")


urlpatterns = [
    path("bench/trivial/", trivial),
    path("", include("threethirteen_site.urls")),
]
