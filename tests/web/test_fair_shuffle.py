"""Provably fair shuffles through the site: the commitment, the contributions, the reveal and the check."""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from games import services
from games.engine import FairShuffle, GameState, Rules, action_from_dict, replay
from games.engine.verify import RecordError, verify_record
from games.engine.verify import main as verify_main
from games.history import records
from games.models import Game, Move, Seat
from games.services.fairness import protecting_seats
from tests.history.conftest import finish_with_bot_moves
from tests.web.conftest import logged_in

pytestmark = pytest.mark.django_db

HEX64 = re.compile(r"^[0-9a-f]{64}$")
CREATE = {
    "people": 1,
    "easy_bots": 0,
    "medium_bots": 0,
    "hard_bots": 0,
    "invite": "",
    "time_limit_seconds": 86400,
    "round_count": "",
}


def create_form(classic, **extra: Any) -> dict[str, Any]:
    return {**CREATE, "variant": classic.pk, **extra}


def short_game(classic, creator, *, bots: int = 1, **extra: Any) -> Game:
    return services.game_create(
        creator=creator, variant=classic, seat_count=bots + 1, bot_count=bots, options={"rounds": [3, 4]}, **extra
    )


def contributions(game: Game) -> list[str]:
    return list(game.seats.order_by("position").values_list("seed_contribution", flat=True))


# -- a new game: a fresh seed, its commitment, the contributions ---------------------


def test_a_new_game_draws_a_fresh_256_bit_seed_and_commits_to_it(make_user, classic):
    ann = make_user("ann")
    games = [services.game_create(creator=ann, variant=classic, seat_count=2) for _ in range(3)]
    for game in games:
        assert game.shuffle_version == 2 and game.seed is None
        assert HEX64.match(game.server_seed) and HEX64.match(game.seed_commitment)
        assert hashlib.sha256(bytes.fromhex(game.server_seed)).hexdigest() == game.seed_commitment
    assert len({g.server_seed for g in games}) == 3


def test_the_lobby_form_takes_the_creators_contribution(make_user, classic):
    ann = make_user("ann")
    response = logged_in(ann).post("/games/new/", create_form(classic, seed_contribution="  ann's lucky 7  "))
    assert response.status_code == 302
    game = Game.objects.get()
    assert contributions(game) == ["ann's lucky 7", ""]  # spaces around it dropped; seat 1 is open
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert game.seed_commitment in page and "ann&#x27;s lucky 7" in page
    assert game.server_seed not in page


def test_without_a_contribution_the_creator_gets_a_random_one(make_user, classic):
    ann = make_user("ann")
    assert logged_in(ann).post("/games/new/", create_form(classic)).status_code == 302
    assert re.fullmatch(r"[0-9a-f]{16}", contributions(Game.objects.get())[0])


@pytest.mark.parametrize("text", ["x" * 65, "tab\tinside", "caf\u00e9", "\U0001f0a1"])
def test_a_bad_contribution_refuses_the_create_form_and_makes_no_game(make_user, classic, text):
    response = logged_in(make_user("ann")).post("/games/new/", create_form(classic, seed_contribution=text))
    assert response.status_code == 400
    assert "seed_contribution" in response.context["form"].errors
    assert not Game.objects.exists()


def test_a_contribution_with_a_nul_byte_is_refused_before_the_form_and_makes_no_game(make_user, classic):
    response = logged_in(make_user("ann")).post("/games/new/", create_form(classic, seed_contribution="nul\x00"))
    assert response.status_code == 400
    assert not Game.objects.exists()


def test_joining_from_the_lobby_or_the_table_adds_the_contribution(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, seed_contribution="ann")
    assert logged_in(bob).post(f"/games/{game.pk}/join/", {"seed_contribution": "bob was here"}).status_code == 302
    game.refresh_from_db()
    assert game.status == Game.Status.OPEN and contributions(game) == ["ann", "bob was here", ""]
    lobby = logged_in(cid).get("/").content.decode()
    # The lobby's join button has the field, folded away, and the table's name leads to the table.
    assert re.search(
        r'<details class="seed-field"><summary>[^<]+</summary> <input type="text" name="seed_contribution"', lobby
    )
    assert f'<a class="game-title" href="/games/{game.pk}/">' in lobby
    assert logged_in(cid).post(f"/games/{game.pk}/join/").status_code == 302  # none given: a random one
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    last = contributions(game)[2]
    assert re.fullmatch(r"[0-9a-f]{16}", last)
    assert contributions(game)[:2] == ["ann", "bob was here"]


