from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation

from . import throttle
from .models import User, zone_or_none

#: The languages the site speaks.
LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)
#: The cookie games/static/games/timezone.js writes with the browser's IANA time zone.
TIME_ZONE_COOKIE = "tz"


class UserLanguageMiddleware:
    """Speak the language a signed-in person chose on their profile.

    Runs after ``LocaleMiddleware`` and ``AuthenticationMiddleware``; an empty
    choice keeps what ``LocaleMiddleware`` found (cookie, browser).  The choice is
    also kept in the language cookie, so that a page that cannot read the profile
    (the database is down: the "try again" page) still speaks it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        language = getattr(user, "language", "") if user is not None and user.is_authenticated else ""
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        elif isinstance(user, User) and user.is_authenticated:
            _remember_browser_language(request, user, translation.get_language())
        response = self.get_response(request)
        if language and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response


#: The language this session last wrote as the browser's (``_remember_browser_language``).
BROWSER_LANGUAGE_SESSION_KEY = "browser_language"


def _remember_browser_language(request: HttpRequest, user: User, shown: str) -> None:
    """Keep the language the browser got the page in (``User.browser_language``) for the person's e-mails
    and push notices: one UPDATE when it changes, none on the requests after (nor for a browser that reads
    the site's default language, which the notices fall back to anyway).  Once a session: signed in on two
    browsers that read two languages, the person's row was written on every request of either (a review)."""
    if shown not in LANGUAGE_CODES or request.session.get(BROWSER_LANGUAGE_SESSION_KEY) == shown:
        return
    if (user.browser_language or settings.LANGUAGE_CODE) != shown:
        request.session[BROWSER_LANGUAGE_SESSION_KEY] = shown
        user.browser_language = shown
        User.objects.filter(pk=user.pk).update(browser_language=shown)


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


class KnownDeviceMiddleware:
    """Writes the cookie that makes this browser known to the accounts that logged in on it
    (``accounts.throttle.remember_device``): their log-ins here are spared the account's lock-out."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        ids = getattr(request, "known_device_ids", None)
        if ids:
            response.set_signed_cookie(
                throttle.KNOWN_DEVICE_COOKIE,
                ",".join(str(known) for known in ids),
                salt=throttle.KNOWN_DEVICE_SALT,
                max_age=int(throttle.KNOWN_DEVICE_AGE.total_seconds()),
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response
