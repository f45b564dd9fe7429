import unicodedata
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import PasswordChangeForm, PasswordResetForm, SetPasswordForm, UserCreationForm
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest
from django.utils import translation
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from .models import User, validate_time_zone
from .names import name_key, reserved_reason
from .throttle import locked_message
from .zones import zone_choices


def _refuse_reserved(name: str) -> str:
    reason = reserved_reason(name)
    if reason:
        raise forms.ValidationError(reason, code="reserved")
    return name


class FocusOnFirstError:
    """Mixed into a form before Django's: shown again with errors, it puts the cursor in the first field to
    correct, not in the first field of the form (on a phone the error was below the fold and the cursor in the
    user name: an accessibility tester)."""

    fields: dict[str, forms.Field]
    errors: Any

    def full_clean(self) -> None:
        super().full_clean()  # type: ignore[misc]
        wrong = [name for name in self.fields if name in self.errors]
        if not wrong:
            return
        for field in self.fields.values():
            field.widget.attrs.pop("autofocus", None)
        self.fields[wrong[0]].widget.attrs["autofocus"] = True


class SignUpForm(FocusOnFirstError, UserCreationForm):
    email = forms.EmailField(
        label=_("E-mail"), help_text=_("Used only to reset your password and, if you ask, for turn notices.")
    )
    # Filled by games/static/games/timezone.js with the browser's zone; a bad value is dropped, not refused.
    time_zone = forms.CharField(
        required=False, max_length=64, widget=forms.HiddenInput(attrs={"data-browser-time-zone": ""})
    )

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]  # django-stubs does not declare this Meta
        model = User
        fields = ("username", "email", "time_zone")

    def clean_time_zone(self) -> str:
        zone = self.cleaned_data.get("time_zone") or ""
        try:
            validate_time_zone(zone)
        except forms.ValidationError:
            return ""
        return zone

    def clean_username(self) -> str:
        # Django's own check (a user name taken, whatever its case) first: it answers None after
        # recording its error.  Then ours; names that merely look like another's are refused by
        # User.validate_unique.
        username = super().clean_username()
        return _refuse_reserved(username) if username else username


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("display_name", "email", "language", "time_zone", "notify_by_email", "turn_sound", "chat_enabled")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        language = self.fields["language"]
        assert isinstance(language, forms.ChoiceField)  # the model field has choices
        language.choices = [("", _("Same as my browser")), *settings.LANGUAGES]
        model_field = User._meta.get_field("time_zone")
        self.fields["time_zone"] = forms.TypedChoiceField(
            label=capfirst(model_field.verbose_name),  # as Django labels the fields it makes from the model
            help_text=model_field.help_text,
            required=False,
            choices=zone_choices(keep=self.instance.time_zone or ""),
            empty_value="",
        )

    def clean_display_name(self) -> str:
        # Invisible characters (zero-width spaces and joiners, direction marks) only help to pose.
        name = "".join(ch for ch in self.cleaned_data["display_name"] if unicodedata.category(ch) != "Cf")
        name = " ".join(name.split())
        if self.cleaned_data["display_name"] and not name_key(name):
            raise forms.ValidationError(_("A name needs at least one visible letter."), code="invisible")
        if name and name != self.instance.display_name:
            # A display name chosen before the rule stays until it is changed.
            _refuse_reserved(name)
        return name


class LanguageAwarePasswordResetForm(PasswordResetForm):
    """Django's, with the e-mail in the account's language (the one on its profile), not in the
    language of whichever browser asked; an account without one gets the asking page's language."""

    def send_mail(
        self,
        subject_template_name: str,
        email_template_name: str,
        context: dict[str, Any],
        from_email: str | None,
        to_email: str,
        html_email_template_name: str | None = None,
    ) -> None:
        language = getattr(context.get("user"), "language", "") or translation.get_language()
        with translation.override(language):
            super().send_mail(
                subject_template_name, email_template_name, context, from_email, to_email, html_email_template_name
            )


class ThrottledPasswordChangeForm(FocusOnFirstError, PasswordChangeForm):
    """Django's, with a wrong current password counted as a failed log-in (django-axes) and the form
    refused while that person or address is locked out: else whoever finds a signed-in browser could
    guess the password there for as long as they liked."""

    def __init__(self, user: Any, *args: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
        self.request = request
        super().__init__(user, *args, **kwargs)

    def clean_old_password(self) -> str:
        from axes.handlers.proxy import AxesProxyHandler

        credentials = {"username": self.user.get_username()}
        if self.request is not None and AxesProxyHandler.is_locked(self.request, credentials):
            raise forms.ValidationError(locked_message(), code="locked")
        try:
            return super().clean_old_password()
        except forms.ValidationError:
            user_login_failed.send(sender=__name__, credentials=credentials, request=self.request)
            raise


class FocusedSetPasswordForm(FocusOnFirstError, SetPasswordForm):
    """Django's form of a new password chosen through a reset link, with the cursor in the field to correct."""
