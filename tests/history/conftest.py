"""Fixtures for history, record, replay, stats and ratings tests."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from games import bots, services
from games.engine import Discard, GameState, Rules, view
from games.history import ratings
from games.models import Game, Move, RoundResult, Seat, Variant

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def finish_with_bot_moves(game: Game, careless: Any = None) -> Game:
    """Play every person's turn with the bot's choice, through the service, to the end.

    ``careless``: a person who discards a card at random instead (a seeded choice): a player with
    mistakes for an analysis to find.  Seeded by the game's deal seed, not its number, which on
    PostgreSQL depends on the tests run before (sequences are not rolled back).
    """
    rng = random.Random(f"careless/{game.seed}")
    for _ in range(5000):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        assert game.current_seat is not None and game.state is not None
        seat = game.seats.get(position=game.current_seat)
        seen = view(GameState.from_dict(game.state), seat.position)
        action = bots.choose_action(seen)
        if careless is not None and seat.user_id == careless.pk and isinstance(action, Discard):
            action = rng.choice([a for a in seen.legal_actions if isinstance(a, Discard)])
        services.game_play(game_id=game.pk, user=seat.user, action=action, expected_version=game.version)
    raise AssertionError("the game did not end")


def make_finished_game(
    players: Sequence[Any],
    totals: Sequence[int],
    *,
    number: int = 0,
    rounds: Sequence[tuple[int, Sequence[int], int | None]] = (),
    variant_name: str = "Classic",
    rate: bool = True,
    left: Sequence[int] = (),
) -> Game:
    """A finished game written straight to the tables (no moves): for lists, stats and ratings.

    ``players``: users, or bot level strings.  ``rounds``: (hand size,
    points per seat, seat that went out first or None).  Totals are given
    separately so a fixture can state them by hand.  ``left``: seats whose person resigned.
    """
    variant = Variant.objects.filter(name=variant_name).first()
    game = Game.objects.create(
        variant=variant,
        variant_name=variant_name,
        rules=Rules().to_dict(),
        seed=number,
        seat_count=len(players),
        status=Game.Status.FINISHED,
        started_at=START + timedelta(hours=number),
        finished_at=START + timedelta(hours=number, minutes=30),
    )
    Seat.objects.bulk_create(
        [
            Seat(
                game=game,
                position=i,
                total_score=total,
                left=Seat.Left.RESIGNED if i in left else "",
                **({"bot_level": p, "bot_name": f"Bot{i}"} if isinstance(p, str) else {"user": p}),
            )
            for i, (p, total) in enumerate(zip(players, totals, strict=True))
        ]
    )
    RoundResult.objects.bulk_create(
        [
            RoundResult(
                game=game,
                round_number=r + 1,
                seat=i,
                hand_size=size,
                points=points[i],
                went_out=first == i,
                went_out_first=first == i,
            )
            for r, (size, points, first) in enumerate(rounds)
            for i in range(len(players))
        ]
    )
    if rate:
        ratings.game_rate(game_id=game.pk)
    return game


def add_moves(game: Game, moves: Sequence[tuple[int, int, bool]]) -> None:
    """Log moves (seat, round, played by a bot), in this order, for who played which turn (their actions are
    placeholders: for the stats and the round pages' marks, not the replay)."""
    Move.objects.bulk_create(
        Move(game=game, seq=seq, seat=seat, round_number=number, by_bot=by_bot, action={})
        for seq, (seat, number, by_bot) in enumerate(moves, start=1)
    )


@pytest.fixture
def finished_game_factory(db: Any):
    return make_finished_game
