"""Creating, filling and playing a game: what its players do.

Keyword-only, typed functions named ``game_<action>``.  Each runs in one
transaction that locks the game row (``select_for_update``), checks what it
must, and raises :class:`GameError` without changing anything when the
request cannot be honoured.

Every change bumps ``Game.version`` by one per stored change (each move, a
bot's included, and each join, leave or start), so a client that posts the
version it saw is refused when anything happened in between.

``round_summary_dismiss`` is the exception: it changes only the player's own
seat (which round summary they moved on from), locks that row, and leaves the
game and its version alone.
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from games import bots
from games.engine import Action, Discard, Draw, GoOut, IllegalAction, Rules, RulesError, action_from_dict
from games.models import BotLevel, Game, RoundResult, Seat, Variant

from . import away, fairness, outage
from .errors import GameError
from .rule_errors import describe_rules_error
from .turns import (
    TAKEOVER_BOT_LEVEL,
    Recorder,
    announce,
    announce_lobby,
    deal,
    describe_illegal,
    engine_state,
    hand_seat_to_bot,
    let_go_of_a_called_off_table,
    lock_game,
    locked_game,
    play_bots,
    seat_of,
)

#: Open tables that may hold a seat for one person at once (invited by name): past it, nobody can name them
#: in another until they take or decline some (a review invited bob to 300 tables he could not leave).
MAX_INVITATIONS_WAITING = 10
#: ... of which one creator may hold this many (else one account could fill a person's ten, and again
#: after each decline, and nobody else could invite them: a second review).
MAX_INVITATIONS_FROM_ONE = 2
#: Tables one person may have made and sit at, waiting for players, at once: a tester's account made 32 in
#: a second, and the lobby (the newest 30) listed nobody else's.
MAX_OPEN_TABLES = 3

#: Every time limit a game may have, in seconds.
TIME_LIMITS = tuple(seconds for seconds, _label in (*Game.LIVE_TIME_LIMITS, *Game.ASYNC_TIME_LIMITS))


# -- creating and filling a game ----------------------------------------------


@transaction.atomic
def game_create(
    *,
    creator: Any,
    variant: Variant,
    seat_count: int,
    bot_count: int = 0,
    bot_level: str = BotLevel.MEDIUM,
    bot_levels: Sequence[str] | None = None,
    invitees: Iterable[Any] = (),
    invited: Iterable[Any] = (),
    time_limit_seconds: int = 24 * 3600,
    coach: bool = False,
    is_private: bool = False,
    spectators_allowed: bool = True,
    chat_enabled: bool = True,
    options: Mapping[str, Any] | None = None,
    round_count: int | None = None,
    seed_contribution: str | None = None,
    seed: int | None = None,
) -> Game:
    """Create a game: the creator in seat 0, then invitees, seats held for the invited, bots, and open seats.

    ``invited``: people asked by name (the lobby's form): a seat is held for each, which only they may
    take (``game_join``), so nobody is put into a game, its clock and its rating, without taking the seat
    themselves.  ``invitees`` are seated at once (tests and benches only).

    ``options`` override the variant's rule options (e.g. ``{"rounds": [3, 4]}``);
    ``round_count`` plays only the first rounds of the variant.  Bots are
    ``bot_count`` of ``bot_level``, or one per level of ``bot_levels`` (a mix,
    in seat order; it replaces the other two); ``chat_enabled`` False makes a
    game without table talk.  A game whose
    seats are all taken starts (deals) at once.  The game shuffles provably
    fairly (``fairness``): ``seed_contribution`` is the creator's text (a
    random one when empty).  A whole-number ``seed`` makes a version-1 game
    instead (tests and benches only).
    """
    if creator is None or not creator.is_authenticated:
        raise GameError("not_logged_in", _("Log in to create a game."))
    typed = fairness.clean_contribution(seed_contribution)
    invitees = [u for u in dict.fromkeys(invitees) if u.pk != creator.pk]
    invited = [u for u in dict.fromkeys(invited) if u.pk != creator.pk and u not in invitees]
    invited = check_invitations_waiting(creator, invited)  # (the creator's row locked: see _check_open_tables)
    levels = [bot_level] * max(bot_count, 0) if bot_levels is None else [str(level) for level in bot_levels]
    if bot_levels is not None:
        bot_count = len(levels)
    if 1 + len(invitees) + bot_count < seat_count:  # it will wait for someone
        _check_open_tables(creator)
    for level in levels or [bot_level]:
        if level not in BotLevel.values:
            raise GameError("bad_bot_level", _("Unknown bot level “%(level)s”.") % {"level": level})
    if time_limit_seconds not in TIME_LIMITS:
        raise GameError("bad_time_limit", _("Choose one of the offered time limits per move."))
    try:
        rules = Rules.from_dict({**variant.options, **(options or {})})
        if round_count:
            rules = Rules.from_dict({**rules.to_dict(), "rounds": list(rules.rounds)[:round_count]})
        rules.check_seats(seat_count)
    except RulesError as error:
        raise GameError("bad_rules", describe_rules_error(error)) from None
    if bot_count < 0 or 1 + len(invitees) + len(invited) + bot_count > seat_count:
        raise GameError(
            "too_many_players",
            _("%(seats)s seats cannot hold you, %(bots)s bot(s) and %(invited)s invited player(s).")
            % {"seats": seat_count, "bots": bot_count, "invited": len(invitees) + len(invited)},
        )
    now = timezone.now()
    game = Game.objects.create(
        variant=variant,
        variant_name=variant.name,
        rules=rules.to_dict(),
        **fairness.new_game_shuffle_fields(seed),
        seat_count=seat_count,
        created_by=creator,
        time_limit_seconds=time_limit_seconds,
        coach=coach,
        version=1,
        is_private=is_private,
        invite_token=secrets.token_urlsafe(16),
        spectators_allowed=spectators_allowed,
        chat_enabled=chat_enabled,
    )
    people = [creator, *invitees]
    seats = []
    # The site makes up the contributions of the seats it fills now (invitees were not asked, bots
    # cannot type), so that they are on the table before anyone who joins later types theirs.
    for position in range(seat_count):
        if position == 0:
            contribution = fairness.typed_or_site_contribution(typed, source=Seat.Contribution.CREATOR, at=now)
            seats.append(Seat(game=game, position=0, user=creator, joined_at=now, **contribution))
        elif position < len(people):
            seats.append(
                Seat(
                    game=game,
                    position=position,
                    user=people[position],
                    joined_at=now,
                    **fairness.site_contribution(now),
                )
            )
        elif position < len(people) + len(invited):  # held for them, beside the creator as if seated
            seats.append(
                Seat(game=game, position=position, reserved_for=invited[position - len(people)], reserved_by=creator)
            )
        elif position < len(people) + len(invited) + bot_count:
            bot = position - len(people) - len(invited)
            seats.append(
                Seat(
                    game=game,
                    position=position,
                    bot_level=levels[bot],
                    bot_name=bots.BOT_NAMES[bot % len(bots.BOT_NAMES)],
                    joined_at=now,
                    **fairness.site_contribution(now),
                )
            )
        else:
            seats.append(Seat(game=game, position=position))
    Seat.objects.bulk_create(seats)
    if len(people) + bot_count == seat_count:
        deal(game)
    else:
        announce_lobby(game)  # a new open table, or an invitation
    return game


def _check_open_tables(creator: Any) -> None:
    """Refuse a table that would wait for players when ``creator`` already waits at ``MAX_OPEN_TABLES`` they
    made.  Counted under the creator's row lock (``check_invitations_waiting`` took it), so two tables made
    at once count each other."""
    waiting = Seat.objects.filter(user=creator, game__status=Game.Status.OPEN, game__created_by=creator)
    if waiting.count() >= MAX_OPEN_TABLES:
        raise GameError(
            "too_many_open_tables",
            ngettext(
                "You have %(count)s table waiting for players: start it or leave it before you make another.",
                "You have %(count)s tables waiting for players: start or leave one before you make another.",
                MAX_OPEN_TABLES,
            )
            % {"count": MAX_OPEN_TABLES},
        )


def lock_people(user_ids: Iterable[int]) -> dict[int, User]:
    """The people's rows by id, locked FOR NO KEY UPDATE in one order, before any game's row: every path that
    seats or asks people takes them so, as a deactivation does (the person's row, then each of their games),
    so that one of two such paths waits for the other instead of each holding what the other needs."""
    rows = User.objects.select_for_update(no_key=True).filter(pk__in=set(user_ids)).order_by("pk")
    return {row.pk: row for row in rows}


def _refuse_unless_active(rows: Mapping[int, User], user: Any) -> None:
    if user.pk not in rows or not rows[user.pk].is_active:
        raise GameError("not_logged_in", _("Log in to play."))  # deactivated a moment ago


def seat_person(user: Any) -> None:
    """Lock the person's row (``lock_people``) before anything that seats them takes a game's lock, and
    refuse an account deactivated by then. Without it, a seat taken at a public table as the account was
    deactivated committed after the deactivation had listed the person's seats, and the inactive account
    kept it. Now one of the two waits for the other: the seat is refused, or seen (and let go) by the
    deactivation."""
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in to play."))
    _refuse_unless_active(lock_people([user.pk]), user)


def check_invitations_waiting(creator: Any, invited: Sequence[Any], *, rematch: bool = False) -> list[Any]:
    """The people of ``invited`` a seat may be held for: refuse one who has ``MAX_INVITATIONS_WAITING`` held
    at open tables, or ``MAX_INVITATIONS_FROM_ONE`` of them held by ``creator`` (``Seat.reserved_by``: a table
    made, or a rematch asked for, whoever its creator is now); leave out an account deactivated by now (no
    seat is held for it: it opens to anyone, as a deactivation lets go of one held).

    A ``rematch`` asks the people of a game just played, not strangers: only ``creator``'s own limit applies.
    With the total too, a few accounts that kept a person at it (two tables each) refused every rematch
    anyone else asked for with them (a tester).

    Counted and read under the rows of the people named, locked in one order with the creator's
    (``lock_people``: the table seats them): two tables made at once count each other, and a
    deactivation running meanwhile has either ended (its account is left out here, or, the creator's, is
    refused) or waits for this table, and then sees it. Whether each is active is read here, after the lock:
    read before it, a rematch held a seat for an account deactivated as it was made (a review).
    """
    rows = lock_people([creator.pk, *(person.pk for person in invited)])
    _refuse_unless_active(rows, creator)
    active = [person for person in invited if person.pk in rows and rows[person.pk].is_active]
    for person in active:
        waiting = Seat.objects.filter(reserved_for=person, user__isnull=True, game__status=Game.Status.OPEN)
        if (not rematch and waiting.count() >= MAX_INVITATIONS_WAITING) or (
            waiting.filter(reserved_by=creator).count() >= MAX_INVITATIONS_FROM_ONE
        ):
            # (without the number: it would tell of private tables too)
            raise GameError(
                "too_many_invitations",
                _("%(name)s cannot be invited to more tables now: they have invitations waiting.")
                % {"name": person.shown_name},
            )
    return active


#: "Play now": how many bots sit down with the person (the create form's default too).
PLAY_NOW_BOTS = 2
#: The variant "Play now" deals, while it is offered (otherwise the first one offered).
PLAY_NOW_VARIANT = "classic"


def game_play_now(*, creator: Any, bot_level: str = BotLevel.MEDIUM) -> Game:
    """One click to a game against bots: the classic rules, ``PLAY_NOW_BOTS`` bots of ``bot_level``,
    the create form's other defaults (a day per move), dealt at once."""
    if creator is None or not creator.is_authenticated:
        raise GameError("not_logged_in", _("Log in to play."))
    offered = Variant.objects.filter(is_active=True)
    variant = offered.filter(slug=PLAY_NOW_VARIANT).first() or offered.order_by("pk").first()
    if variant is None:
        raise GameError("no_variant", _("No variant is offered right now, so no game can be dealt."))
    return game_create(
        creator=creator,
        variant=variant,
        seat_count=1 + PLAY_NOW_BOTS,
        bot_levels=[bot_level] * PLAY_NOW_BOTS,
    )


@transaction.atomic
def game_join(
    *, game_id: int, user: Any, invite_token: str | None = None, seed_contribution: str | None = None
) -> Game:
    """Take the seat held for the user, or else the first open seat held for nobody; the game starts when
    that was the last one.

    A private game takes only people who bring its invite token, or for whom a seat is held.
    ``seed_contribution`` is the person's public text for the shuffles (a
    random one when empty).
    """
    contribution = fairness.clean_contribution(seed_contribution)
    seat_person(user)
    game = lock_game(game_id)
    if game.status != Game.Status.OPEN:
        raise GameError("game_not_open", _("This game is not taking players any more."))
    if game.seats.filter(user=user).exists():
        raise GameError("already_seated", _("You already have a seat at this table."))
    open_seats = game.seats.filter(user__isnull=True, bot_level="").order_by("position")
    seat = open_seats.filter(reserved_for=user).first()
    holds_token = bool(invite_token and secrets.compare_digest(str(invite_token), game.invite_token))
    if seat is None and game.is_private and not holds_token:
        raise GameError("private_game", _("This game is private: join it through the invite link you were sent."))
    if seat is None:
        seat = open_seats.filter(reserved_for__isnull=True).first()
    if seat is None:
        if open_seats.exists():
            raise GameError("seats_held", _("The open seats at this table are held for the players invited to it."))
        raise GameError("game_full", _("Every seat at this table is taken."))
    seat.user = user
    seat.joined_at = timezone.now()
    fields = fairness.typed_or_site_contribution(contribution, source=Seat.Contribution.PLAYER, at=seat.joined_at)
    for name, value in fields.items():
        setattr(seat, name, value)
    seat.reserved_for = None
    seat.save(update_fields=["user", "reserved_for", "joined_at", *fields])
    game.version += 1
    announce_lobby(game)  # a seat fewer, or (the last one) the table leaves the lobby
    if not game.seats.filter(user__isnull=True, bot_level="").exists():
        deal(game)
    else:
        game.save(update_fields=["version", "updated_at"])
        announce(game)
    return game


@transaction.atomic
def game_decline(*, game_id: int, user: Any) -> Game:
    """Let go the seat held for the user at an open table (invited by name): it is open to anyone now, or,
    in a rematch, a bot takes it (``let_go_of_held_seats``)."""
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in to play."))
    game = lock_game(game_id)
    if game.status != Game.Status.OPEN:
        raise GameError("game_not_open", _("You can only decline an invitation before the game starts."))
    held = game.seats.filter(reserved_for=user, user__isnull=True)
    if not held.exists():
        raise GameError("not_invited", _("No seat is held for you at this table."))
    let_go_of_held_seats(game, held)
    return game


def let_go_of_held_seats(game: Game, held: Iterable[Seat]) -> None:
    """The seats ``held`` for someone at the locked open ``game``, declined or held for an account deactivated:
    open to anyone, or, in a rematch (the same people), taken by a bot.  A rematch's seat opened to anyone: a
    tester's stranger joined one that a player had declined, and dealt it at once to the people who had taken
    theirs.  Nor does the bot's seat deal it, though it may be the last: the people seated may have gone
    hours ago, and a live game's clock would play and rate their turns (a review); its creator starts it."""
    announce_lobby(game)  # (before the seats are let go: their people's own pages hear of it too)
    for seat in held:
        if game.rematch_of_id is None:
            seat.reserved_for = None
            seat.save(update_fields=["reserved_for"])
        else:
            hand_seat_to_bot(game, seat, BotLevel.MEDIUM)
    game.version += 1
    game.save(update_fields=["version", "updated_at"])
    announce(game)


@transaction.atomic
def game_leave(*, game_id: int, user: Any) -> Game:
    """Leave a game before it starts; the seat opens again.

    When the creator leaves, the next person at the table may start the game;
    when the last person leaves, the game is aborted.
    """
    game = locked_game(game_id, user)
    if game.status != Game.Status.OPEN:
        raise GameError("game_not_open", _("You can only leave a game before it starts."))
    vacate_seat(game, seat_of(game, user))
    return game


def vacate_seat(game: Game, seat: Seat) -> None:
    """The person on ``seat`` leaves the open ``game`` (by leaving, or deactivated by a moderator)."""
    # Told before the seat is let go: of a private table, the person leaving (their other pages) and those
    # a seat is held for hear of it too.
    announce_lobby(game)
    user_id = seat.user_id
    seat.user = None
    seat.joined_at = None
    seat.seed_contribution = ""  # the next person to sit brings their own
    seat.seed_contribution_source = Seat.Contribution.NONE
    seat.seed_contribution_at = None
    seat.save(
        update_fields=["user", "joined_at", "seed_contribution", "seed_contribution_source", "seed_contribution_at"]
    )
    game.version += 1
    fields = ["version", "created_by", "updated_at"]
    remaining = game.seats.filter(user__isnull=False).order_by("position").first()
    if remaining is None:
        fields += game.set_status(Game.Status.ABORTED)
    elif game.created_by_id == user_id:
        game.created_by_id = remaining.user_id  # someone must be able to start the game
    game.save(update_fields=fields)
    announce(game)
    if remaining is None:
        let_go_of_a_called_off_table(game)


@transaction.atomic
def game_start(*, game_id: int, user: Any, bot_level: str = BotLevel.MEDIUM) -> Game:
    """The creator starts at once: bots of ``bot_level`` take the open seats."""
    game = locked_game(game_id, user)
    if game.status != Game.Status.OPEN:
        raise GameError("game_not_open", _("This game has already started or ended."))
    if game.created_by_id != user.pk:
        raise GameError("not_creator", _("Only the player who created the game can start it."))
    if bot_level not in BotLevel.values:
        raise GameError("bad_bot_level", _("Unknown bot level “%(level)s”.") % {"level": bot_level})
    announce_lobby(game)  # (before the bots take the seats held: those invited hear of it)
    for seat in game.seats.filter(user__isnull=True, bot_level="").order_by("position"):
        hand_seat_to_bot(game, seat, bot_level)
    game.version += 1
    deal(game)
    return game


# -- playing ------------------------------------------------------------------


def stale_message(game: Game, seat: Seat, action: Action | Mapping[str, Any], seen: int) -> str:
    """Say in words why a move from a page of version ``seen`` was refused (never the numbers).

    Each move bumps the version by one, so the ``now - seen`` newest moves are
    what happened since the page was loaded (as near as the log tells: a join
    or a resignation bumps it too).  When the first of them is this person's
    own move and the same action, the submission was repeated (a double click,
    a reload that posted again); when it is another seat's, someone moved first.
    """
    last_change = game.version
    if game.notices_to_version == game.version and seen <= game.notices_from_version:
        last_change = game.notices_from_version  # the notices of time away since then are no moves
    changes = last_change - seen
    if changes > 0:
        since = list(game.moves.order_by("-seq")[:changes])
        if since:
            first = since[-1]
            if first.seat != seat.position:
                return _(
                    "Someone else moved first: the table has changed since your page was loaded. "
                    "Nothing was played; look at the table and choose again."
                )
            try:
                submitted = action if isinstance(action, (Draw, Discard, GoOut)) else action_from_dict(action)
            except IllegalAction:
                submitted = None
            if not first.by_bot and submitted is not None and submitted.to_dict() == first.action:
                return _("That move was already played: it counts once. Look at the table to see what came after.")
    return _(
        "The table has changed since your page was loaded. Nothing was played; look at the table and choose again."
    )


def game_play(
    *,
    game_id: int,
    user: Any,
    action: Action | Mapping[str, Any],
    expected_version: int,
    received_at: datetime.datetime | None = None,
) -> Game:
    """Play ``action`` for the user's seat, then every bot turn that follows (``turns.play_bots``: in a
    request, after the answer).

    Refused, changing nothing, when the user has no seat, the version is not
    the one the user saw (a stale page or a repeated submission), the turn's
    deadline has passed (``out_of_time``: the clock plays the whole turn, or
    what is left of it, see ``clock.game_timeout``), or the engine finds the
    action illegal (its code and message are passed on).

    A person who is away and moves at one of their tables is back: their
    time away ends first (``away.come_back_if_away``, in its own transaction),
    so the move meets the deadline moved on by the time away; so does time
    away that ran to its end and that the clock worker has not settled yet.

    ``received_at``: when the move reached the server (``threethirteen_site.http.received_at``); it is late
    only if it was made after the deadline, not if it waited there (for a database that hung) until after it.
    """
    play = partial(
        _play, game_id=game_id, user=user, action=action, expected_version=expected_version, received_at=received_at
    )
    try:
        return play()
    except _AwayFirst:
        away.come_back_if_away(user=user)  # its new versions only tell of the time away: the page is not stale
        try:
            return play()
        except _AwayFirst:  # time away declared again meanwhile (another tab): once is enough, say so
            raise GameError(
                "stale_version",
                _(
                    "The table has changed since your page was loaded. Nothing was played; look at the table "
                    "and choose again."
                ),
            ) from None


class _AwayFirst(Exception):
    """The mover's time away is going on: it must end (own transaction) before the move is tried again."""


@transaction.atomic
def _play(
    *,
    game_id: int,
    user: Any,
    action: Action | Mapping[str, Any],
    expected_version: int,
    received_at: datetime.datetime | None,
) -> Game:
    game = locked_game(game_id, user)
    # Read once (the checks, the bots and the save use these), with whether each person is away now.
    seats: list[Seat] = list(game.seats.annotate(away_now=away.holds_clock_now(timezone.now())))
    seat = seat_of(game, user, seats)
    if game.status != Game.Status.ACTIVE:
        if game.status == Game.Status.FINISHED:
            raise GameError("game_over", _("The game is over: no more moves."))
        if game.status == Game.Status.ABORTED:
            raise GameError("game_aborted", _("This game was called off: no more moves."))
        raise GameError("game_not_active", _("The game has not started yet."))
    if seat.is_bot:
        raise GameError("seat_played_by_bot", _("A bot plays your seat in this game now: you cannot move."))
    if seat.away_now:  # type: ignore[attr-defined]  # (the annotation above)
        raise _AwayFirst  # nothing written yet: the transaction ends empty
    if game.version != expected_version and not game.only_notices_since(expected_version):
        raise GameError("stale_version", stale_message(game, seat, action, expected_version))
    # Under the row lock, so the clock (``clock.game_timeout``, which plays a
    # turn once ``now >= turn_deadline``) and a late move never both play it.  Not a turn that ran out while
    # the clock could not reach the database: its next pass gives it its time back (``outage``), and the page's
    # move, sent again as the database came back, is the person's.
    made_at = timezone.now() if received_at is None else min(timezone.now(), received_at)
    if (
        seat.position == game.current_seat
        and game.turn_deadline is not None
        and made_at >= game.turn_deadline
        and not outage.ran_out_while_down(game.turn_deadline)
    ):
        raise GameError(
            "out_of_time",
            _("Your time for this turn ran out: nothing was played. The bot plays this turn for you."),
        )
    try:
        if not isinstance(action, (Draw, Discard, GoOut)):
            action = action_from_dict(action)
        state = engine_state(game)
        recorder = Recorder(game)
        state = recorder.play(state, seat.position, action, by_bot=False)
    except IllegalAction as error:
        raise GameError(error.code, describe_illegal(error, action)) from None
    if seat.timeouts_in_row:
        seat.timeouts_in_row = 0
        seat.save(update_fields=["timeouts_in_row"])
    play_bots(game, state, recorder, seats=seats)
    return game


@transaction.atomic
def game_resign(*, game_id: int, user: Any) -> Game:
    """The person gives up: a bot plays the seat to the end, and the person ranks last."""
    game = locked_game(game_id, user)
    seat = seat_of(game, user)
    if game.status != Game.Status.ACTIVE:
        raise GameError("game_not_active", _("You can only resign from a game in play."))
    if seat.handed_over:  # a moderator handed the seat to a bot: the person did not leave of their own accord
        raise GameError("seat_left", _("A bot plays your seat already: a moderator handed it over."))
    if seat.bot_level:
        raise GameError("seat_left", _("You have left this game already."))
    hand_seat_to_bot(game, seat, TAKEOVER_BOT_LEVEL, left=Seat.Left.RESIGNED)
    game.version += 1
    state = engine_state(game)
    play_bots(game, state, Recorder(game))
    return game


@transaction.atomic
def game_rematch(*, game_id: int, user: Any, seed_contribution: str | None = None) -> Game:
    """A new game with the same people, bots, seats and options, once per finished game; the people are asked,
    not seated.

    The first player to ask creates it and sits down; a seat is held for each other person, as for someone
    invited by name (``game_create``'s ``invited``): they take it (asking for the rematch too, or "Take a
    seat" at its table) or decline it, and the asker may start without them, bots taking the seats still
    held. Before, everyone was seated and the game dealt at once, so one player's click put the others into a
    game, its clock and its rating (30-second turns played and rated for them by the clock). Asking once it
    exists takes the seat held for you, if one still is (the last seat taken deals); otherwise you are sent
    to it. People who left the first game are asked again; a bot takes the seat of an account a moderator has
    deactivated since. A rematch with no one else to ask (the asker and bots) is dealt at once. It has a new
    server seed; the finished game's pages hear a new version, and show the way to it.

    The people asked count against the invitation limits as if invited by name (``check_invitations_waiting``:
    rematches asked for again and again could otherwise hold any number of seats for one person). A rematch
    called off before its deal (its last person left, a moderator, the clock) no longer stands for the finished
    game: asking makes a new one (one a moderator aborted in play still does: its table says why).
    ``seed_contribution`` is the person's text for the shuffles when they take the seat held for them (a
    random one when empty).
    """
    contribution = fairness.clean_contribution(seed_contribution)
    _lock_the_people_at(game_id, user)
    game = locked_game(game_id, user)
    seat_of(game, user)
    if game.status != Game.Status.FINISHED:
        raise GameError("game_not_finished", _("A rematch can only follow a finished game."))
    existing = Game.objects.filter(rematch_of=game).first()
    if existing is not None and existing.status == Game.Status.ABORTED and existing.state is None:
        # (locked after the finished game, as every path here does)
        Game.objects.filter(pk=existing.pk).update(rematch_of=None)
        existing = None
    if existing is not None:
        if existing.status == Game.Status.OPEN and existing.seats.filter(reserved_for=user, user__isnull=True).exists():
            try:
                return game_join(game_id=existing.pk, user=user, seed_contribution=contribution)
            except GameError as error:
                if error.code != "game_not_open":
                    raise
                existing.refresh_from_db()  # its asker started it a moment before: they are sent to it
        return existing
    old_seats = list(game.seats.select_related("user").order_by("position"))
    people = [old.user for old in old_seats if old.user is not None and old.user_id != user.pk]
    # (the active ones, read under their locks)
    asked = {person.pk for person in check_invitations_waiting(user, people, rematch=True)}
    now = timezone.now()
    new = Game.objects.create(
        variant=game.variant,
        variant_name=game.variant_name,
        rules=game.rules,
        **fairness.new_game_shuffle_fields(),
        seat_count=game.seat_count,
        created_by=user,
        time_limit_seconds=game.time_limit_seconds,
        coach=game.coach,
        version=1,
        is_private=game.is_private,
        invite_token=secrets.token_urlsafe(16),
        spectators_allowed=game.spectators_allowed,
        chat_enabled=game.chat_enabled,
        rematch_of=game,
    )
    seats = []
    taken = {old.bot_name for old in old_seats if old.user is None}
    for old in old_seats:
        at = {"game": new, "position": old.position}
        if old.user_id == user.pk:
            seats.append(Seat(**at, user=user, joined_at=now, **fairness.site_contribution(now)))
        elif old.user_id in asked:
            seats.append(Seat(**at, reserved_for=old.user, reserved_by=user))
        else:  # a bot, or (as deactivating hands a seat in play to one) under the name it had then, if it did
            name = old.bot_name or bots.free_bot_name(taken)
            taken.add(name)
            level = (old.bot_level or BotLevel.MEDIUM) if old.user is None else BotLevel.MEDIUM
            seats.append(Seat(**at, bot_level=level, bot_name=name, joined_at=now, **fairness.site_contribution(now)))
    Seat.objects.bulk_create(seats)
    if any(seat.reserved_for_id for seat in seats):
        announce_lobby(new)  # an open table, and an invitation for each person asked
    else:
        deal(new)
    # The finished table's open pages fetch it again: it now leads to the rematch (and asks them to it).
    game.version += 1
    game.save(update_fields=["version", "updated_at"])
    announce(game)
    return new


def _lock_the_people_at(game_id: int | str, user: Any) -> None:
    """The rows of the asker and of the people at the game, locked before the game's (``lock_people``).
    Locked after it, they made a cycle with a deactivation (or time away) that held one of those rows and
    waited for the game, which it had read in play a moment before it finished (a review reproduced the
    deadlock on PostgreSQL)."""
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in to play."))
    try:
        people = set(Seat.objects.filter(game_id=game_id, user__isnull=False).values_list("user_id", flat=True))
    except (ValueError, TypeError):
        raise GameError("not_found", _("There is no such game.")) from None
    lock_people(people | {user.pk})


@transaction.atomic
def round_summary_dismiss(*, game_id: int, user: Any, round_number: int) -> Seat:
    """The player has read the summary of a finished round and moves on: it no longer waits on their table.

    Remembered on the player's own seat (the highest round dismissed), so it
    holds on every device and across days.  Only a round that has ended may be
    dismissed (a forged number for a round still to come is refused: it would
    hide that round's summary before it exists); dismissing again changes
    nothing.  The game never waits for this: its version does not change.
    """
    if user is None or not user.is_authenticated:
        raise GameError("not_logged_in", _("Log in to play."))
    seat = Seat.objects.select_for_update().filter(game_id=game_id, user=user).first()
    if seat is None:
        raise GameError("not_seated", _("You have no seat at this table."))
    ended = RoundResult.objects.filter(game_id=game_id).aggregate(last=Max("round_number"))["last"] or 0
    if not 1 <= round_number <= ended:
        raise GameError("round_not_over", _("That round is not over yet: nothing was changed."))
    if seat.summary_dismissed_round < round_number:
        seat.summary_dismissed_round = round_number
        seat.save(update_fields=["summary_dismissed_round"])
    return seat
