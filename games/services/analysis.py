"""A finished game's analysis: asked for by a player, worked through in the background, stored once.

- :func:`analysis_request`: a player of a finished game asks (a locked,
  checked change like any other: strangers, watchers, games in play and
  games called off are refused, and nothing is written);
- :func:`analysis_step`: a worker takes one analysis for a while (a lease,
  so two clock processes never work on it at once, and a worker that died
  is taken over once its lease runs out), analyses the next decisions of
  the move log, and writes them with the progress;
- :func:`analysis_tick`: one pass of the clock worker (``games.live.clock``
  in the server, ``manage.py gameclock``): the oldest analyses waiting, for
  a bounded number of decisions or seconds;
- :func:`analyse_game`: the whole analysis at once (``manage.py analyse``).

The figures come from :mod:`games.analysis` (pure Python), which sees each
decision only as that seat saw it.
"""

from __future__ import annotations

import datetime
import logging
import time
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from games import analysis
from games.engine import Rules, action_from_dict
from games.models import AnalysedDecision, Game, GameAnalysis, Move, RoundResult

from .errors import GameError
from .playing import lock_people
from .turns import lock_game, log_on_commit

logger = logging.getLogger(__name__)

#: How long a worker holds an analysis it took (another takes it over after that).
LEASE = datetime.timedelta(minutes=5)
#: An analysis still to be worked out.
WAITING = (GameAnalysis.Status.PENDING, GameAnalysis.Status.RUNNING)


def analysis_called_off() -> str:
    """Why a game that was called off has no analysis (the refusal of a request, and the page's)."""
    return _("This game was called off before its end: there is nothing to analyse.")


def analysis_request(*, game_id: int | str, user: Any, now: datetime.datetime | None = None) -> GameAnalysis:
    """A player of the finished game asks for its analysis; the analysis (new, or the one already asked for).

    Refused, changing nothing: ``not_logged_in``, ``not_found``,
    ``not_seated`` (only a player of the game may ask; everyone who may see
    the record sees the analysis once it is there), ``game_not_finished``
    and ``game_aborted`` (never an analysis of a game in play), and
    ``analysis_waiting``: one analysis waits for each person at a time, so
    nobody's requests fill the queue ahead of everyone else's (the worker
    starts them oldest first, then takes them in turn).  Asking again changes nothing, unless the
    analysis was made by another version of the analysis or failed: then it
    starts again.
    """
    now = now or timezone.now()
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in to ask for an analysis."))
    with transaction.atomic():
        # The person's row first: two requests of theirs for two games are judged one after the other. Before
        # the game's, as every path that locks both does (``playing.lock_people``): locked after it, it made
        # a cycle with a deactivation holding the row and waiting for the game (a review, on PostgreSQL).
        lock_people([user.pk])
        game = lock_game(game_id)
        if not game.seats.filter(user=user).exists():
            raise GameError("not_seated", _("Only the players of this game may ask for its analysis."))
        if game.is_aborted:
            raise GameError("game_aborted", analysis_called_off())
        if not game.is_finished:
            raise GameError("game_not_finished", _("A game is analysed only once it is over."))
        existing = GameAnalysis.objects.filter(game=game).first()
        if (
            existing is not None
            and existing.version == analysis.VERSION
            and existing.status != GameAnalysis.Status.FAILED
        ):
            return existing
        waiting = (
            GameAnalysis.objects.filter(requested_by=user, version=analysis.VERSION, status__in=WAITING)
            .exclude(game=game)
            .values_list("game_id", flat=True)
            .first()
        )
        if waiting is not None:
            raise GameError(
                "analysis_waiting",
                _("Your analysis of game #%(id)s is still being worked out: ask for this one once it is done.")
                % {"id": waiting},
            )
        if existing is not None:
            existing.delete()
        made = GameAnalysis.objects.create(
            game=game,
            requested_by=user,
            version=analysis.VERSION,
            seed=analysis.analysis_seed(game.pk),
            samples=analysis.SAMPLES,
            decisions_total=Move.objects.filter(game=game).count(),
            requested_at=now,
        )
        log_on_commit(logger, "game %s: analysis asked for by user %s", game.pk, user.pk)
        return made


def logged_moves(game: Game) -> list[analysis.LoggedMove]:
    """The game's move log as the analysis walks it (who played what, and whether a bot played it)."""
    log = Move.objects.filter(game=game).order_by("seq").values_list("seat", "action", "by_bot")
    return [analysis.LoggedMove(seat, action_from_dict(action), by_bot) for seat, action, by_bot in log]


