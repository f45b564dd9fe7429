from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from .models import User


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        label=_("E-mail"), help_text=_("Used only to reset your password and, if you ask, for turn notices.")
    )

    class Meta(UserCreationForm.Meta):  # type: ignore[name-defined]  # django-stubs does not declare this Meta
        model = User
        fields = ("username", "email")


class ProfileForm(forms.ModelForm):
    class Meta:
        model = User
        fields = ("display_name", "email", "language", "notify_by_email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        language = self.fields["language"]
        assert isinstance(language, forms.ChoiceField)  # the model field has choices
        language.choices = [("", _("Same as my browser")), *settings.LANGUAGES]
