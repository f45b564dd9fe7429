# ruff: noqa: E501  (Django's messages, word for word)
"""Django's admin messages that Django's Croatian catalog leaves untranslated (it lags behind Django's
wording: 61 of the admin's messages, among them the list pages' titles, "Show counts", the navigation's
filter box and the skip link a moderator meets on every page).

Listed here, with Django's exact wording, so that the site's catalogs carry them: the project's catalogs
come first (``LOCALE_PATHS``); the Afrikaans and Czech entries are Django's own translations, the Croatian
ones the site's.  A few at the end are missing from all three of Django's catalogs (the app list's column
heads, which a screen reader reads out on every page with the navigation; Django's Afrikaans "Add link" is
an order, "add a link") or only from the Croatian one of ``django.contrib.auth`` (the app's name, the
superuser box): the site translates those in every language.
``tests/web/test_translations.py`` fails while one of these has no translation.
Nothing reads this tuple; it exists to be extracted (as ``accounts/django_messages.py`` does for the
account pages).
"""

from django.utils.translation import gettext_noop, ngettext_lazy

MESSAGES = (
    gettext_noop("Empty"),
    gettext_noop("Not empty"),
    gettext_noop("Addition"),
    gettext_noop("Deletion"),
    gettext_noop("Added “%(object)s”."),
    gettext_noop("Changed “%(object)s” — %(changes)s"),
    gettext_noop("Deleted “%(object)s.”"),
    gettext_noop("Added {name} “{object}”."),
    gettext_noop("Changed {fields} for {name} “{object}”."),
    gettext_noop("Changed {fields}."),
    gettext_noop("Deleted {name} “{object}”."),
    gettext_noop("Hold down “Control”, or “Command” on a Mac, to select more than one."),
    gettext_noop("Select this object for an action - {}"),
    gettext_noop("The {name} “{obj}” was added successfully."),
    gettext_noop("You may edit it again below."),
    gettext_noop("The {name} “{obj}” was added successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may edit it again below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully."),
    gettext_noop("The %(name)s “%(obj)s” was deleted successfully."),
    gettext_noop("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?"),
    gettext_noop("View %s"),
    gettext_noop("We’re sorry, but the requested page could not be found."),
    gettext_noop(
        "There’s been an error. It’s been reported to the site administrators via email and should be fixed shortly. Thanks for your patience."
    ),
    gettext_noop("Breadcrumbs"),
    gettext_noop("You don’t have permission to view or edit anything."),
    gettext_noop("First, enter a username and password. Then, you’ll be able to edit more user options."),
    gettext_noop("Set password"),
    ngettext_lazy("Please correct the error below.", "Please correct the errors below.", 2),
    gettext_noop("This action will <strong>enable</strong> password-based authentication for this user."),
    gettext_noop("Disable password-based authentication"),
    gettext_noop("Enable password-based authentication"),
    gettext_noop("Skip to main content"),
    gettext_noop("Hide counts"),
    gettext_noop("Show counts"),
    gettext_noop("Clear all filters"),
    gettext_noop("Toggle theme (current theme: auto)"),
    gettext_noop("Toggle theme (current theme: light)"),
    gettext_noop("Toggle theme (current theme: dark)"),
    gettext_noop("Yes, I’m sure"),
    gettext_noop("Added:"),
    gettext_noop("Changed:"),
    gettext_noop("Deleted:"),
    gettext_noop(
        "Something’s wrong with your database installation. Make sure the appropriate database tables have been created, and make sure the database is readable by the appropriate user."
    ),
    gettext_noop("Toggle navigation"),
    gettext_noop("Sidebar"),
    gettext_noop("Start typing to filter…"),
    gettext_noop("Filter navigation items"),
    ngettext_lazy("entry", "entries", 2),
    gettext_noop("This object doesn’t have a change history. It probably wasn’t added via this admin site."),
    gettext_noop("Popup closing…"),
    gettext_noop("Save and view"),
    gettext_noop("View selected %(model)s"),
    gettext_noop("Thanks for spending some quality time with the web site today."),
    gettext_noop(
        "Please enter your old password, for security’s sake, and then enter your new password twice so we can verify you typed it in correctly."
    ),
    gettext_noop(
        "We’ve emailed you instructions for setting your password, if an account exists with the email you entered. You should receive them shortly."
    ),
    gettext_noop(
        "If you don’t receive an email, please make sure you’ve entered the address you registered with, and check your spam folder."
    ),
    gettext_noop("Your username, in case you’ve forgotten:"),
    gettext_noop(
        "Forgotten your password? Enter your email address below, and we’ll email instructions for setting a new one."
    ),
    gettext_noop("Select all objects on this page for an action"),
    gettext_noop("Select %s to view"),
    # missing from Django's Croatian, Afrikaans and Czech catalogs (Django 5.1's app list)
    gettext_noop("Model name"),
    gettext_noop("Add link"),
    gettext_noop("Change or view list link"),
    # Django's own, word for word, but ungrammatical or an order in Croatian (and "Change history" in
    # Afrikaans): "Promijeni igra" (the name after the verb stays in the nominative), "Promijeni povijest"
    # ("change the history").  The site says them as Django's Czech does, "igra: promjena" (and its
    # catalog's "View %s" in Croatian and Czech likewise).
    gettext_noop("Change %s"),
    gettext_noop("Change history: %s"),
    # django.contrib.auth's, missing (or left in English) in its Croatian catalog
    gettext_noop("Authentication and Authorization"),
    gettext_noop("superuser status"),
    gettext_noop("Raw passwords are not stored, so there is no way to see the user’s password."),  # a person's page
)
