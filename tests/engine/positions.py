"""Positions that several tests set up by hand, built in one place."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from games.engine import Card, Draw, GameState, GoOut, Phase, apply, parse_cards


def redemption_last_turn(base: GameState) -> GameState:
    """Seat 0's last turn of a redemption round of 3 cards, after its draw, in a game of two.

    Seat 1 went out with K♣ K♦ K♥ on the table; seat 0 holds K♠ 9♦ 2♣ 7♦, nothing that melds. Throwing
    the 9 leaves 9 points (the King is laid off onto the Kings); the hand scored alone would say 18.
    ``base`` is a fresh deal of such a game (its rules must have ``redemption`` and a first round of 3).
    """
    hands = (parse_cards("KS 9D 2C"), parse_cards("KC KD 4C"))
    placed = [*hands[0], *hands[1], *parse_cards("5S KH 7D")]
    rest = sorted((base.card_counter() - Counter(placed)).elements())
    state = replace(
        base,
        dealer=0,
        current_seat=1,
        phase=Phase.DRAW,
        hands=tuple(tuple(sorted(h)) for h in hands),
        discard_pile=parse_cards("5S"),
        stock=(*rest, *parse_cards("7D KH")),
    )
    state, _ = apply(state, 1, Draw("stock"))  # the King of hearts
    state, _ = apply(state, 1, GoOut(Card.from_code("4C")))  # K♣ K♦ K♥ on the table: the last turn is seat 0's
    state, _ = apply(state, 0, Draw("stock"))  # the 7 of diamonds: K♠ 9♦ 2♣ 7♦, nothing melds
    return state