def _take(analysis_id: int, now: datetime.datetime) -> bool:
    """Take the analysis for :data:`LEASE` unless another worker holds it (one conditional UPDATE)."""
    taken = (
        GameAnalysis.objects.filter(
            pk=analysis_id,
            version=analysis.VERSION,
            status__in=WAITING,
            game__status=Game.Status.FINISHED,
        )
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lte=now))
        .update(status=GameAnalysis.Status.RUNNING, lease_until=now + LEASE)
    )
    return taken == 1


def analysis_step(
    *,
    analysis_id: int,
    max_decisions: int | None = None,
    seconds: float | None = None,
    now: datetime.datetime | None = None,
) -> int:
    """Analyse the next decisions of one analysis; the number analysed (0: another worker holds it, or done).

    Stops after ``max_decisions`` decisions or once ``seconds`` have passed
    (at least one decision either way), and writes what it did: the rows
    and the progress.  An error of the analysis itself (a move log the
    engine refuses) marks it failed, with the reason, so no worker tries it
    again and again; asking again starts it afresh.
    """
    now = now or timezone.now()
    if not _take(analysis_id, now):
        return 0
    job = GameAnalysis.objects.select_related("game").get(pk=analysis_id)
    game = job.game
    if job.started_at is None:
        job.started_at = now
        job.save(update_fields=["started_at"])
    after = job.decisions.aggregate(last=Max("seq"))["last"] or 0
    moves = logged_moves(game)
    shuffle = game.engine_shuffle()
    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    try:  # pure Python from here: anything it raises is this game's problem, not the database's
        walk = analysis.decisions(Rules.from_dict(game.rules), game.seat_count, shuffle, moves, after=after)
        for decision in walk:
            rows.append(analysis.analyse_decision(decision, job.seed, samples=job.samples))
            if max_decisions is not None and len(rows) >= max_decisions:
                break
            if seconds is not None and time.monotonic() - started >= seconds:
                break
    except Exception as error:
        logger.exception("game %s: the analysis failed", game.pk)
        GameAnalysis.objects.filter(pk=job.pk).update(
            status=GameAnalysis.Status.FAILED, error=str(error)[:300], lease_until=None, finished_at=timezone.now()
        )
        return 0
    with transaction.atomic():
        if not GameAnalysis.objects.select_for_update().filter(pk=job.pk, version=job.version).exists():
            return 0  # made again meanwhile (asked for anew after a new version): these figures are not wanted
        AnalysedDecision.objects.bulk_create(
            [AnalysedDecision(analysis=job, **row) for row in rows], ignore_conflicts=True
        )
        done = job.decisions.count()
        complete = done >= len(moves)
        verdict: list[dict[str, Any]] = []
        graded: list[analysis.Turn] = []
        if complete:
            graded = analysis.turns(job.decisions.order_by("seq").values(*AnalysedDecision.ROW_FIELDS))
            verdict = analysis.summary(graded, game.seat_count, round_points(game), people(game))
        GameAnalysis.objects.filter(pk=job.pk).update(
            decisions_done=done,
            decisions_total=len(moves),
            lease_until=None,
            worked_at=timezone.now(),
            status=GameAnalysis.Status.DONE if complete else GameAnalysis.Status.RUNNING,
            finished_at=timezone.now() if complete else None,
            summary=verdict,
        )
    if complete:
        log_on_commit(logger, "game %s: analysis done (%s decisions)", game.pk, done)
        explanations(job, graded)  # after the lock: a page that comes first works them out itself
    return len(rows)