@pytest.mark.parametrize("text", ["y" * 65, "line\nbreak", "\u0107evapi"])
def test_a_bad_contribution_on_join_is_refused_and_changes_nothing(make_user, classic, text):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2)
    version = game.version
    response = logged_in(bob).post(f"/games/{game.pk}/join/", {"seed_contribution": text})
    assert response.status_code == 400
    assert "seed contribution" in response.content.decode()
    game.refresh_from_db()
    assert game.version == version and game.status == Game.Status.OPEN
    assert not game.seats.filter(user=bob).exists()


def test_the_service_refuses_a_bad_contribution_too(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    with pytest.raises(services.GameError) as refused:
        services.game_create(creator=ann, variant=classic, seat_count=2, seed_contribution="\x07")
    assert refused.value.code == "bad_contribution" and not Game.objects.exists()
    game = services.game_create(creator=ann, variant=classic, seat_count=2)
    with pytest.raises(services.GameError):
        services.game_join(game_id=game.pk, user=bob, seed_contribution="z" * 100)
    assert not game.seats.filter(user=bob).exists()


def test_the_invite_page_takes_a_contribution(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, is_private=True)
    url = f"/games/{game.pk}/invite/{game.invite_token}/"
    assert 'name="seed_contribution"' in logged_in(bob).get(url).content.decode()
    refused = logged_in(bob).post(url, {"seed_contribution": "\u00fcber"})
    assert refused.status_code == 400 and not game.seats.filter(user=bob).exists()
    assert logged_in(bob).post(url, {"seed_contribution": "from the invite"}).status_code == 302
    assert contributions(game)[1] == "from the invite"
    # the token still decides: a wrong one is a 404 whatever the contribution
    assert logged_in(cid).post(f"/games/{game.pk}/invite/wrong/", {"seed_contribution": "x"}).status_code == 404


def test_leaving_clears_the_seats_contribution(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    services.game_join(game_id=game.pk, user=bob, seed_contribution="bob's")
    services.game_leave(game_id=game.pk, user=bob)
    assert contributions(game)[1] == ""


def test_the_deal_fixes_every_seats_contribution_bots_included_and_uses_them(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=4, bot_count=0, seed_contribution="ann")
    services.game_join(game_id=game.pk, user=bob, seed_contribution="bob")
    services.game_start(game_id=game.pk, user=ann)  # bots take seats 2 and 3
    game.refresh_from_db()
    texts = contributions(game)
    assert texts[:2] == ["ann", "bob"] and all(re.fullmatch(r"[0-9a-f]{16}", t) for t in texts[2:])
    state = GameState.from_dict(game.state)
    assert state.shuffle == FairShuffle(bytes.fromhex(game.server_seed), tuple(texts))
    moves = [(m.seat, action_from_dict(m.action)) for m in game.moves.order_by("seq")]
    assert replay(Rules.from_dict(game.rules), 4, game.engine_shuffle(), moves) == state


def test_an_invitee_seated_by_the_creator_gets_a_random_contribution(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed_contribution="a")
    assert game.status == Game.Status.ACTIVE
    assert contributions(game)[0] == "a" and re.fullmatch(r"[0-9a-f]{16}", contributions(game)[1])


# -- who wrote each contribution, and what the proof covers for the game ------------------


def sources(game: Game) -> list[str]:
    return list(game.seats.order_by("position").values_list("seed_contribution_source", flat=True))


def test_an_invite_game_marks_the_sites_contributions_and_says_no_player_typed_one(make_user, classic):
    # the tester's case: invite=bob deals at once, bob never typed anything
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, invitees=[bob], bot_count=1)
    assert game.status == Game.Status.ACTIVE and sources(game) == ["site", "site", "site"]
    table = logged_in(bob).get(f"/games/{game.pk}/")
    fairness = table.context["fairness"]
    assert [c["site"] for c in fairness["contributions"]] == [True, True, True] and not fairness["protected"]
    page = table.content.decode()
    assert page.count("(made up by the site)") == 3 and "No player typed a contribution" in page


def test_a_creators_typed_contribution_protects_nothing_and_says_so(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, seed_contribution="mine")
    assert sources(game) == ["creator", "site"]
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert "(typed when the game was created)" in page and "No player typed a contribution" in page


def test_a_player_who_types_on_joining_last_protects_the_game(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    # the bot's random contribution is made with the game, before bob types his
    game = services.game_create(creator=ann, variant=classic, seat_count=3, bot_count=1)
    assert sources(game) == ["site", "site", ""]
    open_table = logged_in(ann).get(f"/games/{game.pk}/")
    assert "No player typed" not in open_table.content.decode()  # not known before the deal
    services.game_join(game_id=game.pk, user=bob, seed_contribution="bob's luck")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and sources(game) == ["site", "site", "player"]
    fairness = logged_in(ann).get(f"/games/{game.pk}/").context["fairness"]
    assert fairness["protected"] and fairness["coverage"].startswith("bob typed a contribution after the commitment")


def test_a_contribution_the_site_made_up_after_the_players_voids_the_protection(make_user, classic):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    services.game_join(game_id=game.pk, user=bob, seed_contribution="bob's")
    services.game_join(game_id=game.pk, user=cid)  # typed nothing: the site makes one up, after bob's
    game.refresh_from_db()
    assert sources(game) == ["site", "player", "site"]
    fairness = logged_in(ann).get(f"/games/{game.pk}/").context["fairness"]
    assert not fairness["protected"] and fairness["coverage"].startswith("No player typed")


def test_bots_that_fill_seats_at_the_start_are_marked_and_void_the_protection(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, seed_contribution="ann")
    services.game_join(game_id=game.pk, user=bob, seed_contribution="bob")
    services.game_start(game_id=game.pk, user=ann)
    game.refresh_from_db()
    assert sources(game) == ["creator", "player", "site"]
    assert not logged_in(ann).get(f"/games/{game.pk}/").context["fairness"]["protected"]


def test_leaving_clears_who_wrote_the_contribution_too(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)
    services.game_join(game_id=game.pk, user=bob, seed_contribution="bob's")
    services.game_leave(game_id=game.pk, user=bob)
    seat = game.seats.get(position=1)
    assert (seat.seed_contribution, seat.seed_contribution_source, seat.seed_contribution_at) == ("", "", None)


def test_a_rematch_draws_a_new_seed(make_user, classic):
    ann = make_user("ann")
    first = finish_with_bot_moves(short_game(classic, ann))
    new = services.game_rematch(game_id=first.pk, user=ann)
    assert new.shuffle_version == 2 and new.server_seed != first.server_seed
    assert new.seed_commitment == hashlib.sha256(bytes.fromhex(new.server_seed)).hexdigest()
    assert all(contributions(new)) and contributions(new) != contributions(first)


# -- secret while in play -------------------------------------------------------------


def test_the_seed_appears_nowhere_while_the_game_is_in_play(make_user, classic, role_client, monkeypatch):
    from games.live import groups

    sent: list[Any] = []

    class Recorder:
        async def group_send(self, group: str, message: dict) -> None:
            sent.append((group, message))

    monkeypatch.setattr(groups, "get_channel_layer", lambda: Recorder())
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, seed_contribution="ann")
    services.game_join(game_id=game.pk, user=bob)
    watcher = logged_in(make_user("cid"))
    moderator, _user = role_client("moderator")
    superuser, _user = role_client("superuser")
    for step in range(4):
        game.refresh_from_db()
        seed = game.server_seed
        pages = [
            logged_in(ann).get(f"/games/{game.pk}/"),
            logged_in(bob).get(f"/games/{game.pk}/table/"),
            watcher.get(f"/games/{game.pk}/"),
            watcher.get(f"/games/{game.pk}/record/"),
            watcher.get(f"/games/{game.pk}/record.json"),
            watcher.get(f"/games/{game.pk}/fairness/"),
            watcher.get(f"/games/{game.pk}/replay/"),
            logged_in(ann).get(f"/games/{game.pk}/record.json"),
            logged_in(ann).get("/"),
            moderator.get(f"/admin/games/game/{game.pk}/change/"),
            moderator.get("/admin/games/game/"),
            moderator.get("/admin/games/seat/"),
            superuser.get(f"/admin/games/game/{game.pk}/change/"),
        ]
        for response in pages:
            assert seed not in response.content.decode(), response.wsgi_request.path
        assert game.seed_commitment in pages[2].content.decode()
        if step == 0:  # open: two of three seats taken
            services.game_start(game_id=game.pk, user=ann)
            continue
        game.refresh_from_db()
        seat = game.seats.get(position=game.current_seat)
        if seat.user is None:
            break
        from games import bots
        from games.engine import view

        action = bots.choose_action(view(GameState.from_dict(game.state), seat.position))
        services.game_play(game_id=game.pk, user=seat.user, action=action, expected_version=game.version)
    assert logged_in(ann).get(f"/games/{game.pk}/record.json").status_code == 409
    assert game.server_seed not in json.dumps(sent)


def test_the_seed_is_not_in_the_game_admin_fields():
    from django.contrib import admin

    game_admin = admin.site._registry[Game]
    shown = set(game_admin.fields or ()) | set(game_admin.readonly_fields or ()) | set(game_admin.list_display)
    assert not shown & {"server_seed", "seed", "state"}


# -- revealed and checked when the game is over -----------------------------------------


@pytest.fixture
def deterministic(monkeypatch):
    """Seeds and random contributions from a counter, so that a failure replays the same game."""
    from games.services import fairness

    counter = iter(range(10**6))
    monkeypatch.setattr(fairness, "new_server_seed", lambda: hashlib.sha256(b"seed %d" % next(counter)).digest())
    monkeypatch.setattr(fairness, "random_contribution", lambda: f"r{next(counter)}")


@pytest.fixture
def finished(make_user, classic, deterministic):
    ann = make_user("ann")
    game = finish_with_bot_moves(short_game(classic, ann, bots=2, seed_contribution="ann's text"))
    assert game.status == Game.Status.FINISHED
    return game, ann


def test_the_record_page_reveals_the_seed_and_shows_it_verified(finished):
    game, ann = finished
    response = logged_in(ann).get(f"/games/{game.pk}/record/")
    assert response.status_code == 200
    fairness = response.context["fairness"]
    assert fairness["verified"] and all(check["ok"] for check in fairness["checks"]) and len(fairness["checks"]) == 5
    assert [d["round"] for d in fairness["deals"]] == [1, 2]
    page = response.content.decode()
    assert game.server_seed in page and game.seed_commitment in page and "ann&#x27;s text" in page
    assert f"/games/{game.pk}/record.json" in page
    # the finished table links to it and still shows the commitment
    table = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert game.seed_commitment in table and f"/games/{game.pk}/record/#fairness" in table


def test_the_record_and_the_export_keep_who_wrote_each_contribution(finished):
    game, ann = finished
    response = logged_in(ann).get(f"/games/{game.pk}/record/")
    fairness = response.context["fairness"]
    assert [c["by"] for c in fairness["contributions"]] == [
        "typed when the game was created",
        "made up by the site",
        "made up by the site",
    ]
    assert not fairness["protected"] and "No player typed a contribution" in response.content.decode()
    record = json.loads(logged_in(ann).get(f"/games/{game.pk}/record.json").content)
    assert record["contributions_by"] == ["creator", "site", "site"]
    assert verify_record(record).ok  # the verifier takes the export with its new key


def test_the_replay_page_replays_a_version_2_game_from_its_seed(finished):
    game, ann = finished
    last = game.moves.count()
    response = logged_in(ann).get(f"/games/{game.pk}/replay/", {"step": last})
    assert response.status_code == 200 and response.context["state_over"]
    final = GameState.from_dict(game.state)
    assert [h["score"] for h in response.context["hands"]] == list(final.scores)
    first_deal = logged_in(ann).get(f"/games/{game.pk}/replay/", {"step": 0}).context["hands"]
    derived = logged_in(ann).get(f"/games/{game.pk}/record/").context["fairness"]["deals"][0]["hands"]
    assert [sorted(f["code"] for f in h["faces"]) for h in first_deal] == [
        sorted(f["code"] for f in h["faces"]) for h in derived
    ]


def test_the_export_verifies_offline(finished, tmp_path, capsys):
    game, ann = finished
    response = logged_in(ann).get(f"/games/{game.pk}/record.json")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert f'filename="threethirteen-game-{game.pk}.json"' in response["Content-Disposition"]
    record = json.loads(response.content)
    assert record["server_seed"] == game.server_seed and record["contributions"] == contributions(game)
    assert len(record["moves"]) == game.moves.count() and record["shuffle_version"] == 2
    assert verify_record(record).ok
    path = tmp_path / "record.json"
    path.write_bytes(response.content)
    assert verify_main([str(path)]) == 0
    assert capsys.readouterr().out.strip().endswith("VERIFIED")


def tamper_first_draw(game: Game) -> None:
    move = game.moves.order_by("seq").first()
    assert move is not None and move.action["type"] == "draw"
    source = "discard" if move.action["source"] == "stock" else "stock"
    Move.objects.filter(pk=move.pk).update(action={"type": "draw", "source": source})


@pytest.mark.parametrize(
    "tamper",
    [
        lambda game: Game.objects.filter(pk=game.pk).update(server_seed="0" * 64),
        lambda game: Seat.objects.filter(game=game, position=1).update(seed_contribution="forged"),
        lambda game: tamper_first_draw(game),
        lambda game: Game.objects.filter(pk=game.pk).update(seed_commitment="f" * 64),
    ],
    ids=["seed", "contribution", "move", "commitment"],
)
def test_a_tampered_game_shows_a_mismatch_not_an_error(finished, tamper):
    game, ann = finished
    tamper(game)
    response = logged_in(ann).get(f"/games/{game.pk}/record/")
    assert response.status_code == 200
    fairness = response.context["fairness"]
    assert not fairness["verified"] and not all(check["ok"] for check in fairness["checks"])
    assert "does not match" in response.content.decode()


def test_the_record_page_checks_the_commitment_the_player_noted(finished):
    game, ann = finished
    client = logged_in(ann)
    page = client.get(f"/games/{game.pk}/record/")
    assert 'name="commitment"' in page.content.decode() and page.context["fairness"]["noted"] is None
    assert "proves nothing" in page.context["fairness"]["checks"][0]["text"]
    noted = client.get(f"/games/{game.pk}/record/", {"commitment": " " + game.seed_commitment.upper()})
    fairness = noted.context["fairness"]
    assert fairness["verified"] and fairness["noted"] == game.seed_commitment
    assert len(fairness["checks"]) == 6 and fairness["checks"][1]["ok"]
    other = client.get(f"/games/{game.pk}/record/", {"commitment": "0" * 64})
    assert not other.context["fairness"]["verified"] and not other.context["fairness"]["checks"][1]["ok"]
    assert "does not match" in other.content.decode()


@pytest.mark.parametrize("text", ["", "xyz", "0" * 63, "0" * 500, "0" * 32 + " " + "0" * 32])
def test_a_malformed_noted_commitment_is_a_form_error_not_a_500(finished, text):
    game, ann = finished
    response = logged_in(ann).get(f"/games/{game.pk}/record/", {"commitment": text})
    assert response.status_code == 200
    assert response.context["commitment_form"].errors and response.context["fairness"]["noted"] is None
    assert len(response.context["fairness"]["checks"]) == 5  # the check the player asked for is not claimed
    assert 'class="errorlist"' in response.content.decode()


def test_the_table_asks_players_to_note_the_commitment(make_user, classic):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=2)  # open: before the deal
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert game.seed_commitment in page and "Copy this commitment somewhere of your own" in page


