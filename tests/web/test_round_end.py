"""The end of a round as a moment (issue 13, point 3): every player, also against bots, sees
every hand of the round that ended laid out in its melds, each player's points for the round
and running total, and how the round ended told in words; the summary waits at the top of the
next round's table (the game does not wait) until that player presses "Next deal", which is
remembered on the seat, server side.  Only a finished round's cards are shown."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.utils import translation

from games import bots, presentation, services
from games.engine import GameState, Meld, MeldKind, RoundEnd, RoundResult, Rules, SeatResult, parse_cards, view
from games.models import Game, Seat
from tests.leaks import card_marks, find_leaks, result_cards, secrets_of

from .conftest import engine_view, logged_in, post_action, state_fingerprint

pytestmark = pytest.mark.django_db

ROUND_END = re.compile(r'<section class="panel round-result round-end".*?</section>', re.S)


def results_of(game: Game) -> tuple[RoundResult, ...]:
    game.refresh_from_db()
    assert game.state is not None
    return GameState.from_dict(game.state).results


def play_until_a_round_ends(game: Game, clients: dict[int, Client], *, stop_after: int | None = None) -> int:
    """The people post the bots' choices until one more round has ended (or ``stop_after`` moves)."""
    before, moves = len(results_of(game)), 0
    while len(results_of(game)) == before and game.status == Game.Status.ACTIVE:
        if stop_after is not None and moves >= stop_after:
            break
        seat = game.current_seat
        assert seat is not None
        action = bots.choose_action(engine_view(game, seat)).to_dict()
        assert post_action(clients[seat], game, action).status_code == 302
        moves += 1
    return moves


def summary_section(html: str) -> str | None:
    match = ROUND_END.search(html)
    return match.group(0) if match else None


def seen(client: Client, game: Game, round_number: Any) -> Any:
    return client.post(f"/games/{game.pk}/rounds/{round_number}/seen/")


def dismissed(game: Game) -> dict[int, int]:
    return dict(Seat.objects.filter(game=game).values_list("position", "summary_dismissed_round"))


@pytest.fixture
def against_bots(make_user, classic):
    """ann (seat 0) against two bots, rounds of 3, 4 and 5 cards, one day a move."""
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=3, bot_count=2, seed=5, options={"rounds": [3, 4, 5]}
    )
    return game, ann, {0: logged_in(ann)}


