import re

import pytest

from games import bots, presentation, services
from games.engine import GameState, view
from games.models import Game

from .conftest import logged_in

pytestmark = pytest.mark.django_db


def recent_lines(page: str) -> list[tuple[bool, str]]:
    """The recent moves' lines of a table page, newest first: (the reader's own, its text)."""
    section = page.split('class="panel recent"', 1)[1].split("</section>", 1)[0]
    line = r'<li data-recent="[^"]+" data-said="[^"]*"( data-mine)?>(.*?)</li>'
    return [(bool(mine), re.sub(r"<[^>]+>", "", text).strip()) for mine, text in re.findall(line, section, re.S)]


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


def test_the_others_moves_are_said_with_each_card_by_its_name_and_the_wild_ranks_of_its_round():
    """An accessibility tester: the live announcements of the others' moves said "Ada discarded J♦", which screen
    readers read unevenly (some as "Ada discarded J"), and never that a card thrown away was wild.  The words said
    (``data-said``) name each card in full, wild or not as it was in its own round: the last discard of round 1
    (threes wild) is said with the threes, after round 2 (fours) was dealt."""
    from games.table import _spoken_faces

    names = {0: "Ada", 1: "Ben"}
    newest_first = [
        {"kind": "discarded", "seat": 1, "data": {"card": "4D"}},
        {"kind": "round_dealt", "seat": None, "data": {"round": 2, "hand_size": 4}},
        {"kind": "round_scored", "seat": None, "data": {"round": 1, "hand_size": 3}},
        {"kind": "went_out", "seat": 0, "data": {"card": "3S"}},
        {"kind": "discarded", "seat": 1, "data": {"card": "4H"}},
    ]
    faces = _spoken_faces(newest_first, wild=["4"])
    said = [presentation.describe_event(event, names, face) for event, face in zip(newest_first, faces, strict=True)]
    assert said == [
        "Ben discarded 4 of diamonds (wild).",
        "Round 2: 4 cards dealt.",
        "Round 1 is over.",
        "Ada went out, discarding 3 of spades (wild)!",
        "Ben discarded 4 of hearts.",
    ]
    assert presentation.describe_event(newest_first[0], names) == "Ben discarded 4♦."  # what the list shows


def test_the_table_carries_the_words_said_beside_each_line(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, bot_level="easy", seed=7, options={"rounds": [13]}
    )
    for _step in range(2):  # ann draws and discards; the bot's turn follows
        game.refresh_from_db()
        action = bots.choose_action(view(GameState.from_dict(game.state), 0), "easy")
        services.game_play(game_id=game.pk, user=ann, action=action, expected_version=game.version)
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    said = re.findall(r'data-said="([^"]*)"', page)
    assert len(said) >= 3 and any(" of " in line for line in said), said
    assert not [line for line in said if set(line) & set("♠♥♦♣")], said
