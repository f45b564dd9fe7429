"""The standing leak sweep (issue 11, point 8): two whole games played through the site while
everyone looks, and no party ever receives a card it may not see at that moment.

The games (rules cut to two rounds of 3 and 4 cards):

* ``W``: ann (seat 0), bob (seat 1) and a bot; others may watch.  Three seats play with
  two decks, so the same card code is often in two places at once: the checker counts
  copies (``tests/leaks.py``).  Redemption is on, so melds are laid on the table too.
* ``P``: ann and a bot, private and players only: bob, the watcher and the staff are
  strangers to it and must be refused.

The parties: ann and bob (players), ``watcher`` (signed in, no seat), an anonymous
visitor, a moderator (staff in the "Moderators" group) and a superuser; the two staff
also walk the admin.  People move through the HTTP play endpoint (the bots' choice for
them); the bots move by themselves.  Each party fetches every page it may reach (when:
see the cadences below):

* every named URL of the site, read from the URL resolver (games/urls.py,
  accounts/urls.py, i18n), reversed with each game, each round played so far, each
  player's and the watcher's name, the invite token (the real one for its players); the table page and
  its partial ``/games/<id>/table/``, the chat partial ``/games/<id>/chat/``; after the end,
  replay steps, and the game's analysis (a player asks for it as the game ends, and it is made then).
  A URL added later is swept as well; one whose arguments the sweep cannot fill fails the test;
* for the staff: the admin index and app pages and every URL of every model admin
  of ``admin.site._registry`` (changelist, add, change, history, delete, and the
  custom pages: abort, hand a seat to a bot, deactivate, password) for everything
  about the two games: the games, seats, moves (each once, when it appears), round
  results, audit records, the parties' accounts, the variant, the groups;
* the WebSocket messages of the game sockets (for each party that may open them: the
  others are refused, and that is checked) and of the user sockets.

ann looks at her hand arranged into its best melds, bob at his in his own order. When
a round ends, each player's table shows that round's summary (every hand in its melds)
until the player moves on: the sweep allows those cards, counted copy by copy, on that
player's table only; bob moves on after each full sweep (his table then may show none),
ann never does.

Two cadences keep it within a minute: after every move, each party fetches what a
move may change (``MOVE_NAMES``: the table, its partial, the rounds, the record and
replay of each game it may watch, the lobby, "my games"; a refused party the table
and partial; the moderator the admin's games, moves and round results); everything
else (log-in and password pages, stats and history, which list finished games only,
the POST-only endpoints answering a GET with 405, the rest of the admin, the whole
superuser) is fetched at the start, at each new deal and at the end: moments with
cards hidden too, so a page that showed one would still be caught.

What a party may not see at one moment is computed from the engine state
(``tests.leaks.secrets_of``): other seats' hands and the stock while the game is in
play (the discard pile's top, the melds on the table and finished rounds are public;
at the end everything is), the seed while the game is in play, the invite token
for anyone without a seat, and, for the players while the game is in play, the words the
watcher posted in the watchers' chat (table talk: the players and the watcher chat too).
``tests.leaks.find_leaks`` says how a page is read (the
rules pages' examples, "7♣ 7♦ 7♠" and the example melds drawn as cards, read before any game
exists, are allowed there).
A leak fails the test as "party GET url: kind card" (or "party WS path: ..."); the
test prints its figures (moves, pages by status, card elements read, messages, time).

Positive controls: at the first move the selector that builds ann's table is patched
to slip one of bob's cards into her hand, and the same fetch-and-check must report
exactly that card on her table page and partial; ``test_the_checker_*`` feed the
checker pages and messages with one hidden card, a state dump, the seed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib import admin
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from accounts.models import User
from games import analysis, bots, presentation, selectors, services
from games.engine import GameState, view
from games.live import consumers, heartbeat
from games.models import Game, Move, RoundResult, Seat, Variant
from games.templatetags.cards import card_html
from tests.leaks import (
    Leak,
    Secrets,
    card_marks,
    find_leaks,
    find_leaks_in_message,
    result_cards,
    secrets_of,
    text_of,
    words,
)
from tests.live.conftest import session_cookie
from tests.web.conftest import logged_in, post_action
from threethirteen_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = [3, 4]
ORIGIN = b"http://127.0.0.1"

#: Pages a person who may not watch a game must be refused (403), and an anonymous visitor sent to log in.
WATCHED_NAMES = {"games:table", "games:table_partial", "games:round", "games:record", "games:replay", "games:chat"}
#: What a move may change, fetched after every move: the table and its partial, the rounds, the record
#: and the replay (refused until the end) of each game one may watch, the lobby and "my games".
MOVE_NAMES = WATCHED_NAMES | {"games:lobby", "games:my_games"}
#: ... and for a party refused a game (a stranger, an anonymous visitor): its table and partial.
REFUSED_MOVE_NAMES = {"games:table", "games:table_partial"}
#: Admin pages a move may change, fetched by the moderator after every move (for Game, Move, RoundResult).
MOVE_ADMIN_MODELS = {Game, Move, RoundResult}
#: The superuser sees what the moderator sees and more: at the start, at each deal and at the end.
FULL_SWEEPS_ONLY = {"superuser"}


def named_urls(patterns: Iterable[Any] | None = None, namespace: str = "") -> dict[str, set[str]]:
    """Every URL name of the site outside the admin ("games:table", "login", ...) and its arguments."""
    names: dict[str, set[str]] = {}
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            if inner != "admin:":
                names |= {
                    name: args | set(pattern.pattern.converters)
                    for name, args in named_urls(pattern.url_patterns, inner).items()
                }
        elif isinstance(pattern, URLPattern) and pattern.name:
            names[namespace + pattern.name] = set(pattern.pattern.converters)
    return names


def admin_urls() -> dict[str, tuple[type, set[str]]]:
    """Every URL name of the admin's model pages ("games_game_change", ...): its model and its arguments."""
    return {
        pattern.name: (model, set(pattern.pattern.converters))
        for model, model_admin in admin.site._registry.items()
        for pattern in model_admin.get_urls()
        if pattern.name
    }