@pytest.fixture
def two_people(make_user, classic):
    """ann (seat 0) and bob (seat 1), rounds of 3, 4 and 5 cards."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=21, options={"rounds": [3, 4, 5]}
    )
    return game, ann, bob, {0: logged_in(ann), 1: logged_in(bob)}


def test_against_bots_the_player_sees_every_hand_in_its_melds_with_the_points_and_running_totals(against_bots):
    game, ann, clients = against_bots
    play_until_a_round_ends(game, clients)
    response = clients[0].get(f"/games/{game.pk}/")
    summary = response.context["round_end"]
    result = results_of(game)[0]
    assert summary["round"] == 1 and summary["next_round"] == 2
    assert [row["points"] for row in summary["rows"]] == list(result.points)
    assert [row["total"] for row in summary["rows"]] == list(engine_view(game, 0).scores)
    for row, seat in zip(summary["rows"], result.seats, strict=True):
        assert [[face["code"] for face in meld["cards"]] for meld in row["melds"]] == [m.codes for m in seat.melds]
        assert [face["code"] for face in row["deadwood"]] == [c.code for c in seat.deadwood]
    html = response.content.decode()
    section = summary_section(html)
    assert section is not None and "Round 1 is over" in section and "Next deal" in section
    assert f'action="/games/{game.pk}/rounds/1/seen/"' in section
    for row in summary["rows"]:
        assert row["name"] in section and f"total {row['total']}" in section
    # Exactly the finished round's cards, copy by copy: none of the new deal's hands.
    assert card_marks(section)[0] == result_cards(result)
    # It sits above the next round's table, which goes on beneath it (the side panel's short result is left out).
    assert html.index("round-end") < html.index('class="round-bar"')
    assert response.context["round"] == 2 and "last-round" not in html


def test_the_story_tells_who_went_out_and_each_last_turn_taken_after_it(against_bots):
    game, _, clients = against_bots
    play_until_a_round_ends(game, clients)
    result = results_of(game)[0]
    assert result.ended == RoundEnd.WENT_OUT and result.went_out is not None
    story = clients[0].get(f"/games/{game.pk}/").context["round_end"]["story"]
    names = {s.position: s.name for s in game.seats.all()}
    assert story["went_out"].startswith(f"{names[result.went_out]} went out, discarding ")
    lap = [(result.went_out + k) % 3 for k in (1, 2)]
    lines = [turn["text"] for turn in story["last_turns"]]
    assert [line.split(" ")[0] for line in lines] == [names[seat] for seat in lap]
    assert all(re.search(r" (discarded|discarding) (10|[A2-9JQK])[♣♦♥♠]\.", line) for line in lines)
    assert not story["went_out_by_bot"] and not any(turn["bot_for_person"] for turn in story["last_turns"])
    assert story["stock"] is None
    # The round's own page tells the same story, with the same totals.
    page = clients[0].get(f"/games/{game.pk}/rounds/1/")
    assert page.context["summary"]["story"] == story
    assert "Next deal" not in page.content.decode()


def _result(went_out: int | None, ended: RoundEnd, seats: int = 3) -> RoundResult:
    seat = SeatResult(points=0, melds=(Meld(MeldKind.SET, tuple(parse_cards("7C 7D 7S"))),), deadwood=())
    return RoundResult(round_index=0, hand_size=3, dealer=0, went_out=went_out, ended=ended, seats=(seat,) * seats)


NAMES = {0: "Ann", 1: "Bob", 2: "Cid"}


def test_the_story_in_words_for_every_way_a_round_ends():
    went_out = {"kind": "went_out", "seat": 1, "data": {"card": "KS", "melds": []}}
    lap = [
        {"kind": "drew", "seat": 2, "data": {"source": "discard", "card": "KS"}},
        {"kind": "went_out", "seat": 2, "data": {"card": "9H", "melds": []}},
        {"kind": "drew", "seat": 0, "data": {"source": "stock"}},
        {"kind": "discarded", "seat": 0, "data": {"card": "TD"}},
        {"kind": "round_scored", "seat": None, "data": {}},
    ]
    story = presentation.round_story(_result(1, RoundEnd.WENT_OUT), [went_out, *lap], NAMES)
    assert story == {
        "went_out": "Bob went out, discarding K♠!",
        "went_out_said": "Bob went out, discarding king of spades!",  # aloud, each card by its name (a tester)
        "went_out_by_bot": False,
        "last_turns": [
            {"text": "Cid took K♠ from the discard pile and went out too, discarding 9♥.", "bot_for_person": False},
            {"text": "Ann drew from the stock and discarded 10♦.", "bot_for_person": False},
        ],
        "stock": None,
    }
    # A turn the bot played for a person says so (the events are marked by round_end_events).
    for_ann = [{**event, "bot_for_person": True} if event["seat"] == 0 else event for event in lap]
    story = presentation.round_story(_result(1, RoundEnd.WENT_OUT), [went_out, *for_ann], NAMES)
    assert [turn["bot_for_person"] for turn in story["last_turns"]] == [False, True]
    # The stock ran out in the last lap: who had no last turn is said.
    story = presentation.round_story(_result(1, RoundEnd.STOCK_EXHAUSTED), [went_out, *lap[:2]], NAMES)
    assert [turn["text"] for turn in story["last_turns"]] == [
        "Cid took K♠ from the discard pile and went out too, discarding 9♥."
    ]
    assert story["stock"] == "The stock ran out before the last turns were over. No last turn for: Ann."
    # Nobody went out.
    story = presentation.round_story(_result(None, RoundEnd.STOCK_EXHAUSTED), [], NAMES)
    assert story == {
        "went_out": None,
        "went_out_said": None,
        "went_out_by_bot": False,
        "last_turns": [],
        "stock": "Nobody went out: the stock ran out, and every hand was scored as it stood.",
    }
    # Events that do not reach back to the go-out: only who went out.
    story = presentation.round_story(_result(1, RoundEnd.WENT_OUT), lap[2:], NAMES)
    assert story == {
        "went_out": "Bob went out.",
        "went_out_said": None,
        "went_out_by_bot": False,
        "last_turns": [],
        "stock": None,
    }
    # A turn of another shape (a failed go-out) is told line by line; a rebuilt stock in its own line.
    odd = [
        {"kind": "drew", "seat": 2, "data": {"source": "stock"}},
        {"kind": "go_out_failed", "seat": 2, "data": {"card": "4C", "penalty": 20}},
        {"kind": "discarded", "seat": 2, "data": {"card": "4C"}},
        {"kind": "stock_rebuilt", "seat": None, "data": {"stock_size": 20, "rebuilds": 1}},
    ]
    story = presentation.round_story(_result(1, RoundEnd.WENT_OUT), [went_out, *odd], NAMES)
    assert [turn["text"] for turn in story["last_turns"]] == [
        "Cid drew from the stock. Cid tried to go out and failed (20 points). Cid discarded 4♣.",
        "The discard pile was shuffled into a new stock.",
    ]


@pytest.mark.parametrize(
    ("language", "words"),
    [("hr", "talon"), ("cs", "Talon došel"), ("af", "trekstapel")],
)
def test_the_story_is_told_in_the_readers_language(language, words):
    with translation.override(language):
        story = presentation.round_story(_result(None, RoundEnd.STOCK_EXHAUSTED), [], NAMES)
        turn = presentation.round_story(
            _result(1, RoundEnd.WENT_OUT),
            [
                {"kind": "went_out", "seat": 1, "data": {"card": "KS"}},
                {"kind": "drew", "seat": 2, "data": {"source": "stock"}},
                {"kind": "discarded", "seat": 2, "data": {"card": "TD"}},
            ],
            NAMES,
        )
    assert words.lower() in story["stock"].lower()
    line = turn["last_turns"][0]["text"]
    assert "drew from the stock" not in line and "Cid" in line


def test_next_deal_is_remembered_per_seat_on_every_device_and_the_game_never_waits(two_people, make_user):
    game, ann, bob, clients = two_people
    play_until_a_round_ends(game, clients)
    for client in clients.values():
        assert client.get(f"/games/{game.pk}/").context["round_end"]["round"] == 1
    version = (game.refresh_from_db(), game.version)[1]
    response = seen(clients[0], game, 1)
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/"
    game.refresh_from_db()
    assert game.version == version  # the game does not wait for anyone, nor is it changed
    assert dismissed(game) == {0: 1, 1: 0}
    page = logged_in(ann).get(f"/games/{game.pk}/table/")  # another device of ann's: moved on there too
    assert page.context["round_end"] is None and summary_section(page.content.decode()) is None
    assert 'class="panel last-round"' in page.content.decode()  # the short result stays beside the table
    # bob has not moved on: the summary waits on his table while round 2 is played, over days.
    play_until_a_round_ends(game, clients, stop_after=4)
    assert len(results_of(game)) == 1
    assert clients[1].get(f"/games/{game.pk}/").context["round_end"]["round"] == 1
    assert seen(clients[0], game, 1).status_code == 302 and dismissed(game) == {0: 1, 1: 0}  # again: no change
    # The next round's end brings its own summary to both, the latest round only.
    play_until_a_round_ends(game, clients)
    for client in clients.values():
        assert client.get(f"/games/{game.pk}/").context["round_end"]["round"] == 2
    assert seen(clients[1], game, 2).status_code == 302
    assert seen(clients[1], game, 1).status_code == 302 and dismissed(game) == {0: 1, 1: 2}  # never goes back
    assert clients[1].get(f"/games/{game.pk}/").context["round_end"] is None


def test_a_watcher_stranger_moderator_or_forged_post_cannot_move_on_for_a_player(two_people, make_user, role_client):
    game, ann, bob, clients = two_people
    play_until_a_round_ends(game, clients)
    before = (state_fingerprint(game), dismissed(game))
    assert before[1] == {0: 0, 1: 0}
    watcher = logged_in(make_user("watcher"))
    moderator, _ = role_client("moderator")
    other_game = services.game_create(creator=make_user("eve"), variant=game.variant, seat_count=2, bot_count=1)
    eve = logged_in(other_game.seats.get(position=0).user)
    for client in (watcher, moderator, eve, Client()):
        response = seen(client, game, 1)
        assert response.status_code == 403, response.content.decode()[:300]
    # ann, forging: a round still in play or to come, round 0, a huge number; another game's round.
    for number in (2, 3, 0, 99999999999999999999):
        response = seen(clients[0], game, number)
        assert response.status_code == 409, number
        assert "That round is not over yet: nothing was changed." in response.content.decode()
    assert seen(clients[0], other_game, 1).status_code == 403
    # A post from another site (no CSRF token) is refused before anything runs.
    forged = Client(enforce_csrf_checks=True)
    forged.force_login(ann)
    assert seen(forged, game, 1).status_code == 403
    # A GET on the button's address answers with a page, not a change.
    got = clients[0].get(f"/games/{game.pk}/rounds/1/seen/")
    assert got.status_code == 405 and got["Allow"] == "POST"
    assert (state_fingerprint(game), dismissed(game)) == before
    for client in clients.values():
        assert client.get(f"/games/{game.pk}/").context["round_end"]["round"] == 1


def test_a_private_games_button_tells_a_stranger_nothing(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, seed=7, is_private=True, options={"rounds": [3, 4]}
    )
    play_until_a_round_ends(game, {0: logged_in(ann)})
    response = seen(logged_in(make_user("cid")), game, 1)
    assert response.status_code == 403
    assert 'id="table"' not in response.content.decode() and "Classic" not in response.content.decode()
    assert dismissed(game) == {0: 0, 1: 0}


def test_a_watcher_gets_the_short_result_and_the_round_page_never_the_summary_on_the_table(two_people, make_user):
    game, ann, bob, clients = two_people
    play_until_a_round_ends(game, clients)
    watcher = logged_in(make_user("watcher"))
    response = watcher.get(f"/games/{game.pk}/")
    html = response.content.decode()
    assert response.context["round_end"] is None and summary_section(html) is None
    assert 'class="panel last-round"' in html and f"/games/{game.pk}/rounds/1/" in html
    state = GameState.from_dict((game.refresh_from_db(), game.state)[1])
    events = [e for es in game.moves.values_list("events", flat=True) for e in es]
    assert find_leaks(html, secrets_of(state, None, events=events)) == []


def test_the_summary_never_shows_the_round_in_play_to_the_player(two_people):
    """Copy by copy: the player's table shows their own hand, the public cards, and the finished round once."""
    game, ann, bob, clients = two_people
    play_until_a_round_ends(game, clients)
    for _ in range(3):
        game.refresh_from_db()
        state = GameState.from_dict(game.state)
        events = [e for es in game.moves.values_list("events", flat=True) for e in es]
        for seat, client in clients.items():
            html = client.get(f"/games/{game.pk}/table/?hand=melds").content.decode()
            secrets = secrets_of(state, seat, events=events)
            assert find_leaks(html, secrets, extra_shown=result_cards(state.results[-1])) == []
            # Without the finished round's allowance the checker does see its cards: the test can fail.
            hidden_now = {code for code in secrets.hidden if result_cards(state.results[-1])[code]}
            assert hidden_now <= {leak.what.split(" ")[0] for leak in find_leaks(html, secrets) if leak.kind == "card"}
        seat = game.current_seat
        post_action(clients[seat], game, bots.choose_action(view(state, seat)).to_dict())


