"""Races: whatever arrives at the same moment happens exactly once.

Each racer runs on its own thread with its own database connection, and
``tests.races.race`` holds the game's row lock until all of them are queued
on it (on PostgreSQL, seen in ``pg_stat_activity``), so they meet at the
lock that every change of a game takes first.  ``make test`` runs these on
SQLite and on PostgreSQL, whose row locks are real.
"""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.core import mail

from games import services
from games.engine import GameState
from games.integrity import log_replay_problem
from games.models import Game, Move, Seat
from tests.races import race
from tests.web.conftest import NOTICE_DUE

pytestmark = pytest.mark.django_db(transaction=True)

SECOND = datetime.timedelta(seconds=1)


def two_player_game(make_user, classic, **options):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, seed=4, options={"rounds": [3, 4]}, **options
    )
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    return game, ann, bob


def assert_log_replays_to_the_snapshot(game: Game) -> None:
    """The move log, replayed by the engine, gives the stored state: nothing lost or applied twice."""
    assert log_replay_problem(game) is None


def test_identical_moves_submitted_at_once_play_once(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    player = ann if game.current_seat == 0 else bob
    version, moves = game.version, game.moves.count()

    def draw():
        services.game_play(
            game_id=game.pk, user=player, action={"type": "draw", "source": "stock"}, expected_version=version
        )
        return "played"

    outcomes = race([draw, draw, draw], lock=game)
    assert sorted(outcomes) == ["played", "stale_version", "stale_version"]
    game.refresh_from_db()
    assert game.moves.count() == moves + 1 and game.version == version + 1
    assert_log_replays_to_the_snapshot(game)


def test_two_people_joining_the_last_seat_at_once_one_sits_and_the_game_is_dealt_once(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=5, options={"rounds": [3]})
    version = game.version

    outcomes = race(
        [
            lambda: services.game_join(game_id=game.pk, user=bob).pk,
            lambda: services.game_join(game_id=game.pk, user=cid).pk,
        ],
        lock=game,
    )
    assert sorted(outcomes, key=str) == sorted([game.pk, "game_not_open"], key=str)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and game.version == version + 1
    seated = list(game.seats.order_by("position").values_list("user__username", flat=True))
    assert seated[0] == "ann" and seated[1] in ("bob", "cid") and seated.count(seated[1]) == 1
    assert game.state is not None and game.moves.count() == 0  # dealt once, nobody has moved
    assert_log_replays_to_the_snapshot(game)


def test_one_person_joining_twice_at_once_takes_one_seat(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, seed=5, options={"rounds": [3]})

    def join():
        return services.game_join(game_id=game.pk, user=bob).pk

    outcomes = race([join, join], lock=game)
    assert sorted(outcomes, key=str) == sorted([game.pk, "already_seated"], key=str)
    assert game.seats.filter(user=bob).count() == 1 and game.seats.filter(user__isnull=True).count() == 1
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN and game.version == 2


def test_the_invited_taking_the_held_seat_as_the_creator_starts_is_one_or_the_other(make_user, classic):
    """Either bob sits and the creator's start meets a game already dealt, or the bot takes bob's seat first."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, seed=5, options={"rounds": [3]}, invited=[bob]
    )

    outcomes = race(
        [
            lambda: services.game_join(game_id=game.pk, user=bob).pk,
            lambda: services.game_start(game_id=game.pk, user=ann).pk,
        ],
        lock=game,
    )
    assert sorted(outcomes, key=str) == sorted([game.pk, "game_not_open"], key=str)
    game.refresh_from_db()
    seat = game.seats.get(position=1)
    assert game.status == Game.Status.ACTIVE and game.state is not None and seat.reserved_for is None
    if outcomes[0] == game.pk:  # bob sat first: the start was refused
        assert seat.user == bob and not seat.is_bot
    else:  # the start came first: a bot has the seat, bob none
        assert seat.user is None and seat.is_bot and not game.seats.filter(user=bob).exists()
    assert_log_replays_to_the_snapshot(game)  # dealt once


def test_two_tables_naming_a_person_at_their_last_free_invitation_at_once_hold_one_seat(
    make_user, classic, monkeypatch
):
    """A review: the invitations waiting were counted without a lock, so on PostgreSQL two tables made at
    once both held a seat for bob past the limit.  The people named are locked before they are counted."""
    monkeypatch.setattr(services.playing, "MAX_INVITATIONS_WAITING", 1)
    ann, cid, bob = make_user("ann"), make_user("cid"), make_user("bob")

    def create(creator):
        return lambda: services.game_create(creator=creator, variant=classic, seat_count=2, invited=[bob]).pk

    outcomes = race([create(ann), create(cid)], lock=bob)
    assert sorted(isinstance(outcome, int) for outcome in outcomes) == [False, True]
    assert "too_many_invitations" in outcomes
    assert Seat.objects.filter(reserved_for=bob).count() == 1


def test_two_tables_made_at_once_by_a_person_at_their_last_open_table_make_one(make_user, classic):
    """One person waits at three tables they made at most, counted under their row lock: two made at once, from
    two tabs, at the third count each other."""
    ann = make_user("ann")
    for _ in range(services.MAX_OPEN_TABLES - 1):
        services.game_create(creator=ann, variant=classic, seat_count=2)

    def create():
        return services.game_create(creator=ann, variant=classic, seat_count=2).pk

    outcomes = race([create, create], lock=ann)
    assert sorted(isinstance(outcome, int) for outcome in outcomes) == [False, True]
    assert "too_many_open_tables" in outcomes
    assert Game.objects.filter(created_by=ann, status=Game.Status.OPEN).count() == services.MAX_OPEN_TABLES


def test_both_players_asking_for_a_rematch_at_once_get_the_same_one_game(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    services.game_resign(game_id=game.pk, user=ann)  # a bot plays ann's seat ...
    services.game_resign(game_id=game.pk, user=bob)  # ... and bob's, to the end
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED

    outcomes = race(
        [
            lambda: services.game_rematch(game_id=game.pk, user=ann).pk,
            lambda: services.game_rematch(game_id=game.pk, user=bob).pk,
        ],
        lock=game,
    )
    rematch = Game.objects.get(rematch_of=game)
    assert outcomes == [rematch.pk, rematch.pk]
    assert Game.objects.count() == 2 and rematch.status == Game.Status.ACTIVE
    # The first made it and sat; the second took the seat held for them, which dealt.
    assert set(rematch.seats.values_list("user_id", flat=True)) == {ann.pk, bob.pk}


def test_taking_the_seat_held_in_a_rematch_as_its_asker_starts_it_sends_the_person_to_it(make_user, classic):
    """A review on PostgreSQL: the asker's start took the rematch's lock first, and the person taking their
    held seat from the finished table got "This game is not taking players any more" (409) there."""
    game, ann, bob = two_player_game(make_user, classic)
    for person in (ann, bob):
        services.game_resign(game_id=game.pk, user=person)
    rematch = services.game_rematch(game_id=game.pk, user=ann)
    assert rematch.status == Game.Status.OPEN

    outcomes = race(
        [
            lambda: services.game_start(game_id=rematch.pk, user=ann).pk,
            lambda: services.game_rematch(game_id=game.pk, user=bob).pk,
        ],
        lock=rematch,
        in_order=True,  # the start first, as the review saw it on PostgreSQL (SQLite may queue them otherwise)
    )
    started, taken = outcomes
    assert taken == rematch.pk  # never refused: sent to the rematch, seated or started without him
    rematch.refresh_from_db()
    assert rematch.status == Game.Status.ACTIVE
    bob_seated = rematch.seats.filter(user=bob).exists()
    # Whoever came second found the game dealt: the start, refused, or the seat, gone to a bot.
    assert started == ("game_not_open" if bob_seated else rematch.pk)


def test_the_clock_racing_the_discard_that_ends_the_turn_ends_it_once(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    seat = game.seats.get(position=game.current_seat)
    services.game_play(
        game_id=game.pk, user=seat.user, action={"type": "draw", "source": "stock"}, expected_version=game.version
    )
    game.refresh_from_db()
    turn, version = game.turn_number, game.version
    card = GameState.from_dict(game.state).hands[seat.position][0].code
    late = game.turn_deadline + SECOND  # the clock's time: due; the person's move arrives in time

    def discard():
        services.game_play(
            game_id=game.pk, user=seat.user, action={"type": "discard", "card": card}, expected_version=version
        )
        return "person"

    def clock():
        services.game_timeout(game_id=game.pk, turn_number=turn, now=late)
        return "bot"

    outcomes = race([discard, clock], lock=game)
    # Whoever took the lock first ended the turn; the other was refused and changed nothing.
    assert sorted(outcomes) in (["not_due", "person"], ["bot", "stale_version"])
    game.refresh_from_db()
    assert game.turn_number == turn + 1
    ends = Move.objects.filter(game=game, seat=seat.position).exclude(action__type="draw")
    assert ends.count() == 1 and ends.get().by_bot == ("bot" in outcomes)
    assert_log_replays_to_the_snapshot(game)


def test_two_clocks_at_once_play_a_timed_out_turn_once_and_send_one_email(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    ann.notify_by_email = bob.notify_by_email = True
    ann.save()
    bob.save()
    now = game.turn_deadline + SECOND

    outcomes = race([lambda: services.clock_tick(now=now), lambda: services.clock_tick(now=now)], lock=game)
    assert sorted(r["timeouts"] for r in outcomes) == [0, 1]
    game.refresh_from_db()
    assert game.moves.filter(by_bot=True).count() == 2  # one draw and one discard: the turn played once
    assert game.turn_number == 1
    assert sum(r["emails"] for r in outcomes) == 0  # the next turn has only just begun: no notice yet
    # and the next person's "your turn" e-mail, once due, goes out once between two clocks
    outcomes = race([lambda: services.clock_tick(now=now + NOTICE_DUE)] * 2, lock=game)
    assert sum(r["emails"] for r in outcomes) == len(mail.outbox) == 1
    assert_log_replays_to_the_snapshot(game)


def test_two_clocks_at_once_tell_a_person_of_a_seat_held_for_them_once(make_user, classic):
    """Both passes read the seat in their lists; each claims it on the seat's row, which PostgreSQL checks
    again for the second once the first has written it."""
    ann, bob = make_user("ann"), make_user("bob")
    bob.notify_by_email = True
    bob.save()
    table = services.game_create(creator=ann, variant=classic, seat_count=2, time_limit_seconds=86400, invited=[bob])
    held = table.seats.get(reserved_for=bob)

    outcomes = race([lambda: services.clock_tick(now=table.created_at + NOTICE_DUE)] * 2, lock=held)
    assert sorted(r["emails"] for r in outcomes) == [0, 1] and len(mail.outbox) == 1


def test_two_clocks_telling_of_two_tables_of_one_inviter_at_once_send_one(make_user, classic):
    """One invitation a day from one person to another: two clocks telling bob of two of ann's tables at once
    send one e-mail, not one each, and the other seat waits."""
    ann, bob = make_user("ann"), make_user("bob")
    bob.notify_by_email = True
    bob.save()
    tables = [
        services.game_create(creator=ann, variant=classic, seat_count=2, time_limit_seconds=86400, invited=[bob])
        for _ in range(2)
    ]
    due = tables[-1].created_at + NOTICE_DUE

    outcomes = race([lambda: services.clock_tick(now=due)] * 2, lock=bob)
    assert sorted(r["emails"] for r in outcomes) == [0, 1] and len(mail.outbox) == 1
    assert Seat.objects.filter(reserved_for=bob, invitation_sent_at=due).count() == 1  # the other waits a day


def test_a_resignation_racing_the_persons_own_move_leaves_one_consistent_game(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    seat = game.seats.get(position=game.current_seat)
    version = game.version

    def draw():
        services.game_play(
            game_id=game.pk, user=seat.user, action={"type": "draw", "source": "stock"}, expected_version=version
        )
        return "moved"

    def resign():
        services.game_resign(game_id=game.pk, user=seat.user)
        return "resigned"

    outcomes = race([draw, resign], lock=game)
    assert sorted(outcomes) in (["moved", "resigned"], ["resigned", "seat_played_by_bot"])
    seat.refresh_from_db()
    assert seat.bot_level and seat.left == "resigned"
    assert_log_replays_to_the_snapshot(game)


def test_the_move_that_ends_time_away_racing_the_clock_settling_it_moves_the_deadline_once(make_user, classic):
    """The time away ran to its end; the player's move and the clock's pass both settle it, each under the
    person's row lock: the paused time is given back once, and the move is played."""
    game, ann, bob = two_player_game(make_user, classic, time_limit_seconds=24 * 3600)
    mover = game.seats.get(position=game.current_seat).user
    start, deadline = game.turn_started_at, game.turn_deadline
    with time_machine.travel(start + datetime.timedelta(hours=1), tick=False):
        absence = services.away_declare(user=mover, days=2)
    back = absence.ends_at + datetime.timedelta(hours=1)
    version = Game.objects.get(pk=game.pk).version

    def move():
        services.game_play(
            game_id=game.pk, user=mover, action={"type": "draw", "source": "stock"}, expected_version=version
        )
        return "moved"

    with time_machine.travel(back, tick=False):
        outcomes = race([move, lambda: services.clock_tick()["away"]], lock=mover)
    game.refresh_from_db()
    assert game.turn_deadline == deadline + 2 * datetime.timedelta(days=1)  # given back once, not twice
    absence.refresh_from_db()
    assert absence.settled_at == back
    # The move was played, or (the clock settled first and moved the table on) refused as stale.
    assert outcomes[0] in ("moved", "stale_version") and outcomes[1] in (0, 1)
    assert game.moves.filter(by_bot=True).count() == 0
    assert_log_replays_to_the_snapshot(game)


def test_time_away_declared_twice_at_once_is_one_stretch(make_user):
    ann = make_user("ann")

    def declare():
        services.away_declare(user=ann, days=3)
        return "declared"

    outcomes = race([declare, declare], lock=ann)
    assert sorted(outcomes) == ["away_already", "declared"]
    assert ann.absences.count() == 1


def test_a_chat_post_and_a_rematch_asking_its_poster_at_once_do_not_deadlock(make_user, classic, monkeypatch):
    """A review on PostgreSQL: Ann asks for a rematch (the finished game locked, then Bob's row, to count his
    invitations) as Bob posts "gg" at that table (his row locked, then the message inserted, whose foreign
    key needs a KEY SHARE lock on the game, which FOR UPDATE refused): "deadlock detected". Each racer
    waits at a barrier holding its first lock, so the crossing happens every run (on SQLite, whose one write
    lock serialises them, the barrier times out and they run one after the other)."""
    import threading

    from games.services import chat, playing

    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], options={"rounds": [3]})
    for person in (ann, bob):
        services.game_resign(game_id=game.pk, user=person)
    both_hold_their_first_lock = threading.Barrier(2)

    def meet() -> None:
        try:
            both_hold_their_first_lock.wait(3)
        except threading.BrokenBarrierError:
            pass  # (SQLite: the other waits for the write lock)

    check_rate, check_invitations = chat._check_rate, playing.check_invitations_waiting

    def rate(*args, **kwargs):
        meet()  # Bob's row is locked
        return check_rate(*args, **kwargs)

    def invitations(*args, **kwargs):
        meet()  # the finished game is locked
        return check_invitations(*args, **kwargs)

    monkeypatch.setattr(chat, "_check_rate", rate)
    monkeypatch.setattr(playing, "check_invitations_waiting", invitations)
    outcomes = race(
        [
            lambda: services.game_rematch(game_id=game.pk, user=ann).status,
            lambda: chat.chat_post(game_id=game.pk, user=bob, text="gg, again?").text,
        ]
    )
    assert outcomes == [Game.Status.OPEN, "gg, again?"]


