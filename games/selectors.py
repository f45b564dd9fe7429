"""Reads: lobby lists and what one person sees at a table.

The table is built from the engine's ``view(state, seat)`` (or the public
``view(state, None)`` for someone without a seat), the single place that
decides which cards a person may see.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from django.conf import settings
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import JOKER, GameState, Rules, parse_cards, view, wild_rank_chars, wild_rank_label
from games.engine.rules import JOKER_POINTS, MIN_MELD_CARDS

from . import presentation
from .history import leaving
from .history.ratings import places
from .models import Absence, AuditRecord, Game, Move, Seat
from .models.away import time_away_in_year
from .table import TableReading, recent_moves_shown, round_to_summarise, table_context


def games_waiting_on(*, user: Any) -> QuerySet[Game]:
    """Active games where it is this person's turn (not a seat a bot took over), most urgent first."""
    my_turn = Seat.objects.filter(game=OuterRef("pk"), user=user, position=OuterRef("current_seat"), bot_level="")
    return (
        Game.objects.filter(status=Game.Status.ACTIVE)
        .filter(Exists(my_turn))
        .order_by(F("turn_deadline").asc(nulls_last=True), "pk")
    )


def turns_waiting_count(*, user: Any) -> int:
    """How many games wait on this person (the header count on every page): the games of
    ``games_waiting_on``, counted by their seats (a person holds at most one seat of a game), a join
    that costs a third of the ``EXISTS`` to build and run."""
    if user is None or not user.is_authenticated:
        return 0
    return Seat.objects.filter(
        user=user, bot_level="", game__status=Game.Status.ACTIVE, game__current_seat=F("position")
    ).count()


class WaitingGame(NamedTuple):
    """A game waiting on the reader, with its clock as the table shows it (``turn_clock``): stopped
    (``paused_until``) in a game over days while the reader is away."""

    game: Game
    clock: dict[str, Any] | None


def my_games(*, user: Any, now: datetime.datetime | None = None) -> dict[str, list[Any]]:
    """The "my games" page: games waiting on me (most urgent deadline first, then those whose clock my time
    away stops), then the others in play, the open ones, and the recently finished (or aborted)."""
    now = now or timezone.now()
    held = clocks_held(user_ids=[user.pk], now=now).get(user.pk, [])
    away = next((absence for absence in held if absence.is_active(now)), None)
    over = [absence for absence in held if not absence.is_active(now)]
    waiting = [
        WaitingGame(game, turn_clock(game=game, now=now, away=away, settling=over))
        for game in games_waiting_on(user=user).prefetch_related("seats__user")
    ]
    waiting.sort(key=_urgency)
    waiting_ids = [row.game.pk for row in waiting]
    mine = Game.objects.filter(seats__user=user).prefetch_related("seats__user").distinct()
    return {
        "waiting": waiting,
        "playing": list(
            mine.filter(status=Game.Status.ACTIVE)
            .exclude(pk__in=waiting_ids)
            .order_by(F("turn_deadline").asc(nulls_last=True), "pk")
        ),
        # with those where a seat is held for this person, invited by name
        "open": list(
            Game.objects.filter(Q(seats__user=user) | Q(seats__reserved_for=user), status=Game.Status.OPEN)
            .prefetch_related("seats__user", "seats__reserved_for")
            .distinct()
            .order_by("-created_at")
        ),
        # an aborted game too: its players would otherwise find it nowhere but by its address
        "finished": list(
            mine.filter(status__in=[Game.Status.FINISHED, Game.Status.ABORTED]).order_by("-finished_at")[:20]
        ),
    }


LATEST = datetime.datetime.max.replace(tzinfo=datetime.UTC)


def _urgency(row: WaitingGame) -> tuple[bool, bool, datetime.datetime]:
    """The order of the games waiting on the reader: the deadline shown first (the one a pending settlement
    of time away gives, which may pass another game's), then turns without a clock, then the stopped clocks
    (in the order of the query, by their stored deadline: the sort is stable)."""
    clock = row.clock or {}
    paused = "paused_until" in clock
    return paused, not paused and "deadline" not in clock, clock.get("deadline", LATEST)


