"""Table talk on the pages: who may post where, what is refused (and changes nothing), muting,
reporting, chat off per game and per person, quick phrases in each reader's language, the record.

Every refusal is tried as an adversary would: a stranger, a watcher in the players' channel, a
player in the watchers' one, a person a moderator muted, a forged POST without the CSRF token, a
message of markup, one too long, one too many."""

from __future__ import annotations

import datetime
import re
import zoneinfo

import pytest
from django.test import Client
from django.utils import timezone

from games import services
from games.models import MESSAGE_MAX_LENGTH, ChatMessage, ChatMute, ChatReport, ChatSuspension, Game
from games.services import chat as chat_service
from tests.history.conftest import finish_with_bot_moves

from .conftest import CARD_ATTR, logged_in

pytestmark = pytest.mark.django_db

FETCH = {"HTTP_X_REQUESTED_WITH": "fetch"}


@pytest.fixture
def at_table(make_user, classic):
    """An active game others may watch: ann and bob play, cid watches (no seat)."""
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=11, options={"rounds": [3, 4]}
    )
    assert game.in_play and game.spectators_allowed and game.chat_enabled
    return game, ann, bob, cid


def post(client: Client, game: Game, text: str = "", channel: str = "players", **extra):
    data = {"text": text, "channel": channel}
    data.update({k: v for k, v in extra.items() if not k.startswith("HTTP_")})
    headers = {k: v for k, v in extra.items() if k.startswith("HTTP_")}
    return client.post(f"/games/{game.pk}/chat/post/", data, **headers)


def chat_lines(client: Client, game: Game, record: bool = False) -> list[str]:
    """The words of the chat as this person's chat partial shows them, channel by channel."""
    response = client.get(f"/games/{game.pk}/chat/" + ("?record=1" if record else ""))
    assert response.status_code == 200
    return re.findall(r'<span class="chat-text" dir="auto">(.*?)</span>', response.content.decode())


def muted_people(page: str) -> list[tuple[int, str]]:
    """The people the "Muted by you" list offers to unmute, as (id, shown name)."""
    pattern = r'name="user" value="(\d+)"><input type="hidden" name="mute" value="off">\s*<bdi>(.*?)</bdi> <button'
    found = re.findall(pattern, page)
    return [(int(pk), name) for pk, name in found]


def test_a_player_posts_and_everyone_at_the_table_reads_it_on_the_page_without_javascript(at_table):
    game, ann, bob, cid = at_table
    response = post(logged_in(ann), game, "  Hello   bob,\tgood luck!  ")
    assert response.status_code == 302 and response["Location"] == f"/games/{game.pk}/#chat"
    message = ChatMessage.objects.get()
    assert (message.author, message.channel, message.text) == (ann, "players", "Hello bob, good luck!")
    for person in (ann, bob, cid):  # a reload shows it: the table page renders the chat
        page = logged_in(person).get(f"/games/{game.pk}/").content.decode()
        assert "Hello bob, good luck!" in page and 'id="chat"' in page


def test_a_message_of_markup_is_shown_as_text_never_as_html(at_table):
    game, ann, bob, _cid = at_table
    evil = '<script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:x">hi</a>'
    assert post(logged_in(ann), game, evil).status_code == 302
    page = logged_in(bob).get(f"/games/{game.pk}/").content.decode()
    assert "<script>alert(1)" not in page and "<img src=x" not in page and 'href="javascript:' not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page
    # Direction overrides and zero-width characters (used to disguise text) are dropped, controls are spaces.
    assert post(logged_in(bob), game, "abc\u202edef\u200bghi\x07jk").status_code == 302
    assert ChatMessage.objects.latest("pk").text == "abcdefghi jk"


@pytest.mark.parametrize(
    "typed, kept",
    [
        ("zero\u200bwidth soft\u00adhyphen", "zerowidth softhyphen"),  # neither splits a word
        ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",) * 2,  # Persian's non-joiner
        ("\U0001f468\u200d\U0001f469\u200d\U0001f467",) * 2,  # one family
        ("\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f!",) * 2,  # Scotland's flag
        ("hid\U000e0041\U000e0042den", "hidden"),  # tag letters hide text anywhere but in a flag
        ("\U0001f3f4\U000e0067\U000e0062 open", "\U0001f3f4 open"),  # a flag's tags never cancelled
        ("a\u200fb\u2066c\u2069d\u200ee", "abcde"),  # direction marks and isolates
    ],
)
def test_invisible_characters_are_dropped_but_those_words_and_emoji_need(typed, kept):
    assert chat_service.clean_text(typed) == kept


