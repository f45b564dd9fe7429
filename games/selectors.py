"""Reads: lobby lists and what one person sees at a table.

The table is built from the engine's ``view(state, seat)`` (or the public
``view(state, None)`` for someone without a seat), the single place that
decides which cards a person may see.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, F, OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import RANK_CHARS, GameState, Rules, discard_penalties, parse_cards, view, wild_rank_label, wild_ranks

from . import presentation
from .history.ratings import places
from .models import AuditRecord, Game, Move, Seat

RECENT_MOVES = 12


def games_waiting_on(*, user: Any) -> QuerySet[Game]:
    """Active games where it is this person's turn (not a seat a bot took over), most urgent first."""
    my_turn = Seat.objects.filter(game=OuterRef("pk"), user=user, position=OuterRef("current_seat"), bot_level="")
    return (
        Game.objects.filter(status=Game.Status.ACTIVE)
        .filter(Exists(my_turn))
        .order_by(F("turn_deadline").asc(nulls_last=True), "pk")
    )


def turns_waiting_count(*, user: Any) -> int:
    """How many games wait on this person (the header count on every page)."""
    if user is None or not user.is_authenticated:
        return 0
    return games_waiting_on(user=user).count()


def my_games(*, user: Any) -> dict[str, list[Game]]:
    """The "my games" page: games waiting on me (most urgent deadline first), then the others in play,
    the open ones, and the recently finished."""
    waiting = list(games_waiting_on(user=user).prefetch_related("seats__user"))
    waiting_ids = [g.pk for g in waiting]
    mine = Game.objects.filter(seats__user=user).prefetch_related("seats__user").distinct()
    return {
        "waiting": waiting,
        "playing": list(
            mine.filter(status=Game.Status.ACTIVE)
            .exclude(pk__in=waiting_ids)
            .order_by(F("turn_deadline").asc(nulls_last=True), "pk")
        ),
        "open": list(mine.filter(status=Game.Status.OPEN).order_by("-created_at")),
        "finished": list(mine.filter(status=Game.Status.FINISHED).order_by("-finished_at")[:20]),
    }


def games_open_to_join(*, user: Any) -> QuerySet[Game]:
    """Games waiting for players that have an open seat (and where ``user`` has none)."""
    open_seat = Seat.objects.filter(game=OuterRef("pk"), user__isnull=True, bot_level="")
    games = Game.objects.filter(status=Game.Status.OPEN, is_private=False).filter(Exists(open_seat))
    if user is not None and user.is_authenticated:
        games = games.exclude(seats__user=user)
    return games.select_related("created_by").prefetch_related("seats__user").order_by("-created_at")


def games_of(*, user: Any, finished: bool = False, include_aborted: bool = False) -> QuerySet[Game]:
    """A person's games: open and active ones with those waiting on them first, or the finished ones
    (``include_aborted``: and those a moderator or the last player leaving called off)."""
    my_turn = Seat.objects.filter(game=OuterRef("pk"), user=user, position=OuterRef("current_seat"), bot_level="")
    statuses = [Game.Status.FINISHED] if finished else [Game.Status.OPEN, Game.Status.ACTIVE]
    if finished and include_aborted:
        statuses.append(Game.Status.ABORTED)
    games = (
        Game.objects.filter(seats__user=user, status__in=statuses)
        .annotate(my_turn=Exists(my_turn))
        .prefetch_related("seats__user")
    )
    if finished:
        return games.order_by("-finished_at")
    return games.order_by("-my_turn", "-updated_at")


def seat_of(*, game: Game, user: Any) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return next((s for s in game.seats.all() if s.user_id == user.pk), None)


def may_watch(*, game: Game, user: Any) -> bool:
    """May ``user`` see this game's table and hear its live updates?

    Its players always; other signed-in people while the game is looking for
    players (to take a seat) and, when the game allows spectators, later too
    (they get the public view).  The table view and the game's WebSocket
    consumer both ask this.
    """
    if user is None or not user.is_authenticated:
        return False
    if game.status == Game.Status.OPEN or game.spectators_allowed:
        return True
    return game.seats.filter(user=user).exists()


