"""The table page in the template's words: pure presenting, no database.

``selectors.game_table`` reads (the game, the seats, who is looking, the
seat's :class:`~games.engine.SeatView`, the recent moves) into a
:class:`TableReading`; :func:`table_context` turns that into what the
table template shows.  Templates only render what this returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine import (
    Action,
    Discard,
    Draw,
    GoOut,
    Phase,
    Rules,
    SeatView,
    best_arrangement,
    discard_penalties,
    redemption_score,
    wild_rank_chars,
    wild_rank_label,
)

from . import presentation
from .models import Seat
from .services.fairness import protecting_seats

if TYPE_CHECKING:
    from .models import Absence, AuditRecord, Game

__all__ = [
    "TableReading",
    "table_context",
    "fairness_panel",
    "fair_contributions",
    "round_to_summarise",
    "RECENT_MOVES",
    "recent_moves_shown",
    "HAND_VIEWS",
]

#: How many moves (and lines) the recent-moves list shows at least.
RECENT_MOVES = 12


def recent_moves_shown(seat_count: int) -> int:
    """How many moves the recent-moves list shows at a table of ``seat_count``: at least a whole lap, every
    other seat's draw and discard and the player's own discard before them, so that when a player's turn
    comes they can read what each of the others did since (at eight seats fourteen moves; the twelve of a
    smaller table lost what the next player took, perhaps the player's own discard)."""
    return max(RECENT_MOVES, 2 * seat_count)


#: How a player sees their own hand: in their own order (sorted, or as they arranged it), or arranged
#: by the engine into its best melds with what is left over.
HAND_VIEWS = ("own", "melds")


@dataclass(frozen=True)
class TableReading:
    """Everything the table shows, as read from the database (``view`` is None before the deal)."""

    game: Game
    seats: list[Seat]
    me: Seat | None
    rules: Rules
    sort: str
    clock: dict[str, Any] | None
    rematch_game: Game | None
    abort_record: AuditRecord | None
    #: The rematch is still open and a seat in it is held for the reader (asked, not yet seated).
    rematch_seat_held: bool = False
    #: There is a rematch, which the reader may not open (a players-only game that started without them).
    rematch_without_me: bool = False
    #: The rematch still waits for its players (not dealt yet).
    rematch_waits: bool = False
    #: Why a moderator handed the reader's seat to a bot (their seat only).
    handover_record: AuditRecord | None = None
    view: SeatView | None = None
    #: Public events of the latest moves, newest first (``bot_for_person`` on those the bot played for a person).
    recent_events: Sequence[Mapping[str, Any]] = ()
    #: Final places, once the game is over.
    standings: list[dict[str, Any]] | None = None
    #: Time away going on, by seat position (games over days in play only).
    away: Mapping[int, Absence] = field(default_factory=dict)
    #: "own" or "melds" (``HAND_VIEWS``).
    hand_view: str = "own"
    #: Public events of the last moves of the round the summary shows (``round_to_summarise``), oldest first.
    round_end_events: Sequence[Mapping[str, Any]] | None = None


def round_to_summarise(*, rounds_ended: int, game_over: bool, me: Seat | None) -> int | None:
    """The finished round whose summary (every hand in its melds, the story, the totals) the table shows.

    At the end of the game, the last round, to everyone.  While the game goes
    on, the last round that ended, to a player who has not moved on from it
    (``Seat.summary_dismissed_round``): the next deal is already on the table
    beneath it.  Someone without a seat gets the short result beside the table.
    """
    if rounds_ended == 0:
        return None
    if game_over:
        return rounds_ended
    if me is not None and rounds_ended > me.summary_dismissed_round:
        return rounds_ended
    return None


def table_context(reading: TableReading) -> dict[str, Any]:
    """Everything the table template shows to the person ``reading.me`` (or someone without a seat)."""
    game, seats, me = reading.game, reading.seats, reading.me
    context: dict[str, Any] = {
        "game": game,
        "seats": seats,
        "me": me,
        "version": game.version,
        "sort": reading.sort,
        "started": game.state is not None,
        "rules": reading.rules,
        "clock": reading.clock,
        "my_seat_left": me is not None and me.has_left and not me.handed_over,  # of their own accord
        # a bot plays the reader's seat: they left it, or a moderator handed it over (no resigning then)
        "my_seat_to_bot": me is not None and me.is_bot,
        "handover_record": reading.handover_record,
        "can_rematch": game.is_finished and me is not None,
        "rematch_game": reading.rematch_game,
        "rematch_seat_held": reading.rematch_seat_held,
        "rematch_without_me": reading.rematch_without_me,
        "rematch_waits": reading.rematch_waits,
        # Asking for a rematch asks other people (else the bots sit down and it is dealt at once).
        "rematch_asks_people": any(
            s.user is not None and s.user.is_active and (me is None or s.user_id != me.user_id) for s in seats
        ),
        "invite_path": game.invite_path() if me is not None and game.is_open else "",
        "aborted": game.is_aborted,
        "abort_record": reading.abort_record,
        "fairness": fairness_panel(game, seats),
    }
    v = reading.view
    if v is None:
        context["open_seats"] = sum(1 for s in seats if s.is_open)
        return context
    context.update(_dealt(reading, v))
    return context


def fairness_panel(game: Game, seats: Sequence[Seat]) -> dict[str, Any] | None:
    """The public side of a provably fair game: the seed's commitment and every seat's contribution.

    Never the server seed itself: the record page reveals it once the game
    is finished, a called-off game's own check page once it is called off.
    ``None`` for a game shuffled before version 2.
    """
    if not game.is_provably_fair:
        return None
    return {
        "commitment": game.seed_commitment,
        **fair_contributions(seats),
        # what the proof covers is known once the contributions are fixed, at the deal
        "dealt": not game.is_open,
        # where the revealed seed is checked: the record's section, or a called-off game's own page
        "check_url": (
            reverse("games:fairness" if game.is_aborted else "games:record", args=[game.pk]) + "#fairness"
            if game.seed_revealed
            else ""
        ),
    }


def fair_contributions(seats: Sequence[Seat]) -> dict[str, Any]:
    """Every seat's contribution with who wrote it, and in words what the proof covers for the game.

    The table and the record both show it: the site's random contributions
    are marked as the site's, and the page says whether any contribution
    kept the site from choosing the deals (``fairness.protecting_seats``).
    """
    protecting = protecting_seats(seats)
    names = ", ".join(s.name for s in protecting)
    if protecting:
        coverage = ngettext(
            "%(names)s typed a contribution after the commitment was shown and after every contribution the site "
            "made up. The site could not know it when it fixed its seed, so it could not pick a seed that deals "
            "the cards it wanted, nor change a deal afterwards.",
            "%(names)s typed contributions after the commitment was shown and after every contribution the site "
            "made up. The site could not know them when it fixed its seed, so it could not pick a seed that deals "
            "the cards it wanted, nor change a deal afterwards.",
            len(protecting),
        ) % {"names": names}
    else:
        coverage = _(
            "No player typed a contribution after the commitment was shown (and after every contribution the site "
            "made up): the site knew or made every contribution when its seed was fixed. The check proves that no "
            "deal was changed after the commitment; it cannot prove that the seed was not picked to favour someone."
        )
    return {
        "contributions": [
            {
                "name": s.name,
                "text": s.seed_contribution,
                "open": s.is_open,
                "by": s.get_seed_contribution_source_display() if s.seed_contribution_source else "",
                "site": s.seed_contribution_source == Seat.Contribution.SITE,
            }
            for s in seats
        ],
        "protected": bool(protecting),
        "coverage": coverage,
    }


def _go_out_offers(v: SeatView, legal: Sequence[Action]) -> list[str]:
    """The cards the table offers to go out with: those that go out, or, with ``bad_go_out_penalty``,
    every card the player may discard.

    With that option a wrong go-out costs points (RULES.md): the player announces it and the server
    judges it.  Offering only the go-outs that succeed would make the option one nobody can ever meet,
    and would tell the player which discard goes out.
    """
    go_outs = {a.discard.code for a in legal if isinstance(a, GoOut)}
    if v.rules.bad_go_out_penalty is not None:
        go_outs |= {a.card.code for a in legal if isinstance(a, Discard)}
    return sorted(go_outs)


def _dealt(reading: TableReading, v: SeatView) -> dict[str, Any]:
    """The part of the table that exists once cards are dealt."""
    game, seats, me = reading.game, reading.seats, reading.me
    names = {s.position: s.name for s in seats}
    wild = v.wild_chars
    playing = game.in_play  # an aborted game takes no more moves
    my_turn = playing and me is not None and v.current_seat == me.position and not me.is_bot
    # A bot's turn lasts as long as it thinks (it plays after the answer to the move before): no clock to show.
    bot_to_play = playing and Seat.bot_plays(seats, v.current_seat)
    legal = v.legal_actions if playing else ()

    players = [
        {
            "seat": s,
            "name": s.name,
            "is_me": me is not None and s.position == me.position,
            "cards": v.hand_counts[s.position],
            "score": v.scores[s.position],
            "is_current": v.current_seat == s.position,
            "is_dealer": v.dealer == s.position,
            "went_out": v.went_out == s.position,
            "left": s.left,
            "left_label": s.get_left_display(),
            "away_until": reading.away[s.position].until if s.position in reading.away else None,
        }
        for s in seats
    ]

    hand: list[dict[str, Any]] = []
    go_out_faces: list[dict[str, Any]] = []
    arranged = None
    if me is not None and v.hand is not None:
        hand = _hand_faces(reading, v, legal, my_turn)
        go_out_faces = presentation.card_faces(_go_out_offers(v, legal), wild)
        if reading.hand_view == "melds" and hand:
            arranged = _arranged_hand(v, hand)

    lines = (
        (presentation.describe_event(event, names), presentation.describe_event(event, names, spoken), event)
        for event, spoken in zip(reading.recent_events, _spoken_faces(reading.recent_events, wild), strict=True)
    )
    recent = [
        {
            "text": text,
            "said": said,  # the live announcement's words: every card by its name
            "bot_for_person": bool(event.get("bot_for_person")),
            "key": event.get("key", ""),
            "round_end": event.get("kind") == "round_scored",  # where a page says the whole round's end
            # a person a bot replaced hears what the bot does on the seat: those moves are not theirs
            "mine": me is not None and me.person_plays and event.get("seat") == me.position,
        }
        for text, said, event in lines
        if text
    ]
    results = v.results
    taken = v.taken_from_discard
    summarised = round_to_summarise(rounds_ended=len(results), game_over=v.is_over, me=me)
    round_end = None
    if summarised is not None:
        round_end = presentation.round_result(
            results[summarised - 1],
            names,
            with_cards=True,
            totals=presentation.running_totals(results, summarised),
            events=reading.round_end_events or (),
            rules=v.rules,
        )
        if not v.is_over:
            round_end["next_round"] = v.round
    return {
        "view": v,
        "players": players,
        "hand": hand,
        "holds_cards": v.hand is not None,  # a seated person a bot has not replaced
        "hand_count": len(hand),
        "hand_view": reading.hand_view,
        "arranged": arranged,
        "go_out_faces": go_out_faces,
        "go_out_penalty": v.rules.bad_go_out_penalty if go_out_faces else None,
        "coach_on": game.coach and me is not None,
        "discard_top": presentation.card_face(v.discard_top.code, wild) if v.discard_top else None,
        "stock_size": v.stock_size,
        "round": v.round,
        "round_count": v.round_count,
        "hand_size": v.hand_size,
        "wild_label": wild_rank_label(v.hand_size),
        "jokers": v.rules.jokers_per_deck > 0,
        "phase": v.phase.value,
        "is_over": v.is_over,
        "my_turn": my_turn,
        "bot_to_play": bot_to_play,
        "current_name": names.get(v.current_seat) if v.current_seat is not None else None,
        "can_draw_stock": Draw("stock") in legal,
        "can_draw_discard": Draw("discard") in legal,
        "can_discard": any(isinstance(a, Discard) for a in legal),
        "blocked_card": (
            presentation.card_face(taken.code, wild)
            if my_turn and taken is not None and any(not f["can_discard"] for f in hand)
            else None
        ),
        "final_lap": v.final_lap,
        "went_out_name": names.get(v.went_out) if v.went_out is not None else None,
        "table_melds": [
            {"name": names.get(t.seat), "kind": t.meld.kind.value, "cards": presentation.card_faces(t.meld.codes, wild)}
            for t in v.table_melds
        ],
        "recent_moves": recent[: recent_moves_shown(game.seat_count)],
        # the player's turns the bot played because their time ran out, while they may still stop it
        "timeouts": (
            {"count": me.timeouts_in_row, "limit": Seat.TIMEOUTS_BEFORE_TAKEOVER}
            if me is not None and me.person_plays and me.timeouts_in_row and not v.is_over and not game.is_aborted
            else None
        ),
        "last_result": presentation.round_result(results[-1], names, with_cards=False) if results else None,
        "standings": reading.standings if v.is_over else None,
        "standings_left": v.is_over and any(row["left"] for row in reading.standings or ()),
        # the game's last round at the end; while it goes on, the round a player has not moved on from
        "round_end": round_end if not v.is_over else None,
        "final_result": round_end if v.is_over else None,
    }


def _coach_numbers(v: SeatView) -> dict[str, int]:
    """The coach's number for each card of the hand: the least penalty left if it is discarded.

    In a redemption last turn, after laying off onto the melds on the table (``redemption_score``), as
    that turn is scored: the hand alone would count a card the table takes.
    """
    assert v.hand is not None
    if not (v.rules.redemption and v.final_lap):
        return {card.code: points for card, points in discard_penalties(v.hand, v.rules, v.hand_size).items()}
    table = [table_meld.meld for table_meld in v.table_melds]
    numbers: dict[str, int] = {}
    for card in set(v.hand):
        rest = list(v.hand)
        rest.remove(card)
        numbers[card.code] = redemption_score(rest, table, v.rules, v.hand_size).points
    return numbers


def _hand_faces(reading: TableReading, v: SeatView, legal: Sequence[Action], my_turn: bool) -> list[dict[str, Any]]:
    """The seat's own cards in display order, with what may be discarded and (coach) what each discard leaves."""
    assert v.hand is not None
    wild = v.wild_chars
    discardable = {a.card.code for a in legal if isinstance(a, Discard)}
    penalties: dict[str, int] = {}
    if reading.game.coach and my_turn and v.phase == Phase.DISCARD:
        penalties = _coach_numbers(v)
    hand: list[dict[str, Any]] = []
    for code in presentation.sort_codes([c.code for c in v.hand], reading.sort, wild):
        face = presentation.card_face(code, wild)
        face["can_discard"] = code in discardable
        face["penalty"] = penalties.get(code)
        hand.append(face)
    if penalties:
        best = min(penalties[f["code"]] for f in hand if f["can_discard"]) if discardable else None
        for f in hand:
            f["best"] = f["can_discard"] and f["penalty"] == best
    return hand


def _arranged_hand(v: SeatView, hand: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The seat's own hand as the engine arranges it: its best melds, then what is left over and its
    penalty now (times the round's multiplier, as the round's score would count it).

    ``hand`` are the hand's faces (with what may be discarded and the coach's
    numbers); each card of the arrangement takes one of them, so every card of
    the hand shows exactly once.
    """
    assert v.hand is not None
    arrangement = best_arrangement(v.hand, v.rules, v.hand_size)
    pool: dict[str, list[Mapping[str, Any]]] = {}
    for face in hand:
        pool.setdefault(face["code"], []).append(face)

    def faces(cards: Sequence[Any]) -> list[dict[str, Any]]:
        return [dict(pool[card.code].pop()) for card in cards]

    kinds = {"set": _("set"), "run": _("run")}
    melds = [
        {"kind": meld.kind.value, "label": kinds[meld.kind.value], "cards": faces(meld.cards)}
        for meld in arrangement.melds
    ]
    multiplier = v.rules.round_multiplier(v.hand_size)
    return {
        "melds": melds,
        "deadwood": faces(arrangement.deadwood),
        "points": arrangement.points * multiplier,
        "doubled": multiplier > 1 and arrangement.points > 0,
    }


def _spoken_faces(events_newest_first: Sequence[Mapping[str, Any]], wild: list[str]) -> list[Callable[[str], str]]:
    """How each recent event names its card aloud (``presentation.spoken_face``), with the wild ranks of its own
    round: the moves before a round's end are told with that round's (its ``round_scored`` says its hand size)."""
    faces = []
    face = presentation.spoken_face(wild)
    for event in events_newest_first:
        data = event.get("data") or {}
        if event.get("kind") == "round_scored" and isinstance(data.get("hand_size"), int):
            face = presentation.spoken_face(wild_rank_chars(data["hand_size"]))
        faces.append(face)
    return faces