@pytest.mark.parametrize("blank", ["\u200d", "  \u200d\u200c  ", "\u034f\u034f", "\u3164", "\u2800", "\u0301"])
def test_a_message_that_shows_nothing_is_refused(at_table, blank):
    """Found by a tester: a joiner, a Hangul filler or a blank Braille pattern alone was posted, and everyone
    read an empty line with the author's name."""
    game, ann, _bob, _cid = at_table
    response = post(logged_in(ann), game, blank)
    assert response.status_code == 400 and "Write something first." in response.content.decode()
    assert not ChatMessage.objects.exists()
    assert post(logged_in(ann), game, "\u3164ok").status_code == 302  # something to read beside it


def test_the_watchers_channel_is_for_watchers_and_players_do_not_see_it_during_play(at_table):
    game, ann, bob, cid = at_table
    assert post(logged_in(cid), game, "cid says ann will win", channel="watchers").status_code == 302
    assert post(logged_in(ann), game, "ann to the table").status_code == 302
    assert chat_lines(logged_in(cid), game) == ["ann to the table", "cid says ann will win"]
    for player in (ann, bob):
        client = logged_in(player)
        assert chat_lines(client, game) == ["ann to the table"]
        for url in (f"/games/{game.pk}/", f"/games/{game.pk}/table/", f"/games/{game.pk}/chat/"):
            assert "cid says ann will win" not in client.get(url).content.decode()
    # After the game, the players may read it too, on the table and the record.
    finish_with_bot_moves(game)
    game.refresh_from_db()
    assert game.is_finished
    assert chat_lines(logged_in(ann), game) == ["ann to the table", "cid says ann will win"]
    record = logged_in(bob).get(f"/games/{game.pk}/record/").content.decode()
    assert "cid says ann will win" in record and "ann to the table" in record


def test_a_watcher_posting_to_the_players_channel_and_a_player_to_the_watchers_one_are_refused(at_table):
    game, ann, _bob, cid = at_table
    refused = post(logged_in(cid), game, "psst, ann", channel="players", **FETCH)
    assert refused.status_code == 403
    assert "watchers post in the watchers" in refused.content.decode()
    refused = post(logged_in(ann), game, "hi watchers", channel="watchers")
    assert refused.status_code == 403 and "Players post in the table talk" in refused.content.decode()
    assert not ChatMessage.objects.exists()


def test_a_post_that_names_no_channel_goes_where_its_author_may_write(at_table, make_user, classic):
    game, ann, _bob, cid = at_table
    assert post(logged_in(ann), game, "to the table", channel="").status_code == 302
    assert post(logged_in(cid), game, "from the stands", channel="").status_code == 302
    assert logged_in(ann).post(f"/games/{game.pk}/chat/post/", {"text": "no field at all"}).status_code == 302
    assert list(ChatMessage.objects.order_by("pk").values_list("author__username", "channel", "text")) == [
        ("ann", "players", "to the table"),
        ("cid", "watchers", "from the stands"),
        ("ann", "players", "no field at all"),
    ]
    # Naming no channel opens none: a game a person may not write in stays closed to them.
    private = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1, spectators_allowed=False)
    refused = post(logged_in(make_user("dan")), private, "let me in", channel="")
    assert refused.status_code in (403, 404)
    assert not ChatMessage.objects.filter(game=private).exists()


def test_a_stranger_cannot_post_read_mute_or_report_in_a_game_they_may_not_look_at(make_user, classic, at_table):
    game, ann, _bob, _cid = at_table
    assert post(logged_in(ann), game, "only for us").status_code == 302
    message = ChatMessage.objects.get()
    private = services.game_create(
        creator=ann, variant=classic, seat_count=2, bot_count=1, is_private=True, spectators_allowed=False
    )
    assert post(logged_in(ann), private, "private words").status_code == 302
    dan = logged_in(make_user("dan"))
    for url, data in (
        (f"/games/{private.pk}/chat/post/", {"text": "let me in", "channel": "watchers"}),
        (f"/games/{private.pk}/chat/post/", {"text": "let me in", "channel": "players"}),
        (f"/games/{private.pk}/chat/report/", {"message": ChatMessage.objects.get(game=private).pk}),
        (f"/games/{private.pk}/chat/mute/", {"user": ann.pk}),
    ):
        response = dan.post(url, data)
        assert response.status_code == 403, url
        assert "private words" not in response.content.decode() and "chat" not in response.templates[0].name
    assert dan.get(f"/games/{private.pk}/chat/").status_code == 403
    # Nor may a message of one game be reported through another game's address.
    response = dan.post(f"/games/{game.pk}/chat/report/", {"message": ChatMessage.objects.get(game=private).pk})
    assert response.status_code == 404 and not ChatReport.objects.exists()
    assert ChatMessage.objects.count() == 2 and message.text == "only for us"
    # Signed out: refused, nothing posted.
    assert Client().post(f"/games/{game.pk}/chat/post/", {"text": "x", "channel": "players"}).status_code == 403
    assert Client().get(f"/games/{game.pk}/chat/").status_code == 302
    assert ChatMessage.objects.count() == 2


