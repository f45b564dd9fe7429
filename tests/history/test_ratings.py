"""Ratings: openskill Plackett-Luce, ties share a place, bots rated per level, exactly once per game."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from games import bots, services
from games.engine import Draw, GameState, apply, view
from games.history import ratings
from games.models import Game, GameResult, Rating
from tests.races import race

from .conftest import finish_with_bot_moves, make_finished_game


@pytest.mark.django_db
def test_places_share_ties():
    assert ratings.places([30, 12, 30, 5]) == [3, 2, 3, 1]
    assert ratings.places([7, 7]) == [1, 1]


@pytest.mark.django_db
def test_a_game_is_rated_once_when_it_finishes(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, bot_level="hard", options={"rounds": [3, 4]}, seed=8
    )
    finish_with_bot_moves(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    results = list(GameResult.objects.filter(game=game).order_by("position"))
    assert [r.position for r in results] == [0, 1, 2]
    assert [r.total_score for r in results] == [s.total_score for s in game.seats.order_by("position")]
    person, hard = Rating.objects.get(user=ann), Rating.objects.get(bot_level="hard")
    assert person.games == 1 and hard.games == 1  # two hard bots: one entity, one game
    assert Rating.objects.count() == 2
    assert person.mu != 25.0 and person.ordinal == pytest.approx(person.mu - 3 * person.sigma)
    before = list(Rating.objects.order_by("pk").values())

    # the rating update is idempotent: again, by the service or directly, changes nothing
    assert ratings.game_rate(game_id=game.pk) is False
    with transaction.atomic():
        assert ratings.rate_finished_game(Game.objects.select_for_update().get(pk=game.pk)) is False
    assert list(Rating.objects.order_by("pk").values()) == before
    assert GameResult.objects.filter(game=game).count() == 3
    # and the database itself refuses a second result for a seat
    with pytest.raises(IntegrityError), transaction.atomic():
        GameResult.objects.create(
            **{k: v for k, v in GameResult.objects.filter(game=game).values()[0].items() if k != "id"}
        )


@pytest.mark.django_db
def test_equal_totals_share_a_place_and_move_the_rating_alike(make_user):
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    game = make_finished_game([ann, bob, cat], [20, 20, 35])
    results = {r.user_id: r for r in GameResult.objects.filter(game=game)}
    assert (results[ann.pk].place, results[bob.pk].place, results[cat.pk].place) == (1, 1, 3)
    assert results[ann.pk].shared and results[bob.pk].shared and not results[cat.pk].shared
    assert results[ann.pk].mu_after == pytest.approx(results[bob.pk].mu_after)
    assert results[ann.pk].mu_after > 25 > results[cat.pk].mu_after


@pytest.mark.django_db
def test_the_rating_follows_openskill_plackett_luce(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    make_finished_game([ann, bob, "easy"], [10, 40, 25], number=1)
    make_finished_game([bob, ann], [3, 9], number=2)
    model = ratings.MODEL
    a, b, e = model.rating(), model.rating(), model.rating()
    [[a], [b], [e]] = model.rate([[a], [b], [e]], ranks=[1, 3, 2])
    [[b], [a]] = model.rate([[b], [a]], ranks=[1, 2])
    assert Rating.objects.get(user=ann).mu == pytest.approx(a.mu)
    assert Rating.objects.get(user=ann).sigma == pytest.approx(a.sigma)
    assert Rating.objects.get(user=bob).mu == pytest.approx(b.mu)
    assert Rating.objects.get(bot_level="easy").mu == pytest.approx(e.mu)
    assert Rating.objects.get(user=ann).games == 2


@pytest.mark.django_db
def test_sharing_first_place_never_rates_a_person_below_someone_they_beat(make_user):
    """openskill 6.2 given equal ranks moved three people sharing first place less than the fourth (mu 25.44
    against 26.00): the leaderboard then ranked the one they beat above them."""
    people = [make_user(name) for name in ("ann", "bob", "cat", "dan", "eve")]
    make_finished_game(people, [5, 5, 5, 40, 50])
    after = [Rating.objects.get(user=person) for person in people]
    assert after[0].mu == pytest.approx(after[1].mu) == pytest.approx(after[2].mu)
    assert after[0].sigma == pytest.approx(after[2].sigma)
    assert after[2].mu > after[3].mu > after[4].mu and after[2].ordinal > after[3].ordinal > after[4].ordinal
    # each winner moves as the mean of the strict orders the tie stands for, as openskill rates those
    model = ratings.MODEL
    orders = [[*order, 4, 5] for order in itertools.permutations([1, 2, 3])]
    mus = [model.rate([[model.rating()] for _ in people], ranks=order)[0][0].mu for order in orders]
    assert after[0].mu == pytest.approx(sum(mus) / len(mus))


@pytest.mark.django_db
def test_a_person_taken_over_by_a_bot_is_rated_as_the_person(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    game = make_finished_game([ann, bob], [10, 50], rate=False)
    game.seats.filter(user=bob).update(bot_level="medium", bot_name="Ada")
    assert ratings.game_rate(game_id=game.pk)
    assert Rating.objects.get(user=bob).games == 1
    assert not Rating.objects.filter(bot_level="medium").exists()


@pytest.mark.django_db
def test_an_unfinished_game_is_not_rated(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=2)
    assert ratings.game_rate(game_id=game.pk) is False
    assert not GameResult.objects.exists() and not Rating.objects.exists()


@pytest.mark.django_db
def test_rate_games_command_rates_old_games_once_in_the_order_they_ended(make_user):
    from django.core.management import call_command

    ann, bob = make_user("ann"), make_user("bob")
    make_finished_game([ann, bob], [1, 9], number=2, rate=False)
    make_finished_game([ann, bob], [9, 1], number=1, rate=False)
    call_command("rate_games")
    call_command("rate_games")
    assert GameResult.objects.count() == 4
    assert Rating.objects.get(user=ann).games == 2
    first, second = GameResult.objects.filter(user=ann).order_by("finished_at")
    assert first.place == 2 and second.place == 1
    assert second.mu_before == pytest.approx(first.mu_after)


@pytest.mark.django_db(transaction=True)
def test_two_processes_rating_one_game_at_once_rate_it_once(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    game = make_finished_game([ann, bob], [12, 30], rate=False)
    outcomes = race([lambda: ratings.game_rate(game_id=game.pk)] * 2, lock=game)
    assert sorted(outcomes) == [False, True]
    assert GameResult.objects.filter(game=game).count() == 2
    assert Rating.objects.get(user=ann).games == 1 and Rating.objects.get(user=bob).games == 1


def _play_to_the_last_discard(game: Game) -> tuple[Game, Any]:
    """Play the game with the bots' choices up to its last turn's discard (drawn already): the action that ends it."""
    for _ in range(5000):
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE and game.current_seat is not None and game.state is not None
        state = GameState.from_dict(game.state)
        seat = game.seats.get(position=game.current_seat)
        action = bots.choose_action(view(state, seat.position))
        if not isinstance(action, Draw) and apply(state, seat.position, action)[0].is_over:
            return game, action
        services.game_play(game_id=game.pk, user=seat.user, action=action, expected_version=game.version)
    raise AssertionError("the game did not reach its last turn")


@pytest.mark.django_db(transaction=True)
def test_the_last_discard_racing_the_clock_finishes_and_rates_the_game_once(make_user, classic):
    """Both paths that end a game, the person's last discard and the clock playing that turn, take the row lock:
    whichever comes second finds the game over and rates nothing."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=4, options={"rounds": [3]})
    services.game_join(game_id=game.pk, user=bob)
    game, last = _play_to_the_last_discard(Game.objects.get(pk=game.pk))
    seat = game.seats.get(position=game.current_seat)
    turn, version, late = game.turn_number, game.version, game.turn_deadline + timedelta(seconds=1)

    def discard() -> str:
        services.game_play(game_id=game.pk, user=seat.user, action=last, expected_version=version)
        return "person"

    def clock() -> str:
        services.game_timeout(game_id=game.pk, turn_number=turn, now=late)
        return "bot"

    outcomes = race([discard, clock], lock=game)
    assert sorted(outcomes) in (["not_due", "person"], ["bot", "game_over"])  # the second found it over
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert GameResult.objects.filter(game=game).count() == 2
    assert Rating.objects.get(user=ann).games == Rating.objects.get(user=bob).games == 1
    first = [(r.mu_after, r.sigma_after) for r in GameResult.objects.filter(game=game).order_by("position")]
    assert first == [(r.mu, r.sigma) for r in (Rating.objects.get(user=ann), Rating.objects.get(user=bob))]
