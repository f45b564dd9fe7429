"""Web Push from the profile: the service worker at the site's root, and a browser's subscription
posted (``subscribe``) or withdrawn (``unsubscribe``).

All of it answers 404 while Web Push is off (no VAPID keys).  The two endpoints take POST only
(a GET gets the site's 405 page), need the CSRF token and a signed-in person, and change only that
person's subscriptions.  push.js posts with fetch and reads a JSON answer; ``unsubscribe`` with
``all`` also works as a plain form (the profile's "turn off everywhere", without JavaScript).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.staticfiles import finders
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from threethirteen_site.errors import NotFound

from . import push
from .models import User

#: The service worker's source (served from the site's root so that its scope is the whole site).
SERVICE_WORKER = "games/sw.js"


def _post_only_when_enabled(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not push.enabled():
            raise NotFound(_("Push notices are not offered on this site."))
        if request.method != "POST":
            response = render(request, "405.html", {"game": None}, status=405)
            response["Allow"] = "POST"
            return response
        if not isinstance(request.user, User) or not request.user.is_authenticated:
            return JsonResponse({"ok": False, "error": _("Log in first.")}, status=403)
        return view(request, *args, **kwargs)

    return wrapper


@_post_only_when_enabled
def subscribe(request: HttpRequest) -> HttpResponse:
    """Keep this browser's subscription (``endpoint``, ``p256dh``, ``auth``) for the signed-in person."""
    form = push.SubscriptionForm(request.POST)
    if not form.is_valid():
        return JsonResponse({"ok": False, "error": form.reasons()}, status=400)
    assert isinstance(request.user, User)
    try:
        push.subscribe(request.user, **form.cleaned_data)
    except push.PushRefused as refused:
        return JsonResponse({"ok": False, "error": str(refused)}, status=409)
    return JsonResponse({"ok": True, "devices": push.panel(request.user)["devices"]})


@_post_only_when_enabled
def unsubscribe(request: HttpRequest) -> HttpResponse:
    """Forget this browser's subscription (``endpoint``), or all of the person's (``all``)."""
    assert isinstance(request.user, User)
    everywhere = request.POST.get("all") == "1"
    endpoint = request.POST.get("endpoint", "")
    if not everywhere and not (0 < len(endpoint) <= push.MAX_ENDPOINT_LENGTH):
        return JsonResponse({"ok": False, "error": _("Say which subscription to forget.")}, status=400)
    removed = push.unsubscribe(request.user, endpoint=None if everywhere else endpoint)
    if request.headers.get("X-Requested-With") == "fetch":
        return JsonResponse({"ok": True, "removed": removed, "devices": push.panel(request.user)["devices"]})
    messages.success(
        request,
        ngettext("Push notices are off on %(count)s device.", "Push notices are off on %(count)s devices.", removed)
        % {"count": removed},
    )
    return redirect("profile")


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js``: shows a turn notice when a push arrives, opens its table when it is clicked."""
    if not push.enabled():
        raise NotFound(_("Push notices are not offered on this site."))
    path = finders.find(SERVICE_WORKER)
    if not isinstance(path, str):
        raise Http404(SERVICE_WORKER)
    with open(path, "rb") as source:
        response = HttpResponse(source.read(), content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response