def test_at_the_end_of_the_game_everyone_sees_the_last_round_with_the_final_totals(against_bots, make_user):
    game, _, clients = against_bots
    while game.status == Game.Status.ACTIVE:
        play_until_a_round_ends(game, clients)
    watcher = logged_in(make_user("watcher"))
    for client in (clients[0], watcher):
        response = client.get(f"/games/{game.pk}/")
        final = response.context["final_result"]
        assert response.context["round_end"] is None and final["round"] == 3 and "next_round" not in final
        assert [row["total"] for row in final["rows"]] == [s.total_score for s in game.seats.order_by("position")]
        assert final["story"]["went_out"] or final["story"]["stock"]
        assert "Next deal" not in response.content.decode()


def queries_of(client: Client, url: str) -> list[str]:
    """The SQL a request runs (counted as executed: Django's query log is reset when a request starts)."""
    run: list[str] = []

    def count(execute, sql, params, many, context):
        run.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        assert client.get(url).status_code == 200
    return run


def test_the_summary_costs_one_query_more_only_while_it_is_shown(against_bots):
    game, _, clients = against_bots
    play_until_a_round_ends(game, clients)
    url = f"/games/{game.pk}/table/"
    clients[0].get(url)  # a first look: the session is warm
    shown = queries_of(clients[0], url)
    assert seen(clients[0], game, 1).status_code == 302
    after = queries_of(clients[0], url)
    assert len(shown) == len(after) + 1
    assert [sql for sql in shown if sql not in after] == [next(sql for sql in shown if '"round_number" =' in sql)]


