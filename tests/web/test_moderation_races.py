"""Moderation done by two staff at once, or while the player acts: each step happens once, with one record.

Two moderators act from two tabs (a report seen by both, a game both were asked about): the second one's
step is refused with a reason and writes nothing.  The steps race as ``tests.races`` makes them: on
PostgreSQL each racer queues on the row lock that the test holds, so they really meet there
(``make test-postgres ARGS="tests/web/test_moderation_races.py"``).

Deactivating someone touches every game they sit in, each under its own lock, after reading the list of
those games: what changes in one of them in between (another moderator hands the seat to a bot, the
person leaves a table still waiting for players) must be seen under that lock.  Those interleavings are
also played step by step (``between_list_and_lock``), so they are tested on every database, every time.
"""

from __future__ import annotations

import datetime
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.db import connection, transaction
from django.utils import timezone

from games import services
from games.models import AuditRecord, ChatSuspension, Game, Seat
from games.services import fairness, moderation, playing
from tests.races import race

pytestmark = pytest.mark.django_db(transaction=True)

REASON = "Reported twice; both of us looked."


def moderators(django_user_model: Any, count: int = 2) -> list[Any]:
    group = Group.objects.get(name="Moderators")
    people = []
    for number in range(count):
        user = django_user_model.objects.create_user(
            f"mod{number}", f"mod{number}@example.com", "a-long-pass-phrase-42", is_staff=True
        )
        user.groups.add(group)
        people.append(user)
    return people


@pytest.fixture
def game_in_play(make_user: Any, classic: Any) -> tuple[Game, Any, Any]:
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=7)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game, ann, bob


def records(action: str) -> list[AuditRecord]:
    return list(AuditRecord.objects.filter(action=action))


# -- two moderators, one step ------------------------------------------------------------------


def test_two_moderators_aborting_a_game_at_once_abort_it_once(game_in_play, django_user_model):
    game, _ann, _bob = game_in_play
    first, second = moderators(django_user_model)
    outcomes = race(
        [
            lambda: services.game_abort(game_id=game.pk, moderator=first, reason=REASON).status,
            lambda: services.game_abort(game_id=game.pk, moderator=second, reason=REASON).status,
        ],
        lock=game,
    )
    assert sorted(outcomes) == ["aborted", "game_not_abortable"]
    assert len(records(AuditRecord.Action.GAME_ABORT)) == 1


def test_two_moderators_handing_a_seat_to_bots_at_once_hand_it_once(game_in_play, django_user_model):
    game, _ann, bob = game_in_play
    first, second = moderators(django_user_model)

    def hand(moderator: Any, level: str) -> Callable[[], str]:
        return lambda: (
            services.seat_hand_to_bot(
                game_id=game.pk, position=1, moderator=moderator, reason=REASON, bot_level=level
            ).status
        )

    outcomes = race([hand(first, "easy"), hand(second, "hard")], lock=game)
    assert sorted(outcomes) == ["active", "already_bot"]
    [record] = records(AuditRecord.Action.SEAT_TO_BOT)
    seat = game.seats.get(position=1)
    assert seat.user == bob and seat.bot_level == ("easy" if record.actor == first else "hard")


def test_two_moderators_deactivating_a_user_at_once_deactivate_them_once(game_in_play, django_user_model):
    game, _ann, bob = game_in_play
    first, second = moderators(django_user_model)
    outcomes = race(
        [
            lambda: services.user_deactivate(user_id=bob.pk, moderator=first, reason=REASON).username,
            lambda: services.user_deactivate(user_id=bob.pk, moderator=second, reason=REASON).username,
        ],
        lock=bob,
    )
    assert sorted(outcomes) == ["already_inactive", "bob"]
    assert len(records(AuditRecord.Action.USER_DEACTIVATE)) == 1
    assert len(records(AuditRecord.Action.SEAT_TO_BOT)) == 1


@pytest.fixture
def rude_message(game_in_play: tuple[Game, Any, Any]) -> Any:
    game, ann, bob = game_in_play
    message = services.chat_post(game_id=game.pk, user=bob, text="You play like a potato", channel="players")
    services.chat_report(game_id=game.pk, user=ann, message_id=message.pk, note="rude")
    return message


