"""What a move costs the database: the queries of a move POST and of the table page are pinned, the
game row is read once and written with only what changed, and the move log still numbers and holds
every move as before (``bench/throughput.py`` prints the same counts on PostgreSQL).

The counts below include what runs after the commit (``execute=True``) and, as every test here runs
inside a transaction, a SAVEPOINT and its RELEASE where a request has BEGIN and COMMIT.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import bots, services
from games.engine import GameState, Rules, action_from_dict, apply, deal_event, new_game, view
from games.models import ChatMessage, ChatMute, Game, Move
from games.services.turns import extend_history

from .conftest import logged_in
from .test_chat import muted_people

pytestmark = pytest.mark.django_db

#: session, user, the game (locked), its seats, the move (INSERT), the game (UPDATE), + SAVEPOINT and RELEASE
MOVE_QUERIES = 8
#: ... and the round's public events from the log, which only a hard bot reads
MOVE_WITH_A_HARD_BOT_QUERIES = 9
#: session, user, the game, its seats with their people, who of them is away, the recent moves, the "games
#: waiting" count; and the chat beside it: a chat suspension of the reader, the messages, the reader's mutes
TABLE_QUERIES = 10
#: the partial a page fetches after each move (and a script's move is answered with): session, user, the
#: game, its seats with their people, who of them is away, the recent moves; no header, so no count
TABLE_PARTIAL_QUERIES = 6
#: ... of a table still looking for players, players only: session, user, the game, whether the reader may look
#: (their seat, or one free for anyone), its seats with their people
OPEN_TABLE_PARTIAL_QUERIES = 5


def bot_choice(game: Game, seat: int) -> dict:
    game.refresh_from_db()
    assert game.state is not None
    return bots.choose_action(view(GameState.from_dict(game.state), seat)).to_dict()


def post_move(client, game: Game, action: dict) -> int:
    game.refresh_from_db()
    version = game.version
    return client.post(f"/games/{game.pk}/play/", {"version": version, **action}).status_code


def test_a_draw_and_a_discard_each_take_at_most_eight_queries(
    table, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    game, mover, _other, seat = table
    game.refresh_from_db()
    version = game.version
    with django_assert_max_num_queries(MOVE_QUERIES), django_capture_on_commit_callbacks(execute=True):
        response = mover.post(f"/games/{game.pk}/play/", {"version": version, "type": "draw", "source": "stock"})
    assert response.status_code == 302
    discard = bot_choice(game, seat)
    assert discard["type"] in ("discard", "go_out")
    with django_assert_max_num_queries(MOVE_QUERIES), django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = mover.post(f"/games/{game.pk}/play/", {"version": version + 1, **discard})
    assert response.status_code == 302
    assert callbacks  # the announcements ran, inside the count
    game.refresh_from_db()
    assert game.version == version + 2 and game.current_seat != seat


@pytest.mark.parametrize(("level", "queries"), [("medium", MOVE_QUERIES), ("hard", MOVE_WITH_A_HARD_BOT_QUERIES)])
def test_a_discard_after_which_bots_play_takes_no_query_per_bot_move(
    make_user, classic, level, queries, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=4, bot_count=3, bot_level=level, seed=3)
    client = logged_in(ann)
    assert post_move(client, game, {"type": "draw", "source": "stock"}) == 302
    discard = bot_choice(game, 0)
    game.refresh_from_db()
    before = game.version
    with django_assert_max_num_queries(queries), django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/games/{game.pk}/play/", {"version": before, **discard})
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.version >= before + 1 + 3 * 2  # the three bots played their turns in the same request
    assert game.current_seat == 0 or game.status != Game.Status.ACTIVE


def test_the_table_page_takes_at_most_ten_queries(table, django_assert_max_num_queries):
    game, mover, other, _seat = table
    for client in (mover, other):
        with django_assert_max_num_queries(TABLE_QUERIES):
            assert client.get(f"/games/{game.pk}/").status_code == 200


def test_a_reader_who_muted_someone_without_a_seat_who_wrote_here_costs_one_query_more(
    table, make_user, django_assert_num_queries
):
    """The chat asks the game's messages about muted people only when one of them has no seat here."""
    game, _mover, _other, _seat = table
    reader = game.seats.get(user__isnull=False, position=0).user
    rail, elsewhere = make_user("rail"), make_user("elsewhere")
    ChatMessage.objects.create(game=game, author=rail, channel="watchers", text="from the rail")
    ChatMute.objects.create(user=reader, muted=game.seats.get(position=1).user)  # seated: no query more
    client = logged_in(reader)
    with django_assert_num_queries(TABLE_QUERIES):
        assert client.get(f"/games/{game.pk}/").status_code == 200
    ChatMute.objects.create(user=reader, muted=elsewhere)  # no seat here, and wrote nothing here
    with django_assert_num_queries(TABLE_QUERIES + 1):
        assert client.get(f"/games/{game.pk}/").status_code == 200
    ChatMute.objects.create(user=reader, muted=rail)  # no seat here, and wrote here: still one more
    with django_assert_num_queries(TABLE_QUERIES + 1):
        page = client.get(f"/games/{game.pk}/").content.decode()
    assert [name for _pk, name in muted_people(page)] == ["bob" if reader.username == "ann" else "ann", "rail"]


