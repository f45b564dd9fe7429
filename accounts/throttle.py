"""Throttling of log-ins, password resets and sign-ups.

Log-ins (the site's form and the admin's: every ``authenticate()``) are watched by django-axes:
after ``AXES_FAILURE_LIMIT`` failures for one account (from any address) or from one address (for
any account) within ``AXES_COOLOFF_TIME``, further tries are refused until the cool-off has passed.
Failures are kept in the database (``axes.AccessAttempt``), so every server process sees them; a
success does not wipe anyone's failures (``AXES_RESET_ON_SUCCESS`` stays off, or an attacker could
reset an address's count by logging in to an account of their own between guesses).  A new password
chosen through a reset link does not lift the lock either: axes keeps one row per account and address,
so wiping the account's rows would also give the attacking address its tries back.

The lock of an account would let anyone keep its owner out (five wrong passwords every quarter of an
hour, before a game's turn), so a browser the owner has logged in on is spared it: a log-in leaves a
signed cookie naming the accounts that logged in there (``known_device``), and a try for one of them
from that browser is counted by its address alone (``lockout_parameters``).  Guessing from anywhere
else still meets the account's lock; the cookie cannot be made without the site's secret key.

Password resets and sign-ups send e-mail and create rows whether they "fail" or not, so they are
limited by request rate instead (django-ratelimit, counted in the cache): per address, and for
resets per e-mail address too, so that nobody can flood someone's inbox.

Every refusal is the page ``registration/throttled.html`` with status 429.

The client's address is ``REMOTE_ADDR`` unless the site stands behind a proxy: then the settings
``CLIENT_IP_HEADER`` (e.g. ``HTTP_X_FORWARDED_FOR``) and ``CLIENT_IP_PROXY_COUNT`` (how many proxies
of yours append to that header) say where to read it.  IPv6 addresses count per /64 network, which
is what one client usually holds.
"""

from __future__ import annotations

import ipaddress
import math
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django_ratelimit.core import get_usage

THROTTLED_TEMPLATE = "registration/throttled.html"


def client_ip(request: HttpRequest) -> str:
    """The client's address (IPv6: its /64 network), read as the settings say (see the module's docstring)."""
    remote = request.META.get("REMOTE_ADDR", "")
    header = getattr(settings, "CLIENT_IP_HEADER", "REMOTE_ADDR")
    value = remote
    if header != "REMOTE_ADDR":
        hops = [hop.strip() for hop in str(request.META.get(header, "")).split(",") if hop.strip()]
        count = max(1, int(getattr(settings, "CLIENT_IP_PROXY_COUNT", 1)))
        if hops:
            # Each proxy of ours appends the address it saw: the count-th entry from the right is the
            # client's; anything to its left was written by the client and proves nothing.
            value = hops[-count] if len(hops) >= count else hops[0]
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        try:
            address = ipaddress.ip_address(remote)
        except ValueError:
            return "0.0.0.0"  # no usable address at all (e.g. a unix socket): one shared bucket
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False).network_address)
    return str(address)