def test_players_only_games_have_no_watchers_channel_and_an_open_ones_visitors_only_read(make_user, classic):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=3, spectators_allowed=False)
    assert game.is_open
    assert post(logged_in(ann), game, "waiting for a third").status_code == 302
    visitor = logged_in(bob)  # may look at an open game to take a seat
    assert chat_lines(visitor, game) == ["waiting for a third"]
    assert "Only the players post here" in visitor.get(f"/games/{game.pk}/").content.decode()
    assert post(visitor, game, "hi", channel="watchers").status_code == 403
    assert post(visitor, game, "hi", channel="players").status_code == 403
    assert ChatMessage.objects.count() == 1


def test_a_forged_post_without_the_csrf_token_is_refused(at_table):
    game, ann, _bob, _cid = at_table
    forger = Client(enforce_csrf_checks=True)
    forger.force_login(ann)
    for url, data in (
        (f"/games/{game.pk}/chat/post/", {"text": "sent by another site", "channel": "players"}),
        (f"/games/{game.pk}/chat/report/", {"message": "1"}),
        (f"/games/{game.pk}/chat/mute/", {"user": "2"}),
    ):
        assert forger.post(url, data).status_code == 403
    assert not ChatMessage.objects.exists() and not ChatMute.objects.exists()


@pytest.mark.parametrize(
    "data",
    [
        {"text": "x" * (MESSAGE_MAX_LENGTH + 1)},
        {"text": "x" * 5000},
        {"text": "   \t "},
        {"text": ""},
        {"text": "ok", "phrase": "insult"},
        {"text": "ok", "channel": "staff"},
        {"text": "\x01\x02\x7f"},
    ],
    ids=["one-too-long", "far-too-long", "blank", "empty", "unknown-phrase", "unknown-channel", "controls"],
)
def test_bad_messages_are_refused_with_a_reason_and_nothing_is_posted(at_table, data):
    game, ann, _bob, _cid = at_table
    body = {"channel": "players", **data}
    plain = logged_in(ann).post(f"/games/{game.pk}/chat/post/", body)
    assert 400 <= plain.status_code < 500
    assert 'role="alert"' in plain.content.decode() and 'id="table"' in plain.content.decode()
    by_fetch = logged_in(ann).post(f"/games/{game.pk}/chat/post/", body, **FETCH)
    assert 400 <= by_fetch.status_code < 500 and 'id="chat"' in by_fetch.content.decode()
    assert not ChatMessage.objects.exists()


def test_a_message_of_exactly_the_limit_is_taken_and_a_refused_ones_text_is_kept_for_its_author(at_table):
    game, ann, _bob, _cid = at_table
    assert post(logged_in(ann), game, "y" * MESSAGE_MAX_LENGTH).status_code == 302
    too_long = "z" * (MESSAGE_MAX_LENGTH + 1)
    response = post(logged_in(ann), game, too_long)
    assert response.status_code == 400
    said = f"at most {MESSAGE_MAX_LENGTH} characters (this one has {MESSAGE_MAX_LENGTH + 1})"
    assert said in response.content.decode()
    assert f'value="{too_long}"' in response.content.decode()  # what was typed stays in the box
    assert ChatMessage.objects.count() == 1
    # Past what the form reads at all (a forged post: the box holds 200), the refusal still says why
    # and keeps the words; a field the page never sends wrong is named for what it is.
    far_too_long = "w" * (MESSAGE_MAX_LENGTH * 4 + 1)
    response = post(logged_in(ann), game, far_too_long)
    assert response.status_code == 400
    assert f"(this one has {MESSAGE_MAX_LENGTH * 4 + 1})" in response.content.decode()
    assert f'value="{"w" * MESSAGE_MAX_LENGTH * 4}"' in response.content.decode()
    for field, said in (("channel", "There is no such chat channel."), ("phrase", "There is no such quick phrase.")):
        for value in ("x" * 30, "nonsense"):
            response = post(logged_in(ann), game, "hello", **{field: value}, **FETCH)
            assert response.status_code == 400 and said in response.content.decode(), (field, value)
    assert ChatMessage.objects.count() == 1


def test_the_rate_limit_counts_each_persons_messages_over_every_game(at_table, classic, make_user):
    game, ann, bob, _cid = at_table
    other = services.game_create(creator=ann, variant=classic, seat_count=2, bot_count=1)
    count, seconds = services.RATE_LIMITS[0]
    for n in range(count):
        assert post(logged_in(ann), game if n % 2 else other, f"message {n}").status_code == 302
    refused = post(logged_in(ann), game, "one too many", **FETCH)
    assert refused.status_code == 429 and "Not so fast" in refused.content.decode()
    assert ChatMessage.objects.filter(author=ann).count() == count
    assert post(logged_in(bob), game, "bob is not limited by ann").status_code == 302
    # Once the window has passed, ann may post again.
    ChatMessage.objects.filter(author=ann).update(created_at=timezone.now() - datetime.timedelta(seconds=seconds + 1))
    assert post(logged_in(ann), game, "later").status_code == 302