def test_the_deals_check_counts_in_words_that_agree_with_the_number(finished):
    game, ann = finished  # two rounds (two deals), too short to empty the stock
    checks = logged_in(ann).get(f"/games/{game.pk}/record/").context["fairness"]["checks"]
    assert checks[1]["text"] == "Derived again from the seed and the contributions: 2 deals and 0 stock rebuilds."
    one_round = finish_with_bot_moves(
        services.game_create(creator=ann, variant=game.variant, seat_count=2, bot_count=1, options={"rounds": [3]})
    )
    text = logged_in(ann).get(f"/games/{one_round.pk}/record/").context["fairness"]["checks"][1]["text"]
    assert "1 deal and" in text and "1 deals" not in text


def test_the_kept_table_is_compared_too(finished):
    game, ann = finished
    state = GameState.from_dict(game.state)
    Game.objects.filter(pk=game.pk).update(state={**state.to_dict(), "move_count": state.move_count + 1})
    checks = logged_in(ann).get(f"/games/{game.pk}/record/").context["fairness"]["checks"]
    assert [c["ok"] for c in checks] == [True, True, True, True, False]


def test_a_stranger_may_not_export_a_players_only_game(finished, make_user):
    game, ann = finished
    Game.objects.filter(pk=game.pk).update(spectators_allowed=False)
    assert logged_in(make_user("eve")).get(f"/games/{game.pk}/record.json").status_code == 403
    assert logged_in(ann).get(f"/games/{game.pk}/record.json").status_code == 200


