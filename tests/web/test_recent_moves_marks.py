import re

import pytest

from games import services
from games.engine import Draw

from .conftest import logged_in

pytestmark = pytest.mark.django_db


def test_a_person_a_bot_replaced_hears_the_bots_moves_on_the_seat_as_someone_elses(two_player_game):
    """The bot's moves on a seat whose person resigned were marked as that person's own, and their page's
    script then never said them (found by a review)."""
    game, ann, bob = two_player_game
    mover = game.seats.get(position=game.current_seat)
    services.game_resign(game_id=game.pk, user=mover.user)
    page = logged_in(mover.user).get(f"/games/{game.pk}/").content.decode()
    section = page.split('class="panel recent"', 1)[1].split("</section>", 1)[0]
    lines = re.findall(r"<li data-recent=\"[^\"]+\" data-said=\"[^\"]*\"( data-mine)?>", section)
    assert lines and not any(lines), section
    # A person who plays on finds their own moves marked (their page does not read them back to them).
    game.refresh_from_db()
    other = game.seats.exclude(pk=mover.pk).get()
    assert game.current_seat == other.position
    services.game_play(game_id=game.pk, user=other.user, action=Draw("stock"), expected_version=game.version)
    page = logged_in(other.user).get(f"/games/{game.pk}/").content.decode()
    assert re.search(r'<li data-recent="[^"]+" data-said="[^"]*" data-mine>', page)