def test_two_moderators_hiding_a_message_at_once_hide_it_once(rude_message, django_user_model):
    first, second = moderators(django_user_model)
    outcomes = race(
        [
            lambda: services.chat_hide(message_id=rude_message.pk, moderator=first, reason=REASON).pk,
            lambda: services.chat_hide(message_id=rude_message.pk, moderator=second, reason=REASON).pk,
        ],
        lock=rude_message,
    )
    assert sorted(outcomes, key=str) == sorted([rude_message.pk, "chat_already_hidden"], key=str)
    assert len(records(AuditRecord.Action.CHAT_HIDE)) == 1


def test_a_moderator_dismissing_the_reports_as_another_hides_the_message_deals_with_them_once(
    rude_message, django_user_model
):
    first, second = moderators(django_user_model)
    outcomes = race(
        [
            lambda: services.chat_hide(message_id=rude_message.pk, moderator=first, reason=REASON).pk,
            lambda: services.chat_dismiss_reports(message_id=rude_message.pk, moderator=second, reason=REASON).pk,
        ],
        lock=rude_message,
    )
    # Whichever comes second finds the report dealt with: a dismissal after the hiding has nothing to do.
    assert "chat_no_reports" in outcomes or outcomes == [rude_message.pk, rude_message.pk]
    assert len(records(AuditRecord.Action.CHAT_HIDE)) == 1
    assert len(records(AuditRecord.Action.CHAT_DISMISS)) == (0 if "chat_no_reports" in outcomes else 1)
    assert rude_message.reports.get().resolved_by in (first, second)


def test_two_moderators_muting_a_user_from_chat_at_once_mute_them_once(rude_message, django_user_model):
    """Both tabs showed the report: the second mute found the first in force and wrote a mute and a record
    of its own (found by a tester: two mutes, two audit records for one step)."""
    bob = rude_message.author
    first, second = moderators(django_user_model)
    outcomes = race(
        [
            lambda: services.chat_mute_user(user_id=bob.pk, moderator=first, reason=REASON, hours=24).pk,
            lambda: services.chat_mute_user(user_id=bob.pk, moderator=second, reason=REASON, hours=24).pk,
        ],
        lock=bob,
    )
    assert "chat_already_muted" in outcomes
    assert ChatSuspension.objects.count() == 1
    assert len(records(AuditRecord.Action.CHAT_MUTE)) == 1


def test_two_moderators_letting_a_user_chat_again_at_once_do_it_once(rude_message, django_user_model):
    bob = rude_message.author
    first, second = moderators(django_user_model)
    services.chat_mute_user(user_id=bob.pk, moderator=first, reason=REASON, hours=24)
    outcomes = race(
        [
            lambda: services.chat_unmute_user(user_id=bob.pk, moderator=first, reason=REASON).username,
            lambda: services.chat_unmute_user(user_id=bob.pk, moderator=second, reason=REASON).username,
        ],
        lock=bob,
    )
    assert sorted(outcomes) == ["bob", "chat_not_muted"]
    assert len(records(AuditRecord.Action.CHAT_UNMUTE)) == 1


# -- a deactivation meeting another change of the same seat -----------------------------------------


def between_list_and_lock(monkeypatch: pytest.MonkeyPatch, step: Callable[[int], object]) -> None:
    """Run ``step(game_id)`` once, as if another request did it after ``user_deactivate`` listed the
    person's games and before it locked the first of them."""
    real_lock = moderation.lock_game_still
    done: list[int] = []

    def lock_game_still(game_id: int, statuses: Any) -> Game | None:
        if not done:
            done.append(game_id)
            step(game_id)
        return real_lock(game_id, statuses)

    monkeypatch.setattr(moderation, "lock_game_still", lock_game_still)


def test_a_seat_another_moderator_handed_to_a_bot_meanwhile_is_not_handed_again(
    game_in_play, django_user_model, monkeypatch
):
    """The deactivation handed the seat to a bot again: a medium one over the level the other moderator
    chose, with a second record of the step and a version the table had to fetch (found by a tester)."""
    game, _ann, bob = game_in_play
    first, second = moderators(django_user_model)
    versions: list[int] = []

    def hand_over(game_id: int) -> None:
        services.seat_hand_to_bot(game_id=game_id, position=1, moderator=second, reason=REASON, bot_level="hard")
        versions.append(Game.objects.get(pk=game_id).version)

    between_list_and_lock(monkeypatch, hand_over)
    assert not game.seats.get(position=1).bot_level

    services.user_deactivate(user_id=bob.pk, moderator=first, reason=REASON)

    seat = game.seats.get(position=1)
    assert (seat.bot_level, seat.user) == ("hard", bob)
    [record] = records(AuditRecord.Action.SEAT_TO_BOT)
    assert record.actor == second
    assert Game.objects.get(pk=game.pk).version == versions[0]  # the deactivation left this game alone
    bob.refresh_from_db()
    assert not bob.is_active and len(records(AuditRecord.Action.USER_DEACTIVATE)) == 1


