"""Two submissions of the same move at the same moment: one plays, the other is refused."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from games import services

pytestmark = pytest.mark.django_db(transaction=True)


def test_racing_duplicate_submissions_play_once(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=4)
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    player = ann if game.current_seat == 0 else bob
    version, moves = game.version, game.moves.count()
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def submit() -> None:
        try:
            barrier.wait()
            services.game_play(
                game_id=game.pk, user=player, action={"type": "draw", "source": "stock"}, expected_version=version
            )
            outcomes.append("played")
        except services.GameError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["played", "stale_version"]
    game.refresh_from_db()
    assert game.moves.count() == moves + 1 and game.version == version + 1
