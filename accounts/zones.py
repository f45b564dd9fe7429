"""Time zones as people read them: a zone's city in the reader's language, and the profile's list of zones
grouped by part of the world.

The cities' names in each language are CLDR's, by Babel ("Europe/Prague" is "Praha" in Czech, "Prag" in
Croatian, "Praag" in Afrikaans).  A zone with no city (``UTC``, ``Etc/GMT+5``, the old aliases such as
``US/Eastern``) keeps its name: Babel would call ``Etc/GMT+5`` "GMT+5", which is five hours *behind* GMT.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from collections.abc import Sequence

from babel import Locale, UnknownLocaleError
from babel.core import get_global
from babel.dates import get_timezone_location
from django.utils.translation import get_language, gettext, to_locale
from django.utils.translation import gettext_lazy as _

from .models import time_zone_names

#: The parts of the world whose zones are named by a city, in the order the profile lists them.
REGIONS = {
    "Africa": _("Africa"),
    "America": _("America"),
    "Antarctica": _("Antarctica"),
    "Arctic": _("Arctic"),
    "Asia": _("Asia"),
    "Atlantic": _("Atlantic Ocean"),
    "Australia": _("Australia"),
    "Europe": _("Europe"),
    "Indian": _("Indian Ocean"),
    "Pacific": _("Pacific Ocean"),
}


def zone_city(zone: str, language: str | None = None) -> str:
    """The zone's city in ``language`` (the active one when None); the zone's own name when it has no city."""
    return _city(str(zone), language or get_language() or "en")


@functools.lru_cache(maxsize=4096)
def _city(zone: str, language: str) -> str:
    if zone.split("/", 1)[0] not in REGIONS:
        return zone
    try:
        return str(get_timezone_location(zone, locale=Locale.parse(to_locale(language)), return_city=True))
    except (LookupError, UnknownLocaleError, ValueError):
        return zone.rsplit("/", 1)[-1].replace("_", " ")


def zone_choices(language: str | None = None) -> list[tuple[str, str | Sequence[tuple[str, str]]]]:
    """The profile's choices: the browser's zone, UTC, each part of the world's zones by city (in
    ``language``, sorted), then every other zone name the system knows, as it is (so a zone saved before stays
    on the list)."""
    language = language or get_language() or "en"
    aliases = get_global("zone_aliases")  # old names of zones (Europe/Kiev): listed as they are, with the others
    grouped: dict[str, list[tuple[str, str]]] = {region: [] for region in REGIONS}
    others = []
    for name in time_zone_names():
        region = name.split("/", 1)[0]
        if region in grouped and name not in aliases:
            grouped[region].append((name, zone_city(name, language)))
        elif name != "UTC":
            others.append((name, name))
    return [
        ("", gettext("Same as my browser")),
        ("UTC", "UTC"),
        *((str(REGIONS[region]), _by_city(zones)) for region, zones in grouped.items()),
        (gettext("Other time zones"), others),
    ]


def _by_city(zones: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Sorted by city as a reader looks one up (Č beside C, not after Z); a city that two zones share (an old
    name kept as an alias) says its zone's name too."""
    seen = Counter(city for _name, city in zones)
    labelled = [(name, f"{city} ({name})" if seen[city] > 1 else city) for name, city in zones]
    return sorted(labelled, key=lambda zone: (_unaccented(zone[1]), zone[0]))


def _unaccented(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", text.casefold()) if not unicodedata.combining(ch))