def test_an_open_table_the_person_left_meanwhile_is_passed_over(make_user, classic, django_user_model, monkeypatch):
    """The deactivation looked for their seat at a table they had just left and failed (a 500)."""
    ann, bob = make_user("ann"), make_user("bob")
    table = services.game_create(creator=ann, variant=classic, seat_count=3, invitees=[bob])
    assert table.status == Game.Status.OPEN
    [moderator] = moderators(django_user_model, 1)
    between_list_and_lock(monkeypatch, lambda game_id: services.game_leave(game_id=game_id, user=bob))

    services.user_deactivate(user_id=bob.pk, moderator=moderator, reason=REASON)

    bob.refresh_from_db()
    assert not bob.is_active
    assert not table.seats.filter(user=bob).exists()
    assert Game.objects.get(pk=table.pk).status == Game.Status.OPEN  # ann still waits for players
    assert [r.action for r in AuditRecord.objects.all()] == [AuditRecord.Action.USER_DEACTIVATE]


def test_deactivating_a_user_as_another_moderator_hands_their_seat_to_a_bot_writes_one_seat_record(
    game_in_play, django_user_model
):
    """The hand-over queues first on the game, then the deactivation (which holds the person's row by then).
    The hand-over's audit record names the person: under the deactivation's FOR UPDATE of their row, that
    waited for the deactivation, which waited for the game: PostgreSQL found a deadlock and one step failed
    (a 500; found by a tester)."""
    game, _ann, bob = game_in_play
    first, second = moderators(django_user_model)
    outcomes = race(
        [
            lambda: (
                services.seat_hand_to_bot(
                    game_id=game.pk, position=1, moderator=second, reason=REASON, bot_level="hard"
                ).status
            ),
            lambda: services.user_deactivate(user_id=bob.pk, moderator=first, reason=REASON).username,
        ],
        lock=game,
        in_order=True,
    )
    assert outcomes[1] == "bob" and outcomes[0] in ("active", "already_bot")  # (SQLite picks the order itself)
    [record] = records(AuditRecord.Action.SEAT_TO_BOT)
    seat = game.seats.get(position=1)
    assert seat.bot_level == ("hard" if record.actor == second else "medium")


def test_deactivating_a_user_as_they_leave_an_open_table_does_both(make_user, classic, django_user_model):
    ann, bob = make_user("ann"), make_user("bob")
    table = services.game_create(creator=ann, variant=classic, seat_count=3, invitees=[bob])
    [moderator] = moderators(django_user_model, 1)
    outcomes = race(
        [
            lambda: services.user_deactivate(user_id=bob.pk, moderator=moderator, reason=REASON).username,
            lambda: services.game_leave(game_id=table.pk, user=bob).status,
        ],
        lock=table,
    )
    assert outcomes[0] == "bob" and outcomes[1] in ("open", "not_seated")
    bob.refresh_from_db()
    assert not bob.is_active and not table.seats.filter(user=bob).exists()
    assert len(records(AuditRecord.Action.SEAT_VACATE)) == (1 if outcomes[1] == "not_seated" else 0)


# -- a moderator's step meeting the player's own request -------------------------------------------


def test_handing_a_seat_to_a_bot_as_its_player_posts_in_the_chat_does_both(game_in_play, django_user_model):
    """The hand-over queues first on the game, then bob's post (which holds his row by then, counting his
    messages). The hand-over's audit record names bob: under the post's FOR UPDATE of his row, that waited
    for the post, whose message names the game and waited for the hand-over. PostgreSQL found a deadlock and
    failed one of the two (a 500; found by a tester)."""
    game, _ann, bob = game_in_play
    [moderator] = moderators(django_user_model, 1)
    outcomes = race(
        [
            lambda: services.seat_hand_to_bot(game_id=game.pk, position=1, moderator=moderator, reason=REASON).status,
            lambda: services.chat_post(game_id=game.pk, user=bob, text="brb", channel="players").text,
        ],
        lock=game,
        in_order=True,
    )
    assert outcomes == ["active", "brb"]
    assert len(records(AuditRecord.Action.SEAT_TO_BOT)) == 1 and game.chat_messages.get().author == bob


