from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation

from .models import User, zone_or_none

#: The cookie games/static/games/timezone.js writes with the browser's IANA time zone.
TIME_ZONE_COOKIE = "tz"


class UserLanguageMiddleware:
    """Speak the language a signed-in person chose on their profile.

    Runs after ``LocaleMiddleware`` and ``AuthenticationMiddleware``; an empty
    choice keeps what ``LocaleMiddleware`` found (cookie, browser).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        language = getattr(user, "language", "") if user is not None and user.is_authenticated else ""
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


class UserTimeZoneMiddleware:
    """Show times in the reader's zone: the profile's, else the browser's (the ``tz`` cookie), else UTC.

    The database keeps UTC; only what is shown changes (``timezone.activate``).  A signed-in
    person whose profile has no zone yet gets the browser's zone saved on it, once, so that it
    follows them to e-mails and to their other devices.  A bad cookie is ignored.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        browser_zone = zone_or_none(request.COOKIES.get(TIME_ZONE_COOKIE, "")[:64])
        user = getattr(request, "user", None)
        zone = browser_zone
        if isinstance(user, User) and user.is_authenticated:
            if user.zone is not None:
                zone = user.zone
            elif browser_zone is not None:
                user.time_zone = browser_zone.key
                User.objects.filter(pk=user.pk, time_zone="").update(time_zone=browser_zone.key)
        request.time_zone = zone  # type: ignore[attr-defined]
        if zone is None:
            timezone.deactivate()
        else:
            timezone.activate(zone)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