def test_the_hourly_limit_holds_too(at_table):
    game, ann, _bob, _cid = at_table
    count, seconds = services.RATE_LIMITS[1]
    long_ago = timezone.now() - datetime.timedelta(seconds=services.RATE_LIMITS[0][1] + 5)
    ChatMessage.objects.bulk_create(
        [ChatMessage(game=game, author=ann, text=f"old {n}", created_at=long_ago) for n in range(count)]
    )
    assert post(logged_in(ann), game, "one more").status_code == 429


def test_a_user_a_moderator_muted_reads_but_cannot_post_until_the_time_is_up(at_table, role_client):
    game, ann, bob, _cid = at_table
    _client, moderator = role_client("moderator")
    assert post(logged_in(ann), game, "before").status_code == 302
    services.chat_mute_user(user_id=ann.pk, moderator=moderator, reason="Insults in game chat.", hours=24)
    ann.time_zone = "America/New_York"
    ann.save()
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert "A moderator muted you from chat until" in page and 'name="text"' not in page
    assert re.search(r"muted you from chat until [^<]* \(New York\)\.", page)  # the time's zone, named
    assert "before" in page  # still reads
    refused = post(logged_in(ann), game, "after")
    assert refused.status_code == 403 and "muted you from chat" in refused.content.decode()
    assert re.search(r"muted you from chat until [^<]* \(New York\)\.", refused.content.decode())
    assert post(logged_in(ann), game, "", phrase="good_game").status_code == 403
    ChatSuspension.objects.update(until=timezone.now() - datetime.timedelta(seconds=1))
    assert post(logged_in(ann), game, "after").status_code == 302
    assert post(logged_in(bob), game, "bob was never muted").status_code == 302


def test_quick_phrases_show_in_each_readers_language(at_table):
    game, ann, bob, cid = at_table
    bob.language = "hr"
    bob.save()
    cid.language = "cs"
    cid.save()
    assert post(logged_in(ann), game, "", phrase="good_game").status_code == 302
    assert post(logged_in(ann), game, "", phrase="busy_today").status_code == 302
    stored = list(ChatMessage.objects.values_list("phrase", "text"))
    assert stored == [("good_game", "Good game"), ("busy_today", "Sorry, busy today")]
    assert chat_lines(logged_in(ann), game) == ["Good game", "Sorry, busy today"]
    croatian, czech = chat_lines(logged_in(bob), game), chat_lines(logged_in(cid), game)
    assert "Good game" not in croatian and "Good game" not in czech and croatian != czech
    # The buttons are there, translated too.
    page = logged_in(bob).get(f"/games/{game.pk}/").content.decode()
    assert page.count('name="phrase"') == len(services.chat.QUICK_PHRASES) and croatian[0] in page


def test_muting_someone_hides_their_messages_from_that_person_only_and_can_be_undone(at_table, make_user):
    game, ann, bob, cid = at_table
    assert post(logged_in(bob), game, "bob is loud").status_code == 302
    assert post(logged_in(cid), game, "cid watches", channel="watchers").status_code == 302
    response = logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": bob.pk})
    assert response.status_code == 302
    assert chat_lines(logged_in(ann), game) == []
    assert chat_lines(logged_in(cid), game) == ["bob is loud", "cid watches"]  # only ann is affected
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert "Muted by you:" in page and "bob" in page
    # A watcher mutes a player; nobody mutes themselves or someone who is not at the table.
    assert logged_in(cid).post(f"/games/{game.pk}/chat/mute/", {"user": bob.pk}).status_code == 302
    assert chat_lines(logged_in(cid), game) == ["cid watches"]
    assert logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": ann.pk}).status_code == 400
    assert logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": "not-a-number"}).status_code == 404
    assert logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": 99999}).status_code == 404
    assert ChatMute.objects.count() == 2
    # Unmute: bob's words come back for ann.
    assert logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": bob.pk, "mute": "off"}).status_code == 302
    assert chat_lines(logged_in(ann), game) == ["bob is loud"]
    # Someone without a seat who wrote here (a watcher) is muted the same way, and listed to unmute.
    dan = logged_in(make_user("dan"))
    assert dan.post(f"/games/{game.pk}/chat/mute/", {"user": cid.pk}).status_code == 302
    assert chat_lines(dan, game) == ["bob is loud"]
    assert muted_people(dan.get(f"/games/{game.pk}/").content.decode()) == [(cid.pk, "cid")]