@pytest.mark.parametrize("clock_first", [True, False])
def test_a_late_move_racing_the_clock_after_an_outage_is_played_by_its_person(make_user, classic, clock_first):
    """The database is back after an outage that ran a live turn out (``services.outage``): the page's move,
    sent again, and the clock's first pass meet at the game's row lock.  Whichever comes first, the person's
    move is played and the bot plays nothing: the clock first gives the turn its time back, and the move is not
    stale (only a notice came since); the move first is not late (the turn ran out while the clock could not
    play it), and the clock then gives the rest of the turn its time back."""
    game, ann, bob = two_player_game(make_user, classic, time_limit_seconds=30)
    seat = game.seats.get(position=game.current_seat)
    start, version = game.turn_started_at, game.version
    services.outage.memory.passed(start + 5 * SECOND)  # the last whole pass: 25 s of the turn left
    services.outage.memory.lost_database(start + 7 * SECOND)
    back = start + 100 * SECOND

    def move():
        services.game_play(
            game_id=game.pk, user=seat.user, action={"type": "draw", "source": "stock"}, expected_version=version
        )
        return "moved"

    def clock():
        return services.clock_tick()["paused"]

    with time_machine.travel(back, tick=False):
        outcomes = race([clock, move] if clock_first else [move, clock], lock=game, in_order=True)
    assert sorted(map(str, outcomes)) == ["1", "moved"]
    game.refresh_from_db()
    assert game.turn_deadline == back + 25 * SECOND and game.moves.filter(by_bot=True).count() == 0
    assert game.moves.filter(by_bot=False, seat=seat.position).count() == 1
    seat.refresh_from_db()
    assert seat.timeouts_in_row == 0
    assert_log_replays_to_the_snapshot(game)
