import functools
import zoneinfo
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from .names import name_key


def time_zone_names() -> list[str]:
    """The IANA time zones a player may choose (zoneinfo's list, sorted)."""
    return sorted(zoneinfo_names())


@functools.cache
def zoneinfo_names() -> frozenset[str]:
    """Every IANA time zone name the system knows (read once: it walks the zone files), but the host's own
    ``localtime`` (UTC on a host without it) and ``Factory`` (no zone at all), which Debian's list holds."""
    return frozenset(zoneinfo.available_timezones()) - {"localtime", "Factory"}


def validate_time_zone(value: str) -> None:
    if value and value not in zoneinfo_names():
        raise ValidationError(_("“%(zone)s” is not a known time zone."), code="bad_time_zone", params={"zone": value})


NAME_TAKEN = _("That name is in use, or looks too much like a name in use: choose another.")


class CaseInsensitiveUserManager(UserManager["User"]):
    """Finds an account by its name whatever the case typed ("bertha" logs in as "Bertha"): names are
    unique regardless of case (the Lower("username") constraint below), so at most one matches."""

    def get_by_natural_key(self, username: str | None) -> "User":
        return self.get(**{f"{self.model.USERNAME_FIELD}__iexact": username})


class User(AbstractUser):
    """A person who plays.  Bots are not users: they live on their seat."""

    objects = CaseInsensitiveUserManager()  # type: ignore[misc]

    display_name = models.CharField(
        _("display name"),
        max_length=40,
        blank=True,
        help_text=_("The name other players see. Your user name is used when it is empty."),
    )
    language = models.CharField(
        _("language"),
        max_length=10,
        blank=True,
        choices=settings.LANGUAGES,
        help_text=_("Leave empty to follow your browser."),
    )
    # The language the site was last shown in to this person while ``language`` was left to the browser
    # (``UserLanguageMiddleware``): what their e-mails and push notices are written in.  Before it they
    # came in English to someone who read every page in Croatian.
    browser_language = models.CharField(
        _("language of the browser"),
        max_length=10,
        blank=True,
        db_default="",
        default="",
        editable=False,
    )
    time_zone = models.CharField(
        _("time zone"),
        max_length=64,
        blank=True,
        validators=[validate_time_zone],
        help_text=_("Deadlines and times are shown in this zone. Leave empty to follow your browser."),
    )
    notify_by_email = models.BooleanField(
        _("e-mail me when it is my turn or I am invited"),
        default=False,
        help_text=_("An e-mail when a turn starts in a game played over days, and when a player holds a seat for you."),
    )
    turn_sound = models.BooleanField(
        _("play a sound when it is my turn"),
        default=False,
        help_text=_("A short chime on an open page of this site when a turn comes to you."),
    )
    chat_enabled = models.BooleanField(
        _("show table talk"),
        default=True,
        help_text=_("The chat beside each table. When off, you see no messages and post none."),
    )
    # The names as a reader sees them (accounts.names.name_key), kept by save(): the database
    # refuses two users whose user names, or whose display names, look the same.  A display name
    # that looks like someone else's user name is refused by validate_unique (forms, the admin).
    username_key = models.TextField(unique=True, editable=False)
    display_name_key = models.TextField(editable=False, default="")  # "" without a display name

    class Meta(AbstractUser.Meta):  # type: ignore[name-defined]  # django-stubs does not declare this Meta
        constraints = [
            models.UniqueConstraint(
                Lower("username"),
                name="accounts_user_username_ci_unique",
                violation_error_message=_("A user with that username already exists."),
            ),
            models.UniqueConstraint(
                fields=["display_name_key"],
                condition=~models.Q(display_name_key=""),
                name="accounts_user_display_name_key_unique",
                violation_error_message=NAME_TAKEN,
            ),
        ]

    @property
    def notice_language(self) -> str:
        """The language of what the site sends this person: the one they chose, else their browser's, as
        last seen (``browser_language``), else the site's default."""
        return self.language or self.browser_language or settings.LANGUAGE_CODE

    @property
    def zone(self) -> ZoneInfo | None:
        """The chosen time zone, or None (none chosen, or a name the system no longer knows)."""
        return zone_or_none(self.time_zone)

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.shown_name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username_key = name_key(self.username)
        self.display_name_key = name_key(self.display_name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            keys = {"username": "username_key", "display_name": "display_name_key"}
            kwargs["update_fields"] = {*update_fields, *(keys[f] for f in update_fields if f in keys)}
        super().save(*args, **kwargs)

    def name_clashes(self, name: str) -> bool:
        """Whether ``name`` looks like another user's user name or display name."""
        key = name_key(name)
        if not key:
            return False
        others = User.objects.exclude(pk=self.pk) if self.pk else User.objects.all()
        return others.filter(models.Q(username_key=key) | models.Q(display_name_key=key)).exists()

    def validate_unique(self, exclude: Any = None) -> None:
        super().validate_unique(exclude)
        errors: dict[str, list[str]] = {}
        for field in ("username", "display_name"):
            if (exclude is None or field not in exclude) and self.name_clashes(getattr(self, field) or ""):
                errors[field] = [str(NAME_TAKEN)]
        if errors:
            raise ValidationError(errors)


def zone_or_none(name: str | None) -> ZoneInfo | None:
    """The time zone of that IANA name, or None for an empty or unknown name (never an error)."""
    if not name or name not in zoneinfo_names():
        return None
    return ZoneInfo(name)


class PushSubscription(models.Model):
    """One browser's Web Push subscription (the Push API's ``PushSubscription``), for turn notices.

    Made from the profile (accounts/push.py); an endpoint belongs to one person at a time.  Removed
    when its person turns notices off in that browser, or when the push service answers 404/410
    (the browser dropped it).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(_("endpoint"), max_length=1000, unique=True)
    p256dh = models.CharField(_("public key"), max_length=100, help_text=_("The browser's P-256 key, base64url."))
    auth = models.CharField(_("auth secret"), max_length=40, help_text=_("16 bytes, base64url."))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    last_sent_at = models.DateTimeField(_("last notice sent at"), null=True, blank=True)

    class Meta:
        ordering = ("user", "created_at")
        verbose_name = _("push subscription")
        verbose_name_plural = _("push subscriptions")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.endpoint[:60]}"

    def info(self) -> dict[str, Any]:
        """In the shape pywebpush takes (the browser's ``subscription.toJSON()``)."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}