def test_a_game_called_off_before_its_first_deal_never_reveals_its_seed(make_user, classic, role_client):
    ann = make_user("ann")
    game = services.game_create(creator=ann, variant=classic, seat_count=3)  # open: nobody else sat down
    _client, moderator = role_client("moderator")
    services.game_abort(game_id=game.pk, moderator=moderator, reason="Nobody came.")
    game.refresh_from_db()
    assert game.is_aborted and game.state is None and not game.seed_revealed
    for url in (f"/games/{game.pk}/record.json", f"/games/{game.pk}/fairness/", f"/games/{game.pk}/record/"):
        response = logged_in(ann).get(url)
        assert response.status_code == 409 and game.server_seed not in response.content.decode(), url
    said = logged_in(ann).get(f"/games/{game.pk}/fairness/").content.decode()
    assert "called off before its first deal: there is no deal to check" in said
    assert game.server_seed not in logged_in(ann).get(f"/games/{game.pk}/").content.decode()


@pytest.fixture
def called_off(make_user, classic, role_client, deterministic):
    """ann and bob in a players-only game, called off by a moderator in its second round."""
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], options={"rounds": [3, 4, 5]}
    )
    Game.objects.filter(pk=game.pk).update(spectators_allowed=False)
    from games import bots
    from games.engine import view

    in_round_two = 0
    while in_round_two < 3:  # three moves into the second round
        game.refresh_from_db()
        state = GameState.from_dict(game.state)
        in_round_two += state.round_number == 2
        seat = game.seats.get(position=game.current_seat)
        action = bots.choose_action(view(state, seat.position))
        services.game_play(game_id=game.pk, user=seat.user, action=action, expected_version=game.version)
    _client, moderator = role_client("moderator")
    services.game_abort(game_id=game.pk, moderator=moderator, reason="A fault at the table.")
    game.refresh_from_db()
    return game, ann, bob