def state_of(game: Game) -> GameState:
    assert game.state is not None, f"game {game.pk} was not dealt"
    return GameState.from_dict(game.state)


def public_events(game: Game) -> list[dict[str, Any]]:
    """The game's public engine events so far (what anyone saw happen: the admin's move pages show them)."""
    events = [event for events in Move.objects.filter(game=game).values_list("events", flat=True) for event in events]
    for event in events:  # the public log itself never names a card drawn from the stock
        if event.get("kind") == "drew" and event["data"].get("source") == "stock":
            assert "card" not in event["data"], f"game {game.pk}: a stock draw names its card: {event}"
    return events


def game_secrets(game: Game, seat: int | None) -> Secrets:
    """What ``seat`` (None: anyone without a seat at ``game``) may not see now."""
    return secrets_of(
        state_of(game),
        seat,
        events=public_events(game),
        seed=game.seed,
        server_seed=game.server_seed,
        invite_token="" if seat is not None else game.invite_token,
    )


# -- the parties and their sockets ---------------------------------------------------------


@dataclass
class Party:
    name: str
    user: Any
    client: Client
    staff: bool = False
    #: Seat position in each game (by game id) where this party plays.
    seats: dict[int, int] = field(default_factory=dict)


def communicator(path: str, user: Any) -> WebsocketCommunicator:
    headers = [(b"origin", ORIGIN), (b"host", b"127.0.0.1")]
    if user is not None:
        headers.append((b"cookie", f"sessionid={session_cookie(user)}".encode()))
    return WebsocketCommunicator(application, path, headers=headers)


@dataclass
class Socket:
    party: Party
    path: str
    game: Game | None
    comm: WebsocketCommunicator


# -- the sweep -----------------------------------------------------------------------------