def game_table(*, game: Game, user: Any, sort: str = "suit") -> dict[str, Any]:
    """Everything the table template shows to ``user`` (seated or not)."""
    seats = list(game.seats.select_related("user").order_by("position"))
    me = next((s for s in seats if user is not None and user.is_authenticated and s.user_id == user.pk), None)
    names = {s.position: s.name for s in seats}
    context: dict[str, Any] = {
        "game": game,
        "seats": seats,
        "me": me,
        "version": game.version,
        "sort": sort,
        "started": game.state is not None,
        "rules": Rules.from_dict(game.rules),
        "clock": turn_clock(game=game),
        "my_seat_left": me is not None and me.has_left,
        "can_rematch": game.status == Game.Status.FINISHED and me is not None,
        "rematch_game": Game.objects.filter(rematch_of=game).first() if game.status == Game.Status.FINISHED else None,
        "invite_path": game.invite_path() if me is not None and game.status == Game.Status.OPEN else "",
        "aborted": game.status == Game.Status.ABORTED,
        "abort_record": (
            AuditRecord.objects.filter(game=game, action=AuditRecord.Action.GAME_ABORT).first()
            if game.status == Game.Status.ABORTED
            else None
        ),
    }
    if game.state is None:
        context["open_seats"] = sum(1 for s in seats if s.is_open)
        return context

    state = GameState.from_dict(game.state)
    v = view(state, me.position if me is not None else None)
    wild = v["wild_ranks"]
    hand_size = v["hand_size"]
    playing = game.status == Game.Status.ACTIVE  # an aborted game takes no more moves
    my_turn = playing and me is not None and v["current_seat"] == me.position and not me.is_bot
    legal = v["legal_actions"] if playing else []

    players = []
    for s in seats:
        players.append(
            {
                "seat": s,
                "name": s.name,
                "is_me": me is not None and s.position == me.position,
                "cards": v["hand_counts"][s.position],
                "score": v["scores"][s.position],
                "is_current": v["current_seat"] == s.position,
                "is_dealer": v["dealer"] == s.position,
                "went_out": v["went_out"] == s.position,
                "left": s.left,
                "left_label": s.get_left_display(),
            }
        )

    hand: list[dict[str, Any]] = []
    go_out_faces: list[dict[str, Any]] = []
    if me is not None and v["hand"] is not None:
        discardable = {a["card"] for a in legal if a["type"] == "discard"}
        go_out_codes = [a["card"] for a in legal if a["type"] == "go_out"]
        penalties: dict[str, int] = {}
        if game.coach and my_turn and v["phase"] == "discard":
            penalties = {
                card.code: points
                for card, points in discard_penalties(parse_cards(v["hand"]), state.rules, hand_size).items()
            }
        for code in presentation.sort_codes(v["hand"], sort, wild):
            face = presentation.card_face(code, wild)
            face["can_discard"] = code in discardable
            face["penalty"] = penalties.get(code)
            hand.append(face)
        if penalties:
            best = min(penalties[f["code"]] for f in hand if f["can_discard"]) if discardable else None
            for f in hand:
                f["best"] = f["can_discard"] and f["penalty"] == best
        go_out_faces = presentation.card_faces(go_out_codes, wild)

    table_melds = []
    for meld in v["table_melds"]:
        table_melds.append(
            {
                "name": names.get(meld["seat"]),
                "kind": meld["kind"],
                "cards": presentation.card_faces(meld["cards"], wild),
            }
        )

    moves = list(Move.objects.filter(game=game).order_by("-seq")[:RECENT_MOVES])
    recent = []
    for move in moves:
        for event in reversed(move.events):
            line = presentation.describe_event(event, names)
            if line:
                recent.append(line)
    recent = recent[:RECENT_MOVES]

    results = v["results"]
    last_result = _result_rows(results[-1], names, with_cards=False) if results else None
    standings = None
    if v["is_over"]:
        standings = final_standings(seats, v["scores"])

    context.update(
        {
            "view": v,
            "players": players,
            "hand": hand,
            "hand_count": len(hand),
            "go_out_faces": go_out_faces,
            "coach_on": game.coach and me is not None,
            "discard_top": presentation.card_face(v["discard_top"], wild) if v["discard_top"] else None,
            "stock_size": v["stock_size"],
            "round": v["round"],
            "round_count": v["round_count"],
            "hand_size": hand_size,
            "wild_label": wild_rank_label(hand_size),
            "jokers": state.rules.jokers_per_deck > 0,
            "phase": v["phase"],
            "is_over": v["is_over"],
            "my_turn": my_turn,
            "current_name": names.get(v["current_seat"]) if v["current_seat"] is not None else None,
            "can_draw_stock": any(a == {"type": "draw", "source": "stock"} for a in legal),
            "can_draw_discard": any(a == {"type": "draw", "source": "discard"} for a in legal),
            "can_discard": any(a["type"] == "discard" for a in legal),
            "blocked_card": (
                presentation.card_face(v["taken_from_discard"], wild)
                if my_turn and v["taken_from_discard"] and any(not f["can_discard"] for f in hand)
                else None
            ),
            "final_lap": v["final_lap"],
            "went_out_name": names.get(v["went_out"]) if v["went_out"] is not None else None,
            "table_melds": table_melds,
            "recent_moves": recent,
            "last_result": last_result,
            "standings": standings,
            "final_result": _result_rows(results[-1], names, with_cards=True) if v["is_over"] and results else None,
        }
    )
    return context