def test_a_game_called_off_after_its_deal_reveals_its_seed_to_check_the_deals_played(called_off, tmp_path, capsys):
    game, ann, bob = called_off
    # The table says where the check is; the record and the replay stay closed (the game has no end).
    table = logged_in(bob).get(f"/games/{game.pk}/").content.decode()
    assert f"/games/{game.pk}/fairness/#fairness" in table and game.server_seed not in table
    assert logged_in(bob).get(f"/games/{game.pk}/record/").status_code == 409
    response = logged_in(bob).get(f"/games/{game.pk}/fairness/")
    assert response.status_code == 200
    fairness = response.context["fairness"]
    assert fairness["verified"] and all(check["ok"] for check in fairness["checks"])
    assert [d["round"] for d in fairness["deals"]] == [1, 2]  # the round in play when it was called off too
    page = response.content.decode()
    assert game.server_seed in page and "The replay stops where the game was called off" in page
    # Checked offline as a player would, with the commitment noted at the table.
    export = logged_in(bob).get(f"/games/{game.pk}/record.json")
    record = json.loads(export.content)
    assert record["called_off"] is True and record["final_scores"] == [s.total_score for s in game.seats.all()]
    path = tmp_path / "record.json"
    path.write_text(export.content.decode())
    assert verify_main([str(path), "--commitment", game.seed_commitment]) == 0
    # It says where the game stops: a record cut short and called "called off" proves no more than that.
    said = capsys.readouterr().out
    moves = len(record["moves"])
    assert f"the record says the game was called off after {moves} move(s), in round 2" in said
    assert f"called off after move {moves}, in round 2." in page
    # A forged file that says the game finished there (or a finished game's that says it was called off) fails.
    assert not verify_record({**record, "called_off": False}).passed("final scores")
    with pytest.raises(RecordError, match="called_off is true or false"):
        verify_record({**record, "called_off": "yes"})