def test_the_muted_list_names_only_people_of_this_table(at_table, make_user):
    """People muted at other tables who never wrote here are not listed here; a muted watcher who wrote
    here is, beside a muted player who wrote nothing yet."""
    game, ann, bob, cid = at_table
    eve = make_user("eve")
    for muted in (eve, cid, bob):
        ChatMute.objects.create(user=ann, muted=muted)
    assert post(logged_in(cid), game, "from the rail", channel="watchers").status_code == 302
    # eve wrote, but at another table.
    elsewhere = services.game_create(creator=eve, variant=game.variant, seat_count=2, invitees=[ann], seed=12)
    assert post(logged_in(eve), elsewhere, "at my own table").status_code == 302
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert muted_people(page) == [(bob.pk, "bob"), (cid.pk, "cid")]
    assert muted_people(logged_in(ann).get(f"/games/{elsewhere.pk}/").content.decode()) == [(eve.pk, "eve")]


def test_someone_muted_who_writes_here_while_the_page_is_built_stays_muted(at_table, make_user, monkeypatch):
    """The reader's mutes are read before the lines: a muted watcher whose first words here land in between
    is still left out."""
    from games import chat_selectors

    game, ann, _bob, cid = at_table
    eve = make_user("eve")
    ChatMute.objects.create(user=cid, muted=eve)
    read_mutes = chat_selectors.muted_at_table

    def then_eve_writes(**kwargs):
        found = read_mutes(**kwargs)
        ChatMessage.objects.create(game=game, author=eve, channel="watchers", text="eve slips in")
        return found

    monkeypatch.setattr(chat_selectors, "muted_at_table", then_eve_writes)
    assert post(logged_in(ann), game, "hello").status_code == 302
    assert chat_lines(logged_in(cid), game) == ["hello"]
    assert chat_lines(logged_in(ann), game) == ["hello"]  # players do not read the watchers during play
    assert ChatMessage.objects.filter(author=eve).count() == 2  # one for each chat read above


def test_someone_not_at_the_table_cannot_be_muted_from_it(at_table, make_user):
    game, ann, _bob, _cid = at_table
    eve = make_user("eve")
    response = logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": eve.pk}, **FETCH)
    assert response.status_code == 404 and "not at this table" in response.content.decode()
    assert not ChatMute.objects.exists()


def test_muting_tells_a_player_nothing_of_who_writes_in_the_watchers_chat_nor_unmuting_a_name(at_table, make_user):
    """A player could mute user numbers one by one to learn who was writing in the watchers' chat during
    play, and "unmute" any number to learn its name (found by an adversarial test)."""
    game, ann, _bob, cid = at_table
    eve = make_user("eve")
    assert post(logged_in(cid), game, "ann will lose", channel="watchers").status_code == 302
    for other in (cid, eve):
        response = logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": other.pk}, **FETCH)
        assert response.status_code == 404 and "not at this table" in response.content.decode()
        response = logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": other.pk, "mute": "off"}, **FETCH)
        assert response.status_code == 404 and "You have not muted that person." in response.content.decode()
        assert other.username not in response.content.decode()
    assert not ChatMute.objects.exists()
    # Another watcher reads that channel, and may mute its author.
    assert logged_in(make_user("dan")).post(f"/games/{game.pk}/chat/mute/", {"user": cid.pk}).status_code == 302
    # Once the game is over the players read it too, and may mute its authors.
    finish_with_bot_moves(game)
    assert logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": cid.pk}).status_code == 302
    assert ChatMute.objects.filter(user=ann, muted=cid).exists()


def test_once_the_game_is_over_watchers_post_no_more_and_players_for_a_day(at_table, make_user):
    """A stranger could write on any finished public game for ever, where the players read it on its
    record (found by an adversarial test)."""
    from games.chat_selectors import CHAT_AFTER_GAME

    game, ann, bob, cid = at_table
    finish_with_bot_moves(game)
    game.refresh_from_db()
    closed = "The game is over and its chat is closed"
    for person, channel in ((cid, "watchers"), (make_user("dan"), "watchers"), (cid, "")):
        response = post(logged_in(person), game, "you lost, loser", channel=channel, **FETCH)
        assert response.status_code == 403 and closed in response.content.decode()
    page = logged_in(cid).get(f"/games/{game.pk}/").content.decode()
    assert closed in page and "chat-form" not in page and "Only the players post here" not in page
    # The players still may, for a day: a "good game" from someone who comes back to it.
    assert post(logged_in(bob), game, "good game!").status_code == 302
    assert "chat-form" in logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - CHAT_AFTER_GAME)
    response = post(logged_in(ann), game, "one more", **FETCH)
    assert response.status_code == 403 and closed in response.content.decode()
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["good game!"]
    assert "good game!" in logged_in(cid).get(f"/games/{game.pk}/record/").content.decode()


