"""Which rounds of a seat a bot played for a person after they left the game.

A person who resigns, or times out until the bot keeps their seat, stays on
the seat for the standings (they rank below everyone who stayed), but the
rounds the bot went on to play are not theirs: their stats leave them out
and the round pages say so.  A round is the bot's when the seat's person has
left and the bot made a move of that seat in it that the person never
followed with a move of their own.  So the round they left in is the bot's
(it finished it), every round after it too, and a round in which the bot
only covered a turn that ran out, before the person played on, stays theirs.

Both forms below apply that one rule: :func:`bot_round` inside a query (the
stats' aggregates), :func:`bot_rounds_from` on one game's moves (its pages).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from django.db.models import Exists, OuterRef, Q

from games.models import Game, Move, Seat

__all__ = ["bot_round", "bot_rounds_from", "first_bot_rounds", "left_in_round"]


def bot_round() -> Q:
    """A condition on ``RoundResult``: a bot played this round of the seat after its person left."""
    played_on = Move.objects.filter(game=OuterRef("game"), seat=OuterRef("seat"), by_bot=False, seq__gt=OuterRef("seq"))
    after_leaving = Move.objects.filter(
        game=OuterRef("game"), seat=OuterRef("seat"), round_number=OuterRef("round_number"), by_bot=True
    ).filter(~Exists(played_on))
    left = Seat.objects.filter(game=OuterRef("game"), position=OuterRef("seat")).exclude(left="")
    return Q(Exists(left)) & Q(Exists(after_leaving))


def bot_rounds_from(*, game: Game, seats: Iterable[Seat]) -> dict[int, int]:
    """For each seat whose person left: the first round the bot played for them (every later one is its too).

    One query, and none when nobody left.  A seat that left without the bot
    making a move for it afterwards (the game ended first) has no entry.
    """
    left = {s.position for s in seats if s.has_left}
    if not left:
        return {}
    moves = Move.objects.filter(game=game, seat__in=left).order_by("seq").values_list("seat", "round_number", "by_bot")
    return first_bot_rounds(moves, left)


def first_bot_rounds(moves: Iterable[tuple[int, int, bool]], left: Collection[int]) -> dict[int, int]:
    """:func:`bot_rounds_from` on a game's moves (seat, round, played by a bot), oldest first, and the
    positions whose person left."""
    first: dict[int, int] = {}
    for seat, round_number, by_bot in moves:
        if seat not in left:
            continue
        if not by_bot:
            first.pop(seat, None)  # the person played on: the bot's moves so far only covered their time
        elif seat not in first:
            first[seat] = round_number
    return first


def left_in_round(seats: Iterable[Seat], first: Mapping[int, int], round_number: int) -> dict[int, str]:
    """The seats a bot played in round ``round_number`` after their person left, with how they left
    (``presentation.round_result``'s ``left``)."""
    return {
        s.position: s.get_left_display() for s in seats if s.position in first and first[s.position] <= round_number
    }