def games_open_to_join(*, user: Any) -> QuerySet[Game]:
    """Games waiting for players that have an open seat held for nobody (and where ``user`` has no seat,
    taken or held: those are among the person's own games)."""
    open_seat = Seat.objects.filter(game=OuterRef("pk"), user__isnull=True, bot_level="", reserved_for__isnull=True)
    games = Game.objects.filter(status=Game.Status.OPEN, is_private=False).filter(Exists(open_seat))
    if user is not None and user.is_authenticated:
        games = games.exclude(seats__user=user).exclude(seats__reserved_for=user)
    return (
        games.select_related("created_by")
        .prefetch_related("seats__user", "seats__reserved_for")
        .order_by("-created_at")
    )


#: How many open tables the lobby lists, and how many of a person's finished games.
LOBBY_OPEN_GAMES = 30
LOBBY_FINISHED_GAMES = 10
#: How many of a person's games in play or waiting the lobby lists (the most urgent first; "My games" has
#: them all): every open lobby fetches its lists at each change of a listed table, and a person with 50
#: games made each fetch cost 82 ms (a review).
LOBBY_MY_GAMES = 20


def lobby_lists(*, user: Any) -> dict[str, Any]:
    """The lobby's lists of games as ``user`` sees them now, and their ``lobby_stamp``.

    The lobby's page and its live part (``views.lobby_lists``) render these; its socket
    (``LobbyConsumer``) says the stamp of ``lobby_stamp_for`` on connect and at each heartbeat, so a page
    that missed a change while its socket was down sees another stamp and fetches the lists again.
    """
    lists: dict[str, Any] = {
        "open_games": list(games_open_to_join(user=user)[:LOBBY_OPEN_GAMES]),
        "my_games": [],
        "finished_games": [],
    }
    if user is not None and user.is_authenticated:
        mine = list(games_of(user=user)[: LOBBY_MY_GAMES + 1])
        lists["my_games"], lists["more_games"] = mine[:LOBBY_MY_GAMES], len(mine) > LOBBY_MY_GAMES
        lists["finished_games"] = list(games_of(user=user, finished=True, include_aborted=True)[:LOBBY_FINISHED_GAMES])
    shown = (lists["open_games"], lists["my_games"], lists["finished_games"])
    lists["lobby_stamp"] = _lobby_stamp([(game.pk, game.version) for game in games] for games in shown)
    return lists


def lobby_stamp_for(*, user: Any) -> str:
    """``lobby_lists(user=user)["lobby_stamp"]`` with no more read than the games' numbers and versions."""
    querysets = [games_open_to_join(user=user)[:LOBBY_OPEN_GAMES]]
    if user is not None and user.is_authenticated:
        querysets += [
            games_of(user=user)[:LOBBY_MY_GAMES],
            games_of(user=user, finished=True, include_aborted=True)[:LOBBY_FINISHED_GAMES],
        ]
    pairs = [list(qs.prefetch_related(None).values_list("pk", "version")) for qs in querysets]
    return _lobby_stamp(pairs + [[] for _missing in range(3 - len(pairs))])


def _lobby_stamp(lists: Iterable[Iterable[tuple[int, int]]]) -> str:
    """A short fingerprint of the lobby's lists: which games, in which order, at which version (any seat
    taken or left, any move, bumps a game's version).  It names no game."""
    text = "|".join(";".join(f"{pk}.{version}" for pk, version in pairs) for pairs in lists)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def games_of(*, user: Any, finished: bool = False, include_aborted: bool = False) -> QuerySet[Game]:
    """A person's games: open and active ones with those waiting on them first, or the finished ones
    (``include_aborted``: and those a moderator or the last player leaving called off).  Open games where
    a seat is held for the person (invited by name) are among them, marked ``invited``."""
    my_turn = Seat.objects.filter(game=OuterRef("pk"), user=user, position=OuterRef("current_seat"), bot_level="")
    held = Seat.objects.filter(game=OuterRef("pk"), reserved_for=user, user__isnull=True, bot_level="")
    statuses = [Game.Status.FINISHED] if finished else [Game.Status.OPEN, Game.Status.ACTIVE]
    if finished and include_aborted:
        statuses.append(Game.Status.ABORTED)
    mine = Q(seats__user=user)
    if not finished:
        mine |= Q(seats__reserved_for=user, status=Game.Status.OPEN)
    games = (
        Game.objects.filter(mine, status__in=statuses)
        .annotate(my_turn=Exists(my_turn), invited=Exists(held))
        .prefetch_related("seats__user", "seats__reserved_for")
    )
    if finished:
        return games.order_by("-finished_at")
    return games.order_by("-my_turn", "-updated_at")


