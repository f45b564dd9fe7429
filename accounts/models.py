from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A person who plays.  Bots are not users: they live on their seat."""

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
    notify_by_email = models.BooleanField(
        _("e-mail me when it is my turn"),
        default=False,
        help_text=_("In games played over days, send an e-mail when a turn starts."),
    )

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.shown_name