@pytest.mark.parametrize(
    "options",
    [
        {"rounds": [3, 11]},
        {"rounds": [12, 13], "double_royal_rounds": True, "face_points": "11-12-13", "wild_points": 15},
    ],
)
def test_each_hand_says_what_its_left_over_cards_count(make_user, classic, options):
    """An accessibility tester: a newcomer read "+22 · left over 2♣ 5♠ 7♠ 8♠" and had to guess that a jack costs
    10 or that the points are their sum.  Each row says "= 2 + 5 + 7 + 8" (in a doubled round "(…) × 2"), and that
    is the row's points, the engine's scoring, for every hand of a played game, whatever the variant."""
    from tests.history.conftest import finish_with_bot_moves

    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, bot_count=2, seed=5, options=options)
    game = finish_with_bot_moves(game)
    counts = []
    for round_number in range(1, len(options["rounds"]) + 1):
        page = logged_in(ann).get(f"/games/{game.pk}/rounds/{round_number}/").content.decode()
        summary = presentation.round_result(
            engine_view(game, None).results[round_number - 1], {}, with_cards=True, rules=Rules.from_dict(game.rules)
        )
        for row in summary["rows"]:
            if not row["deadwood"]:
                assert "deadwood_count" not in row
                continue
            count = row["deadwood_count"]
            assert re.fullmatch(r"[0-9 +()×]+", count)
            assert eval(count.replace("×", "*")) == row["points"] - (row["penalty"] or 0), (count, row)  # noqa: S307
            assert f"= {count}" in page
            counts.append(count)
    assert len(counts) >= 2
    assert any("×" in count for count in counts) == bool(options.get("double_royal_rounds"))