def seat_of(*, game: Game, user: Any) -> Seat | None:
    if user is None or not user.is_authenticated:
        return None
    return next((s for s in game.seats.all() if s.user_id == user.pk), None)


#: The session key holding the games whose invite link this browser opened (a list of game ids).
INVITES_SESSION_KEY = "invited_games"
#: At most this many are remembered (the oldest are forgotten first): a session cannot grow without end.
INVITES_REMEMBERED = 200


def remember_invite(session: Any, game_id: int) -> None:
    """This browser opened the game's invite link (with the right token): remember it in its session.

    The session holds only game ids, never a token; it lives as long as the
    session does (a log-out forgets it, a log-in keeps it).  Invite tokens
    never change, so holding the link once is holding it.
    """
    held = [i for i in invited_game_ids(session) if i != int(game_id)]
    session[INVITES_SESSION_KEY] = [*held, int(game_id)][-INVITES_REMEMBERED:]


def invited_game_ids(session: Any) -> list[int]:
    """The games whose invite link this session opened (an empty list for a session without any)."""
    stored = session.get(INVITES_SESSION_KEY) if session is not None else None
    if not isinstance(stored, list):
        return []
    return [i for i in stored if isinstance(i, int) and not isinstance(i, bool)]


def holds_invite(session: Any, game_id: int) -> bool:
    """Did this session open the game's invite link?  (What the views and the socket pass as ``invited``.)"""
    return int(game_id) in invited_game_ids(session)


def may_watch(*, game: Game, user: Any, invited: bool = False) -> bool:
    """May ``user`` see this game's table, its rounds, rules, record and replay, and hear its live updates?

    The one rule every page about a game and its WebSocket consumer ask:

    - nobody signed out; the game's players always (a seat that a bot took
      over still counts: the person played there);
    - a private game: nobody else, unless they hold its invite link
      (``invited``: the caller reads it from the session, :func:`holds_invite`);
    - then, while the game looks for players, anyone if a seat is free for anyone (to take it), and
      otherwise only if the game allows spectators (they get the public view).

    Game numbers are sequential, so guessing ``/games/N/`` must not open a
    private game.  A socket asks again on every version it hears, so a
    watcher is dropped as soon as the game closes to them (e.g. a players-only
    game that starts).
    """
    if user is None or not user.is_authenticated:
        return False
    if _open_to_others(game.is_private, game.spectators_allowed or (game.is_open and game.is_private), invited):
        return True  # (no query: a game others may watch, or a private one looking for players, to its link)
    theirs = Q(user=user) | Q(reserved_for=user)  # a seat held for them: to take it
    if game.is_open and not game.is_private:
        theirs |= Q(user__isnull=True, bot_level="", reserved_for__isnull=True)  # ``_watchable``'s free seat
    return game.seats.filter(theirs).exists()


def _watchable(game: Game, seats: Iterable[Seat]) -> bool:
    """Whether someone without a seat may look at the game (of a private one: who holds its invite link): it
    lets spectators watch, or it looks for players and is private (its creator sent the link) or has a seat
    anyone may take.  A public players-only table whose free seats are all held for the people named (a
    rematch, or "Invite players") has none: a stranger who typed its number read its players' chat there
    (a tester)."""
    return game.spectators_allowed or (
        game.is_open and (game.is_private or any(seat.is_open_to(None) for seat in seats))
    )


def _open_to_others(private: bool, watchable: bool, invited: bool) -> bool:
    """``may_watch`` for someone without a seat: not a private game (or they hold its link), and open or watchable."""
    return (not private or invited) and watchable


def watch_facts(game: Game, seats: Iterable[Seat]) -> dict[str, Any]:
    """What ``may_watch`` reads of a game, as plain data: its live messages carry it (``may_watch_given``).

    ``seats``: the game's seats as they are now.  A socket that hears a
    version with these facts decides whether its person may still watch
    without a database read of its own: with hundreds of pages open, one
    read per page per move was what kept a move from reaching them quickly.
    """
    seats = list(seats)
    return {
        "private": bool(game.is_private),
        "watchable": _watchable(game, seats),
        # with those a seat is held for (invited by name, who may look at the table to take it)
        "players": sorted({pk for seat in seats for pk in (seat.user_id, seat.reserved_for_id) if pk is not None}),
    }


