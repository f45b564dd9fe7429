from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation


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
