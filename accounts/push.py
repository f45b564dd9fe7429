"""Web Push subscriptions: whether the feature is on, and keeping a person's browsers' subscriptions.

Off (and nothing of it shown or sent) unless ``VAPID_PUBLIC_KEY`` and ``VAPID_PRIVATE_KEY`` are set
(``manage.py vapid_keys`` makes a pair).  A browser subscribes on the profile (games/static/games/
push.js) and posts its subscription here; the clock worker sends turn notices to it
(games/services/push.py).

What a subscription may be: an https URL on a known push service (``PUSH_SERVICE_HOSTS``; the
server posts to it, so never an address of the server's own network), at most 1000 characters,
without user or password; a P-256 public key (65 bytes, a point on the curve) and a 16-byte auth
secret, both base64url.  An endpoint belongs to one person: another person posting it is refused.
A person keeps at most ``MAX_SUBSCRIPTIONS`` (the oldest go first).
"""

from __future__ import annotations

import base64
import binascii
import functools
import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django import forms
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .models import PushSubscription, User

#: Subscriptions one person keeps (their browsers and devices); the oldest are dropped beyond.
MAX_SUBSCRIPTIONS = 10
MAX_ENDPOINT_LENGTH = 1000

_BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "::1"}


def enabled() -> bool:
    """Web Push is on: both VAPID keys are configured."""
    return bool(settings.VAPID_PUBLIC_KEY and settings.VAPID_PRIVATE_KEY)


def b64url_decode(value: str) -> bytes:
    """Strict base64url (the padding may be left out); ValueError for anything else."""
    if not _BASE64URL.fullmatch(value):
        raise ValueError("not base64url")
    try:
        return base64.urlsafe_b64decode(value.rstrip("=") + "=" * (-len(value.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@functools.cache
def _public_key_of(private_key: str) -> str:
    number = int.from_bytes(b64url_decode(private_key), "big")
    key = ec.derive_private_key(number, ec.SECP256R1())
    return b64url_encode(public_point(key.public_key()))


def public_point(key: ec.EllipticCurvePublicKey) -> bytes:
    """The uncompressed point (65 bytes): the form of VAPID and browser keys."""
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def keys_match() -> bool:
    """The configured public key is the private key's (else every push service would refuse the notices)."""
    try:
        return _public_key_of(settings.VAPID_PRIVATE_KEY) == settings.VAPID_PUBLIC_KEY.rstrip("=")
    except ValueError:
        return False


def _host_allowed(host: str, scheme: str) -> bool:
    if not host:
        return False
    if settings.PUSH_ALLOW_LOOPBACK and host in _LOOPBACK_NAMES and scheme in ("http", "https"):
        return True
    if scheme != "https":
        return False
    try:
        ipaddress.ip_address(host)
        return False  # an address, not a push service's name
    except ValueError:
        pass
    return any(host == allowed or host.endswith("." + allowed) for allowed in settings.PUSH_SERVICE_HOSTS)


class SubscriptionForm(forms.Form):
    """The fields of the browser's ``subscription.toJSON()``: endpoint, keys.p256dh, keys.auth."""

    endpoint = forms.CharField(max_length=MAX_ENDPOINT_LENGTH, strip=False)
    p256dh = forms.CharField(max_length=100, strip=False)
    auth = forms.CharField(max_length=40, strip=False)

    def clean_endpoint(self) -> str:
        value = self.cleaned_data["endpoint"]
        refused = forms.ValidationError(
            gettext_lazy("That is not the address of a push service this site sends to."), code="bad_endpoint"
        )
        if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in value):
            raise refused
        try:
            parts = urlsplit(value)
            host = (parts.hostname or "").lower()
            parts.port  # noqa: B018  (a bad port raises here)
        except ValueError:
            raise refused from None
        if parts.username is not None or parts.password is not None or not _host_allowed(host, parts.scheme):
            raise refused
        return value

    def clean_p256dh(self) -> str:
        value = self.cleaned_data["p256dh"]
        try:
            raw = b64url_decode(value)
            if len(raw) != 65 or raw[0] != 4:
                raise ValueError("not an uncompressed point")
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
        except ValueError:
            raise forms.ValidationError(gettext_lazy("The browser's key is not valid."), code="bad_key") from None
        return value

    def clean_auth(self) -> str:
        value = self.cleaned_data["auth"]
        try:
            if len(b64url_decode(value)) != 16:
                raise ValueError("not 16 bytes")
        except ValueError:
            raise forms.ValidationError(gettext_lazy("The browser's secret is not valid."), code="bad_auth") from None
        return value

    def reasons(self) -> str:
        return " ".join(str(e) for errors in self.errors.values() for e in errors)


class PushRefused(Exception):
    """A subscription that cannot be kept (its message says why, in the reader's language)."""


def subscribe(user: User, *, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    """Keep this browser's subscription for ``user`` (the same endpoint again: its keys are renewed)."""
    try:
        with transaction.atomic():
            User.objects.select_for_update().filter(pk=user.pk).first()  # one change of a person's list at a time
            existing = PushSubscription.objects.filter(endpoint=endpoint).first()
            if existing is not None and existing.user_id != user.pk:
                raise PushRefused(
                    _("This browser's subscription belongs to another account: turn push notices off and on again.")
                )
            if existing is not None:
                existing.p256dh, existing.auth = p256dh, auth
                existing.save(update_fields=["p256dh", "auth"])
                return existing
            created = PushSubscription.objects.create(user=user, endpoint=endpoint, p256dh=p256dh, auth=auth)
            keep = PushSubscription.objects.filter(user=user).order_by("-created_at", "-pk")[:MAX_SUBSCRIPTIONS]
            PushSubscription.objects.filter(user=user).exclude(pk__in=list(keep.values_list("pk", flat=True))).delete()
            return created
    except IntegrityError:  # another request stored the same endpoint meanwhile
        raise PushRefused(_("This browser's subscription changed meanwhile: try again.")) from None


def unsubscribe(user: User, *, endpoint: str | None) -> int:
    """Forget ``user``'s subscription of that endpoint (``None``: all of theirs); how many were removed.
    Another person's subscription is never touched."""
    mine = PushSubscription.objects.filter(user=user)
    if endpoint is not None:
        mine = mine.filter(endpoint=endpoint)
    removed, _by_model = mine.delete()
    return removed


def panel(user: Any) -> dict[str, Any]:
    """What the profile's push panel shows (nothing when the feature is off)."""
    if not enabled() or user is None or not user.is_authenticated:
        return {"enabled": False}
    return {
        "enabled": True,
        "public_key": settings.VAPID_PUBLIC_KEY,
        "devices": PushSubscription.objects.filter(user=user).count(),
    }


def check_vapid_keys(app_configs: Any = None, **kwargs: Any) -> list[Any]:
    """System check: both VAPID keys or neither, and a public key that is the private key's."""
    from django.core.checks import Error

    public, private = settings.VAPID_PUBLIC_KEY, settings.VAPID_PRIVATE_KEY
    if bool(public) != bool(private):
        return [
            Error(
                "Set both VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY, or neither (push notices are off without them).",
                hint="manage.py vapid_keys prints a new pair.",
                id="accounts.E001",
            )
        ]
    if public and not keys_match():
        return [
            Error(
                "VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY: push services would refuse every notice.",
                hint="Set the two lines that manage.py vapid_keys printed together.",
                id="accounts.E002",
            )
        ]
    return []
