"""The admin's yes/no icons, with their text in the reader's language.

Django draws a boolean column or read-only field as an icon whose ``alt`` is Python's ``True`` or ``False``
(``django.contrib.admin.templatetags.admin_list._boolean_icon``, not translated): a moderator's screen
reader read "True" on every row of the users, moves and variants lists, whatever the language. The admin
looks the function up in that module each time it draws one, so replacing it there (``GamesConfig.ready``)
changes every list and change page at once; ``tests/web/test_admin_moderation.py`` checks it.
"""

from __future__ import annotations

from django.templatetags.static import static
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _


def boolean_icon(value: bool | None) -> SafeString:
    """Django's icon for ``value``, its ``alt`` in the active language."""
    name = {True: "yes", False: "no", None: "unknown"}[value]
    words = {True: _("yes"), False: _("no"), None: _("unknown")}[value]
    return format_html('<img src="{}" alt="{}">', static(f"admin/img/icon-{name}.svg"), words)


def use_translated_boolean_icons() -> None:
    from django.contrib.admin.templatetags import admin_list

    admin_list._boolean_icon = boolean_icon  # type: ignore[attr-defined]  # (a private function of Django's)