def axes_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The account a log-in try is for, case-folded: "ANN" and "ann" count as one account."""
    field = str(getattr(settings, "AXES_USERNAME_FORM_FIELD", "username"))
    if credentials is not None and field in credentials:
        username = credentials[field]
    else:
        username = request.POST.get(field)
    # No account's name is longer than the user model allows; axes stores the name in 255 characters, and a
    # longer one typed into a log-in form was a 500 on PostgreSQL.
    user_model = get_user_model()
    longest = getattr(user_model._meta.get_field(user_model.USERNAME_FIELD), "max_length", None) or 150
    return str(username).strip().casefold()[:longest] if username else None


KNOWN_DEVICE_COOKIE = "known_device"
KNOWN_DEVICE_SALT = "accounts.throttle.known_device"
KNOWN_DEVICE_AGE = timedelta(days=365)
#: The most accounts one browser is remembered for (the latest to log in there).
KNOWN_DEVICE_ACCOUNTS = 5


def known_accounts(request: HttpRequest) -> list[int]:
    """The ids of the accounts that logged in on this browser (its signed cookie; none if forged or old)."""
    value = request.get_signed_cookie(KNOWN_DEVICE_COOKIE, default="", salt=KNOWN_DEVICE_SALT, max_age=KNOWN_DEVICE_AGE)
    return [int(part) for part in str(value).split(",") if part.isdigit()][:KNOWN_DEVICE_ACCOUNTS]


def remember_device(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """``user_logged_in``'s receiver: this browser is now known to ``user`` (``KnownDeviceMiddleware``
    writes the cookie on the answer)."""
    if request is not None and user is not None and user.pk is not None:
        others = [known for known in known_accounts(request) if known != user.pk]
        request.known_device_ids = [user.pk, *others][:KNOWN_DEVICE_ACCOUNTS]  # type: ignore[attr-defined]


def lockout_parameters(request: Any, credentials: dict[str, Any] | None = None) -> list[str]:
    """What locks a log-in try (``AXES_LOCKOUT_PARAMETERS``): its account or its address, except that a
    try from a browser the account has logged in on is locked by its address alone."""
    if isinstance(request, HttpRequest):
        username = axes_username(request, credentials)
        known = known_accounts(request) if username else []
        if known and get_user_model().objects.filter(pk__in=known, username__iexact=username).exists():
            return ["ip_address"]
    return ["username", "ip_address"]


def _minutes(delta: timedelta | float | None) -> int:
    seconds = delta.total_seconds() if isinstance(delta, timedelta) else float(delta or 0)
    return max(1, math.ceil(seconds / 60))


def throttled_response(request: HttpRequest, *, message: str, minutes: int) -> HttpResponse:
    response = render(request, THROTTLED_TEMPLATE, {"message": message, "minutes": minutes}, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response


def locked_message() -> str:
    return _(
        "Too many failed log-in attempts for this account or from your address. "
        "Logging in is paused for a while to keep accounts safe."
    )


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """django-axes' answer to a locked-out log-in (``AXES_LOCKOUT_CALLABLE``)."""
    return throttled_response(request, message=locked_message(), minutes=_minutes(settings.AXES_COOLOFF_TIME))


def _ip_key(group: str, request: HttpRequest) -> str:
    return client_ip(request)


def _email_key(group: str, request: HttpRequest) -> str:
    return request.POST.get("email", "").strip().casefold()


def _over_limit(request: HttpRequest, group: str, key: Any, rate: str) -> int | None:
    """Count this request; the minutes until the limit lifts if it is now exceeded, else None."""
    usage = get_usage(request, group=group, key=key, rate=rate, method="POST", increment=True)
    if usage is None or not usage["should_limit"]:
        return None
    return _minutes(max(usage["time_left"], 60))


def password_reset_throttled(request: HttpRequest) -> HttpResponse | None:
    """A 429 page if this reset request is one too many for its address or its e-mail, else None."""
    minutes = _over_limit(request, "accounts.password_reset.ip", _ip_key, settings.THROTTLE_PASSWORD_RESET_PER_IP)
    if minutes is None and _email_key("", request):
        minutes = _over_limit(
            request, "accounts.password_reset.email", _email_key, settings.THROTTLE_PASSWORD_RESET_PER_EMAIL
        )
    if minutes is None:
        return None
    return throttled_response(
        request,
        message=_("Too many password reset requests. Wait a while before asking again."),
        minutes=minutes,
    )


def signup_throttled(request: HttpRequest) -> HttpResponse | None:
    """A 429 page if this sign-up try is one too many from its address, else None."""
    minutes = _over_limit(request, "accounts.signup.ip", _ip_key, settings.THROTTLE_SIGNUP_PER_IP)
    if minutes is None:
        return None
    return throttled_response(
        request, message=_("Too many sign-up attempts from your address. Wait a while and try again."), minutes=minutes
    )
