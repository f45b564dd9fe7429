"""Time zones as people read them: a zone's city in the reader's language, and the profile's list of zones
grouped by part of the world.

The cities' names in each language are CLDR's, by Babel ("Europe/Prague" is "Praha" in Czech, "Prag" in
Croatian, "Praag" in Afrikaans).  A zone with no city (``UTC``, ``Etc/GMT+5``, the old aliases such as
``US/Eastern``) keeps its name: Babel would call ``Etc/GMT+5`` "GMT+5", which is five hours *behind* GMT.
"""

from __future__ import annotations

import datetime
import functools
import unicodedata
from collections import Counter
from collections.abc import Sequence

from babel import Locale, UnknownLocaleError
from babel.core import get_global
from babel.dates import get_timezone_location
from django.utils import timezone
from django.utils.formats import date_format
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


def when(moment: datetime.datetime) -> str:
    """A moment in the reader's time zone and language (the active ones), with the zone's city."""
    return f"{date_format(timezone.localtime(moment), 'DATETIME_FORMAT')} ({current_zone_city()})"


def current_zone_city() -> str:
    """The active time zone (the reader's) named by its city in the active language."""
    return zone_city(timezone.get_current_timezone_name())


#: Cities that CLDR leaves in English (or in a short English form) in a language of the site: a tester read
#: "Easter", "Christmas" and "Khartoum" on the Croatian profile's list.
CITY_NAMES = {
    "hr": {
        "Africa/Khartoum": "Kartum",
        "Africa/Mogadishu": "Mogadišu",
        "America/Cayman": "Kajmanski otoci",
        "America/Martinique": "Martinik",
        "America/St_Kitts": "Sveti Kristofor",
        "America/St_Lucia": "Sveta Lucija",
        "America/St_Thomas": "Sveti Toma (Djevičanski otoci)",
        "America/St_Vincent": "Sveti Vincent",
        "Atlantic/Cape_Verde": "Zelenortski otoci",
        "Indian/Christmas": "Božićni otok",
        "Indian/Cocos": "Kokosovi otoci",
        "Indian/Comoro": "Komori",
        "Pacific/Easter": "Uskršnji otok",
        "Pacific/Wallis": "Wallis i Futuna",
    },
    "af": {"Indian/Christmas": "Kerseiland"},
}


@functools.lru_cache(maxsize=4096)
def _city(zone: str, language: str) -> str:
    if zone.split("/", 1)[0] not in REGIONS:
        return zone
    if named := CITY_NAMES.get(language, {}).get(zone):
        return named
    try:
        return str(get_timezone_location(zone, locale=Locale.parse(to_locale(language)), return_city=True))
    except (LookupError, UnknownLocaleError, ValueError):
        return zone.rsplit("/", 1)[-1].replace("_", " ")


def zone_choices(language: str | None = None, keep: str = "") -> list[tuple[str, str | Sequence[tuple[str, str]]]]:
    """The profile's choices: the browser's zone, UTC, then each part of the world's zones by city (in
    ``language``, sorted as its readers look a word up).  The other names the system knows (old aliases such
    as ``US/Eastern``, ``Etc/GMT+5``, which is five hours *behind* GMT) are not offered, but ``keep`` (the zone
    saved on the profile, which a browser may have given in an old spelling) stays on the list as it is."""
    language = language or get_language() or "en"
    aliases = get_global("zone_aliases")  # old names of zones (Europe/Kiev, Asia/Calcutta)
    grouped: dict[str, list[tuple[str, str]]] = {region: [] for region in REGIONS}
    for name in time_zone_names():
        region = name.split("/", 1)[0]
        if region in grouped and name not in aliases:
            grouped[region].append((name, zone_city(name, language)))
    listed = {name for zones in grouped.values() for name, _city in zones} | {"UTC"}
    choices: list[tuple[str, str | Sequence[tuple[str, str]]]] = [
        ("", gettext("Same as my browser")),
        ("UTC", "UTC"),
        *((str(REGIONS[region]), _by_city(zones, language)) for region, zones in grouped.items()),
    ]
    if keep and keep not in listed:
        choices.append((gettext("Other time zones"), [(keep, keep)]))
    return choices


#: Letters that the language sorts after the letter they are written on (Croatian Č after C, not beside it),
#: each with its base letter; Czech also sorts "ch" after "h".
OWN_LETTERS = {
    "hr": {"č": "c", "ć": "c", "đ": "d", "š": "s", "ž": "z"},
    "cs": {"č": "c", "ř": "r", "š": "s", "ž": "z"},
}


def _by_city(zones: list[tuple[str, str]], language: str) -> list[tuple[str, str]]:
    """Sorted by city as a reader of ``language`` looks one up; a city that two zones share says its zone's
    name too."""
    seen = Counter(city for _name, city in zones)
    labelled = [(name, f"{city} ({name})" if seen[city] > 1 else city) for name, city in zones]
    own = OWN_LETTERS.get(language.split("-")[0], {})
    czech = language.startswith("cs")
    return sorted(labelled, key=lambda zone: (_collation_key(zone[1], own, czech), zone[0]))


def _collation_key(text: str, own: dict[str, str], czech: bool) -> list[tuple[str, int]]:
    """Each letter as (its base letter, 0 for the base itself or its place among the letters of its own that
    follow it); other accents do not count (Á beside A).  Not a full collation: enough for city names."""
    key: list[tuple[str, int]] = []
    folded = text.casefold()
    i = 0
    while i < len(folded):
        ch = folded[i]
        if czech and folded.startswith("ch", i):
            key.append(("h", 1))
            i += 2
            continue
        if ch in own:
            key.append((own[ch], 1 + list(own).index(ch)))
        else:
            base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
            key.append((base or ch, 0))
        i += 1
    return key
