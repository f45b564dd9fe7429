"""One playing card, face up: the only place its markup lives.

    {% load cards %}{% card face %}

``face``: a card face from ``games.presentation`` (code, rank, suit, color, wild, name; a face in the
hand also has can_discard and best).  The container decides the size ("cards small" around it).
Options for the few variants:

    tag="div"     another element than a span (the discard pile's top card)
    img=True      role="img" and the card's name as its accessible name (a card standing alone)
    named=True    data-name, the card's name for the hand's arrange buttons
    discard=True  a submit button that discards the card (the hand when it is time to discard)
    short=True    only rank and suit as text in the card's colour (inside another button's label)

Screen readers hear every card's full name ("7 of hearts (wild)", translated: ``presentation.card_face``);
the rank, the suit symbol and the wild mark are for the eyes only.

Written in Python rather than as an included template: a table shows up to a few dozen cards, and
the template engine spent more on them than on the rest of the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

register = template.Library()


def card_html(
    face: Mapping[str, Any],
    *,
    tag: str = "span",
    img: bool = False,
    named: bool = False,
    discard: bool = False,
    short: bool = False,
) -> SafeString:
    """The markup of one card (see the module docstring for the options)."""
    raw_name = face.get("name", "")
    name = conditional_escape(raw_name)
    color = conditional_escape(face.get("color", ""))
    rank, suit = conditional_escape(face.get("rank", "")), conditional_escape(face.get("suit", ""))
    if short:
        return mark_safe(
            f'<span class="{color}"><span aria-hidden="true">{rank}{suit}</span>'
            f'<span class="visually-hidden">{name}</span></span>'
        )
    code = conditional_escape(face.get("code", ""))
    wild = face.get("wild")
    classes = f"card {color}" + (" wild" if wild else "") + (" best" if discard and face.get("best") else "")
    if discard:
        opening, closing = f'button type="submit" name="card" value="{code}"', "button"
        title = conditional_escape(_("Discard the %(card)s") % {"card": raw_name})
    else:
        opening = closing = conditional_escape(tag or "span")
        title = name
    data_name = f' data-name="{name}"' if discard or named else ""
    role = f' role="img" aria-label="{name}"' if img else ""
    disabled = " disabled" if discard and not face.get("can_discard") else ""
    wild_mark = f'<span class="card-wild" aria-hidden="true">{conditional_escape(_("wild"))}</span>' if wild else ""
    return mark_safe(
        f'<{opening} class="{classes}" data-card="{code}"{data_name} title="{title}"{role}{disabled}>'
        f'<span class="card-rank" aria-hidden="true">{rank}</span>'
        f'<span class="card-suit" aria-hidden="true">{suit}</span>'
        f'{wild_mark}<span class="visually-hidden">{name}</span></{closing}>'
    )


register.simple_tag(card_html, name="card")