def test_a_called_off_games_check_is_for_those_who_may_see_the_game(called_off, make_user):
    game, ann, bob = called_off
    eve = logged_in(make_user("eve"))  # a stranger to a players-only game
    for url in (f"/games/{game.pk}/fairness/", f"/games/{game.pk}/record.json"):
        response = eve.get(url)
        assert response.status_code == 403 and game.server_seed not in response.content.decode(), url
    assert logged_in(ann).get(f"/games/{game.pk}/fairness/").status_code == 200


def test_a_finished_games_record_that_says_it_was_called_off_fails(finished):
    game, _ann = finished
    record = records.fair_record_export(game=game)
    assert record["called_off"] is False and verify_record(record).ok
    assert not any("called off" in line for line in verify_record(record).lines())
    assert not verify_record({**record, "called_off": True}).passed("final scores")


def test_a_version_1_game_has_no_fairness_block_and_no_export(make_user, classic):
    ann = make_user("ann")
    game = finish_with_bot_moves(short_game(classic, ann, seed=5))
    assert game.shuffle_version == 1 and game.server_seed == "" and game.seed == 5
    response = logged_in(ann).get(f"/games/{game.pk}/record/")
    assert response.status_code == 200 and response.context["fairness"] is None
    assert logged_in(ann).get(f"/games/{game.pk}/record.json").status_code == 404
    assert "Fair shuffle" not in logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert logged_in(ann).get(f"/games/{game.pk}/replay/", {"step": 4}).status_code == 200


