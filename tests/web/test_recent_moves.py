import re

import pytest

from games import bots, services
from games.engine import GameState, view
from games.models import Game

from .conftest import logged_in

pytestmark = pytest.mark.django_db


def recent_lines(page: str) -> list[tuple[bool, str]]:
    """The recent moves' lines of a table page, newest first: (the reader's own, its text)."""
    section = page.split('class="panel recent"', 1)[1].split("</section>", 1)[0]
    return [
        (bool(mine), re.sub(r"<[^>]+>", "", text).strip())
        for mine, text in re.findall(r'<li data-recent="[^"]+"( data-mine)?>(.*?)</li>', section, re.S)
    ]


@pytest.mark.parametrize("seat_count", [2, 8])
def test_at_the_players_turn_the_recent_moves_reach_back_to_their_own_last_discard(make_user, classic, seat_count):
    """What every other seat did since the player's own discard is on their table when their turn comes
    (found by a tester at eight seats: the list held the last twelve moves, six turns, and the seven others
    play fourteen, so what the next player took, perhaps the player's own discard, was gone)."""
    ann = make_user("ann")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=seat_count,
        bot_count=seat_count - 1,
        bot_level="easy",
        seed=7,
        options={"rounds": [13], "decks": 4},
    )
    for _ in range(2):  # ann's turns, each after a whole lap of the bots
        game.refresh_from_db()
        state = GameState.from_dict(game.state)
        assert game.status == Game.Status.ACTIVE and state.current_seat == 0 and state.went_out is None
        for _step in range(2):  # draw, then discard (the bots' lap follows the discard)
            action = bots.choose_action(view(GameState.from_dict(game.state), 0), "easy")
            services.game_play(game_id=game.pk, user=ann, action=action, expected_version=game.version)
            game.refresh_from_db()
    state = GameState.from_dict(game.state)
    assert state.current_seat == 0 and state.went_out is None  # a whole lap of draws and discards, nothing else
    lines = recent_lines(logged_in(ann).get(f"/games/{game.pk}/").content.decode())
    own_discards = [i for i, (mine, text) in enumerate(lines) if mine and "discarded" in text]
    assert own_discards, lines  # the player's own last discard is still listed
    others = lines[: own_discards[0]]
    assert len(others) == 2 * (seat_count - 1), lines  # each other seat drew and discarded once since
    assert not any(mine for mine, _text in others)
