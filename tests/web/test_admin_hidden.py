"""The admin leaks nothing hidden (issue 11, point 1).

Walks every admin of ``admin.site._registry`` (a new admin is covered without
touching this file): every changelist, change page, history page, custom page
(the moderation steps), action confirmation and autocomplete answer, as a
moderator and as a superuser, and checks that no page carries a hidden card
of a game in play (a card in a hand or the stock that no public record
shows), a seed of a game not finished, or an invite token.  Then it filters
every changelist on the seed, the state and the invite token, directly and
through every relation that reaches a game: each is refused with a 400.
Positive controls show that both checks catch a leak.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib import admin
from django.contrib.auth.hashers import make_password
from django.db.models import Model
from django.test import Client
from django.urls import URLPattern, reverse

from accounts.models import User
from games import services
from games.admin import GameAdmin, StrictLookupsMixin
from games.engine import GameState, Phase
from games.models import AuditRecord, Game, Move, RoundResult

from .conftest import state_fingerprint

REASON = "Checking what the admin shows about a game in play."
#: Seeds of 19 digits: they turn up in a page only if the page shows them.
SEED_IN_PLAY = 4_107_352_918_273_645_019
SEED_OPEN = 3_982_164_507_331_270_846
SEED_FINISHED = 2_716_493_058_812_394_467
#: A card code standing on its own ("2S", "TH", "XX"), not inside a word or a token.
CARD_CODE = re.compile(r"(?<![A-Za-z0-9])([A2-9TJQKX][CDHSX])(?![A-Za-z0-9])")


# -- the world: a private game in play in its 2nd round, an open one and a finished one ---------------


@dataclass
class World:
    in_play: Game
    open: Game
    finished: Game
    superuser: Any
    moderator: Any
    fair: Game  # a provably fair (shuffle version 2) game in play, by dan
    hidden_cards: set[str] = field(default_factory=set)
    secrets: dict[str, str] = field(default_factory=dict)  # what -> the text that must not appear


def client_for(user: Any) -> Client:
    client = Client(raise_request_exception=False)  # a 500 is a status to assert on, not an exception
    client.force_login(user)
    return client


def play_until_a_round_is_scored(game: Game, users: dict[int, Any]) -> None:
    """The people draw from the stock and throw the card back; the bot plays to win. Stops at the 2nd round."""
    for _ in range(400):
        game.refresh_from_db()
        if game.round_results.exists():
            return
        assert game.state is not None
        state = GameState.from_dict(game.state)
        position = state.current_seat
        assert position is not None and position in users, "a bot is to move after its turn"
        if state.phase == Phase.DRAW:
            action = {"type": "draw", "source": "stock" if state.stock else "discard"}
        else:
            hand = state.hands[position]
            card = next(c for c in reversed(hand) if c != state.taken_from_discard)
            action = {"type": "discard", "card": card.code}
        services.game_play(game_id=game.pk, user=users[position], action=action, expected_version=game.version)
    raise AssertionError("no round was scored in 400 moves")


def public_card_codes(state: GameState) -> set[str]:
    """Every card code a public record shows: the move logs and round results of all games, the pile, the table.

    Every game deals from the same codes, so a card of the finished game's record may share its code
    with a card in a hand of the game in play: such codes are not counted as hidden.
    """
    text = " ".join(
        [
            *(f"{move.action} {move.events}" for move in Move.objects.all()),
            *(f"{r.melds} {r.deadwood} {r.laid_off}" for r in RoundResult.objects.all()),
            *(card.code for card in state.discard_pile),
            *(card.code for table_meld in state.table for card in table_meld.meld.cards),
        ]
    )
    return set(CARD_CODE.findall(text))


def build_world(make_user: Any, classic: Any, role_client: Any, *, play: bool) -> World:
    """The games; with ``play``, the game in play is in its 2nd round with a move log and a moderation record."""
    _client, superuser = role_client("superuser", "root")
    _client, moderator = role_client("moderator", "mod")
    ann, bob, cleo = make_user("ann"), make_user("bob"), make_user("cleo")
    in_play = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=3,
        invitees=[bob],
        bot_count=1,
        is_private=True,
        options={"rounds": [3, 4, 5]},
        seed=SEED_IN_PLAY,
    )
    if play:
        play_until_a_round_is_scored(in_play, {0: ann, 1: bob})
        # A moderation record about the game in play (and the bots play on to ann's turn).
        services.seat_hand_to_bot(game_id=in_play.pk, position=1, moderator=moderator, reason=REASON)
    open_game = services.game_create(creator=cleo, variant=classic, seat_count=2, seed=SEED_OPEN, is_private=True)
    finished = services.game_create(
        creator=cleo, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3]}, seed=SEED_FINISHED
    )
    services.seat_hand_to_bot(game_id=finished.pk, position=0, moderator=moderator, reason=REASON)
    # A provably fair (shuffle version 2) game in play: its server seed is as secret as a seed.
    dan = make_user("dan")
    fair = services.game_create(creator=dan, variant=classic, seat_count=2, bot_count=1, options={"rounds": [3, 4]})
    fair.refresh_from_db()
    assert fair.in_play and fair.server_seed
    for game in (in_play, open_game, finished):
        game.refresh_from_db()
    # A user's page shows the first 2 characters of the password's salt ("salt: 2C******"): random text that
    # could read as a card. No usable password, no salt on the page (the tests log in without one).
    User.objects.update(password=make_password(None))
    superuser.refresh_from_db()
    moderator.refresh_from_db()
    assert in_play.status == Game.Status.ACTIVE
    assert open_game.status == Game.Status.OPEN and finished.status == Game.Status.FINISHED

    assert in_play.state is not None
    state = GameState.from_dict(in_play.state)
    assert state.round_number == (2 if play else 1)
    assert AuditRecord.objects.filter(game=in_play).exists() is play
    held = {card.code for hand in state.hands for card in hand} | {card.code for card in state.stock}
    hidden = held - public_card_codes(state)
    assert len(hidden) >= 20, hidden  # enough for the check to mean something
    secrets = {
        f"the seed of game #{in_play.pk} (in play)": str(in_play.seed),
        f"the seed of game #{open_game.pk} (open)": str(open_game.seed),
        f"the server seed of game #{fair.pk} (in play)": fair.server_seed,
        **{f"the invite token of game #{g.pk}": g.invite_token for g in (in_play, open_game, finished)},
    }
    return World(in_play, open_game, finished, superuser, moderator, fair, hidden, secrets)


@pytest.fixture
def world(make_user, classic, role_client) -> World:
    """For the page walks: a game in play with a past round, a move log and a moderation record."""
    return build_world(make_user, classic, role_client, play=True)


@pytest.fixture
def dealt(make_user, classic, role_client) -> World:
    """For the lookups (quicker): the game in play just dealt."""
    return build_world(make_user, classic, role_client, play=False)


def leaks(body: str, world: World) -> list[str]:
    """What of the hidden information ``body`` carries (a card counts when it stands as a code on its own)."""
    text = html.unescape(body)
    found = [f"hidden card {code}" for code in sorted(set(CARD_CODE.findall(text)) & world.hidden_cards)]
    return found + [what for what, secret in world.secrets.items() if secret in text]


# -- discovering the admin: its models, objects, pages ---------------------------------------------


def registry() -> list[tuple[type[Model], admin.ModelAdmin]]:
    return sorted(admin.site._registry.items(), key=lambda item: item[0]._meta.label)


def admin_ids() -> list[str]:
    return [model._meta.label for model, _ma in registry()]


def url_name(model: type[Model], view: str) -> str:
    return f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}"


def object_pages(model: type[Model], model_admin: admin.ModelAdmin, obj: Model) -> Iterator[str]:
    """Every page of the admin's URLs about one object (change, history, delete, password, moderation steps)."""
    for pattern in model_admin.get_urls():
        if not isinstance(pattern, URLPattern) or not pattern.name:
            continue
        params = set(pattern.pattern.converters)
        key = next((name for name in ("object_id", "id") if name in params), None)
        if key is None:
            continue
        extra = params - {key}
        if not extra:
            yield reverse(f"admin:{pattern.name}", kwargs={key: obj.pk})
        elif extra == {"position"} and isinstance(obj, Game):
            for position in range(obj.seat_count):
                yield reverse(f"admin:{pattern.name}", kwargs={key: obj.pk, "position": position})
        else:
            raise AssertionError(f"{pattern.name}: unknown URL parameters {extra}, teach this test to fill them")


