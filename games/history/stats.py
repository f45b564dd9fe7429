"""A person's numbers and the leaderboard, all from database aggregates over
finished games (a fixed number of queries whatever the number of games)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db.models import (
    Avg,
    Count,
    Exists,
    F,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Window,
)
from django.db.models.functions import Rank
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import (
    wild_rank_label,
)
from games.models import BotLevel, Game, GameResult, Rating, RoundResult, Seat

from . import charts, leaving
from .ratings import MODEL, ordinal
from .records import count_of, finished_seats, visible_to, with_places

#: Leaderboard entry: at least this many rated games.
LEADERBOARD_MIN_GAMES = 5


def player_stats(*, user: Any, viewer: Any = None, invited: Iterable[int] = ()) -> dict[str, Any]:
    """A person's numbers, all from aggregates over their finished games that ``viewer`` may open.

    The rounds are the person's own: those a bot played for them after they
    left a game (:mod:`.leaving`) are left out of every round number, and a
    game they left is never their best game (it still counts as played, and
    it may be the worst: they rank last in it).

    Visibility, decided here: the page follows the history list's rule
    (:func:`.records.visible_to`, the table's ``may_watch``).  Every number
    about games (played, won, win rate, rounds, went out first, points per
    round and by hand size) and the best and worst game count only the games
    the viewer may open, so a private or players-only game the viewer had no
    part in is neither linked, named nor counted.  The person sees all of
    their own games (``viewer`` the person, or None for internal use).

    The rating is the one exception: it is the person's public standing,
    shown to everyone on the leaderboard with its number of rated games, so
    its value and its chart count every rated game; the chart names no game.
    """
    visible = visible_to(viewer, user, invited)
    seats = with_places(finished_seats(user).filter(visible))
    totals = seats.aggregate(
        played=Count("pk"),
        won=Count("pk", filter=Q(place=1)),
        shared=Count("pk", filter=Q(place=1, place_shared=True)),
        average_total=Avg("total_score"),
        best_total=Min("total_score"),
        worst_total=Max("total_score"),
    )
    played, won = totals["played"], totals["won"]

    mine = Seat.objects.filter(game=OuterRef("game"), position=OuterRef("seat"), user=user)
    rounds = (
        RoundResult.objects.filter(game__status=Game.Status.FINISHED)
        .filter(Exists(mine))
        .filter(visible)
        .exclude(leaving.bot_round())  # the bot's play after the person left is not theirs
    )
    round_totals = rounds.aggregate(
        n=Count("pk"),
        first=Count("pk", filter=Q(went_out_first=True)),
        out=Count("pk", filter=Q(went_out=True)),
        average=Avg("points"),
    )
    by_size = list(
        rounds.values("hand_size")
        .annotate(average=Avg("points"), n=Count("pk"), first=Count("pk", filter=Q(went_out_first=True)))
        .order_by("hand_size")
    )

    ranked = seats.select_related("game").annotate(seat_count=count_of(Seat.objects.filter(game=OuterRef("game"))))
    # a game the person left ranks them last and was finished by a bot: never their best
    best = ranked.filter(left="").order_by("place", "total_score", "-game__finished_at").first() if played else None
    worst = ranked.order_by("-place", "-total_score", "-game__finished_at").first() if played > 1 else None

    rating = Rating.objects.filter(user=user).first()
    bot_ratings = list(Rating.objects.filter(user__isnull=True).order_by("-ordinal"))
    history = list(
        GameResult.objects.filter(user=user).order_by("finished_at", "game_id").values_list("rating_after", "game_id")
    )
    fresh = MODEL.rating()
    start = ordinal(fresh.mu, fresh.sigma)
    level_names = dict(BotLevel.choices)
    # the ratings as they are: the chart writes them to one decimal, as the page's other figures do (rounded
    # to two first, a bot's 0.151 became 0.15 and then 0.1 in the chart, beside "0.2" under it)
    rating_series = [charts.Series(user.shown_name, [start] + [r for r, _ in history])]
    for bot in bot_ratings:
        rating_series.append(
            charts.Series(
                _("bot (%(level)s)") % {"level": level_names.get(bot.bot_level)}, [bot.ordinal] * (len(history) + 1)
            )
        )
    rating_chart = (
        charts.line_chart(
            series=rating_series,
            x_labels=[str(i) for i in range(len(history) + 1)],
            title=_("Rating after each rated game"),
            desc=(
                _(
                    "%(name)s's rating went from %(start)s to %(now)s over %(count)s rated games; "
                    "the flat lines are the bot levels' ratings today."
                )
                % {
                    "name": user.shown_name,
                    "start": charts.number(start),
                    "now": charts.number(history[-1][0]),
                    "count": len(history),
                }
            )
            if history
            else _("No rated game yet."),
            x_title=_("Rated games"),
            y_title=_("Rating"),
            zero_line=True,
        )
        if history
        else charts.line_chart(
            series=[], x_labels=[], title=_("Rating after each rated game"), desc=_("No rated game yet.")
        )
    )

    size_chart = charts.bar_chart(
        labels=[str(row["hand_size"]) for row in by_size],
        values=[float(row["average"]) for row in by_size],
        notes=[ngettext("%(n)s round", "%(n)s rounds", row["n"]) % {"n": row["n"]} for row in by_size],
        title=_("Average points per round by hand size"),
        desc=(
            _("Average penalty points %(name)s scored in a round, by the number of cards dealt: %(values)s.")
            % {
                "name": user.shown_name,
                "values": "; ".join(f"{row['hand_size']}: {charts.number(row['average'])}" for row in by_size),
            }
        )
        if by_size
        else _("No round played yet."),
        x_title=_("Cards dealt"),
        y_title=_("Average points"),
    )
    return {
        "player": user,
        "played": played,
        "won": won,
        "shared": totals["shared"],
        "win_rate": (100 * won / played) if played else None,
        "average_total": totals["average_total"],
        "rounds": round_totals["n"],
        "went_out_first": round_totals["first"],
        "went_out_first_rate": (100 * round_totals["first"] / round_totals["n"]) if round_totals["n"] else None,
        "average_points": round_totals["average"],
        "by_size": [
            {
                "hand_size": row["hand_size"],
                "wild_label": wild_rank_label(row["hand_size"]),
                "average": row["average"],
                "rounds": row["n"],
                "first": row["first"],
            }
            for row in by_size
        ],
        "best": best,
        "worst": worst,
        "rating": rating,
        "bot_ratings": [{"level": level_names.get(b.bot_level), "rating": b} for b in bot_ratings],
        "rating_chart": rating_chart,
        "size_chart": size_chart,
        "rated_games": len(history),
    }


# -- the leaderboard ----------------------------------------------------------


def leaderboard() -> QuerySet[Rating]:
    """People with at least ``LEADERBOARD_MIN_GAMES`` rated games, best rating first.

    A deactivated account is left out: a moderator took it off the site (its games and stats stay, and
    the ratings it moved), so it neither holds a rank nor pushes the people below it down.

    Each is annotated with ``rank``: 1 + the number of people rated higher, so equal ratings share a
    rank (as equal totals share a place) instead of being numbered by name; counted over the whole
    list by the database (a window function), so a tie across a page's end keeps its rank.
    """
    return (
        Rating.objects.filter(user__isnull=False, user__is_active=True, games__gte=LEADERBOARD_MIN_GAMES)
        .select_related("user")
        .annotate(rank=Window(Rank(), order_by=F("ordinal").desc()))
        .order_by("-ordinal", "user__username")
    )


def rating_before(offset: int) -> float | None:
    """The rating of the person listed just before the ``offset``-th (0: the first; None for it)."""
    return leaderboard().values_list("ordinal", flat=True)[offset - 1] if offset else None


def leaderboard_rows(
    people: Sequence[Any], *, bots: list[Rating], last_page: bool, previous: float | None
) -> list[dict[str, Any]]:
    """One page of the leaderboard (:func:`leaderboard`'s ratings, with their ``rank``) with the bot
    levels placed where their rating falls.

    A bot shows once: just above the first person rated below it, or at the very end.  ``previous``
    is the rating (ordinal) of the last person of the page before (None on the first page): a bot
    above everyone here belongs on this page only if it is not above that person too.
    """
    level_names = dict(BotLevel.choices)
    rows: list[dict[str, Any]] = [
        {"rank": r.rank, "rating": r, "name": r.user.shown_name if r.user else "", "user": r.user, "bot": False}
        for r in people
    ]
    for bot in bots:
        above = [i for i, row in enumerate(rows) if row["rating"].ordinal >= bot.ordinal]
        index = (above[-1] + 1) if above else 0
        if index == 0 and previous is not None and previous < bot.ordinal:
            continue  # above the page before's last person: on an earlier page
        if index == len(rows) and rows and not last_page:
            continue  # everyone here is rated at least as high: on a later page
        rows.insert(
            index,
            {
                "rank": None,
                "rating": bot,
                "bot": True,
                "name": _("bot (%(level)s)") % {"level": level_names.get(bot.bot_level)},
            },
        )
    return rows