def test_the_table_partial_takes_at_most_six_queries_and_no_count_of_games_waiting(
    table, django_assert_max_num_queries
):
    game, mover, other, _seat = table
    for client in (mover, other):
        with CaptureQueriesContext(connection) as queries, django_assert_max_num_queries(TABLE_PARTIAL_QUERIES):
            assert client.get(f"/games/{game.pk}/table/").status_code == 200
        assert not [q for q in queries.captured_queries if "COUNT(" in q["sql"]]


def test_a_move_writes_the_game_row_once_with_only_what_changed(table):
    game, mover, _other, _seat = table
    game.refresh_from_db()
    with CaptureQueriesContext(connection) as queries:
        assert mover.post(f"/games/{game.pk}/play/", {"version": game.version, "type": "draw", "source": "stock"})
    game_reads = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('SELECT "games_game"')]
    updates = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('UPDATE "games_game"')]
    assert len(game_reads) == 1 and len(updates) == 1
    written = updates[0].split(" WHERE ")[0]
    for column in ("version", "state", "updated_at"):
        assert f'"{column}" = ' in written
    for column in ("rules", "server_seed", "invite_token", "seat_count", "created_at", "current_seat"):
        assert f'"{column}" = ' not in written  # (the seat to play is still the drawer's)


def test_save_changes_writes_only_the_fields_that_changed(table):
    game, *_ = table
    loaded = Game.objects.get(pk=game.pk)
    loaded.version += 1
    assert loaded.changed_fields() == ["version", "updated_at"]
    with CaptureQueriesContext(connection) as queries:
        loaded.save_changes()
    (update,) = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
    assert '"state" = ' not in update and '"version" = ' in update
    assert loaded.changed_fields() == ["updated_at"]  # what was written counts as read
    loaded.is_private = True
    loaded.save(update_fields=["is_private"])
    loaded.is_private = False  # back to the value first read: still a change from what the database holds
    assert "is_private" in (loaded.changed_fields() or [])
    loaded.save_changes()
    assert Game.objects.get(pk=game.pk).is_private is False
    # A game not read from the database, or refreshed, or read with some fields only, is written whole.
    loaded.refresh_from_db()
    assert loaded.changed_fields() is None
    assert Game.objects.only("pk", "version").get(pk=game.pk).changed_fields() is None


def test_the_log_numbers_every_move_as_the_engine_counts_them(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, seed=5, options={"rounds": [3, 4]}
    )
    client = logged_in(ann)
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        assert post_move(client, game, bot_choice(game, 0)) == 302
    seqs = list(game.moves.order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert GameState.from_dict(game.state).move_count == len(seqs)


def test_a_hard_bot_hears_the_move_played_just_before_it_in_the_same_request(make_user, classic, monkeypatch):
    """The moves of a request are written together at its end: the history a bot is handed must
    still hold every public event of the round so far, the person's move of this request included."""
    handed = []
    real = bots.choose_action

    def spy(seat_view, level="medium", history=()):
        handed.append(list(history))
        return real(seat_view, level, history)

    monkeypatch.setattr(bots, "choose_action", spy)
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, bot_level="hard", seed=8, options={"rounds": [3, 4]}
    )
    client = logged_in(ann)
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        action = real(view(GameState.from_dict(game.state), 0)).to_dict()
        assert post_move(client, game, action) == 302

    # Replay the log: before each bot move, its history is every event of the round until then.
    state = new_game(Rules.from_dict(game.rules), game.seat_count, game.engine_shuffle())
    history: list = [deal_event(state).to_dict()]  # the first deal has no event of its own
    bot_moves = 0
    for move in Move.objects.filter(game=game).order_by("seq"):
        if move.by_bot:
            assert handed[bot_moves] == history, move.seq
            bot_moves += 1
        state, _events = apply(state, move.seat, action_from_dict(move.action))
        history = extend_history(history, move.events)
    assert bot_moves == len(handed) > 0


def test_an_open_players_only_tables_partial_takes_one_query_to_decide_who_may_look(
    make_user, classic, django_assert_max_num_queries
):
    """A review: deciding whether someone may look at a players-only table still looking for players (a
    stranger only while a seat is free for anyone) loaded every seat, and then asked about the reader's own
    (6 queries where every free seat is held): one query now, whichever the reader and the table."""
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    for seats in (3, 2):  # a seat free for anyone, then none
        game = services.game_create(
            creator=ann, variant=classic, seat_count=seats, invited=[bob], spectators_allowed=False
        )
        for reader in (ann, bob, eve):
            client = logged_in(reader)
            with django_assert_max_num_queries(OPEN_TABLE_PARTIAL_QUERIES):
                client.get(f"/games/{game.pk}/table/")