def may_watch_given(facts: Mapping[str, Any], *, user: Any, invited: bool = False) -> bool:
    """``may_watch`` decided from ``watch_facts`` instead of the database (missing facts refuse)."""
    if user is None or not user.is_authenticated:
        return False
    private, watchable = facts.get("private", True) is not False, facts.get("watchable") is True
    players = facts.get("players")
    return _open_to_others(private, watchable, invited) or (isinstance(players, list) and user.pk in players)


def watch_refusal(game: Game) -> str:
    """Why a stranger may not look at this game (the 403 page's message)."""
    if game.is_private:
        return _("This game is private: only its players and the people its invite link was sent to may look at it.")
    return _("Only the players of this game may look at it: its creator kept it to the table.")


def game_table(*, game: Game, user: Any, sort: str = "suit", hand_view: str = "own") -> dict[str, Any]:
    """Everything the table template shows to ``user`` (seated or not): read here, presented by ``table``.

    ``hand_view`` is how the player sees their own hand (``table.HAND_VIEWS``).
    """
    seats = list(game.seats.select_related("user", "reserved_for").order_by("position"))
    me = next((s for s in seats if user is not None and user.is_authenticated and s.user_id == user.pk), None)
    now = timezone.now()
    away, over = _clocks_held_at_table(game=game, seats=seats, now=now)
    mover_away = away.get(game.current_seat) if game.current_seat is not None else None
    mover_over = over.get(game.current_seat, []) if game.current_seat is not None else []
    rematch = (
        # (a rematch called off before its deal gives way to a new one: ``services.game_rematch``)
        Game.objects.filter(rematch_of=game).exclude(status=Game.Status.ABORTED, state__isnull=True).first()
        if game.is_finished
        else None
    )
    # A rematch the reader may not open (a players-only game started without them) is not offered: it was a 403.
    rematch_without_me = rematch is not None and me is not None and not may_watch(game=rematch, user=user)
    reading = TableReading(
        game=game,
        seats=seats,
        me=me,
        rules=Rules.from_dict(game.rules),
        sort=sort,
        hand_view=hand_view,
        clock=turn_clock(game=game, now=now, away=mover_away, settling=mover_over),
        away=away,
        rematch_game=None if rematch_without_me else rematch,
        rematch_without_me=rematch_without_me,
        rematch_waits=rematch is not None and rematch.status == Game.Status.OPEN,
        rematch_seat_held=(
            rematch is not None
            and me is not None
            and rematch.status == Game.Status.OPEN
            and rematch.seats.filter(reserved_for=user, user__isnull=True).exists()
        ),
        abort_record=(
            AuditRecord.objects.filter(game=game, action=AuditRecord.Action.GAME_ABORT).first()
            if game.is_aborted
            else None
        ),
        # A seat a moderator handed to a bot (a bot plays it, and its person neither resigned nor timed out)
        handover_record=(
            AuditRecord.objects.filter(game=game, seat_position=me.position, action=AuditRecord.Action.SEAT_TO_BOT)
            .order_by("-created_at")
            .first()
            if me is not None and me.handed_over
            else None
        ),
    )
    if game.state is None:
        # The person invited by name, who has still to take the seat held for them.
        held = me is None and any(seat.reserved_for_id == getattr(user, "pk", None) for seat in seats if seat.is_open)
        return {**table_context(reading), "seated_ids": _people_of(seats), "seat_held_for_me": held}
    # A person a bot has replaced (resigned, timed out, handed over) sees the table as a watcher does: the
    # cards are the bot's now, another player's, and the person may be talking to someone still playing.
    v = view(GameState.from_dict(game.state), me.position if me is not None and me.person_plays else None)
    moves = list(
        Move.objects.filter(game=game)
        .order_by("-seq")
        .values_list("seq", "seat", "by_bot", "events")[: recent_moves_shown(game.seat_count)]
    )[::-1]
    people = _people_at(seats)
    summarised = round_to_summarise(rounds_ended=len(v.results), game_over=v.is_over, me=me)
    reading = replace(
        reading,
        view=v,
        recent_events=_keyed_recent_events(moves, people),
        standings=final_standings(seats, list(v.scores)) if v.is_over else None,
        round_end_events=round_end_events(game=game, round_number=summarised, seats=seats) if summarised else None,
    )
    return {**table_context(reading), "seated_ids": _people_of(seats)}