def test_handing_a_seat_to_a_bot_as_its_player_goes_away_does_both(game_in_play, django_user_model):
    """The same with bob declaring time away, which holds his row and then tells each of his tables over days
    (locking it): the hand-over's record waited for bob's row, the time away for the game (found by a tester)."""
    game, _ann, bob = game_in_play
    [moderator] = moderators(django_user_model, 1)
    outcomes = race(
        [
            lambda: services.seat_hand_to_bot(game_id=game.pk, position=1, moderator=moderator, reason=REASON).status,
            lambda: services.away_declare(user=bob, days=1).user_id,
        ],
        lock=game,
        in_order=True,
    )
    assert outcomes == ["active", bob.pk]
    assert len(records(AuditRecord.Action.SEAT_TO_BOT)) == 1 and bob.absences.count() == 1


# -- a seat taken as its person is deactivated --------------------------------------------------------


def deactivated_when_reached(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str, user: Any, moderator: Any
) -> threading.Thread:
    """Deactivate ``user`` on a thread of its own once the step under test calls ``module.name`` (after the
    locks it takes first), and let the step go on when the deactivation is done or waits for a lock (seen in
    ``pg_stat_activity`` on PostgreSQL; on SQLite it waits for the write lock this step's transaction holds).
    The thread is returned to be joined."""
    real = getattr(module, name)
    errors: list[BaseException] = []

    def deactivate() -> None:
        try:
            services.user_deactivate(user_id=user.pk, moderator=moderator, reason=REASON)
        except BaseException as error:  # raised again by the test, from the thread's ``errors``
            errors.append(error)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=deactivate, daemon=True)
    thread.errors = errors  # type: ignore[attr-defined]

    def reached(*args: Any, **kwargs: Any) -> Any:
        if thread.ident is None:
            thread.start()
            deadline = time.monotonic() + 30
            while thread.is_alive() and not waiting_for_a_lock():
                assert time.monotonic() < deadline, "the deactivation neither finished nor waited"
                thread.join(0.05 if connection.vendor == "postgresql" else 1)
                if connection.vendor != "postgresql":
                    break  # (SQLite: it waits for this transaction's write lock, unseen)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, reached)
    return thread


def waiting_for_a_lock() -> bool:
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        (waiting,) = cursor.fetchone()
    return waiting > 0


@pytest.mark.parametrize("step", ["join a public table", "create a table", "ask for a rematch"])
def test_a_seat_taken_as_its_person_is_deactivated_is_let_go_or_refused(
    step, make_user, classic, django_user_model, monkeypatch
):
    """Bob takes a seat (joins a public table where none was held for him, makes a table, asks for a
    rematch) as a moderator deactivates him. The deactivation listed his seats before the new one was
    committed, so the inactive account kept a seat at an open table (helper x3, by reading). Now the step
    locks his row before the game's, as the deactivation does: it waits, and then lets that seat go."""
    ann, bob = make_user("ann"), make_user("bob")
    [moderator] = moderators(django_user_model, 1)
    finished = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], round_count=1)
    for person in (ann, bob):
        services.game_resign(game_id=finished.pk, user=person)
    table = services.game_create(creator=ann, variant=classic, seat_count=3)
    steps: dict[str, tuple[str, Callable[[], object]]] = {
        "join a public table": (
            "typed_or_site_contribution",
            lambda: services.game_join(game_id=table.pk, user=bob),
        ),
        "create a table": (
            "new_game_shuffle_fields",
            lambda: services.game_create(creator=bob, variant=classic, seat_count=2),
        ),
        "ask for a rematch": ("new_game_shuffle_fields", lambda: services.game_rematch(game_id=finished.pk, user=bob)),
    }
    reached, call = steps[step]
    thread = deactivated_when_reached(monkeypatch, fairness, reached, bob, moderator)

    try:
        call()
    except services.GameError as refusal:
        assert refusal.code == "not_logged_in"
    thread.join(60)
    assert not thread.is_alive() and not thread.errors

    bob.refresh_from_db()
    assert not bob.is_active
    in_play = [Game.Status.OPEN, Game.Status.ACTIVE]
    assert not Seat.objects.filter(user=bob, bot_level="", game__status__in=in_play).exists()
    assert not Seat.objects.filter(reserved_for=bob, game__status=Game.Status.OPEN).exists()


