from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import check_for_language
from django.utils.translation import gettext as _
from django.views import i18n
from django.views.decorators.http import require_http_methods

from .forms import LanguageAwarePasswordResetForm, ProfileForm, SignUpForm, ThrottledPasswordChangeForm
from .models import NAME_TAKEN, User
from .throttle import password_reset_throttled, signup_throttled


def _save_unless_name_taken(form: SignUpForm | ProfileForm, field: str) -> User | None:
    """Save the form's user; None (and an error on ``field``) if another request took the name meanwhile.

    The forms check that a name is free; the database's unique keys decide when two requests race.
    """
    try:
        with transaction.atomic():
            return form.save()
    except IntegrityError:
        form.add_error(field, str(NAME_TAKEN))
        return None


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("games:lobby")
    if request.method == "POST" and (refused := signup_throttled(request)):
        return refused
    form = SignUpForm(request.POST or None)
    next_page = _next_page(request)  # e.g. the invite link that sent them here
    if request.method == "POST" and form.is_valid() and (user := _save_unless_name_taken(form, "username")):
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome, %(name)s! Your account is ready.") % {"name": user.shown_name})
        if next_page:
            return HttpResponseRedirect(next_page)  # never reversed: it is what the request said
        return redirect("games:lobby")  # where a newcomer finds a table; the profile is a link away
    context = {"form": form, "next": next_page}
    return render(request, "registration/signup.html", context, status=400 if form.errors else 200)


def _next_page(request: HttpRequest) -> str:
    """The page of this site to go on to (``next``, as Django's log-in takes it), or "" for none."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    if not target.startswith("/"):  # a path of this site only: not a URL's name, which redirect() would reverse
        return ""
    safe = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return target if safe else ""


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    # The form fills its own copy of the person: a refused change must not show in the page's header.
    person = request.user
    assert isinstance(person, User)  # login_required
    form = ProfileForm(request.POST or None, instance=User.objects.get(pk=person.pk))
    if request.method == "POST" and form.is_valid() and _save_unless_name_taken(form, "display_name"):
        messages.success(request, _("Your profile is saved."))
        return redirect("profile")
    return render(request, "accounts/profile.html", {"form": form}, status=400 if form.errors else 200)


@login_required
@require_http_methods(["POST"])
def turn_sound(request: HttpRequest) -> HttpResponse:
    """Turn the "your turn" chime on or off (the table's toggle; the profile has the same field).

    ``sound`` is "on" or anything else (off).  Posted by alerts.js with fetch: an empty answer;
    as a plain form: back to ``next`` when it is a page of this site, else to the profile.
    """
    user = request.user
    assert isinstance(user, User)
    on = request.POST.get("sound") == "on"
    User.objects.filter(pk=user.pk).update(turn_sound=on)
    if request.headers.get("X-Requested-With") == "fetch":
        return HttpResponse(status=204)
    next_page = _next_page(request)
    return HttpResponseRedirect(next_page) if next_page else redirect("profile")


@require_http_methods(["POST"])
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's language switch (cookie, then back to ``next`` if it is a page of this site);
    a signed-in person's choice is also saved on their profile, so it follows them to every
    device, to e-mails and to turn notices (accounts.middleware.UserLanguageMiddleware)."""
    response = i18n.set_language(request)
    language = request.POST.get("language", "")
    user = request.user
    if (
        isinstance(user, User)
        and user.is_authenticated
        and language in dict(settings.LANGUAGES)
        and check_for_language(language)
    ):
        User.objects.filter(pk=user.pk).update(language=language)
    return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's, with requests limited per address and per e-mail (accounts.throttle), and the e-mail
    in the account's language."""

    form_class = LanguageAwarePasswordResetForm

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return password_reset_throttled(request) or super().post(request, *args, **kwargs)


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's, with wrong current passwords counted towards the log-in lock (``ThrottledPasswordChangeForm``)."""

    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "request": self.request}