def test_anyone_who_reads_a_message_may_report_it_once_but_not_their_own(at_table):
    game, ann, bob, cid = at_table
    assert post(logged_in(bob), game, "rude words").status_code == 302
    assert post(logged_in(cid), game, "watcher talk", channel="watchers").status_code == 302
    rude, watcher_talk = ChatMessage.objects.order_by("pk")
    for person in (ann, cid):
        response = logged_in(person).post(f"/games/{game.pk}/chat/report/", {"message": rude.pk, "note": "mean"})
        assert response.status_code == 302
    again = logged_in(ann).post(f"/games/{game.pk}/chat/report/", {"message": rude.pk}, **FETCH)
    assert again.status_code == 409 and "reported this message already" in again.content.decode()
    own = logged_in(bob).post(f"/games/{game.pk}/chat/report/", {"message": rude.pk})
    assert own.status_code == 400
    # A player cannot report what they may not read: the watchers' channel during play.
    hidden = logged_in(ann).post(f"/games/{game.pk}/chat/report/", {"message": watcher_talk.pk})
    assert hidden.status_code == 404 and "watcher talk" not in hidden.content.decode()
    for junk in ("", "abc", "-1", "1.5", "99999"):
        assert logged_in(ann).post(f"/games/{game.pk}/chat/report/", {"message": junk}).status_code == 404
    assert sorted(ChatReport.objects.values_list("reporter__username", "note")) == [("ann", "mean"), ("cid", "mean")]


def test_chat_off_for_a_game_at_creation(make_user, classic):
    ann, cid = make_user("ann"), make_user("cid")
    data = {
        "variant": classic.pk,
        "people": 0,
        "easy_bots": 0,
        "medium_bots": 1,
        "hard_bots": 0,
        "invite": "",
        "time_limit_seconds": 86400,
        "round_count": "",
        "no_chat": "on",
    }
    lobby = logged_in(ann).get("/").content.decode()
    assert 'name="no_chat"' in lobby and "No table talk" in lobby
    assert logged_in(ann).post("/games/new/", data).status_code == 302
    game = Game.objects.get()
    assert game.chat_enabled is False
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert "created without table talk" in page and 'name="text"' not in page
    assert post(logged_in(ann), game, "hello?").status_code == 403
    assert post(logged_in(cid), game, "hello?", channel="watchers").status_code == 403
    assert not ChatMessage.objects.exists()
    # A rematch keeps it off; a game made without the box ticked has chat.
    finish_with_bot_moves(game)
    assert services.game_rematch(game_id=game.pk, user=ann).chat_enabled is False
    del data["no_chat"]
    assert logged_in(ann).post("/games/new/", data).status_code == 302
    assert Game.objects.latest("pk").chat_enabled is True


def test_chat_off_on_the_profile_hides_every_chat_and_posts_nothing(at_table):
    game, ann, bob, _cid = at_table
    assert post(logged_in(bob), game, "can ann read this").status_code == 302
    profile = logged_in(ann).get("/accounts/profile/").content.decode()
    box = re.search(r'<input[^>]*name="chat_enabled"[^>]*>', profile)
    assert box is not None and "checked" in box.group(0)  # on unless turned off
    form = {"display_name": "", "email": "ann@example.com", "language": "", "time_zone": ""}
    assert logged_in(ann).post("/accounts/profile/", form).status_code == 302  # chat_enabled unticked
    ann.refresh_from_db()
    assert ann.chat_enabled is False
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert "can ann read this" not in page and "You turned table talk off" in page
    assert "can ann read this" not in logged_in(ann).get(f"/games/{game.pk}/chat/").content.decode()
    assert post(logged_in(ann), game, "hi").status_code == 403
    assert ChatMessage.objects.count() == 1
    assert chat_lines(logged_in(bob), game) == ["can ann read this"]  # bob still chats


def test_a_get_on_a_chat_button_address_gets_a_page_not_a_blank_405(at_table):
    game, ann, _bob, _cid = at_table
    for name in ("post", "mute", "report"):
        response = logged_in(ann).get(f"/games/{game.pk}/chat/{name}/")
        assert response.status_code == 405 and "<html" in response.content.decode()


def test_the_chat_partial_and_its_answers_carry_no_card(at_table):
    """Chat pages show names and words only: no card markup, not even the player's own hand."""
    game, ann, bob, _cid = at_table
    assert post(logged_in(ann), game, "hi").status_code == 302
    for response in (
        logged_in(ann).get(f"/games/{game.pk}/chat/"),
        post(logged_in(bob), game, "hello", **FETCH),
        logged_in(ann).post(f"/games/{game.pk}/chat/mute/", {"user": bob.pk}, **FETCH),
    ):
        body = response.content.decode()
        assert response.status_code == 200 and 'id="chat"' in body
        assert not CARD_ATTR.search(body) and "data-card" not in body and 'id="table"' not in body