def _people_of(seats: Sequence[Seat]) -> set[int]:
    """The people who hold (or held) a seat of the table: the chat marks their lines as a player's."""
    return {seat.user_id for seat in seats if seat.user_id is not None}


def round_end_events(*, game: Game, round_number: int, seats: Iterable[Seat]) -> list[dict[str, Any]]:
    """The public events of a finished round's last moves, oldest first: enough to reach back to its
    first go-out (the last lap after it is at most two moves a seat), for the story of its end, marked as
    :func:`_marked_events` marks them."""
    last = (
        Move.objects.filter(game=game, round_number=round_number)
        .order_by("-seq")
        .values_list("seat", "by_bot", "events")[: 2 * game.seat_count + 2]
    )
    return _marked_events(reversed(list(last)), _people_at(seats))


def _people_at(seats: Iterable[Seat]) -> set[int]:
    """The positions a person holds (a bot may play some of them for that person)."""
    return {seat.position for seat in seats if seat.user_id is not None}


def _keyed_recent_events(
    moves: list[tuple[int, int, bool, list[dict[str, Any]]]], people: set[int]
) -> list[dict[str, Any]]:
    """The recent moves' events, newest first, each with a ``key`` ("seq.n": the move and its place in it)
    by which a page tells the lines new since the table it showed (its script says them out)."""
    events = _marked_events(((seat, by_bot, evs) for _seq, seat, by_bot, evs in moves), people)
    keys = [f"{seq}.{n}" for seq, _seat, _by_bot, evs in moves for n in range(len(evs))]
    return [{**event, "key": key} for event, key in zip(events, keys, strict=True)][::-1]


def _marked_events(moves: Iterable[tuple[int, bool, list[dict[str, Any]]]], people: set[int]) -> list[dict[str, Any]]:
    """The public events of ``moves`` (seat, played by a bot, events), in their order: an event of a move the bot
    played for a person (their time ran out, or the seat was handed to it) says so (``bot_for_person``), for
    the recent moves and the round's story, which must not tell it as the person's choice."""
    return [
        {**event, "bot_for_person": True} if by_bot and seat in people and event.get("seat") == seat else event
        for seat, by_bot, events in moves
        for event in events
    ]


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


def clocks_held(*, user_ids: Iterable[int], now: datetime.datetime) -> dict[int, list[Absence]]:
    """The time away of these people that holds their clocks (going on, or over and not yet settled by the
    clock worker), by user id, oldest first."""
    held: dict[int, list[Absence]] = {}
    for absence in Absence.objects.filter(user_id__in=list(user_ids)).holding_clock(now).order_by("starts_at"):
        held.setdefault(absence.user_id, []).append(absence)
    return held


def away_by_user(*, user_ids: Iterable[int], now: datetime.datetime) -> dict[int, Absence]:
    """The time away going on now of these people, by user id."""
    return {a.user_id: a for a in Absence.objects.filter(user_id__in=list(user_ids)).active(now)}


def away_at_table(*, game: Game, seats: Sequence[Seat], now: datetime.datetime) -> dict[int, Absence]:
    """Who is away at this table, by seat position: people playing a seat of a game over days in play
    (time away does not touch live games, so it is not shown there)."""
    return _clocks_held_at_table(game=game, seats=seats, now=now)[0]


def _clocks_held_at_table(
    *, game: Game, seats: Sequence[Seat], now: datetime.datetime
) -> tuple[dict[int, Absence], dict[int, list[Absence]]]:
    """``away_at_table``, and the time away that is over but not yet settled, by seat position (one query)."""
    if not game.in_play or not game.is_async:
        return {}, {}
    held = clocks_held(user_ids=[s.user_id for s in seats if s.person_plays and s.user_id], now=now)
    away: dict[int, Absence] = {}
    over: dict[int, list[Absence]] = {}
    for seat in seats:
        for absence in held.get(seat.user_id, []) if seat.person_plays and seat.user_id else []:
            if absence.is_active(now):
                away[seat.position] = absence
            else:
                over.setdefault(seat.position, []).append(absence)
    return away, over