# -- a game that finishes while a person's games are locked one by one ---------------------------------

#: These interleave two transactions that write: SQLite runs such transactions one at a time (its write lock
#: is taken when each starts), so they cannot meet there; ``make test`` runs them on PostgreSQL.
interleaved_writers = pytest.mark.skipif(
    settings.DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql",
    reason="two writing transactions at once: PostgreSQL only (SQLite runs them one at a time)",
)


def held_at_the_lock_of(monkeypatch: pytest.MonkeyPatch, module: Any, game: Game) -> tuple[Any, Any]:
    """Hold ``module.lock_game_still`` when it comes to ``game`` until the returned ``go`` is set; the returned
    ``reached`` is set when it gets there."""
    real = module.lock_game_still
    reached, go = threading.Event(), threading.Event()

    def lock_game_still(game_id: int, statuses: Any) -> Game | None:
        if int(game_id) == game.pk and not reached.is_set():
            reached.set()
            go.wait(30)
        return real(game_id, statuses)

    monkeypatch.setattr(module, "lock_game_still", lock_game_still)
    return reached, go


def on_a_thread(call: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    """``call()`` on a thread of its own (its own connection); its result, or what it raised, in the list."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as error:  # looked at by the test
            outcome.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def joined(*threads: tuple[threading.Thread, list[object]]) -> None:
    for thread, _outcome in threads:
        thread.join(60)
        assert not thread.is_alive(), "a step never finished"


def finish_it_and_ask_for_a_rematch(game: Game, ann: Any, bob: Any) -> tuple[threading.Thread, list[object]]:
    """Both players resign (bots end the game), then Ann asks for a rematch, which waits for the row of a
    person it asks (or of Ann) that the step under test holds."""
    for person in (ann, bob):
        services.game_resign(game_id=game.pk, user=person)
    rematch = on_a_thread(lambda: services.game_rematch(game_id=game.pk, user=ann))
    deadline = time.monotonic() + 30
    while connection.vendor == "postgresql" and not waiting_for_a_lock():
        assert time.monotonic() < deadline, "the rematch never waited"
        time.sleep(0.02)
    return rematch


@interleaved_writers
@pytest.mark.parametrize("deactivated", ["ann, who asks", "bob, who is asked"])
def test_a_deactivation_and_a_rematch_of_a_game_that_finished_meanwhile_do_not_deadlock(
    deactivated, game_in_play, django_user_model, monkeypatch
):
    """The deactivation holds the person's row and lists their games in play; one of them finishes and a
    rematch of it locked it, then the person's row; the deactivation then locked that game: PostgreSQL found
    a deadlock and failed the rematch (a review). Now it locks a game only if it is still in play (and the
    rematch locks the people before the game: the next test)."""
    game, ann, bob = game_in_play
    [moderator] = moderators(django_user_model, 1)
    target = ann if deactivated.startswith("ann") else bob
    reached, go = held_at_the_lock_of(monkeypatch, moderation, game)
    deactivation = on_a_thread(lambda: services.user_deactivate(user_id=target.pk, moderator=moderator, reason=REASON))
    try:
        assert reached.wait(30)
        rematch = finish_it_and_ask_for_a_rematch(game, ann, bob)
    finally:
        go.set()  # (a failure above must not leave the deactivation holding its locks)
    joined(deactivation, rematch)
    [deactivated_user], [made] = deactivation[1], rematch[1]
    assert deactivated_user.pk == target.pk
    if target == ann:
        assert isinstance(made, services.GameError) and made.code == "not_logged_in"
        assert not Game.objects.filter(rematch_of=game).exists()
    else:  # bob, deactivated before the rematch read him: a bot takes his seat, and it is dealt
        assert isinstance(made, Game) and made.seats.filter(reserved_for__isnull=False).count() == 0
        assert Game.objects.get(pk=made.pk).status == Game.Status.ACTIVE


@interleaved_writers
def test_time_away_beginning_and_a_rematch_of_a_game_that_finished_meanwhile_do_not_deadlock(
    make_user, classic, monkeypatch
):
    """The same with the clock telling Bob's games over days that his time away began (his row, then each
    game): a review found it failed the rematch too."""
    from games.models import Absence
    from games.services import away

    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], round_count=1, time_limit_seconds=86400
    )
    now = timezone.now()
    day = datetime.timedelta(days=1)
    Absence.objects.create(user=bob, starts_at=now - datetime.timedelta(seconds=1), ends_at=now + day)
    reached, go = held_at_the_lock_of(monkeypatch, away, game)
    settling = on_a_thread(lambda: away.settle_due(now=timezone.now()))
    try:
        assert reached.wait(30)
        rematch = finish_it_and_ask_for_a_rematch(game, ann, bob)
    finally:
        go.set()
    joined(settling, rematch)
    assert settling[1] == [1] and isinstance(rematch[1][0], Game)


@interleaved_writers
@pytest.mark.parametrize("step", ["a rematch", "an analysis"])
def test_asking_for_a_rematch_or_an_analysis_locks_the_peoples_rows_before_the_games(step, game_in_play):
    """Both locked the finished game, then a person's row. A deactivation (or time away) that holds that row
    and had read the game in play a moment before it finished waits for the game: a deadlock, which a review
    reproduced on PostgreSQL by pausing the deactivation as the game finished. Now they take the rows first,
    as every path that seats a person does: while one waits for bob's row, the game's is free."""
    from accounts.models import User

    game, ann, bob = game_in_play
    for person in (ann, bob):
        services.game_resign(game_id=game.pk, user=person)
    call = {
        "a rematch": lambda: services.game_rematch(game_id=game.pk, user=ann),
        "an analysis": lambda: services.analysis_request(game_id=game.pk, user=bob),
    }[step]
    with transaction.atomic():
        User.objects.select_for_update(no_key=True).get(pk=bob.pk)  # as a deactivation of bob holds it
        asking = on_a_thread(call)
        deadline = time.monotonic() + 30
        while not waiting_for_a_lock():
            assert time.monotonic() < deadline, "it never waited for bob's row"
            time.sleep(0.02)
        Game.objects.select_for_update(nowait=True).get(pk=game.pk)  # free: no error
    joined(asking)
    assert not isinstance(asking[1][0], BaseException), asking[1]


@interleaved_writers
def test_a_rematch_asking_a_person_as_they_are_deactivated_leaves_no_seat_held_for_them(
    game_in_play, django_user_model, monkeypatch
):
    """It read who is active before locking their rows, and held a seat for Bob, deactivated in between: the
    table waited for someone who could never come (a review). Now it reads them under their locks, and a
    deactivation that comes while they are locked waits, then finds the seat held and gives it to a bot."""
    game, ann, bob = game_in_play
    for person in (ann, bob):
        services.game_resign(game_id=game.pk, user=person)
    [moderator] = moderators(django_user_model, 1)
    deactivation = deactivated_when_reached(monkeypatch, playing, "check_invitations_waiting", bob, moderator)
    rematch = services.game_rematch(game_id=game.pk, user=ann)
    deactivation.join(60)
    assert not deactivation.is_alive() and not deactivation.errors
    assert not rematch.seats.filter(reserved_for=bob).exists()
    bobs = rematch.seats.get(position=game.seats.get(user=bob).position)
    assert bobs.user_id is None and bobs.bot_level == "medium"  # bob's seat went to a bot, the last one ...
    assert Game.objects.get(pk=rematch.pk).status == Game.Status.OPEN  # ... which deals nothing: ann starts it


def test_a_table_holds_no_seat_for_an_account_deactivated_before_it_was_made(make_user, classic):
    """The lobby's form names only active accounts, but one deactivated between its check and the table got a
    seat held (a review): its seat is open instead, as a deactivation lets go of one held."""
    ann, bob = make_user("ann"), make_user("bob")
    bob.is_active = False
    bob.save()
    table = services.game_create(creator=ann, variant=classic, seat_count=3, invited=[bob])
    assert not table.seats.filter(reserved_for__isnull=False).exists()
    assert table.seats.filter(user__isnull=True, bot_level="").count() == 2