def test_the_record_shows_the_whole_history_without_hidden_messages_or_forms(at_table):
    game, ann, bob, cid = at_table
    for n in range(3):
        ChatMessage.objects.create(game=game, author=ann if n % 2 else bob, text=f"line {n}")
    ChatMessage.objects.create(game=game, author=cid, channel="watchers", text="from the rail")
    ChatMessage.objects.create(game=game, author=bob, text="hidden one", hidden_at=timezone.now())
    finish_with_bot_moves(game)
    record = logged_in(ann).get(f"/games/{game.pk}/record/").content.decode()
    for text in ("line 0", "line 1", "line 2", "from the rail"):
        assert text in record
    assert "hidden one" not in record and 'name="text"' not in record and "What was said at the table" in record
    assert chat_lines(logged_in(ann), game, record=True) == ["line 0", "line 1", "line 2", "from the rail"]


def test_the_table_shows_the_latest_messages_and_says_how_many_older_ones_are_on_the_record(at_table):
    from games.chat_selectors import TABLE_LINES

    game, ann, _bob, _cid = at_table
    ChatMessage.objects.bulk_create([ChatMessage(game=game, author=ann, text=f"n{n}") for n in range(TABLE_LINES + 3)])
    lines = chat_lines(logged_in(ann), game)
    assert len(lines) == TABLE_LINES and lines[-1] == f"n{TABLE_LINES + 2}"
    assert "3 older messages are on the game" in logged_in(ann).get(f"/games/{game.pk}/chat/").content.decode()


def test_a_channel_of_exactly_a_tables_worth_has_no_older_line_and_muted_lines_are_not_counted(at_table):
    from games.chat_selectors import TABLE_LINES

    game, ann, bob, _cid = at_table
    ChatMessage.objects.bulk_create([ChatMessage(game=game, author=ann, text=f"n{n}") for n in range(TABLE_LINES)])
    page = logged_in(bob).get(f"/games/{game.pk}/chat/").content.decode()
    assert len(chat_lines(logged_in(bob), game)) == TABLE_LINES and "older message" not in page
    # bob's early words, which ann muted, are neither shown to her nor counted as older ones.
    before = ChatMessage.objects.earliest("created_at").created_at - datetime.timedelta(seconds=1)
    ChatMessage.objects.bulk_create(
        [ChatMessage(game=game, author=bob, text=f"b{n}", created_at=before) for n in range(4)]
    )
    ChatMessage.objects.create(game=game, author=ann, text="latest")
    ChatMute.objects.create(user=ann, muted=bob)
    page = logged_in(ann).get(f"/games/{game.pk}/chat/").content.decode()
    assert "1 older message is on the game" in page
    assert chat_lines(logged_in(ann), game) == [f"n{n}" for n in range(1, TABLE_LINES)] + ["latest"]
    assert "5 older messages are on the game" in logged_in(bob).get(f"/games/{game.pk}/chat/").content.decode()


def test_the_older_count_agrees_with_the_lines_when_someone_posts_between_the_two_queries(at_table):
    """The lines are read, then the older ones counted: a message posted in between is newer than every
    line shown and so is not counted as older (it was once, as "-1 older messages" when one was hidden)."""
    from django.db.models.signals import post_init

    from games.chat_selectors import TABLE_LINES

    game, ann, bob, _cid = at_table
    ChatMessage.objects.bulk_create([ChatMessage(game=game, author=ann, text=f"n{n}") for n in range(TABLE_LINES + 2)])
    posted: list[str] = []

    def bob_posts(sender, instance, **kwargs):
        if not posted:  # the first line built: the lines' query has run, the count has not
            posted.append("between")
            ChatMessage.objects.create(game=game, author=bob, text="between")

    post_init.connect(bob_posts, sender=ChatMessage)
    try:
        page = logged_in(ann).get(f"/games/{game.pk}/chat/").content.decode()
    finally:
        post_init.disconnect(bob_posts, sender=ChatMessage)
    assert posted and re.search(r"(?<!\d)2 older messages are on the game", page)


def test_a_line_hidden_between_the_two_queries_is_not_counted_as_older(at_table):
    """A moderator hides a line shown between the lines' query and the count: the count is of messages
    older than the first line shown, so it neither goes negative nor counts the hidden line."""
    from django.db.models.signals import post_init

    from games.chat_selectors import TABLE_LINES

    game, ann, bob, _cid = at_table
    ChatMessage.objects.bulk_create([ChatMessage(game=game, author=bob, text=f"n{n}") for n in range(TABLE_LINES)])
    hidden: list[int] = []

    def moderator_hides(sender, instance, **kwargs):
        if not hidden:  # the first line built: the lines' query has run, the count has not
            hidden.append(ChatMessage.objects.filter(game=game).update(hidden_at=timezone.now()))

    post_init.connect(moderator_hides, sender=ChatMessage)
    try:
        page = logged_in(ann).get(f"/games/{game.pk}/chat/").content.decode()
    finally:
        post_init.disconnect(moderator_hides, sender=ChatMessage)
    assert hidden == [TABLE_LINES]
    assert "older message" not in page