def away_summary(*, user: Any, now: datetime.datetime | None = None) -> dict[str, Any]:
    """The profile's time-away panel: the allowance, what is left of it this year (UTC), and the time away
    going on or planned."""
    now = now or timezone.now()
    mine = list(Absence.objects.filter(user=user))
    allowance = datetime.timedelta(days=settings.AWAY_DAYS_PER_YEAR)
    left = max(datetime.timedelta(0), allowance - time_away_in_year(mine, now.year, getattr(user, "zone", None)))
    not_over = [a for a in mine if a.returned_at is None and a.ends_at > now]
    pending = min(not_over, key=lambda a: a.starts_at, default=None)
    return {
        "allowance_days": settings.AWAY_DAYS_PER_YEAR,
        "year": now.year,
        "left": left,
        "left_days": left.days,
        "current": pending if pending is not None and pending.starts_at <= now else None,
        "planned": pending if pending is not None and pending.starts_at > now else None,
    }


#: Seconds after a turn's deadline without the clock playing it after which the table says the clock is late
#: (it passes every 2 s: several passes missed, as ``heartbeat.STALE_AFTER`` counts it stopped). Before, the
#: table said "the bot plays this turn" for as long as a stopped clock worker stayed down.
CLOCK_LATE_AFTER = 30


def turn_clock(
    *, game: Game, now: Any = None, away: Absence | None = None, settling: Sequence[Absence] = ()
) -> dict[str, Any] | None:
    """The deadline of the turn in play and the time left (None when no clock runs).

    ``away``: the time away going on of the player to move; their clock is then stopped, and
    ``paused_until`` and ``left_after`` (seconds they will have when it ends) replace the countdown.
    ``settling``: their time away that is over and that the clock worker has not settled yet (oldest
    first): the deadline shown is the one its settlement gives (``services.away``), not the stored one
    that may have gone by meanwhile (the clock does not play the turn before it settles it).
    """
    if game.status != Game.Status.ACTIVE or game.turn_deadline is None:
        return None
    now = now or timezone.now()
    deadline, started = game.turn_deadline, game.turn_started_at
    if game.is_async and started is not None:
        for absence in settling:
            paused = absence.pause_of(started)
            deadline, started = deadline + paused, started + paused
    if away is not None and game.is_async:
        began = max(started or away.starts_at, away.starts_at)
        left_after = int((deadline - began).total_seconds())
        return {
            "paused_until": away.until,
            "left_after": min(max(0, left_after), game.time_limit_seconds),
            "limit": game.time_limit_seconds,
            "live": False,
        }
    left = max(0, int((deadline - now).total_seconds()))
    return {
        "deadline": deadline,
        "seconds_left": left,
        # Seconds until a turn whose time is up and still unplayed shows the clock as late (negative: it is).
        "late_in": int((deadline - now).total_seconds()) + CLOCK_LATE_AFTER,
        "limit": game.time_limit_seconds,
        "live": not game.is_async,
        "urgent": left <= game.time_limit_seconds * 0.2,
    }


def round_summary(*, game: Game, round_number: int) -> dict[str, Any] | None:
    """Every hand's best arrangement and points in a finished round (public information)."""
    if game.state is None:
        return None
    results = view(GameState.from_dict(game.state), None).results
    if not 1 <= round_number <= len(results):
        return None
    seats = list(game.seats.select_related("user"))
    names = {s.position: s.name for s in seats}
    summary = presentation.round_result(
        results[round_number - 1],
        names,
        with_cards=True,
        totals=presentation.running_totals(results, round_number),
        events=round_end_events(game=game, round_number=round_number, seats=seats),
        left=leaving.left_in_round(seats, leaving.bot_rounds_from(game=game, seats=seats), round_number),
        rules=Rules.from_dict(game.rules),
    )
    summary["rounds_played"] = len(results)
    return summary


def rules_summary(rules: Rules) -> list[tuple[str, str]]:
    """The variant's options in words, for the rules page."""
    return [(label, value) for _options, label, value in _rule_rows(rules)]


def changed_rules_summary(rules: Rules, *, leave_out: Iterable[str] = ()) -> list[tuple[str, str]]:
    """The rows of ``rules_summary`` for the options that differ from the classic game, but ``leave_out``.

    For the admin's short lists of a variant's or a game's options: in the reader's words, as the rules
    page says them, not the engine's keys ("wild_points=15"), which read as code in every language.
    """
    changed = set(rules.changed_options()) - set(leave_out)
    return [(label, value) for options, label, value in _rule_rows(rules) if changed & set(options)]