def sample_objects(model: type[Model], size: int = 6) -> list[Model]:
    """Objects whose pages the walk opens: those of the game in play first (its latest moves), then others."""
    objects = model._default_manager.order_by("-pk")
    if any(f.name == "game" for f in model._meta.get_fields()):
        in_play = Game.objects.get(status=Game.Status.ACTIVE, shuffle_version=1)  # build_world's ``in_play``
        return [*objects.filter(game=in_play)[: size - 2], *objects.exclude(game=in_play)[:2]]
    return list(objects[:size])


def changelist_pages(model: type[Model]) -> list[str]:
    url = reverse(url_name(model, "changelist"))
    return [url, f"{url}?_facets=1", f"{url}?o=-1"]


def autocomplete_urls() -> Iterator[str]:
    """The autocomplete JSON for every foreign key between registered models, with a few terms."""
    registered = dict(admin.site._registry)
    for model in registered:
        for model_field in model._meta.get_fields():
            if model_field.is_relation and model_field.concrete and model_field.related_model in registered:
                for term in ("", "a"):
                    query = {
                        "app_label": model._meta.app_label,
                        "model_name": model._meta.model_name,
                        "field_name": model_field.name,
                        "term": term,
                    }
                    yield f"/admin/autocomplete/?{urlencode(query)}"


