"""``{% current_zone_city as zone %}``: the active time zone named by its city in the active language
(:func:`accounts.zones.zone_city`), where a page says the zone of a time it shows."""

from __future__ import annotations

from django import template

from accounts.zones import current_zone_city

register = template.Library()
register.simple_tag(current_zone_city, name="current_zone_city")