def _rule_rows(rules: Rules) -> list[tuple[tuple[str, ...], str, str]]:
    """Each row of the rules' summary with the options (``Rules`` fields) it depends on."""
    d = rules.to_dict()
    yes, no = _("yes"), _("no")
    rounds = d["rounds"]
    rows: list[tuple[tuple[str, ...], str, str]] = [
        (
            ("rounds",),
            _("Rounds"),
            ngettext("%(count)s round (hand sizes %(sizes)s)", "%(count)s rounds (hand sizes %(sizes)s)", len(rounds))
            % {"count": len(rounds), "sizes": ", ".join(str(r) for r in rounds)},
        ),
        (("decks",), _("Decks"), _("one per two players") if d["decks"] == "auto" else str(d["decks"])),
        (("jokers_per_deck",), _("Jokers per deck"), str(d["jokers_per_deck"])),
        (("aces",), _("Aces"), _("low only (A-2-3)") if d["aces"] == "low" else _("low or high (A-2-3 or Q-K-A)")),
        (
            ("rounds",),
            _("Wild rank by round"),
            ", ".join(f"{size}: {wild_rank_label(size)}" for size in dict.fromkeys(rounds)),
        ),
        (
            ("ace_points",),
            _("Unmelded Ace"),
            ngettext("%(points)s point", "%(points)s points", d["ace_points"]) % {"points": d["ace_points"]},
        ),
        (
            ("face_points",),
            _("Unmelded J, Q, K"),
            _("10 points each") if d["face_points"] == "10" else _("11, 12, 13 points"),
        ),
        (
            ("wild_points",),
            _("Unmelded wild card"),
            _("its own value") if d["wild_points"] == "face" else _("15 points"),
        ),
        (
            ("max_wilds_per_meld",),
            _("Wild cards per meld"),
            _("any number") if d["max_wilds_per_meld"] is None else str(d["max_wilds_per_meld"]),
        ),
        (("all_wild_melds",), _("Melds of wild cards only"), _all_wild_melds_words(rules, yes, no)),
        (
            ("double_royal_rounds",),
            _("Points doubled when J, Q or K are wild"),
            yes if d["double_royal_rounds"] else no,
        ),
        (("redemption",), _("Redemption (lay off in the last turn)"), yes if d["redemption"] else no),
        (("jokers_free",), _("Unmelded jokers free"), yes if d["jokers_free"] else no),
        (
            ("bad_go_out_penalty",),
            _("Failed go-out"),
            _("refused")
            if d["bad_go_out_penalty"] is None
            else ngettext("costs %(points)s point", "costs %(points)s points", d["bad_go_out_penalty"])
            % {"points": d["bad_go_out_penalty"]},
        ),
        (("max_stock_rebuilds",), _("Stock rebuilds before the round ends"), str(d["max_stock_rebuilds"])),
    ]
    return rows


def _all_wild_melds_words(rules: Rules, yes: str, no: str) -> str:
    """``all_wild_melds`` in words: "no" also when ``max_wilds_per_meld`` (which wins, RULES.md) is below 3,
    the fewest cards a meld has, so that no meld can be made of wild cards only (and the rules text says so)."""
    if not rules.all_wild_melds:
        return no
    if rules.max_wilds_per_meld is not None and rules.max_wilds_per_meld < MIN_MELD_CARDS:
        return _("no: the limit of wild cards per meld wins")
    return yes


def _first_fitting(candidates: list[list[str]], wild: set[str]) -> list[str] | None:
    """The first list of card codes none of whose ranks is wild (a natural example), if any."""
    return next((codes for codes in candidates if not any(code[0] in wild for code in codes)), None)