def pages_of_every_admin(client: Client, user: Any) -> Iterator[tuple[str, Any]]:
    """(what, response) for every page of every admin a staff member may ask for."""
    from django.test import RequestFactory

    for url in ("/admin/", "/admin/games/", "/admin/accounts/", "/admin/auth/", "/admin/jsi18n/"):
        yield url, client.get(url)
    request = RequestFactory().get("/admin/")
    request.user = user
    for model, model_admin in registry():
        for url in changelist_pages(model):
            yield url, client.get(url)
        yield reverse(url_name(model, "add")), client.get(reverse(url_name(model, "add")))
        objects = sample_objects(model)
        for obj in objects:
            for url in object_pages(model, model_admin, obj):
                yield url, client.get(url)
        # The confirmation page of every action, for all the objects at once (nothing done without "confirm").
        changelist = reverse(url_name(model, "changelist"))
        for action in model_admin.get_actions(request):
            data = {"action": action, "_selected_action": [obj.pk for obj in objects], "index": 0}
            yield f"{changelist} action {action}", client.post(changelist, data)
    for url in autocomplete_urls():
        yield url, client.get(url)


# -- the pages ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["moderator", "superuser"])
def test_no_admin_page_shows_a_hidden_card_a_seed_of_a_game_in_play_or_an_invite_token(world, role):
    user = world.moderator if role == "moderator" else world.superuser
    client = client_for(user)
    before = state_fingerprint(world.in_play), AuditRecord.objects.count(), User.objects.filter(is_active=True).count()
    shown = 0
    problems: list[str] = []
    for what, response in pages_of_every_admin(client, user):
        if response.status_code >= 500:
            problems.append(f"{what}: {response.status_code}")
            continue
        if response.status_code == 200:
            shown += 1
            found = leaks(response.content.decode(), world)
            if found:
                problems.append(f"{what}: {', '.join(found)}")
    assert not problems, "\n".join(problems)
    # The walk saw real pages (the game's own among them), and changed nothing.
    assert shown >= 60
    after = state_fingerprint(world.in_play), AuditRecord.objects.count(), User.objects.filter(is_active=True).count()
    assert after == before


