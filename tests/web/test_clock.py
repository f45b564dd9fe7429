"""The move clock: deadlines, timeouts played by the bot, takeover after three, racing workers, e-mails.

Time is injected (``now=``) or frozen (``django.utils.timezone.now`` patched), never slept on.
"""

from __future__ import annotations

import datetime
import re
from unittest import mock

import pytest
import time_machine
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from games import selectors, services
from games.models import Game, Move, TurnNotice

from .conftest import NOTICE_DUE, engine_view, logged_in, post_action, state_fingerprint

pytestmark = pytest.mark.django_db

SECOND = datetime.timedelta(seconds=1)
DAY = 24 * 3600


def two_player_game(make_user, classic, *, limit=DAY, seed=3, rounds=(3, 4)):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        time_limit_seconds=limit,
        seed=seed,
        options={"rounds": list(rounds)},
    )
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    return game, ann, bob


def game_of_people_who_want_emails(make_user, classic, **options):
    """``two_player_game``, both players with "e-mail me when it is my turn" ticked."""
    game, ann, bob = two_player_game(make_user, classic, **options)
    for person in (ann, bob):
        person.notify_by_email = True
        person.save()
    return game, ann, bob


def person_to_move(game):
    game.refresh_from_db()
    return game.seats.get(position=game.current_seat)


def test_a_turn_has_a_deadline_one_time_limit_after_it_starts(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic, limit=120)
    assert game.status == Game.Status.ACTIVE
    assert game.turn_deadline == game.turn_started_at + datetime.timedelta(seconds=120)
    page = logged_in(person_to_move(game).user).get(game.get_absolute_url()).content.decode()
    assert "Move before" in page and 'class="countdown"' in page  # readable without JavaScript


