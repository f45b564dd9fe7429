"""Ratings: openskill's Plackett-Luce model, updated once when a game finishes.

Who is rated for a seat:

* a seat with a person (``Seat.user``) rates that person, also when a bot
  finished the game for them (timeouts, resignation, a moderator's removal): the result is theirs;
* a seat a bot played from the start rates that bot *level*: bots are seats,
  not users, and one rating per level (easy, medium, hard) lets people see
  where they stand against each.

Places come from :func:`places`, the one rule every page uses: the lowest
total is first, equal totals share a place, and people who left rank below
everyone who stayed; each seat's place is stored in its ``GameResult``.

Ties are not handed to openskill as equal ranks: its Plackett-Luce update
for tied teams (6.2) is not monotone, so three people sharing first place
moved less than the one they beat into fourth and were ranked below them on
the leaderboard (openskill.py issue #155).  :func:`rate_places` rates the
game once for each order of every tied group (rotated, so that each tied
seat takes each of its group's places equally often) as strict ranks and
gives each seat the mean: a shared place moves a rating between what the
places it spans would, seats tied with equal ratings move alike, and a game
without ties is rated exactly as openskill rates it.  Several bots of one
level at the same table are one rated entity seen several times: each seat
is rated as its own team from the level's rating, and the level then takes
the mean of those seats' new ``mu`` and ``sigma`` (so bots of a level beating
each other leaves it about where it was).

Exactly once: :func:`rate_finished_game` runs in the transaction that
finishes the game, under its row lock, and writes one :class:`GameResult`
per seat; the unique (game, position) constraint refuses a second set, and a
game that has results is skipped.  :func:`game_rate` does the same from
outside a move (``manage.py rate_games``, for games finished earlier).
"""

from __future__ import annotations

from collections.abc import Sequence
from math import lcm
from statistics import fmean
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from openskill.models import PlackettLuce

from games.models import Game, GameResult, Rating, Seat

__all__ = ["MODEL", "game_rate", "rate_finished_game", "rate_places", "places", "ordinal"]