def test_the_walk_reaches_the_games_page_its_moves_and_the_moderation_steps(world):
    client = client_for(world.moderator)
    game = world.in_play
    page = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    moves = game.moves.count()
    assert f"Move log ({moves} moves)" in page and "Round results" in page and REASON in page
    urls = set(object_pages(Game, admin.site._registry[Game], game))
    assert reverse("admin:games_game_abort", args=[game.pk]) in urls
    assert reverse("admin:games_game_seat_to_bot", args=[game.pk, 0]) in urls
    assert client.get(reverse("admin:games_game_seat_to_bot", args=[game.pk, 0])).status_code == 200


def test_positive_control_the_check_catches_a_page_that_shows_the_state_seed_and_token(world, monkeypatch):
    shown = (*GameAdmin.fields, "state", "seed", "invite_token")
    monkeypatch.setattr(GameAdmin, "fields", shown)
    monkeypatch.setattr(GameAdmin, "readonly_fields", shown)
    response = client_for(world.moderator).get(reverse("admin:games_game_change", args=[world.in_play.pk]))
    assert response.status_code == 200
    found = leaks(response.content.decode(), world)
    assert len([item for item in found if item.startswith("hidden card")]) == len(world.hidden_cards)
    assert f"the seed of game #{world.in_play.pk} (in play)" in found
    assert f"the invite token of game #{world.in_play.pk}" in found
    # ...while the same page as it is shows none of it.
    monkeypatch.undo()
    response = client_for(world.moderator).get(reverse("admin:games_game_change", args=[world.in_play.pk]))
    assert response.status_code == 200 and leaks(response.content.decode(), world) == []


def test_positive_control_one_hidden_card_in_a_page_is_caught(dealt):
    card = sorted(dealt.hidden_cards)[0]
    assert leaks(f"<td>{card}</td>", dealt) == [f"hidden card {card}"]
    assert leaks(f"<td>x{card}</td><td>{card}x</td>", dealt) == []  # part of a word is not a card


# -- the lookups --------------------------------------------------------------------------------------


def paths_to_game(model: type[Model], max_hops: int = 3) -> list[str]:
    """Lookup prefixes from ``model`` to a game ("" for a game itself, "game__", "seats__game__"...).

    Every path of up to ``max_hops`` relations that meets no model twice (a game only as the last).
    """
    found: list[tuple[int, str]] = []
    frontier: list[tuple[str, type[Model], tuple[type[Model], ...]]] = [("", model, (model,))]
    for hops in range(max_hops + 1):
        following = []
        for prefix, current, seen in frontier:
            if current is Game:
                found.append((hops, prefix))
                if hops:
                    continue
            for relation in current._meta.get_fields():
                related = relation.related_model
                if not relation.is_relation or not isinstance(related, type):
                    continue
                if related in seen and related is not Game:
                    continue
                following.append((f"{prefix}{relation.name}__", related, (*seen, related)))
        frontier = following
    return sorted({prefix for _hops, prefix in found})


def hidden_lookups(world: World, prefix: str) -> list[dict[str, str]]:
    """Filters on the hidden fields of a game reached through ``prefix``; ``?id=N&...`` with the first."""
    game = world.in_play
    seed = game.seed
    assert seed is not None
    fair = world.fair
    lookups = [
        {f"{prefix}server_seed__startswith": fair.server_seed[:1]},
        {f"{prefix}server_seed": fair.server_seed},
        {f"{prefix}state__shuffle__server_seed__startswith": fair.server_seed[:1]},
        {f"{prefix}seed__gt": str(seed - 1)},
        {f"{prefix}seed": str(seed)},
        {f"{prefix}seed__range": f"{seed - 10},{seed + 10}"},
        {f"{prefix}state__hands__1__0": sorted(world.hidden_cards)[0]},
        {f"{prefix}state__stock__contains": sorted(world.hidden_cards)[0]},
        {f"{prefix}state__isnull": "0"},
        {f"{prefix}invite_token__gte": game.invite_token[:4]},
        {f"{prefix}invite_token__startswith": game.invite_token[:1]},
    ]
    if not prefix:
        lookups.append({"id": str(game.pk), "seed__gt": str(seed - 1)})
    return lookups


