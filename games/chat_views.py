"""Thin views of table talk: the chat partial, and posting, muting and reporting from it.

Each POST works as a plain form (it answers with a redirect back to the
table's chat, or the table page with the refusal next to the chat) and with
fetch (``X-Requested-With: fetch``, as ``static/games/chat.js`` sends it: the
answer is the chat partial, with the refusal in it and a 4xx status).  A
person who may not look at the game gets the same 403 as its table, which
names nothing of it.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from . import chat_selectors, selectors, services
from .forms import ChatPostForm
from .models import MESSAGE_MAX_LENGTH, Game
from .services import chat as chat_service
from .services.text import one_full_stop
from .views import _table_response, by_fetch, game_to_watch, http_status, post_only

#: The HTTP status of the chat's own refusals (the others: ``views.HTTP_STATUS``).
CHAT_STATUS = {
    "chat_off": 403,
    "chat_read_only": 403,
    "chat_closed": 403,
    "chat_wrong_channel": 403,
    "chat_muted": 403,
    "chat_too_fast": 429,
    "chat_reported": 409,
    "chat_mute_self": 400,
    "chat_report_self": 400,
}


def _status(error: services.GameError) -> int:
    return CHAT_STATUS.get(error.code) or http_status(error)


def _invited(request: HttpRequest, game: Game) -> bool:
    return selectors.holds_invite(request.session, game.pk)


def _chat_back(game: Game) -> str:
    return reverse("games:table", args=[game.pk]) + "#chat"


def _answer(
    request: HttpRequest,
    game: Game,
    *,
    done: str = "",
    error: services.GameError | None = None,
    text: str = "",
) -> HttpResponse:
    """The chat partial (fetch), or back to the table's chat (a plain form), with ``done`` or ``error``."""
    message = error.message if error is not None else ""
    status = _status(error) if error is not None else 200
    if by_fetch(request):
        context = chat_selectors.chat_panel(
            game=game, user=request.user, invited=_invited(request, game), error=message, text=text
        )
        return render(request, "games/_chat.html", {"chat": context, "done": done}, status=status)
    if error is None:
        if done:
            messages.success(request, done)
        return redirect(_chat_back(game))
    return _table_response(
        request, game, template="games/table.html", status=status, chat_error=message, chat_text=text
    )


def _game_for(request: HttpRequest, game_id: int) -> tuple[Game | None, HttpResponse | None]:
    """The game, or the answer instead: log in first, or the table's 403 (it names nothing of the game)."""
    if not request.user.is_authenticated:
        error = services.GameError("not_logged_in", _("Log in to chat."))
        return None, render(request, "games/refused.html", {"error": error.message}, status=403)
    game, refusal = game_to_watch(request, game_id)
    return (None, refusal) if refusal else (game, None)


@login_required
@require_safe
def chat_partial(request: HttpRequest, game_id: int) -> HttpResponse:
    """The chat alone, for live updates to fetch (``?record=1``: the whole history, as on the record)."""
    game, refusal = game_to_watch(request, game_id)
    if refusal:
        return refusal
    context = chat_selectors.chat_panel(
        game=game, user=request.user, invited=_invited(request, game), record=request.GET.get("record") == "1"
    )
    return render(request, "games/_chat.html", {"chat": context})


@post_only
def chat_post(request: HttpRequest, game_id: int) -> HttpResponse:
    game, refusal = _game_for(request, game_id)
    if game is None:
        return refusal or HttpResponse(status=403)
    form = ChatPostForm(request.POST)
    if not form.is_valid():  # a forged post: the page's own form cannot send any of these
        typed = request.POST.get("text", "")
        if "text" in form.errors:
            error = chat_service.too_long(len(typed))
        elif "phrase" in form.errors:
            error = services.GameError("chat_bad_phrase", _("There is no such quick phrase."))
        else:
            error = services.GameError("chat_bad_channel", _("There is no such chat channel."))
        return _answer(request, game, error=error, text=typed[: MESSAGE_MAX_LENGTH * 4])
    data = form.cleaned_data
    try:
        services.chat_post(
            game_id=game.pk,
            user=request.user,
            text=data["text"],
            phrase=data["phrase"],
            channel=data["channel"],
            invited=_invited(request, game),
        )
    except services.GameError as error:
        return _answer(request, game, error=error, text=data["text"] if not data["phrase"] else "")
    return _answer(request, game)


@post_only
def chat_mute(request: HttpRequest, game_id: int) -> HttpResponse:
    game, refusal = _game_for(request, game_id)
    if game is None:
        return refusal or HttpResponse(status=403)
    mute = request.POST.get("mute") != "off"
    try:
        other = services.chat_mute(
            game_id=game.pk,
            user=request.user,
            muted_id=request.POST.get("user"),
            mute=mute,
            invited=_invited(request, game),
        )
    except services.GameError as error:
        return _answer(request, game, error=error)
    done = one_full_stop(
        (
            _("You no longer see what %(name)s writes. Unmute them here at any time.")
            if mute
            else _("You see what %(name)s writes again.")
        )
        % {"name": other.shown_name}
    )
    return _answer(request, game, done=done)


@post_only
def chat_report(request: HttpRequest, game_id: int) -> HttpResponse:
    game, refusal = _game_for(request, game_id)
    if game is None:
        return refusal or HttpResponse(status=403)
    try:
        services.chat_report(
            game_id=game.pk,
            user=request.user,
            message_id=request.POST.get("message"),
            note=request.POST.get("note", ""),
            invited=_invited(request, game),
        )
    except services.GameError as error:
        return _answer(request, game, error=error)
    return _answer(request, game, done=_("Thank you: a moderator will look at that message."))
