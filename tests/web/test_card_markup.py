"""The one card markup (``{% card %}``, ``games/templatetags/cards.py``), byte for byte: the browser,
accessibility and hidden-information tests read these attributes and names."""

from __future__ import annotations

from django.template import engines
from django.utils import translation

from games import presentation
from games.templatetags.cards import card_html

INNER = (
    '<span class="card-rank" aria-hidden="true">7</span><span class="card-suit" aria-hidden="true">♥</span>'
    '<span class="card-wild" aria-hidden="true">wild</span><span class="visually-hidden">7 of hearts (wild)</span>'
)


def render(source: str, face: dict) -> str:
    return engines["django"].from_string("{% load cards %}" + source).render({"face": face})


def test_every_variant_of_a_card():
    face = {**presentation.card_face("7H", ["7"]), "best": True}  # not discardable: can_discard is missing
    assert render("{% card face %}", face) == (
        f'<span class="card red wild" data-card="7H" title="7 of hearts (wild)">{INNER}</span>'
    )
    assert render('{% card face tag="div" img=True %}', face) == (
        '<div class="card red wild" data-card="7H" title="7 of hearts (wild)" role="img"'
        f' aria-label="7 of hearts (wild)">{INNER}</div>'
    )
    assert render("{% card face named=True %}", face) == (
        '<span class="card red wild" data-card="7H" data-name="7 of hearts (wild)"'
        f' title="7 of hearts (wild)">{INNER}</span>'
    )
    assert render("{% card face discard=True %}", face) == (
        '<button type="submit" name="card" value="7H" class="card red wild best" data-card="7H"'
        f' data-name="7 of hearts (wild)" title="Discard the 7 of hearts (wild)" disabled>{INNER}</button>'
    )
    assert render("{% card face short=True %}", face) == (
        '<span class="red"><span aria-hidden="true">7♥</span><span class="visually-hidden">7 of hearts (wild)</span>'
        "</span>"
    )


def test_a_card_that_may_be_discarded_a_plain_card_and_a_joker():
    assert 'title="Discard the king of spades">' in card_html(
        {**presentation.card_face("KS"), "can_discard": True}, discard=True
    )
    assert card_html(presentation.card_face("KS")) == (
        '<span class="card black" data-card="KS" title="king of spades"><span class="card-rank" aria-hidden="true">'
        'K</span><span class="card-suit" aria-hidden="true">♠</span><span class="visually-hidden">king of spades'
        "</span></span>"
    )
    assert card_html(presentation.card_face("XX"), short=True) == (
        '<span class="joker"><span aria-hidden="true">★</span><span class="visually-hidden">joker (wild)</span></span>'
    )


def test_the_words_are_in_the_readers_language_and_escaped_once():
    with translation.override("cs"):
        html = card_html({**presentation.card_face("7H", ["7"]), "can_discard": True}, discard=True)
    assert 'title="Odhodit: srdcová 7 (žolík)"' in html and ">žolík</span>" in html
    odd = {**presentation.card_face("7H"), "name": 'a<b & "c"', "can_discard": True}
    html = card_html(odd, discard=True)
    assert 'title="Discard the a&lt;b &amp; &quot;c&quot;"' in html and 'data-name="a&lt;b &amp; &quot;c&quot;"' in html
    assert "a<b" not in html and "&amp;amp;" not in html