def test_when_the_deadline_passes_the_bot_plays_the_turn(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    seat = person_to_move(game)
    deadline, turn, version = game.turn_deadline, game.turn_number, game.version
    assert services.clock_tick(now=deadline - SECOND)["timeouts"] == 0
    game.refresh_from_db()
    assert game.version == version and not Move.objects.filter(game=game, by_bot=True).exists()

    assert services.clock_tick(now=deadline + SECOND)["timeouts"] == 1
    game.refresh_from_db()
    played = list(Move.objects.filter(game=game, by_bot=True).order_by("seq"))
    assert [m.seat for m in played] == [seat.position, seat.position]  # draw, then discard
    assert played[0].action["type"] == "draw" and played[1].action["type"] in ("discard", "go_out")
    assert game.turn_number == turn + 1 and game.current_seat != seat.position
    assert game.turn_started_at == deadline + SECOND  # the next turn's clock starts when the bot moved
    seat.refresh_from_db()
    assert seat.timeouts_in_row == 1 and not seat.bot_level and not seat.left


def test_the_bot_finishes_a_turn_the_person_had_started(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    seat = person_to_move(game)
    mover = seat.user
    assert post_action(logged_in(mover), game, {"type": "draw", "source": "stock"}).status_code == 302
    game.refresh_from_db()
    services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
    last = Move.objects.filter(game=game).order_by("-seq").first()
    assert last.by_bot and last.seat == seat.position and last.action["type"] in ("discard", "go_out")


def test_three_timeouts_in_a_row_hand_the_seat_to_the_bot(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic, rounds=(3, 4, 5, 6))
    sleeper = person_to_move(game)
    awake = game.seats.exclude(pk=sleeper.pk).get()
    awake_client = logged_in(awake.user)
    timeouts = 0
    while timeouts < 3:
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE
        if game.current_seat == sleeper.position:
            services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
            timeouts += 1
            sleeper.refresh_from_db()
            assert sleeper.timeouts_in_row == timeouts
            assert bool(sleeper.bot_level) == (timeouts == 3)
        else:
            # the other person plays their own turns: nothing is counted against them
            assert post_action(awake_client, game, {"type": "draw", "source": "stock"}).status_code == 302
            view = selectors.game_table(game=Game.objects.get(pk=game.pk), user=awake.user)
            card = next(face["code"] for face in view["hand"] if face["can_discard"])
            assert post_action(awake_client, game, {"type": "discard", "card": card}).status_code == 302
            awake.refresh_from_db()
            assert awake.timeouts_in_row == 0
    assert sleeper.bot_level == services.TAKEOVER_BOT_LEVEL and sleeper.left == "timed_out"
    assert sleeper.left_at is not None and sleeper.user_id is not None  # still named in the standings
    game.refresh_from_db()
    # From now on the bot plays that seat at once: the turn is the awake person's again.
    assert game.current_seat == awake.position or game.status == Game.Status.FINISHED
    assert not selectors.games_waiting_on(user=sleeper.user).exists()
    response = post_action(logged_in(sleeper.user), game, {"type": "draw", "source": "stock"})
    assert response.status_code == 409 and "bot plays your seat" in response.content.decode()


def test_a_move_of_the_person_resets_the_timeouts_in_a_row(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    sleeper = person_to_move(game)
    services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
    game.refresh_from_db()
    while game.current_seat != sleeper.position:  # the other seat's turns time out too
        services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
        game.refresh_from_db()
    sleeper.refresh_from_db()
    assert sleeper.timeouts_in_row == 1
    assert post_action(logged_in(sleeper.user), game, {"type": "draw", "source": "stock"}).status_code == 302
    sleeper.refresh_from_db()
    assert sleeper.timeouts_in_row == 0


def recent_lines(client, game):
    """The table's recent moves as (line, whether it is marked as a bot's move for the player), newest first."""
    page = client.get(f"/games/{game.pk}/").content.decode()
    section = page.split('class="panel recent"', 1)[1].split("</section>", 1)[0]
    items = re.findall(r"<li[^>]*>(.*?)</li>", section, re.S)
    return [(re.sub(r"<[^>]+>.*", "", item).strip(), "bot move" in item) for item in items], page


def test_the_table_marks_the_turns_the_bot_played_for_a_person_and_warns_them(make_user, classic):
    # A deal where the bot plays the timed-out turn without going out (so the turns go on in turn).
    game, ann, bob = two_player_game(make_user, classic, seed=5)
    sleeper = person_to_move(game)
    awake = game.seats.exclude(pk=sleeper.pk).get()
    services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
    sleeper_client, awake_client = logged_in(sleeper.user), logged_in(awake.user)

    for client in (sleeper_client, awake_client):  # everyone at the table sees whose choice it was
        lines, page = recent_lines(client, game)
        assert lines[:2] and all(marked for line, marked in lines if line.startswith(sleeper.name))
        assert len([1 for line, marked in lines if marked]) == 2  # the draw and the discard
    _, sleeper_page = recent_lines(sleeper_client, game)
    _, awake_page = recent_lines(awake_client, game)
    assert "the bot played your turn (1 of 3 in a row)" in sleeper_page
    assert "in a row" not in awake_page  # the warning is for the player whose time ran out

    card = engine_view(game, awake.position).hand[-1]
    assert post_action(awake_client, game, {"type": "draw", "source": "stock"}).status_code == 302
    assert post_action(awake_client, game, {"type": "discard", "card": card.code}).status_code == 302
    assert post_action(sleeper_client, game, {"type": "draw", "source": "stock"}).status_code == 302
    lines, sleeper_page = recent_lines(sleeper_client, game)
    assert lines[0] == (f"{sleeper.name} drew from the stock.", False)  # their own move again
    assert [marked for line, marked in lines[:3]] == [False, False, False]  # and the other player's
    assert [marked for line, marked in lines[3:5]] == [True, True]  # the turn the bot played stays marked
    assert "in a row" not in sleeper_page  # a move of their own started the count again


def test_the_turns_of_a_bot_seat_are_not_marked_as_played_for_someone(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, seed=4, options={"rounds": [3, 4]}
    )
    client = logged_in(ann)
    assert post_action(client, game, {"type": "draw", "source": "stock"}).status_code == 302
    card = engine_view(game, 0).hand[-1]
    assert post_action(client, game, {"type": "discard", "card": card.code}).status_code == 302
    bot_name = game.seats.get(position=1).name
    lines, page = recent_lines(client, game)
    assert any(line.startswith(bot_name) for line, _ in lines)  # the bot has played after Ann
    assert not any(marked for _, marked in lines) and "in a row" not in page


def test_the_round_story_marks_the_turns_the_bot_played_for_a_person(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, seed=11, options={"rounds": [3]}
    )
    while game.status != Game.Status.FINISHED:  # every turn of ann's times out (then the bot keeps her seat)
        services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
        game.refresh_from_db()
    response = logged_in(ann).get(f"/games/{game.pk}/")
    story = response.context["final_result"]["story"]
    told = [(story["went_out"], story["went_out_by_bot"])]
    told += [(turn["text"], turn["bot_for_person"]) for turn in story["last_turns"]]
    assert any(line.startswith("ann ") for line, _ in told)  # ann's seat is in the story, one way or the other
    assert all(marked == line.startswith("ann ") for line, marked in told)  # hers marked, the bots' own not
    assert "bot move" in response.content.decode().split('class="round-story"', 1)[1].split("</div>", 1)[0]


def test_a_timeout_that_is_not_due_or_already_played_changes_nothing(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    before = (game.version, game.turn_number, game.moves.count())
    with pytest.raises(services.GameError) as early:
        services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline - SECOND)
    assert early.value.code == "not_due"
    with pytest.raises(services.GameError) as stale:
        services.game_timeout(game_id=game.pk, turn_number=game.turn_number - 1, now=game.turn_deadline)
    assert stale.value.code == "not_due"
    game.refresh_from_db()
    assert (game.version, game.turn_number, game.moves.count()) == before


# -- a move that arrives after its deadline ---------------------------------------

LATE = datetime.timedelta(milliseconds=300)


def frozen_at(moment: datetime.datetime):
    return mock.patch("django.utils.timezone.now", return_value=moment)


def test_a_draw_a_moment_after_the_deadline_is_refused_and_the_clock_plays_the_whole_turn(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    seat = person_to_move(game)
    client = logged_in(seat.user)
    before = state_fingerprint(game)
    with frozen_at(game.turn_deadline + LATE):
        response = post_action(client, game, {"type": "draw", "source": "stock"})
    assert response.status_code == 409
    page = response.content.decode()
    assert "Your time for this turn ran out: nothing was played" in page and 'id="table"' in page
    assert state_fingerprint(game) == before
    seat.refresh_from_db()
    assert seat.timeouts_in_row == 0  # not counted until the clock plays the turn

    assert services.clock_tick(now=game.turn_deadline + LATE)["timeouts"] == 1
    moves = list(Move.objects.filter(game=game).order_by("seq"))
    mine = [m for m in moves if m.seat == seat.position]
    assert [m.action["type"] for m in mine][:1] == ["draw"] and mine[1].action["type"] in ("discard", "go_out")
    assert all(m.by_bot for m in mine)  # the whole turn: the draw too
    seat.refresh_from_db()
    assert seat.timeouts_in_row == 1


@pytest.mark.parametrize("offset, accepted", [(-LATE, True), (datetime.timedelta(0), False), (LATE, False)])
def test_the_deadline_is_the_instant_the_clock_may_play_the_turn(make_user, classic, offset, accepted):
    """A move and the clock never both get a turn: the move is refused from the instant the clock may play."""
    game, ann, bob = two_player_game(make_user, classic)
    seat = person_to_move(game)
    moment = game.turn_deadline + offset
    with frozen_at(moment):
        if accepted:
            game_after = services.game_play(
                game_id=game.pk,
                user=seat.user,
                action={"type": "draw", "source": "stock"},
                expected_version=game.version,
            )
            assert game_after.moves.filter(by_bot=False).count() == 1
        else:
            with pytest.raises(services.GameError) as refused:
                services.game_play(
                    game_id=game.pk,
                    user=seat.user,
                    action={"type": "draw", "source": "stock"},
                    expected_version=game.version,
                )
            assert refused.value.code == "out_of_time"
    game.refresh_from_db()
    clock_may_play = True
    try:
        services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=moment)
    except services.GameError as error:
        assert error.code == "not_due"
        clock_may_play = False
    assert clock_may_play is not accepted


def test_a_turn_begun_in_time_is_finished_by_the_bot_from_where_it_stands(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    seat = person_to_move(game)
    client = logged_in(seat.user)
    with frozen_at(game.turn_deadline - LATE):
        assert post_action(client, game, {"type": "draw", "source": "stock"}).status_code == 302
    game.refresh_from_db()
    hand = engine_view(game, seat.position).hand
    assert len(hand) == 4  # three dealt, one drawn: the discard is still to come
    before = state_fingerprint(game)
    with frozen_at(game.turn_deadline + LATE):
        late = post_action(client, game, {"type": "discard", "card": hand[0].code})
    assert late.status_code == 409 and "ran out" in late.content.decode()
    assert state_fingerprint(game) == before

    turn = game.turn_number
    services.game_timeout(game_id=game.pk, turn_number=turn, now=game.turn_deadline + LATE)
    game.refresh_from_db()
    turn_moves = list(Move.objects.filter(game=game, seat=seat.position).order_by("seq"))
    assert [(m.action["type"], m.by_bot) for m in turn_moves][:1] == [("draw", False)]
    assert turn_moves[1].by_bot and turn_moves[1].action["type"] in ("discard", "go_out")
    assert len(turn_moves) == 2 and game.turn_number > turn
    seat.refresh_from_db()
    assert seat.timeouts_in_row == 1


def test_the_other_player_is_told_it_is_not_their_turn_not_that_their_time_ran_out(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    waiting = game.seats.exclude(position=game.current_seat).get()
    with frozen_at(game.turn_deadline + LATE), pytest.raises(services.GameError) as refused:
        services.game_play(
            game_id=game.pk,
            user=waiting.user,
            action={"type": "draw", "source": "stock"},
            expected_version=game.version,
        )
    assert refused.value.code == "not_your_turn"


def test_a_game_with_no_deadline_running_refuses_nothing_for_time(make_user, classic):
    """Between the deal and the first person's turn, or while bots move, no deadline is set: nothing to enforce."""
    game, ann, bob = two_player_game(make_user, classic)
    seat = person_to_move(game)
    Game.objects.filter(pk=game.pk).update(turn_deadline=None)
    game.refresh_from_db()
    with frozen_at(game.turn_started_at + datetime.timedelta(days=30)):
        played = services.game_play(
            game_id=game.pk, user=seat.user, action={"type": "draw", "source": "stock"}, expected_version=game.version
        )
    assert played.moves.filter(by_bot=False).count() == 1


def test_the_gameclock_command_applies_deadlines_with_the_clock_frozen(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    with mock.patch("django.utils.timezone.now", return_value=game.turn_deadline + SECOND):
        call_command("gameclock", "--once", stdout=open("/dev/null", "w"))
    game.refresh_from_db()
    assert game.moves.filter(by_bot=True).count() == 2 and game.turn_number == 1


def test_a_turn_the_clock_hands_on_late_in_a_long_pass_gets_its_whole_time(make_user, classic):
    """Found by a tester: back after the clock worker was stopped, one pass played many timed-out turns
    (each a hard bot's thinking), and each next turn was started at the moment the pass began, so the
    person of a live game late in the list had a deadline gone by before their turn was even written."""
    first, _ann, _bob = two_player_game(make_user, classic, limit=30)
    second = services.game_create(
        creator=make_user("cat"), variant=classic, seat_count=2, time_limit_seconds=30, seed=4, options={"rounds": [3]}
    )
    services.game_join(game_id=second.pk, user=make_user("dan"))
    second.refresh_from_db()
    late = max(first.turn_deadline, second.turn_deadline) + datetime.timedelta(hours=1)
    order = [first.pk, second.pk] if first.turn_deadline <= second.turn_deadline else [second.pk, first.pk]
    timeout = services.clock.game_timeout
    with time_machine.travel(late, tick=False) as clock:

        def slow_timeout(**kwargs):
            played = timeout(**kwargs)
            clock.shift(40)  # the bot's thinking and the other games of the pass take their time
            return played

        with mock.patch.object(services.clock, "game_timeout", slow_timeout):
            assert services.clock_tick()["timeouts"] == 2
    last = Game.objects.get(pk=order[1])
    started = late + 40 * SECOND  # when the pass came to it
    assert last.turn_started_at == started and last.turn_deadline == started + 30 * SECOND


# Two clocks at once: tests/web/test_concurrency.py (with the other races).


# -- e-mail notices ---------------------------------------------------------------


def test_exactly_one_email_per_turn_and_one_reminder(make_user, classic):
    game, ann, bob = two_player_game(make_user, classic)
    seat = person_to_move(game)
    seat.user.notify_by_email = True
    seat.user.save()
    start = game.turn_started_at
    assert services.clock_tick(now=start + NOTICE_DUE)["emails"] == 1
    assert services.clock_tick(now=start + NOTICE_DUE + SECOND)["emails"] == 0
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [seat.user.email] and "Your turn" in message.subject
    assert f"/games/{game.pk}/" in message.body

    at_80 = start + datetime.timedelta(seconds=DAY * 0.8)
    assert services.clock_tick(now=at_80 - SECOND)["emails"] == 0
    assert services.clock_tick(now=at_80)["emails"] == 1
    assert services.clock_tick(now=at_80 + SECOND)["emails"] == 0
    assert len(mail.outbox) == 2 and "Reminder" in mail.outbox[1].subject
    assert TurnNotice.objects.filter(game=game).count() == 2


def test_the_next_turn_gets_its_own_email(make_user, classic):
    game, ann, bob = game_of_people_who_want_emails(make_user, classic)
    first = person_to_move(game)
    services.clock_tick(now=game.turn_started_at + NOTICE_DUE)
    services.game_timeout(game_id=game.pk, turn_number=game.turn_number, now=game.turn_deadline)
    game.refresh_from_db()
    services.clock_tick(now=game.turn_started_at + NOTICE_DUE)
    services.clock_tick(now=game.turn_started_at + NOTICE_DUE + SECOND)
    assert [m.to for m in mail.outbox] == [[first.user.email], [person_to_move(game).user.email]]


def test_a_turn_played_at_the_table_sends_no_email_and_the_next_waits_its_own_delay(make_user, classic):
    game, ann, bob = game_of_people_who_want_emails(make_user, classic)
    first = person_to_move(game)
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE - SECOND)["emails"] == 0
    client = logged_in(first.user)
    assert post_action(client, game, {"type": "draw", "source": "stock"}).status_code == 302
    card = engine_view(game, first.position).hand[-1]
    assert post_action(client, game, {"type": "discard", "card": card.code}).status_code == 302
    second = person_to_move(game)
    assert second.position != first.position
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE - SECOND)["emails"] == 0
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["emails"] == 1
    assert [m.to for m in mail.outbox] == [[second.user.email]]  # the turn played in time: no message
    assert not TurnNotice.objects.filter(game=game, user=first.user).exists()


def test_a_turn_begun_at_the_table_gets_no_email_but_its_reminder_if_left_unfinished(make_user, classic):
    game, ann, bob = game_of_people_who_want_emails(make_user, classic)
    mover = person_to_move(game)
    assert post_action(logged_in(mover.user), game, {"type": "draw", "source": "stock"}).status_code == 302
    game.refresh_from_db()
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["emails"] == 0  # drew: at the table
    assert services.clock_tick(now=game.turn_started_at + 2 * NOTICE_DUE)["emails"] == 0
    at_80 = game.turn_started_at + datetime.timedelta(seconds=DAY * 0.8)
    assert services.clock_tick(now=at_80)["emails"] == 1  # but never discarded: reminded
    assert "Reminder" in mail.outbox[0].subject and mail.outbox[0].to == [mover.user.email]


def test_no_email_without_opting_in_nor_in_a_live_game(make_user, classic, settings):
    game, ann, bob = two_player_game(make_user, classic)  # nobody opted in
    services.clock_tick(now=game.turn_started_at + NOTICE_DUE)
    assert mail.outbox == []
    live, carl, dora = None, make_user("carl"), make_user("dora")
    carl.notify_by_email = dora.notify_by_email = True
    carl.save()
    dora.save()
    live = services.game_create(
        creator=carl, variant=classic, seat_count=2, time_limit_seconds=120, invitees=[dora], seed=5
    )
    # A live turn ends before the notice's delay; without the delay it still gets none.
    settings.TURN_NOTICE_DELAY_SECONDS = 0
    services.clock_tick(now=live.turn_started_at + SECOND)
    services.clock_tick(now=live.turn_started_at + 100 * SECOND)
    assert mail.outbox == []


def test_the_profile_page_offers_the_opt_in(make_user):
    ann = make_user("ann")
    client = logged_in(ann)
    response = client.post(
        "/accounts/profile/", {"display_name": "", "email": "ann@example.com", "language": "", "notify_by_email": "on"}
    )
    assert response.status_code == 302
    ann.refresh_from_db()
    assert ann.notify_by_email


def test_the_turn_after_a_timeout_starts_once_the_takeover_bot_has_thought(make_user, classic):
    """Found by a review: the timeout read the time before the bot that plays the turn thought (a hard bot,
    a draw and a discard), and started the next person's turn at that moment: in a game of 30 s a move,
    the person lost the bot's thinking time before their turn was written."""
    from games import bots

    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, time_limit_seconds=30, seed=3, options={"rounds": [3]}
    )
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    real = bots.choose_action
    with time_machine.travel(game.turn_deadline + datetime.timedelta(hours=1), tick=False) as clock:

        def thinking(*args, **kwargs):
            clock.shift(5)  # five seconds a decision
            return real(*args, **kwargs)

        with mock.patch.object(services.clock.bots, "choose_action", thinking):
            assert services.clock_tick()["timeouts"] == 1
        written = datetime.datetime.now(datetime.UTC)
    game.refresh_from_db()
    assert game.turn_started_at == written and game.turn_deadline == written + datetime.timedelta(seconds=30)


def test_a_turn_long_past_its_deadline_says_the_clock_is_late(make_user, classic):
    """Found by a tester: with the clock worker stopped, the table said "the bot plays this turn" for as long
    as it stayed down. Just past the deadline the clock is about to play it; long past, the table says it is
    late, in the page and in what its script switches to."""
    game, ann, bob = two_player_game(make_user, classic, limit=30)
    mover = game.seats.get(position=game.current_seat).user
    late = "the site’s clock is running late"
    for past, says_late in ((5, False), (selectors.CLOCK_LATE_AFTER + 1, True)):
        Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - past * SECOND)
        page = logged_in(mover).get(game.get_absolute_url()).content.decode()
        countdown = re.search(r'<time class="countdown"[^>]*>([^<]*)</time>', page)
        assert countdown is not None
        assert (late in countdown.group(1)) is says_late, countdown.group(0)
        assert late in countdown.group(0)  # the script's words for later are in the page either way
        late_in = int(re.search(r'data-late-in="(-?\d+)"', countdown.group(0)).group(1))
        assert (late_in <= 0) is says_late


def test_a_live_table_nobody_came_to_is_called_off_and_one_played_over_days_waits(
    make_user, classic, django_capture_on_commit_callbacks
):
    """A review: a live table waited for ever, and a seat taken hours later dealt it to people long gone
    (a rematch's asker walked away; the other took his seat six hours on), whose turns the clock played."""
    from games.services.clock import LIVE_TABLE_WAITS, call_off_live_tables_left_waiting

    ann, bob = make_user("ann"), make_user("bob")
    live = services.game_create(creator=ann, variant=classic, seat_count=2, time_limit_seconds=30, invited=[bob])
    days = services.game_create(creator=ann, variant=classic, seat_count=2, time_limit_seconds=DAY)
    now = timezone.now()
    assert call_off_live_tables_left_waiting(now=now + LIVE_TABLE_WAITS - SECOND) == 0
    with django_capture_on_commit_callbacks(execute=True):
        assert call_off_live_tables_left_waiting(now=now + LIVE_TABLE_WAITS + SECOND) == 1
    live.refresh_from_db()
    days.refresh_from_db()
    assert live.status == Game.Status.ABORTED and days.status == Game.Status.OPEN
    assert not live.seats.filter(reserved_for=bob).exists()  # Bob's invitation went with it
    response = logged_in(bob).post(f"/games/{live.pk}/join/")
    assert response.status_code == 409 and not live.seats.filter(user=bob).exists()


def test_a_seat_taken_keeps_a_live_table_waiting_and_a_called_off_rematch_gives_way(
    make_user, classic, django_capture_on_commit_callbacks
):
    from games.services.clock import LIVE_TABLE_WAITS

    game, ann, bob = two_player_game(make_user, classic, limit=30, rounds=(3,))
    for person in (ann, bob):
        services.game_resign(game_id=game.pk, user=person)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        rematch = services.game_rematch(game_id=game.pk, user=ann)
    with time_machine.travel(start + LIVE_TABLE_WAITS - SECOND, tick=False):
        services.game_decline(game_id=rematch.pk, user=bob)  # a change: it waits again from now
    with django_capture_on_commit_callbacks(execute=True):
        services.clock_tick(now=start + LIVE_TABLE_WAITS + SECOND)
    assert Game.objects.get(pk=rematch.pk).status == Game.Status.OPEN
    with django_capture_on_commit_callbacks(execute=True):
        done = services.clock_tick(now=start + 2 * LIVE_TABLE_WAITS)
    assert done["called_off"] == 1 and Game.objects.get(pk=rematch.pk).status == Game.Status.ABORTED
    # The finished table offers a rematch again, and a new one may be asked for.
    assert ">Rematch</button>" in logged_in(bob).get(game.get_absolute_url()).content.decode()
    assert services.game_rematch(game_id=game.pk, user=bob).pk != rematch.pk


def test_the_clock_looks_again_under_the_lock_before_calling_a_table_off(make_user, classic, monkeypatch):
    """A review: without the check under the lock a seat taken after the clock listed the table (and before
    it locked it) would not save it."""
    from games.services import clock as clock_service

    ann = make_user("ann")
    live = services.game_create(creator=ann, variant=classic, seat_count=3, time_limit_seconds=30)
    later = timezone.now() + clock_service.LIVE_TABLE_WAITS + SECOND
    lock = clock_service.lock_game

    def a_seat_taken_meanwhile(game_id):
        with time_machine.travel(later, tick=False):
            services.game_join(game_id=game_id, user=make_user("cid"))
        return lock(game_id)

    monkeypatch.setattr(clock_service, "lock_game", a_seat_taken_meanwhile)
    assert clock_service.call_off_live_tables_left_waiting(now=later) == 0
    live.refresh_from_db()
    assert live.status == Game.Status.OPEN and live.seats.filter(user__username="cid").exists()


def test_a_game_left_to_bots_by_timeouts_is_played_a_round_a_pass_not_in_one(make_user, classic):
    """A fault tester: when the last person of a game of expert bots timed out for good, the one clock played the
    whole game to its end in that pass, and every other table's timed-out turn waited half a minute for it.  The
    pass plays the round in play; each later pass a round more (the bots left waiting), until the game ends."""
    ann = make_user("ann")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=2,
        bot_count=1,
        bot_level="easy",
        time_limit_seconds=DAY,
        seed=3,
        options={"rounds": [3, 4, 5, 6, 7]},
    )

    def rounds_scored() -> int:
        game.refresh_from_db()
        return len(engine_view(game, None).results)

    for _timeout in range(3):  # ann's turns all time out; the bot plays its own after each
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE and game.current_seat == 0
        scored = rounds_scored()
        assert services.clock_tick(now=game.turn_deadline)["timeouts"] == 1
    ann_seat = game.seats.get(position=0)
    assert ann_seat.left == "timed_out"  # no person plays at the table now
    # The round in play (the timed-out turn may have ended one: then the next), not the game.
    assert rounds_scored() <= scored + 2 and game.status == Game.Status.ACTIVE

    passes = 0
    while game.status == Game.Status.ACTIVE:
        before = rounds_scored()
        game.refresh_from_db()
        assert services.clock_tick(now=game.updated_at + services.BOTS_WAITING_AFTER)["bots"] == 1
        passes += 1
        assert rounds_scored() == before + 1  # a round a pass
        game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and passes >= 2