@dataclass
class Sweep:
    games: list[Game]
    parties: list[Party]
    #: Cards the rules pages name whatever the game (their examples), read before any game existed.
    rules_examples: frozenset[str] = frozenset()
    #: Card elements the rules pages draw whatever the game (their example melds), read likewise.
    rules_example_cards: Counter[str] = field(default_factory=Counter)
    pages: int = 0
    #: Card elements (data-card) read on the pages: the checker had cards to look at.
    cards_read: int = 0
    messages: int = 0
    by_socket: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: Moves people made through the play endpoint, per game; sweeps made (full ones).
    moves: Counter[int] = field(default_factory=Counter)
    sweeps: Counter[str] = field(default_factory=Counter)
    seconds_fetching: float = 0.0
    statuses: Counter[int] = field(default_factory=Counter)
    leaks: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    swept_names: set[str] = field(default_factory=set)
    swept_models: set[type] = field(default_factory=set)
    #: Moves and round results never change: each change page is fetched once, when the object appears.
    seen_pks: dict[type, int] = field(default_factory=dict)
    rounds_seen: dict[int, int] = field(default_factory=dict)
    #: Words posted in each game's watchers' chat (by game id): its players may not read them during play.
    watchers_words: dict[int, str] = field(default_factory=dict)

    def secrets(self, party: Party, game: Game) -> Secrets:
        secrets = game_secrets(game, party.seats.get(game.pk))
        words = self.watchers_words.get(game.pk)
        if words and game.pk in party.seats and game.status == Game.Status.ACTIVE:
            secrets = dataclasses.replace(secrets, strings=secrets.strings | {words})
        return secrets

    def all_secrets(self, party: Party, games: list[Game] | None = None) -> Secrets:
        per_game = [self.secrets(party, game) for game in games or self.games]
        return sum(per_game[1:], per_game[0])

    # Fetching and checking ---------------------------------------------------------------------

    def fetch(
        self,
        party: Party,
        url: str,
        secrets: Secrets,
        *,
        extra: Counter[str] | None = None,
        expect: int | None = None,
        name: str = "",
    ) -> Any:
        started = time.perf_counter()
        response = party.client.get(url)
        self.seconds_fetching += time.perf_counter() - started
        self.pages += 1
        self.statuses[response.status_code] += 1
        if response.status_code >= 500 or (expect is not None and response.status_code != expect):
            self.problems.append(f"{party.name} GET {url}: {response.status_code}, expected {expect or 'no 5xx'}")
        if expect == 302 and party.user is None and not response["Location"].startswith(reverse("login")):
            self.problems.append(f"{party.name} GET {url}: sent to {response['Location']}, not to log in")
        body = response.content.decode()
        self.cards_read += body.count('data-card="')
        said = self.rules_examples if name in ("games:rules", "games:game_rules") else frozenset()
        if name in ("games:rules", "games:game_rules"):
            extra = (extra or Counter()) + self.rules_example_cards
        for leak in find_leaks(body, secrets, extra_shown=extra, extra_said=said):
            self.leaks.append(f"{party.name} GET {url}: {leak}")
        return response

    def watched_status(self, party: Party, game: Game) -> int:
        """What a page about a game answers: log in first (302), refused (403), or shown (200)."""
        if party.user is None:
            return 302
        return 200 if selectors.may_watch(game=game, user=party.user) else 403

    def sweep_game(self, party: Party, game: Game, *, full: bool) -> None:
        """The pages about one game (named URLs with a ``game_id``)."""
        secrets = self.secrets(party, game)
        state = state_of(game)
        watching = self.watched_status(party, game)
        names = MOVE_NAMES if watching == 200 else REFUSED_MOVE_NAMES
        for name, args in sorted(named_urls().items()):
            if "game_id" not in args or not (full or name in names):
                continue
            self.swept_names.add(name)
            expect = watching if name in WATCHED_NAMES else None
            if args == {"game_id", "token"}:  # the invite link: the real one for its players, a guess for others
                token = game.invite_token if game.pk in party.seats else "not-the-invite-token"
                self.fetch(party, reverse(name, args=[game.pk, token]), secrets)
            elif args == {"game_id", "round_number"}:  # every round so far: the finished ones and the one in play
                for number in range(1, state.round_number + 1):
                    finished = number <= len(state.results)
                    extra = result_cards(state.results[number - 1]) if finished and name == "games:round" else None
                    status = 404 if expect == 200 and not finished else expect
                    self.fetch(party, reverse(name, args=[game.pk, number]), secrets, extra=extra, expect=status)
            elif name in ("games:table", "games:table_partial"):
                extra = self.summary_cards(party, game, state)
                self.fetch(party, reverse(name, args=[game.pk]), secrets, extra=extra, expect=expect, name=name)
            elif name in ("games:record", "games:replay"):
                over = game.status == Game.Status.FINISHED
                status = 409 if expect == 200 and not over else expect
                url = reverse(name, args=[game.pk])
                self.fetch(party, url, secrets, expect=status)
                if name == "games:replay" and over and status == 200:
                    last = Move.objects.filter(game=game).count()
                    for step in sorted({0, 1, last // 2, last - 1, last}):
                        self.fetch(party, f"{url}?step={step}", secrets, expect=200)
            elif args == {"game_id"}:
                self.fetch(party, reverse(name, args=[game.pk]), secrets, expect=expect, name=name)
            else:
                self.problems.append(f"the sweep does not know how to reverse {name} {sorted(args)}: teach it")

    def summary_cards(self, party: Party, game: Game, state: GameState) -> Counter[str] | None:
        """The cards a player's table may show besides the round in play: those of the last finished round,
        in its summary, until the player moves on from it (``Seat.summary_dismissed_round``); nobody else's."""
        position = party.seats.get(game.pk)
        if position is None or state.is_over or not state.results:
            return None
        dismissed = Seat.objects.get(game=game, position=position).summary_dismissed_round
        return result_cards(state.results[-1]) if dismissed < len(state.results) else None

    def move_on(self, party: Party, game: Game) -> None:
        """``party`` presses "Next deal" under the summary of the round that just ended."""
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE or not state_of(game).results:
            return
        finished = len(state_of(game).results)
        response = party.client.post(reverse("games:round_seen", args=[game.pk, finished]))
        if response.status_code != 302:
            self.problems.append(f"{party.name} could not move on from round {finished}: {response.status_code}")

    def sweep_site(self, party: Party, secrets: Secrets, *, full: bool) -> None:
        """The pages about no game in particular."""
        usernames = [p.user.username for p in self.parties if p.user is not None and not p.staff]
        for name, args in sorted(named_urls().items()):
            if "game_id" in args or not (full or name in MOVE_NAMES):
                continue
            self.swept_names.add(name)
            if args == {"username"}:  # every party's stats and history
                for username in usernames:
                    self.fetch(party, reverse(name, args=[username]), secrets)
            elif args == {"uidb64", "token"}:
                self.fetch(party, reverse(name, args=["MQ", "set-password"]), secrets)
            elif not args:
                self.fetch(party, reverse(name), secrets, name=name)
            else:
                self.problems.append(f"the sweep does not know how to reverse {name} {sorted(args)}: teach it")

    def admin_objects(self, *, full: bool) -> dict[type, list[Any]]:
        """The objects whose admin pages the staff look at now (moves and round results: the new ones)."""
        games = self.games
        objects: dict[type, list[Any]] = {
            model: list(model.objects.filter(game__in=games, pk__gt=self.seen_pks.get(model, 0)).order_by("pk"))
            for model in (Move, RoundResult)
        }
        objects[Game] = games
        if not full:
            return objects
        objects[User] = [p.user for p in self.parties if p.user is not None]
        objects[Variant] = list(Variant.objects.filter(games__in=games).distinct())
        for model in admin.site._registry:
            if model not in objects:  # seats, audit records, groups, and whatever is registered later
                fields = {f.name for f in model._meta.get_fields()}
                manager = model._default_manager
                objects[model] = list(manager.filter(game__in=games) if "game" in fields else manager.all()[:20])
        return objects

    def sweep_admin(self, party: Party, secrets: Secrets, objects: dict[type, list[Any]], *, full: bool) -> None:
        """The admin: every page of every registered model (after a move: the lists and pages a move changes)."""
        if full:
            self.fetch(party, reverse("admin:index"), secrets, expect=200)
            for app_label in sorted({model._meta.app_label for model in admin.site._registry}):
                self.fetch(party, reverse("admin:app_list", args=[app_label]), secrets)
        for name, (model, args) in sorted(admin_urls().items()):
            if not full and (model not in MOVE_ADMIN_MODELS or not name.endswith(("_changelist", "_change"))):
                continue
            self.swept_models.add(model)
            self.swept_names.add(f"admin:{name}")
            if not args:
                self.fetch(party, reverse(f"admin:{name}"), secrets)
            elif args in ({"object_id"}, {"id"}):
                for obj in objects[model]:
                    self.fetch(party, reverse(f"admin:{name}", args=[obj.pk]), secrets)
            elif args == {"object_id", "position"} and model is Game:
                for game in objects[Game]:
                    for seat in game.seats.all():
                        self.fetch(party, reverse(f"admin:{name}", args=[game.pk, seat.position]), secrets)
            else:
                self.problems.append(f"the sweep does not know how to reverse admin:{name} {sorted(args)}: teach it")

    def sweep(self, *, full: bool) -> None:
        """Every party fetches the pages it may reach (``full``: all of them; else those a move may change)."""
        self.sweeps["full" if full else "after a move"] += 1
        for game in self.games:
            game.refresh_from_db()
        objects = self.admin_objects(full=full)
        for party in self.parties:
            if not full and party.name in FULL_SWEEPS_ONLY:
                continue
            for game in self.games:
                self.sweep_game(party, game, full=full)
            everything = self.all_secrets(party)
            self.sweep_site(party, everything, full=full)
            if party.staff:
                self.sweep_admin(party, everything, objects, full=full)
        for model in (Move, RoundResult):
            if objects[model]:
                self.seen_pks[model] = objects[model][-1].pk

    def new_round(self) -> bool:
        """Has a game dealt a new round (or ended) since the last look?"""
        changed = False
        for game in self.games:
            game.refresh_from_db()
            mark = -1 if game.status != Game.Status.ACTIVE else state_of(game).round_index
            changed |= self.rounds_seen.get(game.pk) != mark
            self.rounds_seen[game.pk] = mark
        return changed

    # WebSocket messages --------------------------------------------------------------------------

    def check_message(self, socket: Socket, text: str) -> None:
        self.messages += 1
        self.by_socket[socket.party.name, socket.path] += 1
        secrets = self.all_secrets(socket.party, [socket.game] if socket.game is not None else None)
        for leak in find_leaks_in_message(text, secrets):
            self.leaks.append(f"{socket.party.name} WS {socket.path}: {leak}")


def person_moves(game: Game, clients: dict[int, Client]) -> bool:
    """The person whose turn it is plays (the bot's choice for them) through the play endpoint."""
    game.refresh_from_db()
    if game.status != Game.Status.ACTIVE:
        return False
    seat = game.current_seat
    assert seat in clients, f"game {game.pk}: seat {seat} to play is not a person's"
    action = bots.choose_action(view(state_of(game), seat)).to_dict()
    response = post_action(clients[seat], game, action)
    assert response.status_code == 302, response.content.decode()[:500]
    return True


def leak_into_anns_hand(game: Game, ann: Party, bob: Party, monkeypatch: pytest.MonkeyPatch, sweep: Sweep) -> None:
    """Positive control: a selector that slips one of bob's cards into ann's hand must be caught."""
    state = state_of(game)
    card = state.hands[bob.seats[game.pk]][0]
    real_view = selectors.view

    def leaky_view(state: GameState, seat: int | None) -> Any:
        seen = real_view(state, seat)
        if seat == ann.seats[game.pk] and seen.hand is not None:
            seen = dataclasses.replace(seen, hand=(*seen.hand, card))
        return seen

    secrets = sweep.secrets(ann, game)
    before = len(sweep.leaks)
    with monkeypatch.context() as patch:
        patch.setattr(selectors, "view", leaky_view)
        for name in ("games:table", "games:table_partial"):
            sweep.fetch(ann, reverse(name, args=[game.pk]), secrets, expect=200)
    caught, sweep.leaks[before:] = sweep.leaks[before:], []
    sweep.pages -= 2
    # Each page shows the card (its markup) and names it (its full name, read by screen readers).
    assert len(caught) == 4, caught
    kinds = sorted(line.split(": ", 1)[1].split(" ", 1)[0] for line in caught)
    assert kinds == ["card", "card", "word", "word"], caught
    assert all(f" {card.code}" in line and line.startswith("ann GET") for line in caught), caught


def leak_watchers_chat_to_ann(game: Game, ann: Party, monkeypatch: pytest.MonkeyPatch, sweep: Sweep) -> None:
    """Positive control: a chat rule that lets players read the watchers' channel in play must be caught."""
    from games import chat_selectors

    real_access = chat_selectors.chat_access

    def leaky_access(**kwargs: Any) -> chat_selectors.ChatAccess:
        access = real_access(**kwargs)
        readable = (chat_selectors.PLAYERS, chat_selectors.WATCHERS) if access.readable else ()
        return dataclasses.replace(access, readable=readable)

    secrets = sweep.secrets(ann, game)
    before = len(sweep.leaks)
    with monkeypatch.context() as patch:
        patch.setattr(chat_selectors, "chat_access", leaky_access)
        for name in ("games:table", "games:chat"):
            sweep.fetch(ann, reverse(name, args=[game.pk]), secrets, expect=200)
    caught, sweep.leaks[before:] = sweep.leaks[before:], []
    sweep.pages -= 2
    assert len(caught) == 2 and all("secret watchers-only-words" in line for line in caught), caught


@pytest.mark.slow
def test_no_party_ever_sees_a_card_it_may_not(make_user, classic, django_user_model, monkeypatch):
    # The tests run without a move clock (GAMECLOCK_IN_SERVER=0): here one is up, as on a site, so that /healthz
    # answers 200 like every other page instead of 503 "clock stale" (tests/web/test_health.py tests that).
    monkeypatch.setattr(heartbeat, "seconds_since_beat", lambda **_: 0.0)
    rules_page = Client().get(reverse("games:rules")).content.decode()
    rules_examples = frozenset(words(text_of(rules_page)))
    assert rules_examples  # "7♣ 7♦ 7♠", "A♥ 2♥ 3♥": read before any game exists
    rules_example_cards = card_marks(rules_page)[0]
    assert rules_example_cards["7C"] == 1  # the example melds, drawn as cards, likewise
    ann_user, bob_user, watcher_user = make_user("ann"), make_user("bob"), make_user("watcher")
    moderator_user = django_user_model.objects.create_user(
        username="moderator", email="moderator@example.com", password="a-long-pass-phrase-42", is_staff=True
    )
    moderator_user.groups.add(Group.objects.get(name="Moderators"))
    superuser = django_user_model.objects.create_superuser("root", "root@example.com", "a-long-pass-phrase-42")

    public = services.game_create(
        creator=ann_user,
        variant=classic,
        seat_count=3,
        invitees=[bob_user],
        bot_count=1,
        options={"rounds": ROUNDS, "redemption": True},
        seed=7_364_019_283_746_519,
        spectators_allowed=True,
    )
    # The private game is provably fair (shuffle version 2); its server seed and the seats' random
    # contributions are fixed here so that every run deals the same cards (a sweep that changes with
    # each run would be a flaky one).
    from games.services import fairness

    monkeypatch.setattr(fairness, "new_server_seed", lambda: bytes(range(32)))
    contributions = iter(f"seat-{n}" for n in range(100))
    monkeypatch.setattr(fairness, "random_contribution", lambda: next(contributions))
    private = services.game_create(
        creator=ann_user,
        variant=classic,
        seat_count=2,
        bot_count=1,
        options={"rounds": ROUNDS},  # no seed: a provably fair game, whose server seed is secret in play
        is_private=True,
        spectators_allowed=False,
    )
    assert public.status == private.status == Game.Status.ACTIVE

    ann = Party("ann", ann_user, logged_in(ann_user), seats={public.pk: 0, private.pk: 0})
    bob = Party("bob", bob_user, logged_in(bob_user), seats={public.pk: 1})
    parties = [
        ann,
        bob,
        Party("watcher", watcher_user, logged_in(watcher_user)),
        Party("anonymous", None, Client()),
        Party("moderator", moderator_user, logged_in(moderator_user), staff=True),
        Party("superuser", superuser, logged_in(superuser), staff=True),
    ]
    sweep = Sweep(
        games=[public, private],
        parties=parties,
        rules_examples=rules_examples,
        rules_example_cards=rules_example_cards,
    )
    players = {public.pk: {0: ann.client, 1: bob.client}, private.pk: {0: ann.client}}
    # ann looks at her hand arranged into its best melds (kept in her session), bob in his own order.
    assert ann.client.get(reverse("games:table", args=[public.pk]) + "?hand=melds").context["arranged"]

    # Table talk: the players chat in both games; the watcher writes in the public game's watchers'
    # channel, which its players may not read until the end (a secret string for them meanwhile).
    services.chat_post(game_id=public.pk, user=ann_user, text="Good luck, bob!", channel="players")
    services.chat_post(game_id=public.pk, user=bob_user, text="", phrase="good_luck", channel="players")
    services.chat_post(game_id=private.pk, user=ann_user, text="Just me and the bot", channel="players")
    sweep.watchers_words[public.pk] = "watchers-only-words-4f1c"
    services.chat_post(
        game_id=public.pk, user=watcher_user, text=f"{sweep.watchers_words[public.pk]}: bob holds", channel="watchers"
    )

    # Every party opens every socket; those who may not watch a game (or are not signed in) are refused.
    sockets: list[Socket] = []
    refused: list[tuple[Socket, int]] = []
    for party in parties:
        paths = [(f"/ws/games/{game.pk}/", game) for game in sweep.games] + [("/ws/user/", None), ("/ws/lobby/", None)]
        for path, on in paths:
            socket = Socket(party, path, on, communicator(path, party.user))
            if party.user is None:
                refused.append((socket, consumers.CLOSE_NOT_LOGGED_IN))
            elif on is not None and not selectors.may_watch(game=on, user=party.user):
                refused.append((socket, consumers.CLOSE_FORBIDDEN))
            else:
                sockets.append(socket)

    monkeypatch.setattr(analysis, "SAMPLES", 2)  # the analysis's figures do not matter here, its pages do

    def step() -> bool:
        moved = False
        for game in sweep.games:
            if person_moves(game, players[game.pk]):
                sweep.moves[game.pk] += 1
                moved = True
                game.refresh_from_db()
                if game.status == Game.Status.FINISHED:  # a player asks for the analysis; the last sweep reads it
                    response = next(iter(players[game.pk].values())).post(
                        reverse("games:analysis_request", args=[game.pk])
                    )
                    assert response.status_code == 302, response.content.decode()[:500]
                    assert services.analyse_game(game_id=game.pk).is_done
        if moved:  # the move that ended the last game was followed by a full sweep already
            full = sweep.new_round()
            sweep.sweep(full=full)
            if full:  # bob moves on from each round's summary once it was swept; ann keeps hers on her table
                sweep.move_on(bob, public)
        return moved

    async def drain(sockets: list[Socket], wait: float) -> None:
        async def one(socket: Socket) -> None:
            while not await socket.comm.receive_nothing(timeout=wait, interval=0.005):
                text = await socket.comm.receive_from(timeout=10)
                await database_sync_to_async(sweep.check_message)(socket, text)

        await asyncio.gather(*(one(socket) for socket in sockets))

    async def scenario() -> None:
        for socket, code in refused:
            assert await socket.comm.connect(timeout=10) == (False, code), (socket.party.name, socket.path)
        for socket in sockets:
            assert (await socket.comm.connect(timeout=10))[0], (socket.party.name, socket.path)
        await drain(sockets, 0.05)
        await database_sync_to_async(sweep.new_round)()
        await database_sync_to_async(sweep.sweep)(full=True)
        await database_sync_to_async(leak_into_anns_hand)(public, ann, bob, monkeypatch, sweep)
        await database_sync_to_async(leak_watchers_chat_to_ann)(public, ann, monkeypatch, sweep)
        while await database_sync_to_async(step)():
            await drain(sockets, 0.02)
        await drain(sockets, 0.2)
        for socket in sockets:
            await socket.comm.disconnect(timeout=10)

    started = time.perf_counter()
    async_to_sync(scenario)()
    elapsed = time.perf_counter() - started
    for game in sweep.games:
        game.refresh_from_db()
        assert game.status == Game.Status.FINISHED
        assert len(state_of(game).results) == len(ROUNDS)

    moves = sum(sweep.moves.values())
    report = (
        f"{moves} moves by people ({sweep.moves[public.pk]} + {sweep.moves[private.pk]}), "
        f"sweeps {dict(sweep.sweeps)}: {sweep.pages} pages ({dict(sorted(sweep.statuses.items()))}) "
        f"showing {sweep.cards_read} card elements, {sweep.messages} WebSocket messages on {len(sockets)} sockets "
        f"({len(refused)} refused); {elapsed:.1f} s ({sweep.seconds_fetching:.1f} s fetching)"
    )
    print(report)
    assert not sweep.problems, "\n".join(sweep.problems[:40])
    assert not sweep.leaks, "\n".join(sweep.leaks[:40])
    # The sweep did look: every named URL and every admin model, many pages and messages.
    every_name = set(named_urls()) | {f"admin:{name}" for name in admin_urls()}
    assert sweep.swept_names == every_name, every_name ^ sweep.swept_names
    assert sweep.swept_models == set(admin.site._registry)
    assert sweep.moves[public.pk] >= 20 and sweep.moves[private.pk] >= 10, report
    assert sweep.pages >= 50 * moves and sweep.cards_read >= 50 * moves, report
    # Most pages answered with their content (a GET on a button's address, 405, is no page: left out).
    assert sweep.statuses[200] > (sweep.pages - sweep.statuses[405]) // 2, report
    assert sweep.statuses[403] and sweep.statuses[302], report
    for socket in sockets:  # a game's socket hears the version at connect and after every move
        if socket.game is not None:
            assert sweep.by_socket[socket.party.name, socket.path] > sweep.moves[socket.game.pk], report


# -- the checker itself: it must see a leak when there is one --------------------------------


@pytest.fixture
def dealt(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann,
        variant=classic,
        seat_count=3,
        invitees=[bob],
        bot_count=1,
        options={"rounds": ROUNDS},
        seed=48_213_377_090_615,
    )
    return game, ann, bob


def test_the_checker_sees_one_hidden_card_rendered_into_a_real_page(dealt):
    game, ann, bob = dealt
    state = state_of(game)
    secrets = game_secrets(game, 0)
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert find_leaks(page, secrets) == []  # the real page: her hand, the top discard, nothing else
    # One card of bob's (seat 1) rendered by the one card markup (``{% card %}``), as a leaky page would.
    hidden = next(c.code for c in state.hands[1] if state.hands[0].count(c) == 0)
    card = card_html(presentation.card_face(hidden))
    leaky = page.replace("</main>", card + "</main>")
    # Seen twice: as a card (its markup) and in words (its name, for screen readers).
    expected = [f"card {hidden} (1 shown, 0 public)", f"word {hidden}"]
    assert [str(leak) for leak in find_leaks(leaky, secrets)] == expected


def test_the_checker_counts_copies_when_a_code_is_both_hidden_and_public(dealt):
    game, _, _ = dealt
    state = state_of(game)
    own = state.hands[0][0].code
    secrets = dataclasses.replace(game_secrets(game, 0), hidden=Counter({own: 1}))  # a second deck's copy elsewhere
    one = card_html(presentation.card_face(own))
    assert find_leaks(one, secrets) == []
    assert [leak.kind for leak in find_leaks(one + one, secrets)] == ["card"]


def test_the_checker_sees_names_symbols_dumps_and_secret_strings(dealt):
    game, _, _ = dealt
    state = state_of(game)
    secrets = game_secrets(game, None)
    stock, hand = [c.code for c in state.stock], [c.code for c in state.hands[1]]
    never_seen = next(code for code in stock if code not in secrets.said)
    face = presentation.card_face(never_seen)
    cases: list[tuple[str, Callable[[list[Leak]], bool]]] = [
        (f"<p>bob holds the {face['name']}</p>", lambda ls: Leak("word", never_seen) in ls),
        (f"<li>bob drew {face['rank']}{face['suit']}</li>", lambda ls: Leak("word", never_seen) in ls),
        (f'<span title="{face["name"]}">?</span>', lambda ls: any(x.kind == "card" for x in ls)),
        (f"<pre>{stock}</pre>", lambda ls: any(x.kind == "sequence" for x in ls)),
        (f'<div data-x="{hand[::-1]}"></div>', lambda ls: any(x.kind == "sequence" for x in ls)),
        (f"<td>{game.seed}</td>", lambda ls: Leak("secret", str(game.seed)) in ls),
        (f'<a href="/games/{game.pk}/invite/{game.invite_token}/">', lambda ls: any(x.kind == "secret" for x in ls)),
    ]
    for body, caught in cases:
        assert caught(find_leaks(body, secrets)), body
    # Random strings are not card words: a password salt the admin shows masked, a token, a path.
    assert find_leaks(f"<p>salt: {never_seen}******</p><p>ab-{never_seen}_cd /x/{never_seen}/</p>", secrets) == []
    # Public words are not leaks: the top discard by name.
    top = state.discard_pile[-1].code
    assert find_leaks(f"<p>{presentation.card_face(top)['name']}</p>", secrets) == []


def test_a_finished_rounds_cards_are_allowed_on_its_summary_page_only_as_often_as_it_had_them(dealt):
    game, _, _ = dealt
    secrets = game_secrets(game, None)
    hidden = next(code for code in secrets.hidden if code not in secrets.said)
    one = card_html(presentation.card_face(hidden))
    past_round = Counter({hidden: 1})  # as if the round before had ended with this card in someone's melds
    assert find_leaks(one, secrets, extra_shown=past_round) == []
    assert [leak.kind for leak in find_leaks(one + one, secrets, extra_shown=past_round)] == ["card"]
    assert [leak.kind for leak in find_leaks(one, secrets)] == ["card", "word"]  # its markup and its name


def test_the_checker_reads_websocket_messages(dealt):
    game, _, _ = dealt
    state = state_of(game)
    secrets = game_secrets(game, 0)
    hidden = next(c.code for c in state.stock if c.code not in secrets.said)
    assert find_leaks_in_message('{"type": "version", "version": 4}', secrets) == []
    assert Leak("word", hidden) in find_leaks_in_message(f'{{"type": "version", "card": "{hidden}"}}', secrets)
    dump = json.dumps({"type": "state", "stock": [c.code for c in state.stock][:5]})
    assert {leak.kind for leak in find_leaks_in_message(dump, secrets)} == {"word", "sequence"}


@pytest.mark.parametrize("how", ["resigned", "handed over"])
def test_a_person_a_bot_replaced_sees_the_table_as_a_watcher_does(dealt, role_client, how):
    """Her seat's cards are the bot's now, another player's: she might be talking to bob."""
    game, ann, bob = dealt
    client = logged_in(ann)
    assert find_leaks(client.get(f"/games/{game.pk}/").content.decode(), game_secrets(game, None))  # her hand
    if how == "resigned":
        services.game_resign(game_id=game.pk, user=ann)
    else:
        moderator = role_client("moderator")[1]
        services.seat_hand_to_bot(game_id=game.pk, position=0, moderator=moderator, reason="idle for days")
    game.refresh_from_db()
    assert game.in_play and game.seats.get(position=0).is_bot
    for url in (f"/games/{game.pk}/", f"/games/{game.pk}/table/"):
        body = client.get(url).content.decode()
        assert find_leaks(body, game_secrets(game, None)) == [], url
        assert 'class="hand-area' not in body, url
