"""Thin views: parse the request, call a selector or a service, render.

Every refusal (``GameError``) is rendered as the table page (or the lobby)
with the message and a 4xx status; nothing is changed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial, wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_safe

from games.engine import PRESETS, Rules, RulesError
from threethirteen_site.errors import NotFound
from threethirteen_site.http import received_at

from . import chat_selectors, presentation, selectors, services
from .forms import GameCreateForm, JoinForm, PlayForm, PlayNowForm
from .models import Game, Variant, variant_label
from .table import HAND_VIEWS

SORT_SESSION_KEY = "hand_sort"
#: How the player sees their hand ("own" order or arranged in "melds", ``table.HAND_VIEWS``), per session.
HAND_VIEW_SESSION_KEY = "hand_view"

#: The HTTP status of each refusal code of the services (anything else: 400).
HTTP_STATUS = {
    "not_logged_in": 403,
    "not_seated": 403,
    "not_creator": 403,
    "private_game": 403,
    "not_moderator": 403,
    "not_found": 404,
    "stale_version": 409,
    "out_of_time": 409,
    "game_not_open": 409,
    "game_not_active": 409,
    "game_full": 409,
    "seats_held": 409,
    "not_invited": 409,
    "too_many_invitations": 409,
    "too_many_open_tables": 409,
    "already_seated": 409,
    "not_your_turn": 409,
    "wrong_phase": 409,
    "game_over": 409,
    "seats_open": 409,
    "not_due": 409,
    "seat_left": 409,
    "game_not_finished": 409,
    "game_aborted": 409,
    "analysis_waiting": 409,
    "round_not_over": 409,
    "seat_played_by_bot": 409,
    "game_not_abortable": 409,
    "already_bot": 409,
    "self_deactivate": 409,
    "already_inactive": 409,
    "away_already": 409,
    "not_away": 409,
}


def post_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Like Django's ``require_POST``, but a GET (a bookmarked or typed address of a button)
    gets a page in the site's layout, with a way back to the table or the lobby, not a blank 405."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "POST":
            return view(request, *args, **kwargs)
        game_id = kwargs.get("game_id")
        game = Game.objects.filter(pk=game_id).first() if game_id is not None else None
        if game is not None and not may_watch(request, game):
            game = None  # a private game's address says nothing of it
        response = render(request, "405.html", {"game": game}, status=405)
        response["Allow"] = "POST"
        return response

    return wrapper


def http_status(error: services.GameError) -> int:
    """The status a page answers with when a service refuses (the refusal's code decides)."""
    return HTTP_STATUS.get(error.code, 400)


# The lists of games (the lobby, my games) change while one is away: never kept by the browser, which
# showed them as they were when it went back to them (its cache, a play-test found).
@never_cache
def lobby(request: HttpRequest, form: GameCreateForm | None = None, status: int = 200) -> HttpResponse:
    context: dict[str, Any] = {
        **selectors.lobby_lists(user=request.user),
        "form": form or GameCreateForm(),
        "play_now_form": PlayNowForm(),
        "play_now_bots": services.PLAY_NOW_BOTS,
    }
    return render(request, "games/lobby.html", context, status=status)


@require_safe
@never_cache
def lobby_lists(request: HttpRequest) -> HttpResponse:
    """The lobby's lists of games alone, for its page to fetch and swap in when its socket says they
    changed (someone created a table, took or left a seat, a table started), or after the socket was down."""
    return render(request, "games/_lobby_lists.html", selectors.lobby_lists(user=request.user))


@post_only
def game_create(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return _refused(request, services.GameError("not_logged_in", _("Log in to create a game.")))
    form = GameCreateForm(request.POST, creator=request.user)
    if not form.is_valid():
        return lobby(request, form=form, status=400)
    data = form.cleaned_data
    try:
        game = services.game_create(
            creator=request.user,
            variant=data["variant"],
            seat_count=data["seat_count"],
            bot_levels=data["bot_levels"],
            invited=data["invite"],
            time_limit_seconds=data["time_limit_seconds"],
            coach=data["coach"],
            is_private=data["is_private"],
            spectators_allowed=not data["players_only"],
            chat_enabled=not data["no_chat"],
            round_count=data.get("round_count"),
            seed_contribution=data["seed_contribution"],
        )
    except services.GameError as error:
        form.add_error(None, error.message)
        return lobby(request, form=form, status=http_status(error))
    return redirect(game)


@post_only
def play_now(request: HttpRequest) -> HttpResponse:
    """One click from the lobby to a table against bots (``services.game_play_now``)."""
    if not request.user.is_authenticated:
        return _refused(request, services.GameError("not_logged_in", _("Log in to play.")))
    form = PlayNowForm(request.POST)
    if not form.is_valid():
        reasons = " ".join(str(e) for errors in form.errors.values() for e in errors)
        return _refused(request, services.GameError("bad_form", reasons))
    try:
        game = services.game_play_now(creator=request.user, bot_level=form.cleaned_data["bot_level"])
    except services.GameError as error:
        return _refused(request, error)
    return redirect(game)


def _sort_choice(request: HttpRequest) -> str:
    wanted = request.GET.get("sort")
    if wanted in presentation.SORTS:
        request.session[SORT_SESSION_KEY] = wanted
        return wanted
    stored = request.session.get(SORT_SESSION_KEY)
    return stored if stored in presentation.SORTS else "suit"


def _hand_view_choice(request: HttpRequest) -> str:
    """``?hand=melds`` or ``?hand=own`` chooses (and the session keeps it, so live updates keep it too)."""
    wanted = request.GET.get("hand")
    if wanted in HAND_VIEWS:
        request.session[HAND_VIEW_SESSION_KEY] = wanted
        return wanted
    stored = request.session.get(HAND_VIEW_SESSION_KEY)
    return stored if stored in HAND_VIEWS else "own"


def _table_response(
    request: HttpRequest,
    game: Game,
    *,
    template: str,
    error: services.GameError | None = None,
    status: int = 200,
    chat_error: str = "",
    chat_text: str = "",
) -> HttpResponse:
    context = selectors.game_table(
        game=game, user=request.user, sort=_sort_choice(request), hand_view=_hand_view_choice(request)
    )
    if error is not None:
        context["error"] = error.message
        status = http_status(error)
    if template == "games/table.html":  # the chat sits beside the table, outside the part live updates swap
        context["chat"] = chat_selectors.chat_panel(
            game=game,
            user=request.user,
            invited=selectors.holds_invite(request.session, game.pk),
            seated_ids=context["seated_ids"],
            error=chat_error,
            text=chat_text,
        )
    return render(request, template, context, status=status)


def by_fetch(request: HttpRequest) -> bool:
    """Whether the page's script sent this request (``live.js`` and ``chat.js`` mark theirs)."""
    return request.headers.get("X-Requested-With") == "fetch"


def may_watch(request: HttpRequest, game: Game) -> bool:
    """``selectors.may_watch`` for this request: its user, and whether its session holds the invite link."""
    return selectors.may_watch(game=game, user=request.user, invited=selectors.holds_invite(request.session, game.pk))


def game_to_watch(request: HttpRequest, game_id: int) -> tuple[Game, HttpResponse | None]:
    """The game, and the 403 page to answer instead when this person may not watch it
    (``selectors.may_watch``: every page about a game, its rounds, rules, record and replay asks here).

    The refusal is the same whether the game is in play or over, and names
    nothing of the game (not even its variant): a stranger typing game
    numbers learns only that the game exists and whether it is private or
    kept to its players (which its join and move refusals say anyway).
    """
    game = get_object_or_404(Game, pk=game_id)
    if may_watch(request, game):
        return game, None
    return game, render(
        request, "games/refused.html", {"error": selectors.watch_refusal(game), "game": None}, status=403
    )


@login_required
@require_safe
def table(request: HttpRequest, game_id: int) -> HttpResponse:
    game, refusal = game_to_watch(request, game_id)
    return refusal or _table_response(request, game, template="games/table.html")


@login_required
@require_safe
def table_partial(request: HttpRequest, game_id: int) -> HttpResponse:
    """The table body alone, for live updates to fetch and swap in (the same context as the page)."""
    game, refusal = game_to_watch(request, game_id)
    return refusal or _table_response(request, game, template="games/_table.html")


def _refused(request: HttpRequest, error: services.GameError, game: Game | None = None) -> HttpResponse:
    if game is not None and request.user.is_authenticated:
        game.refresh_from_db()
        if may_watch(request, game):
            return _table_response(request, game, template="games/table.html", error=error)
    return render(request, "games/refused.html", {"error": error.message, "game": game}, status=http_status(error))


@post_only
def play(request: HttpRequest, game_id: int) -> HttpResponse:
    """A move: the service reads (and locks) the game; the view reads it only to show a refusal."""
    if not request.user.is_authenticated:
        return _refused(
            request, services.GameError("not_logged_in", _("Log in to play.")), get_object_or_404(Game, pk=game_id)
        )
    form = PlayForm(request.POST)
    if not form.is_valid():
        reasons = " ".join(str(e) for errors in form.errors.values() for e in errors)
        return _refused(
            request,
            services.GameError("bad_form", _("That move could not be read: %(reasons)s") % {"reasons": reasons}),
            get_object_or_404(Game, pk=game_id),
        )
    try:
        game = services.game_play(
            game_id=game_id,
            user=request.user,
            action=form.action(),
            expected_version=form.cleaned_data["version"],
            received_at=received_at(request),
        )
    except services.GameError as error:
        return _refused(request, error, get_object_or_404(Game, pk=game_id))
    if by_fetch(request):
        # live.js swaps in the table alone: it gets it in this answer (a redirect would cost a second
        # request, and the page around the table would be drawn for nothing).
        return _table_response(request, game, template="games/_table.html")
    return redirect(game)


@post_only
def join(request: HttpRequest, game_id: int) -> HttpResponse:
    form = JoinForm(request.POST)
    if not form.is_valid():
        return _refused(request, _bad_contribution(form), get_object_or_404(Game, pk=game_id))
    join_game = partial(services.game_join, seed_contribution=form.cleaned_data["seed_contribution"])
    return _lifecycle(request, game_id, join_game, _("You took a seat."))


def _bad_contribution(form: JoinForm) -> services.GameError:
    return services.GameError(
        "bad_contribution", _("Your seed contribution was not taken: %(reasons)s") % {"reasons": form.reasons()}
    )


@post_only
def leave(request: HttpRequest, game_id: int) -> HttpResponse:
    return _lifecycle(request, game_id, services.game_leave, _("You left the game."), to_lobby=True)


@post_only
def decline(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    done = (
        _("You declined: a bot takes the seat held for you.")
        if game.rematch_of_id is not None
        else _("You declined: the seat held for you is open to anyone.")
    )
    return _lifecycle(request, game.pk, services.game_decline, done, True)


@post_only
def start(request: HttpRequest, game_id: int) -> HttpResponse:
    return _lifecycle(request, game_id, services.game_start, _("The cards are dealt."))


def _lifecycle(request: HttpRequest, game_id: int, action: Any, done: str, to_lobby: bool = False) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    try:
        action(game_id=game.pk, user=request.user)
    except services.GameError as error:
        return _refused(request, error, game)
    messages.success(request, done)
    return redirect("games:lobby") if to_lobby else redirect(game)


@post_only
def resign(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    if request.POST.get("confirm") != "yes":
        return _refused(
            request,
            services.GameError(
                "not_confirmed", _("Tick the box to confirm that you give up this game: nothing was changed.")
            ),
            game,
        )
    return _lifecycle(request, game_id, services.game_resign, _("You resigned: a bot plays your seat to the end."))


@post_only
def rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game, pk=game_id)
    form = JoinForm(request.POST)  # the seed contribution of a person taking the seat held for them
    if not form.is_valid():
        return _refused(request, _bad_contribution(form), game)
    try:
        new = services.game_rematch(
            game_id=game.pk, user=request.user, seed_contribution=form.cleaned_data["seed_contribution"]
        )
    except services.GameError as error:
        return _refused(request, error, game)
    if not any(seat.user_id == request.user.pk for seat in new.seats.all()):
        # They let their seat go (declined), or it went to a bot: shown the way there if they may look at it.
        if not selectors.may_watch(game=new, user=request.user):
            messages.info(
                request,
                _("The rematch waits for its other players, without you.")
                if new.status == Game.Status.OPEN
                else _("The rematch is under way without you."),
            )
            return redirect(game)
    elif new.status != Game.Status.OPEN:
        messages.success(request, _("Rematch! Same players, same options, new cards."))
    elif new.created_by_id == request.user.pk:
        messages.success(request, _("Rematch! The other players are asked to take their seats."))
    else:
        messages.success(request, _("You took your seat: the rematch starts when every seat is taken."))
    return redirect(new)


@require_http_methods(["GET", "POST"])
def invite(request: HttpRequest, game_id: int, token: str) -> HttpResponse:
    """The secret invite link: a page that says what the game is, and a button to take a seat."""
    game = get_object_or_404(Game, pk=game_id)
    if not game.invite_token or not constant_time_compare(token, game.invite_token):
        raise NotFound(_("This invite link is not valid."))
    # Holding the link lets this browser look at the game, even a private one (``selectors.may_watch``).
    selectors.remember_invite(request.session, game.pk)
    if request.method == "POST":
        form = JoinForm(request.POST)
        try:
            if not form.is_valid():
                raise _bad_contribution(form)
            services.game_join(
                game_id=game.pk,
                user=request.user,
                invite_token=token,
                seed_contribution=form.cleaned_data["seed_contribution"],
            )
        except services.GameError as error:
            if error.code == "already_seated":
                return redirect(game)
            return render(
                request,
                "games/invite.html",
                {"game": game, "token": token, "error": error.message},
                status=http_status(error),
            )
        messages.success(request, _("You took a seat."))
        return redirect(game)
    seats = list(game.seats.select_related("user", "reserved_for"))
    me = request.user.pk if request.user.is_authenticated else None
    seated = me is not None and any(seat.user_id == me for seat in seats)
    free = any(seat.is_open_to(me) for seat in seats)  # else the open seats are held for others invited
    return render(
        request, "games/invite.html", {"game": game, "token": token, "seated": seated, "free": free, "seats": seats}
    )


@login_required
@require_safe
@never_cache
def my_games(request: HttpRequest) -> HttpResponse:
    return render(request, "games/my_games.html", selectors.my_games(user=request.user))


@login_required
@require_safe
def round_summary(request: HttpRequest, game_id: int, round_number: int) -> HttpResponse:
    game, refusal = game_to_watch(request, game_id)
    if refusal:
        return refusal
    summary = selectors.round_summary(game=game, round_number=round_number)
    if summary is None:
        raise NotFound(_("That round has not been played yet."))
    return render(request, "games/round.html", {"game": game, "summary": summary})


@post_only
def round_seen(request: HttpRequest, game_id: int, round_number: int) -> HttpResponse:
    """The player moves on from a finished round's summary (the "Next deal" button); back to the table."""
    game = get_object_or_404(Game, pk=game_id)
    try:
        services.round_summary_dismiss(game_id=game.pk, user=request.user, round_number=round_number)
    except services.GameError as error:
        return _refused(request, error, game)
    return redirect(game)


@require_safe
def rules(request: HttpRequest, game_id: int | None = None) -> HttpResponse:
    """The rules of a variant (open to all), or of one game (for those who may watch it, like its table)."""
    game = None
    if game_id is not None:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        game, refusal = game_to_watch(request, game_id)
        if refusal:
            return refusal
    variant_slug = request.GET.get("variant")
    if game is not None:
        variant_rules, variant_name = Rules.from_dict(game.rules), game.variant_label
    else:
        variant = Variant.objects.filter(slug=variant_slug).first() if variant_slug else None
        variant_name, variant_rules = PRESETS["classic"]  # no such variant, or options the engine refuses
        variant_name = variant_label(variant_name)
        if variant is not None:
            with contextlib.suppress(AttributeError, RulesError):
                variant_rules, variant_name = Rules.from_dict(variant.options), str(variant)
    return render(
        request,
        "games/rules.html",
        {
            "game": game,
            "variant_name": variant_name,
            "options": selectors.rules_summary(variant_rules),
            "text": selectors.rules_text(variant_rules, seat_count=game.seat_count if game is not None else None),
            "variants": Variant.objects.filter(is_active=True),
        },
    )