@pytest.mark.parametrize("label", admin_ids())
def test_no_admin_list_filters_on_a_games_seed_state_or_invite_token(dealt, label):
    model, _model_admin = next(item for item in registry() if item[0]._meta.label == label)
    changelist = reverse(url_name(model, "changelist"))
    prefixes = paths_to_game(model, max_hops=2 if model is Game else 3)
    assert prefixes, f"{label}: no relation reaches a game?"
    superuser, moderator = client_for(dealt.superuser), client_for(dealt.moderator)
    moderator_may_look = moderator.get(changelist).status_code == 200
    statuses = []
    for prefix in prefixes:
        for query in hidden_lookups(dealt, prefix):
            url = f"{changelist}?{urlencode(query)}"
            statuses.append((url, superuser.get(url).status_code, 400))
            if not prefix or prefix.count("__") == 1:  # the moderator tries the direct ones
                statuses.append((url, moderator.get(url).status_code, 400 if moderator_may_look else 403))
    assert [(url, got) for url, got, expected in statuses if got != expected] == []


@pytest.mark.parametrize("label", admin_ids())
def test_any_lookup_the_list_does_not_offer_is_refused(dealt, label):
    model, model_admin = next(item for item in registry() if item[0]._meta.label == label)
    assert isinstance(model_admin, StrictLookupsMixin), f"{label}: register its admin with StrictLookupsMixin"
    changelist = reverse(url_name(model, "changelist"))
    client = client_for(dealt.superuser)
    offered = model_admin.offered_lookups(None)
    refused = []
    names = ["pk", "id"] + [f.name for f in model._meta.get_fields() if f.concrete or f.is_relation]
    for name in names:
        for lookup, value in ((name, "1"), (f"{name}__isnull", "0"), (f"{name}__gt", "0")):
            if lookup in offered:
                continue
            status = client.get(f"{changelist}?{urlencode({lookup: value})}").status_code
            if status != 400:
                refused.append((lookup, status))
    assert refused == []


def offered_filter_links(client: Client, model: type[Model]) -> list[str]:
    """The links and date steps the changelist's own filters show."""
    changelist = reverse(url_name(model, "changelist"))
    response = client.get(changelist)
    assert response.status_code == 200
    cl = response.context["cl"]
    links = [
        f"{changelist}{choice['query_string']}"
        for spec in cl.filter_specs
        for choice in spec.choices(cl)
        if "query_string" in choice
    ]
    if cl.date_hierarchy:
        day = model._default_manager.values_list(cl.date_hierarchy, flat=True).first()
        if day is not None:
            name = cl.date_hierarchy
            links.append(f"{changelist}?{name}__year={day.year}&{name}__month={day.month}&{name}__day={day.day}")
    return links


@pytest.mark.parametrize("label", admin_ids())
def test_the_lists_own_filters_still_work(dealt, label):
    model, _model_admin = next(item for item in registry() if item[0]._meta.label == label)
    client = client_for(dealt.superuser)
    links = offered_filter_links(client, model)
    assert [(url, client.get(url).status_code) for url in links if client.get(url).status_code != 200] == []


def test_the_game_lists_filters_find_the_games(dealt):
    client = client_for(dealt.moderator)

    def listed(query: str) -> set[int]:
        response = client.get(f"/admin/games/game/?{query}")
        assert response.status_code == 200, query
        return {game.pk for game in response.context["cl"].result_list}

    day = dealt.in_play.created_at
    assert listed("status__exact=active") == {dealt.in_play.pk, dealt.fair.pk}
    assert listed(f"player=ann&created_at__year={day.year}&created_at__month={day.month}") == {dealt.in_play.pk}
    assert listed("q=cleo") == {dealt.open.pk, dealt.finished.pk}
    assert listed("o=-1&p=0") == {dealt.in_play.pk, dealt.open.pk, dealt.finished.pk, dealt.fair.pk}


BAD_VALUES = ["abc", "²", "١", "9" * 30, "9" * 4301, "99999-01-01", "\x00", ""]


def filter_parameters(model: type[Model], model_admin: Any) -> list[str]:
    params = sorted(model_admin.offered_lookups(None))
    if model_admin.date_hierarchy:
        params += [f"{model_admin.date_hierarchy}__{part}" for part in ("year", "month", "day")]
    return params + ["q", "o", "p"]


