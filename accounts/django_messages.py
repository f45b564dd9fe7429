"""Django's own messages that the sign-up, log-in and password pages show, which Django's catalogs
leave untranslated in one of the site's languages (Croatian above all: its catalog lags behind
Django's wording, ``can't`` where Django now writes ``can’t``; Czech lacks a plural form).

Listed here, with Django's exact wording, so that the site's catalogs carry them: the project's
catalogs come first (``LOCALE_PATHS``), and ``tests/web/test_translations.py`` fails while one of
these has no translation.  Nothing reads this tuple; it exists to be extracted.
"""

from django.utils.translation import gettext_noop, ngettext_lazy

MESSAGES = (
    # django.contrib.auth.models.AbstractUser.username and the validator of user names
    gettext_noop("Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only."),
    gettext_noop("Enter a valid username. This value may contain only letters, numbers, and @/./+/-/_ characters."),
    # django.contrib.auth.forms
    gettext_noop("The two password fields didn’t match."),
    # django.contrib.auth.password_validation (the validators in settings.AUTH_PASSWORD_VALIDATORS)
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("The password is too similar to the %(verbose_name)s."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("This password is too common."),
    gettext_noop("Your password can’t be entirely numeric."),
    ngettext_lazy(
        "This password is too short. It must contain at least %d character.",
        "This password is too short. It must contain at least %d characters.",
        8,
    ),
    # django.contrib.auth.forms.PasswordChangeForm (Croatian's "Molim unesite ponovo" read clumsily: a tester)
    gettext_noop("Your old password was entered incorrectly. Please enter it again."),
    # django.core.validators.ProhibitNullCharactersValidator (any text field, given a forged NUL)
    gettext_noop("Null characters are not allowed."),
)