def final_standings(seats: list[Seat], scores: list[int]) -> list[dict[str, Any]]:
    """Places at the end (``ratings.places``: people who left rank below everyone who stayed)."""
    seat_places = dict(
        zip(
            (s.position for s in seats),
            places([scores[s.position] for s in seats], [s.has_left for s in seats]),
            strict=True,
        )
    )
    ordered = sorted(seats, key=lambda seat: (seat_places[seat.position], seat.position))
    return [
        {
            "place": seat_places[seat.position],
            "name": seat.name,
            "score": scores[seat.position],
            "winner": seat_places[seat.position] == 1,
            "left": seat.left,
            "left_label": seat.get_left_display(),
        }
        for seat in ordered
    ]


def turn_clock(*, game: Game, now: Any = None) -> dict[str, Any] | None:
    """The deadline of the turn in play and the time left (None when no clock runs)."""
    if game.status != Game.Status.ACTIVE or game.turn_deadline is None:
        return None
    now = now or timezone.now()
    left = max(0, int((game.turn_deadline - now).total_seconds()))
    return {
        "deadline": game.turn_deadline,
        "seconds_left": left,
        "limit": game.time_limit_seconds,
        "live": not game.is_async,
        "urgent": left <= game.time_limit_seconds * 0.2,
    }


def _result_rows(result: dict[str, Any], names: dict[int, str], *, with_cards: bool) -> dict[str, Any]:
    """A round result for templates; the cards only ``with_cards`` (the summary page, game over)."""
    wild = [RANK_CHARS[r - 1] for r in sorted(wild_ranks(result["hand_size"]))]
    rows = []
    for position, seat in enumerate(result["seats"]):
        row = {
            "name": names.get(position),
            "points": seat["points"],
            "went_out": seat["went_out"],
            "penalty": seat["penalty"],
        }
        if with_cards:
            row["melds"] = [
                {"kind": m["kind"], "cards": presentation.card_faces(m["cards"], wild)} for m in seat["melds"]
            ]
            row["deadwood"] = presentation.card_faces(seat["deadwood"], wild)
            row["laid_off"] = presentation.card_faces(seat["laid_off"], wild)
        rows.append(row)
    went_out = result["went_out"]
    return {
        "round": result["round"],
        "hand_size": result["hand_size"],
        "wild_label": wild_rank_label(result["hand_size"]),
        "went_out_name": names.get(went_out) if went_out is not None else None,
        "stock_exhausted": result["ended"] == "stock_exhausted",
        "rows": rows,
    }


def round_summary(*, game: Game, round_number: int) -> dict[str, Any] | None:
    """Every hand's best arrangement and points in a finished round (public information)."""
    if game.state is None:
        return None
    state = GameState.from_dict(game.state)
    results = view(state, None)["results"]
    if not 1 <= round_number <= len(results):
        return None
    names = {s.position: s.name for s in game.seats.select_related("user")}
    summary = _result_rows(results[round_number - 1], names, with_cards=True)
    summary["rounds_played"] = len(results)
    return summary


def rules_summary(rules: Rules) -> list[tuple[str, str]]:
    """The variant's options in words, for the rules page."""
    d = rules.to_dict()
    yes, no = _("yes"), _("no")
    rounds = d["rounds"]
    rows = [
        (
            _("Rounds"),
            _("%(count)s: %(sizes)s cards") % {"count": len(rounds), "sizes": ", ".join(str(r) for r in rounds)},
        ),
        (_("Decks"), _("one per two players") if d["decks"] == "auto" else str(d["decks"])),
        (_("Jokers per deck"), str(d["jokers_per_deck"])),
        (_("Aces"), _("low only (A-2-3)") if d["aces"] == "low" else _("low or high (A-2-3 or Q-K-A)")),
        (_("Wild rank by round"), ", ".join(f"{size}: {wild_rank_label(size)}" for size in dict.fromkeys(rounds))),
        (
            _("Unmelded Ace"),
            ngettext("%(points)s point", "%(points)s points", d["ace_points"]) % {"points": d["ace_points"]},
        ),
        (_("Unmelded J, Q, K"), _("10 points each") if d["face_points"] == "10" else _("11, 12, 13 points")),
        (_("Unmelded wild card"), _("its own value") if d["wild_points"] == "face" else _("15 points")),
        (
            _("Wild cards per meld"),
            _("any number") if d["max_wilds_per_meld"] is None else str(d["max_wilds_per_meld"]),
        ),
        (_("Melds of wild cards only"), yes if d["all_wild_melds"] else no),
        (_("Points doubled when J, Q or K are wild"), yes if d["double_royal_rounds"] else no),
        (_("Redemption (lay off in the last turn)"), yes if d["redemption"] else no),
        (_("Unmelded jokers free"), yes if d["jokers_free"] else no),
        (
            _("Failed go-out"),
            _("refused")
            if d["bad_go_out_penalty"] is None
            else _("costs %(points)s points") % {"points": d["bad_go_out_penalty"]},
        ),
        (_("Stock rebuilds before the round ends"), str(d["max_stock_rebuilds"])),
    ]
    return rows