MODEL = PlackettLuce()


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown to people: a cautious estimate, ``mu - 3 sigma`` (0 for a newcomer)."""
    return mu - 3 * sigma


def places(totals: list[int], left: list[bool] | None = None) -> list[int]:
    """Place of each seat at the end of a game: the one rule every page and rating uses.

    1 + the number of seats that rank better: lower total wins and equal totals
    share a place, except that people who left (resigned, timed out until the bot
    kept their seat, or removed by a moderator) rank below everyone who stayed, by total among themselves.
    """
    keys = list(zip(left or [False] * len(totals), totals, strict=True))
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def rate_places(ratings: Sequence[tuple[float, float]], seat_places: Sequence[int]) -> list[tuple[float, float]]:
    """Each seat's new (mu, sigma) after a game, from its (mu, sigma) before and its place (ties shared).

    The mean of openskill's Plackett-Luce over strict orders of the tied seats (see the module's
    docstring): order ``s`` puts each tied group rotated by ``s``, and the least common multiple of the
    groups' sizes (15 at most for 8 seats) gives every tied seat each of its group's places equally
    often.  Without ties that is one ``rate`` with the places as ranks.
    """
    groups: dict[int, list[int]] = {}
    for seat, place in enumerate(seat_places):
        groups.setdefault(place, []).append(seat)
    outcomes: list[list[tuple[float, float]]] = [[] for _ in ratings]
    for shift in range(lcm(*(len(group) for group in groups.values()))):
        order = [seat for place in sorted(groups) for seat in _rotated(groups[place], shift)]
        ranks: list[float] = [0.0] * len(ratings)  # openskill's type; the ranks are 1, 2, 3...
        for rank, seat in enumerate(order, start=1):
            ranks[seat] = rank
        teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
        for seat, team in enumerate(MODEL.rate(teams, ranks=ranks)):
            outcomes[seat].append((team[0].mu, team[0].sigma))
    return [(fmean(mu for mu, _ in seen), fmean(sigma for _, sigma in seen)) for seen in outcomes]


def _rotated(group: list[int], shift: int) -> list[int]:
    start = shift % len(group)
    return group[start:] + group[:start]


def game_rate(*, game_id: int) -> bool:
    """Rate a finished game if it is not rated yet; True when this call rated it."""
    with transaction.atomic():
        game = Game.objects.select_for_update(no_key=True).get(pk=game_id)  # as ``lock_game`` does
        return rate_finished_game(game)


def rate_finished_game(game: Game) -> bool:
    """Write the game's results and move the ratings; the caller holds the game's row lock.

    Returns False (and changes nothing) when the game is not finished or was
    rated already.
    """
    if game.status != Game.Status.FINISHED or GameResult.objects.filter(game=game).exists():
        return False
    seats = [s for s in Seat.objects.filter(game=game).order_by("position") if s.user_id or s.bot_level]
    if len(seats) < 2:
        return False
    keys = [_key(seat) for seat in seats]
    current = _locked_ratings(set(keys))
    totals = [seat.total_score for seat in seats]
    seat_places = places(totals, [seat.has_left for seat in seats])
    rated = rate_places([(current[key].mu, current[key].sigma) for key in keys], seat_places)

    new_values: dict[tuple[str, Any], list[tuple[float, float]]] = {}
    for key, value in zip(keys, rated, strict=True):
        new_values.setdefault(key, []).append(value)
    after = {key: (fmean(v[0] for v in values), fmean(v[1] for v in values)) for key, values in new_values.items()}

    finished_at = game.finished_at or timezone.now()
    results = []
    for seat, key, place in zip(seats, keys, seat_places, strict=True):
        before, (mu, sigma) = current[key], after[key]
        results.append(
            GameResult(
                game=game,
                position=seat.position,
                user_id=seat.user_id,
                bot_level="" if seat.user_id else seat.bot_level,
                place=place,
                shared=seat_places.count(place) > 1,
                total_score=seat.total_score,
                mu_before=before.mu,
                sigma_before=before.sigma,
                mu_after=mu,
                sigma_after=sigma,
                rating_after=ordinal(mu, sigma),
                finished_at=finished_at,
            )
        )
    try:
        with transaction.atomic():  # a savepoint: a racing second writer fails here, not the move
            GameResult.objects.bulk_create(results)
    except IntegrityError:
        return False
    for key, (mu, sigma) in after.items():
        rating = current[key]
        rating.mu, rating.sigma, rating.ordinal = mu, sigma, ordinal(mu, sigma)
        rating.games += 1
        rating.save(update_fields=["mu", "sigma", "ordinal", "games", "updated_at"])
    return True


def _key(seat: Seat) -> tuple[str, Any]:
    return ("user", seat.user_id) if seat.user_id else ("bot", seat.bot_level)


def _locked_ratings(keys: set[tuple[str, Any]]) -> dict[tuple[str, Any], Rating]:
    """The current rating of each entity (created at the model's start), rows locked in pk order."""
    # Created in one order (sorted): two games finishing at once that share two people not rated yet would
    # otherwise insert their rows crosswise and deadlock on each other's uncommitted rows (PostgreSQL).
    user_ids = sorted(value for kind, value in keys if kind == "user")
    levels = sorted(value for kind, value in keys if kind == "bot")
    fresh = MODEL.rating()
    start = {"mu": fresh.mu, "sigma": fresh.sigma, "ordinal": ordinal(fresh.mu, fresh.sigma)}
    for user_id in user_ids:
        Rating.objects.get_or_create(user_id=user_id, defaults=start)
    for level in levels:
        Rating.objects.get_or_create(bot_level=level, user=None, defaults=start)
    rows = Rating.objects.select_for_update().filter(user_id__in=user_ids) | Rating.objects.select_for_update().filter(
        user__isnull=True, bot_level__in=levels
    )
    found = {}
    for rating in rows.order_by("pk"):
        found[("user", rating.user_id) if rating.user_id else ("bot", rating.bot_level)] = rating
    return found