def test_unknown_game_export_is_a_404(make_user):
    assert logged_in(make_user("ann")).get("/games/999999/record.json").status_code == 404


def test_the_record_page_check_costs_one_query_more(finished, django_assert_max_num_queries):
    from tests.history.test_queries import RECORD_QUERIES

    game, ann = finished
    client = logged_in(ann)
    with django_assert_max_num_queries(RECORD_QUERIES + 1):
        assert client.get(f"/games/{game.pk}/record/").status_code == 200


def test_export_reads_a_fixed_number_of_queries(finished, django_assert_max_num_queries):
    game, _ann = finished
    with django_assert_max_num_queries(2):
        records.fair_record_export(game=game)


# -- the migration: games stored before it are version 1 and replay as before --------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_makes_existing_games_version_1():
    executor = MigrationExecutor(connection)
    executor.migrate([("games", "0008_history_ratings")])
    old_apps = executor.loader.project_state([("games", "0008_history_ratings")]).apps
    OldGame = old_apps.get_model("games", "Game")
    old = OldGame.objects.create(variant_name="Classic", rules=Rules().to_dict(), seed=77, seat_count=2)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    game = Game.objects.get(pk=old.pk)
    assert (game.shuffle_version, game.seed, game.server_seed, game.seed_commitment) == (1, 77, "", "")
    assert game.engine_shuffle().to_dict() == {"version": 1, "seed": 77}


@pytest.mark.django_db(transaction=True)
def test_the_migration_marks_who_wrote_existing_contributions_never_claiming_too_much(make_user):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    executor = MigrationExecutor(connection)
    executor.migrate([("games", "0017_audit_target_parts")])
    old_apps = executor.loader.project_state([("games", "0017_audit_target_parts")]).apps
    OldGame, OldSeat = old_apps.get_model("games", "Game"), old_apps.get_model("games", "Seat")
    started = timezone.now()
    joined = started - datetime.timedelta(hours=1)
    old = OldGame.objects.create(
        variant_name="Classic",
        rules=Rules().to_dict(),
        seat_count=4,
        shuffle_version=2,
        server_seed="0" * 64,
        seed_commitment="1" * 64,
        created_by_id=ann.pk,
        status="active",
        started_at=started,
    )
    texts = ["ann's", "bob's", "0123456789abcdef", "0123456789abcdef"]  # the last is a bot's, made at the deal
    users = [ann.pk, bob.pk, cid.pk, None]
    for position, (text, user) in enumerate(zip(texts, users, strict=True)):
        OldSeat.objects.create(
            game=old, position=position, user_id=user, joined_at=joined, seed_contribution=text, bot_level=""
        )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    game = Game.objects.get(pk=old.pk)
    seats = list(game.seats.order_by("position"))
    assert [s.seed_contribution_source for s in seats] == ["creator", "player", "site", "site"]
    # the site's were perhaps made at the deal, after bob typed his: no protection is claimed
    assert seats[2].seed_contribution_at == started and seats[1].seed_contribution_at == joined
    assert protecting_seats(seats) == []