def rules_text(rules: Rules, *, seat_count: int | None = None) -> dict[str, Any]:
    """What the rules page needs to write its sentences for this variant (and, for a game, its table).

    The template picks each sentence from these facts; the example melds are laid out for the variant's
    first round (its wild rank) and are valid melds under its options.
    """
    rounds = list(rules.rounds)
    climb = len(rounds) > 1 and rounds == list(range(rounds[0], rounds[-1] + 1))
    peak = rounds.index(max(rounds))
    up, down = rounds[: peak + 1], rounds[peak + 1 :]
    up_and_down = (
        bool(down)
        and up == list(range(up[0], up[-1] + 1))
        and down[0] in (up[-1], up[-1] - 1)
        and down == list(range(down[0], down[-1] - 1, -1))
    )
    size = rounds[0]
    wild_chars = wild_rank_chars(size)
    wild = set(wild_chars)
    wild_card = f"{wild_chars[0]}H"
    examples: list[dict[str, Any]] = []

    def example(kind: str, codes: list[str] | None) -> None:
        if codes is not None:
            examples.append({"kind": kind, "cards": presentation.card_faces(codes, wild_chars)})

    example("set", _first_fitting([["7C", "7D", "7S"], ["9C", "9D", "9S"]], wild))
    example("run", _first_fitting([["AH", "2H", "3H"], ["4H", "5H", "6H"], ["8H", "9H", "TH"]], wild))
    pair = _first_fitting([["9C", "9S"], ["4C", "4S"]], wild)
    example("set_wild", pair and [*pair, wild_card])
    gap = _first_fitting([["8S", "9S", "TS"], ["4S", "5S", "6S"]], wild)
    example("run_wild", gap and [gap[0], wild_card, gap[2]])
    if rules.aces_high:
        example("run_high", _first_fitting([["QD", "KD", "AD"]], wild))
    if rules.jokers_per_deck:
        ends = _first_fitting([["JD", "QD", "KD"], ["5D", "6D", "7D"]], wild)
        example("run_joker", ends and [ends[0], JOKER.code, ends[2]])
    # What three natural cards, a wild one and a joker left out of melds cost, in the first round that deals
    # that many cards (the first round may deal fewer than the example shows); in the biggest round, cut down.
    shown = 5 if rules.jokers_per_deck else 4
    score_size = next((r for r in rounds if r >= shown), max(rounds))
    score_wild = wild_rank_chars(score_size)
    naturals = _first_fitting([["KS", "QD", "AC"], ["7S", "4D", "9C"]], set(score_wild)) or []
    extras = [f"{score_wild[0]}H"] + ([JOKER.code] if rules.jokers_per_deck else [])
    leftover = (naturals + extras)[-score_size:]
    score_multiplier = rules.round_multiplier(score_size)
    score_points = sum(rules.card_points(card, score_size) for card in parse_cards(leftover)) * score_multiplier
    decks = None if rules.decks == "auto" else int(rules.decks)
    table_decks = rules.deck_count(seat_count) if seat_count else None
    doubled = [r for r in dict.fromkeys(rounds) if rules.round_multiplier(r) == 2]
    max_wilds = rules.max_wilds_per_meld
    return {
        "round_count": len(rounds),
        "rounds_shape": "up_and_down" if up_and_down else "climb" if climb else "list",
        "first_size": rounds[0],
        "last_size": rounds[-1],
        "peak_size": max(rounds),
        "sizes": ", ".join(str(r) for r in rounds),
        "has_ace_two_rounds": any(r >= 14 for r in rounds),
        "decks": decks,
        "seat_count": seat_count,
        "table_decks": table_decks,
        "several_decks": (table_decks or decks or 2) > 1,
        "jokers": rules.jokers_per_deck,
        "aces_high": rules.aces_high,
        "max_wilds": max_wilds,
        "all_wild_melds": rules.all_wild_melds and (max_wilds is None or max_wilds >= MIN_MELD_CARDS),
        "example_size": size,
        "example_wild": wild_rank_label(size),
        "examples": examples,
        "ace_points": rules.ace_points,
        "royal_points": rules.face_points == "11-12-13",
        "wild_points": None if rules.wild_points == "face" else rules.wild_points,
        "joker_points": JOKER_POINTS,
        "jokers_free": rules.jokers_free,
        "doubled_rounds": ", ".join(str(r) for r in doubled),
        "redemption": rules.redemption,
        "bad_go_out_penalty": rules.bad_go_out_penalty,
        "max_stock_rebuilds": rules.max_stock_rebuilds,
        "score_example": {
            "size": score_size,
            "cards": presentation.card_faces(leftover, score_wild),
            "points": score_points,
            "doubled": score_multiplier == 2,
        },
    }