def explanations(job: GameAnalysis, graded: Sequence[analysis.Turn]) -> dict[str, dict[str, Any]]:
    """Why each flagged turn of a done analysis was flagged (``analysis.explain``), by the ``seq`` of its
    costliest decision: stored with the analysis once worked out.

    ``graded``: the analysis's turns.  They are worked out again (and stored) when none are stored yet
    (an analysis done before they were), when they were stored by another version of
    ``analysis.explain`` (``EXPLAIN_VERSION``), or when a turn flagged now has none (the grades'
    thresholds changed).  An error working them out is logged and gives none: the analysis stands
    without its "why" lines, and neither the worker's pass nor the page fails.
    """
    stored = job.explanations
    wanted = {str(analysis.worst_decision(t)["seq"]) for t in graded if t.grade}
    if isinstance(stored, dict) and stored.get("version") == analysis.EXPLAIN_VERSION:
        turns = stored.get("turns", {})
        if wanted <= set(turns):
            return turns
    game = job.game
    try:
        rules = Rules.from_dict(game.rules)
        found = analysis.explain(rules, game.seat_count, game.engine_shuffle(), logged_moves(game), graded)
    except Exception:
        logger.exception("game %s: the analysis's explanations could not be worked out", game.pk)
        return {}
    job.explanations = {"version": analysis.EXPLAIN_VERSION, "turns": found}
    GameAnalysis.objects.filter(pk=job.pk, version=job.version).update(explanations=job.explanations)
    return found


def people(game: Game) -> set[int]:
    """The seats of the game a person holds: their turns a bot played for them are not in their verdict."""
    return set(game.seats.filter(user__isnull=False).values_list("position", flat=True))


def round_points(game: Game) -> dict[tuple[int, int], int]:
    """Each (seat, round)'s points in the finished game: what a round's choices can have lost at most."""
    return {
        (seat, number): points
        for seat, number, points in RoundResult.objects.filter(game=game).values_list("seat", "round_number", "points")
    }


#: Decisions a pass analyses when it is given no bound.
DECISIONS_PER_PASS = 8


def analysis_tick(
    *, max_decisions: int | None = None, seconds: float | None = None, now: datetime.datetime | None = None
) -> int:
    """One pass of the background worker: the analyses waiting, in turn, within the bounds; decisions analysed.

    In turn: those not started yet first (oldest asked first), then the one worked on longest ago
    (``GameAnalysis.worked_at``). Before, the oldest went first until done, and an 8-player game of
    three decks (about 2 hours of the worker) held every analysis asked after it for as long.
    ``max_decisions`` and ``seconds`` bound the whole pass (given neither,
    :data:`DECISIONS_PER_PASS` decisions); it moves on to the next analysis
    waiting when one is done within them.
    """
    now = now or timezone.now()
    if max_decisions is None and seconds is None:
        max_decisions = DECISIONS_PER_PASS
    started = time.monotonic()
    waiting = list(
        GameAnalysis.objects.filter(
            version=analysis.VERSION,
            status__in=WAITING,
            game__status=Game.Status.FINISHED,
        )
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lte=now))
        .order_by(F("worked_at").asc(nulls_first=True), "requested_at", "pk")
        .values_list("pk", flat=True)[:10]
    )
    analysed = 0
    for index, analysis_id in enumerate(waiting):
        left_seconds = None if seconds is None else seconds - (time.monotonic() - started)
        left_decisions = None if max_decisions is None else max_decisions - analysed
        out_of_time = left_seconds is not None and left_seconds <= 0
        if index and (out_of_time or (left_decisions is not None and left_decisions <= 0)):
            break  # the first analysis always gets its decision: a pass always moves on
        analysed += analysis_step(
            analysis_id=analysis_id,
            max_decisions=left_decisions if left_decisions is None else max(1, left_decisions),
            seconds=left_seconds if left_seconds is None else max(0.0, left_seconds),
            now=now,
        )
    return analysed


def analyse_game(*, game_id: int, chunk: int = 50) -> GameAnalysis:
    """The whole analysis of a finished game now (made if nobody asked yet): for ``manage.py analyse`` and benches."""
    game = Game.objects.get(pk=game_id)
    if not game.is_finished:
        raise GameError("game_not_finished", _("A game is analysed only once it is over."))
    job = GameAnalysis.objects.filter(game=game).first()
    if job is not None and (job.version != analysis.VERSION or job.status == GameAnalysis.Status.FAILED):
        job.delete()
        job = None
    if job is None:
        job = GameAnalysis.objects.create(
            game=game,
            version=analysis.VERSION,
            seed=analysis.analysis_seed(game.pk),
            samples=analysis.SAMPLES,
            decisions_total=Move.objects.filter(game=game).count(),
            requested_at=timezone.now(),
        )
    while job.in_progress:
        if not analysis_step(analysis_id=job.pk, max_decisions=chunk):
            job.refresh_from_db()
            if job.in_progress:  # another worker holds it: wait for it
                time.sleep(1)
            continue
        job.refresh_from_db()
    return job
