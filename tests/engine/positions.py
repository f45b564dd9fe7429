"""Positions that several tests set up by hand, built in one place."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from games.engine import Card, Draw, GameState, GoOut, Phase, apply, parse_cards


def two_hands(base: GameState, hands: tuple[str, str], *, discard: str, stock_top: str) -> GameState:
    """``base`` (a fresh deal of a game of two) with these hands, ``discard`` alone on the discard pile and
    ``stock_top`` the stock's next cards (the first named drawn first): seat 1 to draw, seat 0 the dealer."""
    dealt = (parse_cards(hands[0]), parse_cards(hands[1]))
    top = parse_cards(stock_top)
    rest = sorted((base.card_counter() - Counter([*dealt[0], *dealt[1], *parse_cards(discard), *top])).elements())
    return replace(
        base,
        dealer=0,
        current_seat=1,
        phase=Phase.DRAW,
        hands=tuple(tuple(sorted(h)) for h in dealt),
        discard_pile=parse_cards(discard),
        stock=(*rest, *reversed(top)),
    )


def redemption_last_turn(base: GameState) -> GameState:
    """Seat 0's last turn of a redemption round of 3 cards, after its draw, in a game of two.

    Seat 1 went out with K♣ K♦ K♥ on the table; seat 0 holds K♠ 9♦ 2♣ 7♦, nothing that melds. Throwing
    the 9 leaves 9 points (the King is laid off onto the Kings); the hand scored alone would say 18.
    ``base`` is a fresh deal of such a game (its rules must have ``redemption`` and a first round of 3).
    """
    state = two_hands(base, ("KS 9D 2C", "KC KD 4C"), discard="5S", stock_top="KH 7D")
    state, _ = apply(state, 1, Draw("stock"))  # the King of hearts
    state, _ = apply(state, 1, GoOut(Card.from_code("4C")))  # K♣ K♦ K♥ on the table: the last turn is seat 0's
    state, _ = apply(state, 0, Draw("stock"))  # the 7 of diamonds: K♠ 9♦ 2♣ 7♦, nothing melds
    return state
