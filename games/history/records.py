"""Reads for looking back: history lists, a finished game's record and its replay
(a person's numbers and the leaderboard are in :mod:`.stats`).

Every function here runs a fixed number of queries whatever the number of
games, rounds or moves (tests count them): lists are paginated querysets
with their related rows fetched in one go, and the numbers come from
database aggregates (``aggregate``/``annotate`` and correlated subqueries),
not Python loops over a person's games.

Places follow one rule, :func:`.ratings.places`: the lower total ranks
first, equal totals share a place, and people who left (resigned, or timed
out until a bot kept their seat) rank below everyone who stayed.  The rule
runs once, when a game finishes, and its answer is stored in each seat's
``GameResult`` (``place``, ``shared``); the lists and the stats read it from
there (:func:`with_places`), so a game finished before ratings existed shows
no place until ``manage.py rate_games`` has rated it.  A game's record
applies ``places`` to its seats' totals itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import (
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from games import presentation
from games.engine import (
    GameState,
    Meld,
    MeldKind,
    RoundEnd,
    Rules,
    SeatResult,
    action_from_dict,
    meld_kind,
    parse_cards,
    replay,
    wild_rank_chars,
    wild_rank_label,
)
from games.engine import RoundResult as EngineRoundResult
from games.engine.verify import RECORD_FORMAT, RECORD_FORMAT_VERSION, Verification, verify_record
from games.models import BotLevel, Game, GameResult, Move, RoundResult, Seat, variant_label
from games.table import fair_contributions

from . import charts, leaving
from .ratings import ordinal, places
from .shuffle_spec import specification_for

__all__ = [
    "ReplayRefused",
    "history_of",
    "history_filters",
    "game_record",
    "game_replay",
    "BOT_OPPONENT_PREFIX",
]

BOT_OPPONENT_PREFIX = "bot:"


class ReplayRefused(Exception):
    """The game is not over: its record and replay would show hidden cards."""


# -- places -------------------------------------------------------------------


def count_of(queryset: QuerySet) -> Coalesce:
    """``COUNT(*)`` of a correlated subquery, 0 when it has no rows."""
    counted = queryset.order_by().values("game").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def with_places(seats: QuerySet[Seat]) -> QuerySet[Seat]:
    """Annotate ``place`` (1 = won) and ``place_shared`` from the seat's stored ``GameResult``.

    The place is worked out once, when the game finishes (``ratings.places``:
    people who left rank last), and every page reads it from there.
    """
    result = GameResult.objects.filter(game=OuterRef("game"), position=OuterRef("position"))
    return seats.annotate(
        place=Subquery(result.values("place")[:1]), place_shared=Subquery(result.values("shared")[:1])
    )


def finished_seats(user: Any) -> QuerySet[Seat]:
    return Seat.objects.filter(user=user, game__status=Game.Status.FINISHED)


def visible_to(viewer: Any, player: Any, invited: Iterable[int] = ()) -> Q:
    """Games of ``player`` that ``viewer`` may open: the table's ``selectors.may_watch`` rule, for finished games.

    All of them for the player (or with no ``viewer``: internal use); for
    someone else, those where the viewer had a seat too, and those open to
    spectators that are not private, or private but the viewer holds the
    invite link (``invited``: the game ids their session remembers,
    ``selectors.invited_game_ids``).  A condition on any model with a
    ``game`` foreign key (seats, round results).
    """
    if viewer is None or getattr(viewer, "pk", None) == player.pk:
        return Q()
    if not getattr(viewer, "is_authenticated", False):
        return Q(pk__in=[])
    public = Q(game__spectators_allowed=True) & (Q(game__is_private=False) | Q(game_id__in=list(invited)))
    return public | Q(Exists(Seat.objects.filter(game=OuterRef("game"), user=viewer)))


# -- history ------------------------------------------------------------------


def history_of(
    *, user: Any, variant: str = "", opponent: str = "", viewer: Any = None, invited: Iterable[int] = ()
) -> QuerySet[Seat]:
    """The person's seats in finished games, last ended first, with place, rating change and table.

    ``variant`` filters on the variant's name as the game recorded it;
    ``opponent`` on a user name, or ``bot:<level>`` for a bot of that level.
    Someone else (``viewer``, holding the invite links ``invited``) sees only the games they could open.
    """
    rating = (
        GameResult.objects.filter(game=OuterRef("game"), position=OuterRef("position"))
        .annotate(change=F("rating_after") - (F("mu_before") - 3 * F("sigma_before")))
        .values("change")
    )
    seats = (
        with_places(finished_seats(user).filter(visible_to(viewer, user, invited)))
        .annotate(rating_change=Subquery(rating[:1]))
        .select_related("game")
        .prefetch_related(Prefetch("game__seats", queryset=Seat.objects.select_related("user").order_by("position")))
        .order_by("-game__finished_at", "-game_id")
    )
    if variant:
        seats = seats.filter(game__variant_name=variant)
    if opponent.startswith(BOT_OPPONENT_PREFIX):
        level = opponent[len(BOT_OPPONENT_PREFIX) :]
        seats = seats.filter(Exists(Seat.objects.filter(game=OuterRef("game"), user__isnull=True, bot_level=level)))
    elif opponent:
        seats = seats.filter(
            Exists(Seat.objects.filter(game=OuterRef("game"), user__username=opponent).exclude(user=user))
        )
    return seats


def history_filters(*, user: Any, viewer: Any = None, invited: Iterable[int] = ()) -> dict[str, list[tuple[str, str]]]:
    """The choices of the history filters: variants played, people and bot levels met (in visible games only)."""
    games = Game.objects.filter(pk__in=finished_seats(user).filter(visible_to(viewer, user, invited)).values("game"))
    variants = list(games.order_by("variant_name").values_list("variant_name", flat=True).distinct())
    people = (
        get_user_model()
        .objects.filter(seats__game__in=games.values("pk"))
        .exclude(pk=user.pk)
        .order_by("username")
        .values_list("username", "display_name")
        .distinct()
    )
    levels = set(
        Seat.objects.filter(game__in=games.values("pk"), user__isnull=True)
        .exclude(bot_level="")
        .values_list("bot_level", flat=True)
        .distinct()
    )
    opponents = [(username, display or username) for username, display in people]
    opponents += [
        (BOT_OPPONENT_PREFIX + level, _("bot (%(level)s)") % {"level": label})
        for level, label in BotLevel.choices
        if level in levels
    ]
    return {"variants": [(name, variant_label(name)) for name in variants], "opponents": opponents}


def history_rows(seats: Sequence[Any]) -> list[dict[str, Any]]:
    """One page of :func:`history_of` in words for the template (no queries: all prefetched).

    ``seats`` are :func:`history_of`'s seats, annotated with ``place``,
    ``place_shared`` and ``rating_change``.
    """
    rows = []
    for seat in seats:
        game = seat.game
        table = list(game.seats.all())
        rows.append(
            {
                "game": game,
                "place": seat.place,
                "shared": seat.place_shared,
                "won": seat.place == 1,
                "left": seat.get_left_display() if seat.has_left else "",
                "seat_count": len(table),
                "total": seat.total_score,
                "rating_change": seat.rating_change,
                "players": [
                    {
                        "name": s.name,
                        "total": s.total_score,
                        "me": s.pk == seat.pk,
                        "bot": s.is_bot and not s.user_id,
                        "left": s.get_left_display() if s.has_left else "",
                    }
                    for s in sorted(table, key=lambda s: (s.total_score, s.position))
                ],
            }
        )
    return rows


# -- a finished game's record -------------------------------------------------


def game_record(*, game: Game, noted: str | None = None) -> dict[str, Any]:
    """Standings, the per-round table with every hand's final arrangement, and the running-totals chart.

    Built from the stored ``RoundResult`` rows (the record), which a test
    checks against the engine's replay of the move log.  ``noted`` is the
    seed commitment the reader wrote down at the table (``fairness_check``).
    """
    if game.status != Game.Status.FINISHED:
        raise ReplayRefused
    rules = Rules.from_dict(game.rules)
    seats = list(game.seats.select_related("user").order_by("position"))
    names = {s.position: s.name for s in seats}
    ratings = {r.position: r for r in GameResult.objects.filter(game=game)}
    bot_from = leaving.bot_rounds_from(game=game, seats=seats)
    running = [0] * len(seats)
    series_values: list[list[int]] = [[] for _ in seats]
    rounds: list[dict[str, Any]] = []
    for round_number, group in groupby(
        RoundResult.objects.filter(game=game).order_by("round_number", "seat"), key=lambda r: r.round_number
    ):
        rows = list(group)
        first = next((r.seat for r in rows if r.went_out_first), None)
        cells = []
        for row in rows:
            running[row.seat] += row.points
            series_values[row.seat].append(running[row.seat])
            cells.append(
                {
                    "points": row.points,
                    "went_out": row.went_out,
                    "first": row.went_out_first,
                    "running": running[row.seat],
                    "penalty": row.penalty,
                }
            )
        rounds.append(
            {
                "cells": cells,
                # round, hand size, wild label, who went out: the one round header of every page
                "summary": presentation.round_result(
                    _stored_result(rows, rules, first),
                    names,
                    with_cards=True,
                    left=leaving.left_in_round(seats, bot_from, round_number),
                    rules=rules,
                ),
            }
        )
    seat_places = dict(
        zip(
            (s.position for s in seats),
            places([s.total_score for s in seats], [s.has_left for s in seats]),
            strict=True,
        )
    )
    standings = []
    for s in sorted(seats, key=lambda s: (seat_places[s.position], s.position)):
        place = seat_places[s.position]
        rating = ratings.get(s.position)
        standings.append(
            {
                "place": place,
                "name": s.name,
                "score": s.total_score,
                "winner": place == 1,
                "shared": list(seat_places.values()).count(place) > 1,
                "seat": s,
                "left": s.get_left_display() if s.has_left else "",
                "rating_after": rating.rating_after if rating else None,
                "rating_change": (rating.rating_after - ordinal(rating.mu_before, rating.sigma_before))
                if rating
                else None,
            }
        )
    chart = charts.line_chart(
        series=[charts.Series(names[s.position], series_values[s.position]) for s in seats],
        x_labels=[str(r["summary"]["round"]) for r in rounds],
        title=_("Running totals, round by round"),
        desc=_("Each player's total points after each round (lower is better). Final totals: %(totals)s.")
        % {"totals": ", ".join(f"{names[s.position]} {s.total_score}" for s in seats)},
        x_title=_("Round"),
        y_title=_("Total points"),
    )
    return {
        "game": game,
        "seats": seats,
        "standings": standings,
        "anyone_left": any(s.has_left for s in seats),
        # a bot's change is its level's (ratings.py): say so, or two bots' equal changes look like a mistake
        "bots_rated": any(not s.user_id and s.position in ratings for s in seats),
        "rounds": rounds,
        "chart": chart,
        "rules": rules,
        "names": [names[s.position] for s in seats],
        "fairness": fairness_check(game=game, seats=seats, noted=noted),
    }


def _stored_result(rows: list[RoundResult], rules: Rules, first: int | None) -> EngineRoundResult:
    """The engine's round result from the stored rows of one round (one row a seat, in seat order).

    A round counts as ended by the stock when no one went out first.  A
    stored meld is read back as the engine judges it (a run when it is
    not a set: the page shows only "set" or "run").
    """
    hand_size = rows[0].hand_size
    return EngineRoundResult(
        round_index=rows[0].round_number - 1,
        hand_size=hand_size,
        dealer=0,  # not stored, not shown
        went_out=first,
        ended=RoundEnd.STOCK_EXHAUSTED if first is None else RoundEnd.WENT_OUT,
        seats=tuple(
            SeatResult(
                points=row.points,
                melds=tuple(
                    Meld(meld_kind(parse_cards(cards), rules, hand_size) or MeldKind.RUN, parse_cards(cards))
                    for cards in row.melds
                ),
                deadwood=parse_cards(row.deadwood),
                went_out=row.went_out,
                penalty=row.penalty,
                laid_off=parse_cards(row.laid_off),
            )
            for row in rows
        ),
    )


# -- the replay ---------------------------------------------------------------


def game_replay(*, game: Game, step: int | None = None) -> dict[str, Any]:
    """The table after ``step`` moves (0: the first deal), every hand face up.

    Only for a finished game (else :class:`ReplayRefused`): then nothing is
    hidden any more, so the replay shows each seat's hand from the state the
    engine's ``replay`` rebuilds from the move log.
    """
    if game.status != Game.Status.FINISHED:
        raise ReplayRefused
    moves = list(
        Move.objects.filter(game=game).order_by("seq").values_list("seat", "action", "events", "round_number", "by_bot")
    )
    total = len(moves)
    step = total if step is None else max(0, min(step, total))
    rules = Rules.from_dict(game.rules)
    state = replay(
        rules,
        game.seat_count,
        game.engine_shuffle(),
        [(seat, action_from_dict(action)) for seat, action, *_rest in moves[:step]],
    )
    seats = list(game.seats.select_related("user").order_by("position"))
    names = {s.position: s.name for s in seats}
    wild = wild_rank_chars(state.hand_size)

    events = moves[step - 1][2] if step > 0 else []
    lines = [line for line in (presentation.describe_event(e, names) for e in events) if line]
    scored = next((e["data"] for e in events if e.get("kind") == "round_scored"), None)
    # The move aloud, each card by its name, wild or not in the round it was played in (which it may have ended).
    spoken = presentation.spoken_face(wild_rank_chars(scored["hand_size"] if scored else state.hand_size))
    said = [line for line in (presentation.describe_event(e, names, spoken) for e in events) if line]
    round_over = None
    if scored is not None:
        result = EngineRoundResult.from_dict(scored)
        bot_from = leaving.first_bot_rounds(
            ((seat, number, by_bot) for seat, _action, _events, number, by_bot in moves),
            {s.position for s in seats if s.has_left},
        )
        round_over = presentation.round_result(
            result,
            names,
            with_cards=True,
            left=leaving.left_in_round(seats, bot_from, result.round_index + 1),
            rules=rules,
        )
    hands = []
    for s in seats:
        position = s.position
        hands.append(
            {
                "name": s.name,
                "score": state.scores[position],
                "cards": len(state.hands[position]),
                "is_current": state.current_seat == position,
                "is_dealer": state.dealer == position,
                "moved": step > 0 and moves[step - 1][0] == position,
                "went_out": state.went_out == position,
                "faces": presentation.card_faces(
                    presentation.sort_codes([c.code for c in state.hands[position]], "suit", wild), wild
                ),
            }
        )
    round_starts = []
    seen: set[int] = set()
    for index, (_seat, _action, _events, round_number, _bot) in enumerate(moves):
        if round_number not in seen:
            seen.add(round_number)
            round_starts.append({"round": round_number, "step": index})
    return {
        "game": game,
        "step": step,
        "total": total,
        "state_over": state.is_over,
        "prev": step - 1 if step > 0 else None,
        "next": step + 1 if step < total else None,
        "round": state.round_number,
        "round_count": len(rules.rounds),
        "hand_size": state.hand_size,
        "wild_label": wild_rank_label(state.hand_size),
        "hands": hands,
        "lines": lines,
        "said": " ".join(said),
        "mover": names.get(moves[step - 1][0]) if step > 0 else None,
        "by_bot": moves[step - 1][4] if step > 0 else False,
        "discard_top": presentation.card_face(state.top_discard.code, wild) if state.top_discard else None,
        "stock_size": len(state.stock),
        "round_over": round_over,
        "table_melds": [
            {"name": names.get(t.seat), "cards": presentation.card_faces(t.meld.codes, wild)} for t in state.table
        ],
        "round_starts": round_starts,
        "current_name": names.get(state.current_seat) if state.current_seat is not None else None,
        "phase": state.phase,
    }


# -- provably fair shuffles: the export and the record page's check -----------


def fair_record_export(*, game: Game, seats: Sequence[Seat] | None = None) -> dict[str, Any]:
    """The record of a finished version-2 game, or of one called off after its first deal, that
    ``python -m games.engine.verify`` checks offline.

    Refused (:class:`ReplayRefused`) for any other game: it holds the server
    seed, secret while the game is played, and an old game has none.
    """
    if not game.seed_revealed:
        raise ReplayRefused
    if seats is None:
        seats = list(game.seats.order_by("position"))
    moves = Move.objects.filter(game=game).order_by("seq").values_list("seat", "action", "events")
    return {
        "format": RECORD_FORMAT,
        "format_version": RECORD_FORMAT_VERSION,
        "game": game.pk,
        "rules": game.rules,
        "seat_count": game.seat_count,
        "shuffle_version": game.shuffle_version,
        "server_seed": game.server_seed,
        "commitment": game.seed_commitment,
        "contributions": [s.seed_contribution for s in seats],
        # who wrote each contribution: "site" (made up by the site), "creator" (typed with the request that
        # drew the seed) or "player" (typed after the commitment was shown); verify does not need it
        "contributions_by": [s.seed_contribution_source for s in seats],
        "moves": [{"seat": seat, "action": action, "events": events} for seat, action, events in moves],
        "final_scores": [s.total_score for s in seats],
        # the totals when it was called off: its replay stops there, before the end of the game
        "called_off": game.is_aborted,
    }


def fairness_check(*, game: Game, seats: Sequence[Seat], noted: str | None = None) -> dict[str, Any] | None:
    """The record page's "provably fair" block: the seed revealed and every check made again.

    ``None`` for a game shuffled before version 2 (nothing to prove).  The
    export is checked as a stranger would check it (``verify_record``), and
    the state the replay reaches is compared with the one the server kept.
    The seed is compared with the commitment the site stored, which proves
    nothing on its own (both come from the same database, and the page says
    so), and with ``noted``, the commitment the reader wrote down at the
    table (already ``noted_commitment``'s lower-case hex), which does.
    """
    if not game.seed_revealed:
        return None
    names = {s.position: s.name for s in seats}
    result = verify_record(fair_record_export(game=game, seats=seats), noted=noted)
    stored = GameState.from_dict(game.state) if game.state is not None else None
    kept = stored is not None and result.final_state == stored
    checks = [
        (
            result.passed("commitment"),
            _(
                "SHA-256 of the revealed seed is the commitment this site stored. On its own that proves nothing: "
                "the site could have changed both. Only the copy you noted at the table can show that the seed "
                "was not changed."
            ),
        ),
    ]
    if noted is not None:
        checks.append(
            (
                result.passed("your commitment"),
                _("SHA-256 of the revealed seed is the commitment you noted: %(commitment)s.") % {"commitment": noted},
            )
        )
    checks += [
        (
            result.passed("deals"),
            _("Derived again from the seed and the contributions: %(deals)s and %(rebuilds)s.")
            % {
                "deals": ngettext("%(count)s deal", "%(count)s deals", len(result.deals))
                % {"count": len(result.deals)},
                "rebuilds": ngettext("%(counter)s stock rebuild", "%(counter)s stock rebuilds", result.rebuilds)
                % {"counter": result.rebuilds},
            },
        ),
        (
            result.passed("moves"),
            _("All %(moves)s moves replayed from those deals, each with the public events recorded in play.")
            % {"moves": result.moves_replayed},
        ),
        (
            result.passed("final scores"),
            _("The replay stops where the game was called off, at the totals it had then.")
            if game.is_aborted
            else _("The replay ends with the final scores."),
        ),
        (kept, _("The replay ends on the very table the server kept: every hand, the stock, the discard pile.")),
    ]
    return {
        "verified": result.ok and kept,
        "server_seed": game.server_seed,
        "commitment": game.seed_commitment,
        **fair_contributions(seats),
        "checks": [{"ok": ok, "text": text} for ok, text in checks],
        "noted": noted,
        "deals": _derived_deals(result, names),
        # where a called-off game's moves stop, for its players to compare with what they played
        "moves": result.moves_replayed,
        "round": result.final_state.round_number if result.final_state is not None else None,
        "export_url": reverse("games:record_export", args=[game.pk]),
        "verify_command": f"python -m games.engine.verify {export_filename(game)} --commitment",
        # the specification in the reader's language where there is one, the English reference beside it
        "specification": specification_for(get_language()),
    }


def export_filename(game: Game) -> str:
    """The file name the record export is downloaded as."""
    return f"threethirteen-game-{game.pk}.json"


def _derived_deals(result: Verification, names: dict[int, str]) -> list[dict[str, Any]]:
    deals = []
    for deal in result.deals:
        wild = wild_rank_chars(deal.hand_size)
        deals.append(
            {
                "round": deal.round_number,
                "hand_size": deal.hand_size,
                "dealer": names.get(deal.dealer),
                "up_card": presentation.card_face(deal.up_card, wild),
                "rebuilds": deal.rebuilds,
                "ok": deal.ok,
                "hands": [
                    {"name": names.get(seat), "faces": presentation.card_faces(hand, wild)}
                    for seat, hand in enumerate(deal.hands)
                ],
            }
        )
    return deals
