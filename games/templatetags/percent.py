"""``{{ value|percent }}``, ``{{ value|percent:1 }}``: a percentage as the reader's language writes it.

English and Afrikaans write the sign against the number ("75%"); Croatian and Czech set it apart
("75 %", with a no-break space so that a narrow column never puts the sign on a line of its own), as
those catalogs' own sentences ("Hotovo 40 %") already did while the figures beside them said "40%".
The number itself is ``floatformat``'s: the reader's decimal comma.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.template.defaultfilters import floatformat
from django.utils.translation import gettext

register = template.Library()


@register.filter
def percent(value: Any, decimals: int = 0) -> str:
    if value is None or value == "":
        return ""
    # Translators: a percentage, e.g. "75%"; write the sign as your language does ("75 %": put a
    # no-break space, U+00A0, between them so that they stay on one line).
    return gettext("%(number)s%%") % {"number": floatformat(value, decimals)}
