"""Thin views for looking back: history, a finished game's record and replay, stats, leaderboard.

The reads live in ``games.history``; these parse the request and render.
Bad input (an unknown player, a page or step that is not a number) gets a
4xx or is read as the nearest sensible value, never a 500.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games import chat_selectors, selectors, services
from games.forms import NotedCommitmentForm
from games.models import Game, Rating
from games.views import game_to_watch, http_status, post_only

from . import analysis, records, stats

HISTORY_PAGE_SIZE = 20
LEADERBOARD_PAGE_SIZE = 50


def _replay_step(request: HttpRequest) -> int | None:
    """The replay's ``?step``: None (the last move) when there is none, 0 (the first deal) when it is not a
    whole number ("abc", "1.5"), as for a step before the start; the replay clamps a number out of range."""
    if "step" not in request.GET:
        return None
    try:
        return int(request.GET["step"])
    except ValueError:
        return 0


def _not_over(request: HttpRequest, game: Game, message: str, *, called_off: str = "") -> HttpResponse:
    """409: the game is not over (``message``), or was called off (``called_off``, by default about the
    record and the replay)."""
    if game.is_aborted:
        message = called_off or _("This game was called off before its end: it has no record and no replay.")
    return render(request, "games/refused.html", {"error": message, "game": game}, status=409)


def _same_query(request: HttpRequest, to: str, **kwargs: Any) -> HttpResponse:
    """A redirect to the view ``to`` that keeps the request's query string (the page, the filters)."""
    url = reverse(to, kwargs=kwargs)
    query = request.GET.urlencode()
    return HttpResponseRedirect(f"{url}?{query}" if query else url)


def _player(username: str) -> Any:
    """The person whose name this is, found as a log-in finds it (whatever its case), or 404."""
    user_model = get_user_model()
    try:
        return user_model._default_manager.get_by_natural_key(username)
    except user_model.DoesNotExist:
        raise Http404 from None


@login_required
@require_safe
def my_history(request: HttpRequest) -> HttpResponse:
    return _same_query(request, "games:history", username=request.user.username)