@pytest.mark.parametrize("label", admin_ids())
def test_bad_values_in_the_lists_own_filters_never_give_a_500(dealt, label):
    model, model_admin = next(item for item in registry() if item[0]._meta.label == label)
    changelist = reverse(url_name(model, "changelist"))
    client = client_for(dealt.superuser)
    wrong = []
    for param in filter_parameters(model, model_admin):
        for value in BAD_VALUES:
            response = client.get(f"{changelist}?{urlencode({param: value})}")
            fine = response.status_code in (200, 400) or (
                response.status_code == 302 and response["Location"].endswith("?e=1")
            )
            if not fine:
                wrong.append((param, value[:12], response.status_code))
    assert wrong == []


@pytest.mark.parametrize(
    "url",
    [
        "/admin/games/move/?created_at__year=86400",
        "/admin/games/auditrecord/?created_at__year=" + "9" * 30,
        "/admin/games/auditrecord/?created_at__year=2024&created_at__month=" + "9" * 25,
        "/admin/games/game/?created_at__year=86400",
        "/admin/games/game/?state__stock__contains=5D",
        "/admin/games/game/?status__exact=%00",
        "/admin/games/game/?player=ann%00",
        "/admin/games/game/?_to_field=seed",
        "/admin/games/game/?_to_field=invite_token&_popup=1",
    ],
)
def test_the_urls_that_gave_a_500_are_a_400(dealt, url):
    assert client_for(dealt.superuser).get(url).status_code == 400


def test_date_hierarchy_days_that_a_calendar_does_not_have_give_the_lists_error_page(dealt):
    response = client_for(dealt.superuser).get(
        "/admin/games/game/?created_at__year=2024&created_at__month=2&created_at__day=31"
    )
    assert response.status_code == 302 and response["Location"].endswith("?e=1")


def test_positive_control_without_the_strict_lookups_the_seed_is_read_in_about_62_requests(dealt, monkeypatch):
    """The attack of issue 11: bisect ``?id=N&seed__gt=X``. It works with Django's own ``lookup_allowed``."""
    client = client_for(dealt.moderator)
    game = dealt.in_play

    def listed(low: int) -> bool:
        response = client.get(f"/admin/games/game/?id={game.pk}&seed__gt={low}")
        assert response.status_code == 200
        return bool(response.context["cl"].result_count)

    monkeypatch.setattr(StrictLookupsMixin, "lookup_allowed", admin.ModelAdmin.lookup_allowed)
    low, high, requests = 0, 2**62, 0  # the seed is in low+1..high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if listed(middle) else (low, middle)
        requests += 1
    assert high == game.seed and requests <= 63
    monkeypatch.undo()
    assert client.get(f"/admin/games/game/?id={game.pk}&seed__gt=0").status_code == 400


@pytest.mark.parametrize("label", admin_ids())
def test_a_nul_in_a_search_term_never_reaches_the_database(dealt, label):
    """PostgreSQL refuses NUL in text (a 500): the autocomplete's term goes to ``get_search_results`` unchecked."""
    from django.db.models.query import EmptyQuerySet
    from django.test import RequestFactory

    model, model_admin = next(item for item in registry() if item[0]._meta.label == label)
    request = RequestFactory().get("/admin/")
    request.user = dealt.superuser
    queryset, _duplicates = model_admin.get_search_results(request, model._default_manager.all(), "a\x00b")
    assert isinstance(queryset, EmptyQuerySet)


def test_the_autocomplete_refuses_a_nul(dealt):
    client = client_for(dealt.superuser)
    query = {"app_label": "games", "model_name": "seat", "field_name": "game"}
    found = client.get(f"/admin/autocomplete/?{urlencode({**query, 'term': 'ann'})}")
    assert found.status_code == 200 and found.json()["results"]
    refused = client.get(f"/admin/autocomplete/?{urlencode({**query, 'term': 'ann' + chr(0)})}")
    assert refused.status_code == 400  # the site refuses NUL bytes before any view (PostgreSQL cannot hold them)