def test_a_reader_who_muted_many_people_has_them_left_out_inside_the_query(at_table):
    """Past ``MUTED_IDS_INLINE`` mutes, the messages query looks the mutes up itself instead of carrying
    every id as a parameter; the muted people's lines stay out either way."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.chat_selectors import MUTED_IDS_INLINE

    game, ann, bob, _cid = at_table
    User = type(ann)
    many = User.objects.bulk_create(
        [User(username=f"m{n}", username_key=f"m{n}", display_name_key=f"m{n}") for n in range(MUTED_IDS_INLINE + 1)]
    )
    ChatMute.objects.bulk_create([ChatMute(user=ann, muted=person) for person in [bob, *many]])
    ChatMessage.objects.create(game=game, author=bob, text="muted seat")
    ChatMessage.objects.create(game=game, author=many[-1], text="muted stranger")
    ChatMessage.objects.create(game=game, author=ann, text="mine")
    reader = logged_in(ann)
    with CaptureQueriesContext(connection) as queries:
        page = reader.get(f"/games/{game.pk}/chat/").content.decode()
    sql = [q["sql"] for q in queries.captured_queries]  # before the next request clears the log
    lines_query = [q for q in sql if "chatmessage" in q and "LIMIT" in q]
    assert lines_query and all("chatmute" in q for q in lines_query)
    assert chat_lines(reader, game) == ["mine"]
    assert [pk for pk, _name in muted_people(page)] == [bob.pk, many[-1].pk]


def test_each_channel_shows_its_own_latest_lines_and_the_page_reads_no_older_message(at_table):
    """A long chat costs the table page no more than a short one: only each channel's last lines are read
    (counted as the messages Django builds), the count of older ones coming with them; a hidden line
    neither shows nor counts."""
    from django.db.models.signals import post_init

    from games.chat_selectors import TABLE_LINES

    game, ann, bob, cid = at_table
    ChatMessage.objects.bulk_create(
        [ChatMessage(game=game, author=ann if n % 2 else bob, text=f"p{n}") for n in range(TABLE_LINES + 7)]
        + [ChatMessage(game=game, author=cid, channel="watchers", text=f"w{n}") for n in range(3)]
    )
    ChatMessage.objects.filter(game=game, text=f"p{TABLE_LINES + 6}").update(hidden_at=timezone.now())
    built: list[ChatMessage] = []

    def count(sender, instance, **kwargs):
        built.append(instance)

    post_init.connect(count, sender=ChatMessage)
    try:
        response = logged_in(cid).get(f"/games/{game.pk}/chat/")
    finally:
        post_init.disconnect(count, sender=ChatMessage)
    lines = re.findall(r'<span class="chat-text" dir="auto">(.*?)</span>', response.content.decode())
    players = [f"p{n}" for n in range(6, TABLE_LINES + 6)]
    assert lines == players + ["w0", "w1", "w2"]
    assert len(built) == TABLE_LINES + 3
    page = response.content.decode()
    assert "6 older messages are on the game" in page and page.count("older message") == 1


def test_a_line_shows_its_time_in_the_readers_zone_and_its_menu_in_the_readers_language(at_table):
    """Today's line shows the time alone, an older one its day too, both in the reader's zone; the menu
    names the author in the reader's language."""
    game, ann, bob, _cid = at_table
    ann.language, ann.time_zone = "hr", "Europe/Zagreb"
    ann.save(update_fields=["language", "time_zone"])
    old = ChatMessage.objects.create(game=game, author=bob, text="old line")
    ChatMessage.objects.filter(pk=old.pk).update(created_at=datetime.datetime(2026, 3, 1, 10, 5, tzinfo=datetime.UTC))
    new = ChatMessage.objects.create(game=game, author=bob, text="new line")
    page = logged_in(ann).get(f"/games/{game.pk}/chat/").content.decode()
    times = re.findall(r'<time class="chat-time" datetime="([^"]+)" title="([^"]+)">([^<]+)</time>', page)
    zagreb = new.created_at.astimezone(zoneinfo.ZoneInfo("Europe/Zagreb"))
    assert times[0][0] == "2026-03-01T11:05:00+01:00" and times[0][2] == "1 Ožu. 11:05" and "2026" in times[0][1]
    assert times[1][0] == zagreb.isoformat() and times[1][2] == zagreb.strftime("%H:%M")
    assert page.count("Prijavi ili utišaj: bob") == 2 and page.count("Utišaj: bob") == 2


def test_clean_text_makes_one_line_of_text():
    assert chat_service.clean_text("a\nb\r\nc\u2028d") == "a b c d"
    assert chat_service.clean_text(None) == "" and chat_service.clean_text(["a"]) == ""