@login_required
@require_safe
def player_history(request: HttpRequest, username: str) -> HttpResponse:
    player = _player(username)
    if player.username != username:
        return _same_query(request, "games:history", username=player.username)
    invited = selectors.invited_game_ids(request.session)
    filters = records.history_filters(user=player, viewer=request.user, invited=invited)
    variant = request.GET.get("variant", "")
    opponent = request.GET.get("opponent", "")
    if variant not in {value for value, _label in filters["variants"]}:
        variant = ""
    if opponent not in {value for value, _label in filters["opponents"]}:
        opponent = ""
    seats = records.history_of(user=player, variant=variant, opponent=opponent, viewer=request.user, invited=invited)
    page = Paginator(seats, HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    query = urlencode([(k, v) for k, v in (("variant", variant), ("opponent", opponent)) if v])
    rows = records.history_rows(list(page.object_list))
    return render(
        request,
        "games/history.html",
        {
            "player": player,
            "is_me": player.pk == request.user.pk,
            "page": page,
            "rows": rows,
            "anyone_left": any(row["left"] for row in rows),
            "filters": filters,
            "variant": variant,
            "opponent": opponent,
            "filtered": bool(variant or opponent),
            "query": query,
        },
    )


def _noted_commitment(request: HttpRequest) -> tuple[NotedCommitmentForm, str | None]:
    """The commitment the reader noted at the table, to check against the revealed seed (a GET form):
    the form (with its errors) and the commitment, None unless given and valid."""
    form = NotedCommitmentForm(request.GET if "commitment" in request.GET else None)
    return form, form.cleaned_data["commitment"] if form.is_bound and form.is_valid() else None


@login_required
@require_safe
def game_record(request: HttpRequest, game_id: int) -> HttpResponse:
    game, refusal = game_to_watch(request, game_id)
    if refusal:
        return refusal
    form, noted = _noted_commitment(request)
    try:
        record = records.game_record(game=game, noted=noted)
    except records.ReplayRefused:
        return _not_over(request, game, _("This game is not over yet: its record opens when the last round ends."))
    record["commitment_form"] = form
    record["chat"] = chat_selectors.chat_panel(
        game=game, user=request.user, invited=selectors.holds_invite(request.session, game.pk), record=True
    )
    record["analysis"] = analysis.record_panel(game=game, user=request.user, seats=record["seats"])
    return render(request, "games/record.html", record)


def _seed_not_revealed(request: HttpRequest, game: Game) -> HttpResponse:
    """Why there is no seed to check: an old game's shuffle had none (404), the game is in play, or it was
    called off before its first deal (409)."""
    if not game.is_provably_fair:
        return render(
            request,
            "games/refused.html",
            {
                "error": _("This game was dealt before provably fair shuffles: it has no record to verify."),
                "game": game,
            },
            status=404,
        )
    return _not_over(
        request,
        game,
        _("The seed is revealed only once the game is over."),
        called_off=_("This game was called off before its first deal: there is no deal to check."),
    )


@login_required
@require_safe
def game_fairness(request: HttpRequest, game_id: int) -> HttpResponse:
    """The check of a game's shuffles once its seed is revealed: a called-off game has no record page, so
    its players check the deals they played here (a finished game's record shows the same)."""
    game, refusal = game_to_watch(request, game_id)
    if refusal:
        return refusal
    if not game.seed_revealed:
        return _seed_not_revealed(request, game)
    form, noted = _noted_commitment(request)
    seats = list(game.seats.select_related("user").order_by("position"))
    fairness = records.fairness_check(game=game, seats=seats, noted=noted)
    return render(request, "games/fairness.html", {"game": game, "fairness": fairness, "commitment_form": form})


@login_required
@require_safe
def game_record_export(request: HttpRequest, game_id: int) -> HttpResponse:
    """A game's record as JSON, with its revealed seed: ``python -m games.engine.verify`` checks it."""
    game, refusal = game_to_watch(request, game_id)
    if refusal:
        return refusal
    try:
        record = records.fair_record_export(game=game)
    except records.ReplayRefused:
        return _seed_not_revealed(request, game)
    response = JsonResponse(record, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="{records.export_filename(game)}"'
    return response


@login_required
@require_safe
def game_replay(request: HttpRequest, game_id: int) -> HttpResponse:
    game, refusal = game_to_watch(request, game_id)
    if refusal:
        return refusal
    try:
        context = records.game_replay(game=game, step=_replay_step(request))
    except records.ReplayRefused:
        return _not_over(request, game, _("The replay shows every hand, so it opens only once the game is over."))
    context["analysed"] = analysis.replay_panel(
        game=game, step=context["step"], hand_size=context["hand_size"], names=[h["name"] for h in context["hands"]]
    )
    return render(request, "games/replay.html", context)


@login_required
@require_safe
def game_analysis(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game's move-by-move analysis (or its progress, or the button that asks for it)."""
    game, refusal = game_to_watch(request, game_id)
    if refusal:
        return refusal
    if not game.is_finished:
        return _not_over(
            request,
            game,
            _("A game is analysed only once it is over."),
            called_off=services.analysis_called_off(),
        )
    context = analysis.game_analysis(game=game, user=request.user, show=request.GET.get("show"))
    return render(request, "games/analysis.html", context)


@post_only
def game_analysis_request(request: HttpRequest, game_id: int) -> HttpResponse:
    """A player of the finished game asks for its analysis (``services.analysis_request`` decides)."""
    game, refusal = game_to_watch(request, game_id)
    if refusal:
        return refusal
    try:
        services.analysis_request(game_id=game.pk, user=request.user)
    except services.GameError as error:
        if error.code == "game_not_finished" or error.code == "game_aborted":
            return _not_over(request, game, error.message, called_off=error.message)
        return render(request, "games/refused.html", {"error": error.message, "game": game}, status=http_status(error))
    messages.success(request, _("The analysis has started: this page shows how far it has got."))
    return redirect("games:analysis", game_id=game.pk)


@login_required
@require_safe
def player_stats(request: HttpRequest, username: str) -> HttpResponse:
    player = _player(username)
    if player.username != username:
        return _same_query(request, "games:stats", username=player.username)
    context = stats.player_stats(user=player, viewer=request.user, invited=selectors.invited_game_ids(request.session))
    context["is_me"] = player.pk == request.user.pk
    return render(request, "games/stats.html", context)


@require_safe
def leaderboard(request: HttpRequest) -> HttpResponse:
    page = Paginator(stats.leaderboard(), LEADERBOARD_PAGE_SIZE).get_page(request.GET.get("page"))
    bots = list(Rating.objects.filter(user__isnull=True).order_by("-ordinal"))
    offset = page.start_index() - 1 if page.object_list else 0
    rows = stats.leaderboard_rows(
        list(page.object_list),
        bots=bots,
        previous=stats.rating_before(offset),
        last_page=not page.has_next(),
    )
    mine = Rating.objects.filter(user=request.user).first() if request.user.is_authenticated else None
    played = mine.games if mine else 0
    return render(
        request,
        "games/leaderboard.html",
        {
            "page": page,
            "rows": rows,
            "min_games": stats.LEADERBOARD_MIN_GAMES,
            "games_to_go": max(0, stats.LEADERBOARD_MIN_GAMES - played) if request.user.is_authenticated else 0,
        },
    )
