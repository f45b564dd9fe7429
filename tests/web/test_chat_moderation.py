"""Chat moderation: reports and message history in the admin, hiding a message, muting someone from
chat for a time, dismissing reports; each through a service, with a reason and an audit record; who
may do what (a user, staff without the group, a moderator without ``moderate_chat``, a moderator)."""

from __future__ import annotations

import datetime
import logging
import re
import zoneinfo

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Group, Permission
from django.utils import timezone, translation

from games import services
from games.models import AuditRecord, ChatMessage, ChatReport, ChatSuspension

from .conftest import ROLES, logged_in

pytestmark = pytest.mark.django_db

REASON = "Insults after the third round; see the report."
CHANGELISTS = ("/admin/games/chatmessage/", "/admin/games/chatreport/", "/admin/games/chatsuspension/")


@pytest.fixture
def talk(make_user, classic):
    """ann and bob play, cid watches; bob was rude, ann and cid reported it."""
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, invitees=[bob], seed=11)
    polite = services.chat_post(game_id=game.pk, user=ann, text="Good luck, bob", channel="players")
    rude = services.chat_post(game_id=game.pk, user=bob, text="You play like a potato", channel="players")
    services.chat_report(game_id=game.pk, user=ann, message_id=rude.pk, note="rude")
    services.chat_report(game_id=game.pk, user=cid, message_id=rude.pk)
    return game, ann, bob, cid, polite, rude


def moderator_without_chat_permission(django_user_model):
    """Staff in a group that may look at chat but not moderate it."""
    group = Group.objects.create(name="Chat readers")
    for codename in ("view_chatmessage", "view_chatreport", "view_chatsuspension"):
        group.permissions.add(Permission.objects.get(codename=codename))
    user = django_user_model.objects.create_user("reader", "reader@example.com", "a-long-pass-phrase-42", is_staff=True)
    user.groups.add(group)
    return user


def run_action(client, changelist: str, action: str, pks: list[int], **form):
    data = {"action": action, ACTION_CHECKBOX_NAME: [str(pk) for pk in pks], "confirm": "yes", **form}
    return client.post(changelist, {key: value for key, value in data.items() if value is not None})


@pytest.mark.parametrize("role", ROLES)
def test_who_reaches_the_chat_lists_in_the_admin(talk, role_client, role):
    client, _user = role_client(role)
    for url in CHANGELISTS:
        response = client.get(url)
        if role in ("superuser", "moderator"):
            assert response.status_code == 200, url
        elif role == "staff":
            assert response.status_code == 403, url
        else:
            assert response.status_code == 302 and "/admin/login/" in response["Location"], url


def test_moderators_see_reports_and_every_message_with_their_filters(talk, role_client):
    game, ann, bob, cid, polite, rude = talk
    client, _moderator = role_client("moderator")
    hidden = ChatMessage.objects.create(game=game, author=cid, channel="watchers", text="old", hidden_at=timezone.now())

    def listed(url: str) -> set[int]:
        response = client.get(url)
        assert response.status_code == 200, url
        return {obj.pk for obj in response.context["cl"].result_list}

    assert listed("/admin/games/chatmessage/") == {polite.pk, rude.pk, hidden.pk}
    assert listed("/admin/games/chatmessage/?reports=open") == {rude.pk}
    assert listed("/admin/games/chatmessage/?shown=hidden") == {hidden.pk}
    assert listed("/admin/games/chatmessage/?channel__exact=watchers") == {hidden.pk}
    assert listed(f"/admin/games/chatmessage/?game_number={game.pk}") == {polite.pk, rude.pk, hidden.pk}
    assert listed("/admin/games/chatmessage/?game_number=abc") == set()
    assert listed("/admin/games/chatmessage/?q=potato") == {rude.pk}
    assert listed("/admin/games/chatmessage/?q=bob") == {polite.pk, rude.pk}  # his name, and a word
    assert len(listed("/admin/games/chatreport/?status=open")) == 2
    page = client.get(f"/admin/games/chatmessage/{rude.pk}/change/").content.decode()
    assert "You play like a potato" in page and "Reports of this message" in page and "rude" in page
    # Nobody edits or deletes a message here: it changes only through the moderation steps.
    assert client.post(f"/admin/games/chatmessage/{rude.pk}/change/", {"text": "nice"}).status_code == 403
    assert client.post(f"/admin/games/chatmessage/{rude.pk}/delete/", {"post": "yes"}).status_code == 403
    rude.refresh_from_db()
    assert rude.text == "You play like a potato"


def test_the_reports_list_names_reporters_by_user_name_cuts_long_notes_and_words_phrases_for_the_reader(
    talk, role_client
):
    """Found by a moderator's play-test: a long note pushed the status off the list, the reporters were
    named by display name beside authors by user name, and quick phrases read in English in a Czech admin."""
    game, ann, bob, cid, _polite, _rude = talk
    ann.display_name = "Annie the Great"
    ann.save()
    phrase = services.chat_post(game_id=game.pk, user=bob, phrase="good_luck", channel="players")
    services.chat_report(game_id=game.pk, user=cid, message_id=phrase.pk, note="x" * 200)
    client, moderator = role_client("moderator")
    page = client.get("/admin/games/chatreport/").content.decode()
    assert f'<td class="field-reporter_column"><a href="/admin/accounts/user/{ann.pk}/change/">ann</a>' in page
    assert "x" * 59 + "…</span>" in page  # a line of 60 characters
    assert f'title="{"x" * 200}"' in page  # the whole note on hover, and on the report's own page
    moderator.language = "cs"
    moderator.save()
    client.cookies.pop("django_language", None)
    for url in ("/admin/games/chatreport/", "/admin/games/chatmessage/"):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="cs").content.decode()
        assert "Hodně štěstí" in page and "Good luck!" not in page, url


def test_a_moderator_hides_a_message_with_a_reason_and_it_leaves_every_page(talk, role_client):
    game, ann, bob, cid, polite, rude = talk
    client, moderator = role_client("moderator")
    asked = run_action(client, "/admin/games/chatmessage/", "hide_messages", [rude.pk], confirm=None)
    assert asked.status_code == 200 and "Hide a chat message" in asked.content.decode()
    no_reason = run_action(client, "/admin/games/chatmessage/", "hide_messages", [rude.pk], reason="  ")
    assert no_reason.status_code == 400
    rude.refresh_from_db()
    assert not rude.is_hidden and not AuditRecord.objects.exists()
    done = run_action(client, "/admin/games/chatmessage/", "hide_messages", [rude.pk], reason=REASON)
    assert done.status_code == 302
    rude.refresh_from_db()
    assert rude.is_hidden and rude.hidden_by == moderator and rude.hidden_reason == REASON
    record = AuditRecord.objects.get()
    assert (record.actor, record.action, record.reason, record.game, record.target_user) == (
        moderator,
        AuditRecord.Action.CHAT_HIDE,
        REASON,
        game,
        bob,
    )
    assert f"chat message #{rude.pk} by bob in game #{game.pk}" in record.target and "potato" in record.target
    assert not ChatReport.objects.filter(resolved_at__isnull=True).exists()  # its reports are dealt with
    for person in (ann, bob, cid):
        for url in (f"/games/{game.pk}/", f"/games/{game.pk}/chat/"):
            body = logged_in(person).get(url).content.decode()
            assert "potato" not in body and ("Good luck, bob" in body or person == cid and "Good luck" in body)
    # Hiding it again is refused and writes nothing more.
    with pytest.raises(services.GameError) as refused:
        services.chat_hide(message_id=rude.pk, moderator=moderator, reason=REASON)
    assert refused.value.code == "chat_already_hidden" and AuditRecord.objects.count() == 1


def test_a_moderator_mutes_an_author_from_chat_for_a_time_and_lets_them_chat_again(talk, role_client):
    game, ann, bob, cid, polite, rude = talk
    client, moderator = role_client("moderator")
    done = run_action(
        client, "/admin/games/chatreport/", "mute_authors", [rude.reports.first().pk], reason=REASON, hours=24
    )
    assert done.status_code == 302
    suspension = ChatSuspension.objects.get()
    assert suspension.user == bob and suspension.moderator == moderator and suspension.reason == REASON
    assert (
        timezone.now() + datetime.timedelta(hours=23)
        < suspension.until
        <= timezone.now() + datetime.timedelta(hours=24)
    )
    record = AuditRecord.objects.get()
    assert record.action == AuditRecord.Action.CHAT_MUTE and record.target_user == bob and record.reason == REASON
    with pytest.raises(services.GameError) as refused:
        services.chat_post(game_id=game.pk, user=bob, text="sorry", channel="players")
    assert refused.value.code == "chat_muted"
    # A length that is not offered is refused, whatever the form posted.
    bad = run_action(client, "/admin/games/chatmessage/", "mute_authors", [rude.pk], reason=REASON, hours=10_000)
    assert bad.status_code == 400 and ChatSuspension.objects.count() == 1
    with pytest.raises(services.GameError):
        services.chat_mute_user(user_id=bob.pk, moderator=moderator, reason=REASON, hours=5)
    # Let bob chat again: from the list of mutes, with a reason, audited.
    done = run_action(client, "/admin/games/chatsuspension/", "unmute_users", [suspension.pk], reason="Apologised.")
    assert done.status_code == 302
    assert services.chat_post(game_id=game.pk, user=bob, text="sorry", channel="players").text == "sorry"
    assert list(AuditRecord.objects.order_by("pk").values_list("action", flat=True)) == [
        AuditRecord.Action.CHAT_MUTE,
        AuditRecord.Action.CHAT_UNMUTE,
    ]
    with pytest.raises(services.GameError) as refused:
        services.chat_unmute_user(user_id=bob.pk, moderator=moderator, reason="again")
    assert refused.value.code == "chat_not_muted"


def test_a_second_mute_while_one_is_in_force_is_refused_and_writes_nothing(talk, role_client):
    """Two moderators acting on the same report: the second mute was written too, with its own record."""
    _game, _ann, bob, _cid, _polite, rude = talk
    client, moderator = role_client("moderator")
    services.chat_mute_user(user_id=bob.pk, moderator=moderator, reason=REASON, hours=24)
    until = ChatSuspension.objects.get().until
    again = run_action(client, "/admin/games/chatmessage/", "mute_authors", [rude.pk], reason=REASON, hours=720)
    assert again.status_code == 302
    page = client.get(again["Location"]).content.decode()
    assert "is muted from chat already" in page and "let them chat again first" in page
    assert list(ChatSuspension.objects.values_list("until", flat=True)) == [until]
    assert AuditRecord.objects.filter(action=AuditRecord.Action.CHAT_MUTE).count() == 1
    # Once let go, another length is a new step.
    services.chat_unmute_user(user_id=bob.pk, moderator=moderator, reason="Another length.")
    services.chat_mute_user(user_id=bob.pk, moderator=moderator, reason=REASON, hours=720)
    assert AuditRecord.objects.filter(action=AuditRecord.Action.CHAT_MUTE).count() == 2


@pytest.mark.parametrize("changelist", ["/admin/games/chatmessage/", "/admin/games/chatreport/"])
def test_muting_the_author_through_the_confirmation_page_mutes_that_author(talk, role_client, changelist):
    """The page's form posts the list's own selection back: it once posted the authors' user ids, which the
    list read as ids of its messages (or reports), and muted the author of another one."""
    game, ann, bob, cid, polite, rude = talk
    later = services.chat_post(game_id=game.pk, user=bob, text="gg", channel="players")
    services.chat_report(game_id=game.pk, user=ann, message_id=later.pk)
    row = later.pk if changelist.endswith("chatmessage/") else later.reports.get().pk
    assert row != bob.pk
    client, _moderator = role_client("moderator")
    page = client.post(changelist, {"action": "mute_authors", ACTION_CHECKBOX_NAME: [str(row)]})
    assert page.status_code == 200 and "bob" in page.content.decode()
    hidden = re.findall(rf'name="{ACTION_CHECKBOX_NAME}" value="([^"]*)"', page.content.decode())
    assert hidden == [str(row)]
    done = client.post(
        changelist,
        {"action": "mute_authors", ACTION_CHECKBOX_NAME: hidden, "confirm": "yes", "reason": REASON, "hours": 1},
    )
    assert done.status_code == 302
    assert list(ChatSuspension.objects.values_list("user__username", flat=True)) == ["bob"]


def test_the_user_admin_mutes_from_chat_too(talk, role_client):
    _game, _ann, bob, _cid, _polite, _rude = talk
    client, _moderator = role_client("moderator")
    page = client.get("/admin/accounts/user/").content.decode()
    assert "mute_from_chat" in page and "let_chat_again" in page
    done = run_action(client, "/admin/accounts/user/", "mute_from_chat", [bob.pk], reason=REASON, hours=1)
    assert done.status_code == 302 and ChatSuspension.objects.get().user == bob


@pytest.mark.parametrize("language", ["en", "af"])
def test_the_audit_record_keeps_a_long_name_and_message_whole(make_user, classic, role_client, language):
    """The target's words name a user (up to 150 characters) and a message: over 200 in all, which PostgreSQL
    refused (a 500 for the moderator), and longer still in Afrikaans."""
    long = make_user("w" * 150)
    game = services.game_create(creator=long, variant=classic, seat_count=2, bot_count=1, seed=3)
    message = services.chat_post(game_id=game.pk, user=long, text="x" * 200, channel="players")
    client, _moderator = role_client("moderator")
    client.cookies["django_language"] = language
    assert (
        run_action(client, "/admin/games/chatmessage/", "hide_messages", [message.pk], reason=REASON).status_code == 302
    )
    done = run_action(client, "/admin/accounts/user/", "mute_from_chat", [long.pk], reason=REASON, hours=1)
    assert done.status_code == 302
    hidden, muted = AuditRecord.objects.order_by("pk")
    assert hidden.action == AuditRecord.Action.CHAT_HIDE and "w" * 150 in hidden.target and len(hidden.target) > 200
    assert muted.action == AuditRecord.Action.CHAT_MUTE and "w" * 150 in muted.target


def test_a_moderator_dismisses_reports_and_the_message_stays(talk, role_client):
    game, ann, bob, cid, polite, rude = talk
    client, moderator = role_client("moderator")
    done = run_action(
        client, "/admin/games/chatmessage/", "dismiss_reports", [rude.pk], reason="Banter between friends."
    )
    assert done.status_code == 302
    rude.refresh_from_db()
    assert not rude.is_hidden and not ChatReport.objects.filter(resolved_at__isnull=True).exists()
    assert AuditRecord.objects.get().action == AuditRecord.Action.CHAT_DISMISS
    with pytest.raises(services.GameError) as refused:  # nothing open any more
        services.chat_dismiss_reports(message_id=rude.pk, moderator=moderator, reason="again")
    assert refused.value.code == "chat_no_reports"


def test_a_moderator_without_the_chat_permission_may_look_but_not_act(talk, django_user_model):
    game, ann, bob, cid, polite, rude = talk
    reader = moderator_without_chat_permission(django_user_model)
    client = logged_in(reader)
    listing = client.get("/admin/games/chatmessage/")
    assert listing.status_code == 200 and "hide_messages" not in listing.content.decode()
    for changelist, action, pk in (
        ("/admin/games/chatmessage/", "hide_messages", rude.pk),
        ("/admin/games/chatmessage/", "mute_authors", rude.pk),
        ("/admin/games/chatreport/", "dismiss_reports", rude.reports.first().pk),
    ):
        response = run_action(client, changelist, action, [pk], reason=REASON, hours=24)
        assert response.status_code in (200, 302, 403)
    rude.refresh_from_db()
    assert not rude.is_hidden and not ChatSuspension.objects.exists() and not AuditRecord.objects.exists()
    for call in (
        lambda: services.chat_hide(message_id=rude.pk, moderator=reader, reason=REASON),
        lambda: services.chat_mute_user(user_id=bob.pk, moderator=reader, reason=REASON, hours=24),
        lambda: services.chat_dismiss_reports(message_id=rude.pk, moderator=reader, reason=REASON),
        lambda: services.chat_unmute_user(user_id=bob.pk, moderator=reader, reason=REASON),
    ):
        with pytest.raises(services.GameError) as refused:
            call()
        assert refused.value.code == "not_moderator"


@pytest.mark.parametrize("role", ["user", "staff", "anonymous"])
def test_the_chat_moderation_services_refuse_everyone_else(talk, role_client, role):
    _game, _ann, bob, _cid, _polite, rude = talk
    _client, user = role_client(role)
    if user is None:
        from django.contrib.auth.models import AnonymousUser

        user = AnonymousUser()
    with pytest.raises(services.GameError) as refused:
        services.chat_hide(message_id=rude.pk, moderator=user, reason=REASON)
    assert refused.value.code in ("not_moderator", "not_logged_in")
    with pytest.raises(services.GameError):
        services.chat_mute_user(user_id=bob.pk, moderator=user, reason=REASON, hours=24)
    rude.refresh_from_db()
    assert not rude.is_hidden and not ChatSuspension.objects.exists() and not AuditRecord.objects.exists()


def test_a_moderator_cannot_mute_themselves_and_bad_ids_are_refused(talk, role_client):
    client, moderator = role_client("moderator")
    for call, code in (
        (
            lambda: services.chat_mute_user(user_id=moderator.pk, moderator=moderator, reason=REASON, hours=1),
            "chat_mute_self",
        ),
        (lambda: services.chat_mute_user(user_id="x", moderator=moderator, reason=REASON, hours=1), "not_found"),
        (lambda: services.chat_hide(message_id=99999, moderator=moderator, reason=REASON), "not_found"),
        (lambda: services.chat_hide(message_id="1;--", moderator=moderator, reason=REASON), "not_found"),
    ):
        with pytest.raises(services.GameError) as refused:
            call()
        assert refused.value.code == code
    assert not AuditRecord.objects.exists()


def test_chat_audit_records_show_on_the_users_admin_page_and_are_read_only(talk, role_client):
    _game, _ann, bob, _cid, _polite, rude = talk
    client, moderator = role_client("moderator")
    services.chat_hide(message_id=rude.pk, moderator=moderator, reason=REASON)
    page = client.get(f"/admin/accounts/user/{bob.pk}/change/").content.decode()
    assert "hid a chat message" in page and REASON in page
    record = AuditRecord.objects.get()
    assert client.post(f"/admin/games/auditrecord/{record.pk}/delete/", {"post": "yes"}).status_code == 403


def test_each_moderator_reads_the_audit_log_in_their_own_language_and_time_zone(talk, role_client, classic):
    """The target is kept in parts: a record a Croatian moderator in New York wrote reads in Czech, in
    Prague's time, to a Czech colleague (it was stored in the first one's words, date and zone)."""
    game, ann, bob, cid, polite, rude = talk
    croatian, first = role_client("moderator", "first")
    first.language, first.time_zone = "hr", "America/New_York"
    first.save()
    run_action(croatian, "/admin/games/chatmessage/", "hide_messages", [rude.pk], reason=REASON)
    run_action(croatian, "/admin/accounts/user/", "mute_from_chat", [bob.pk], reason=REASON, hours=1)
    services.game_abort(game_id=game.pk, moderator=first, reason=REASON)
    until = ChatSuspension.objects.get().until
    assert "korisnik bob, u razgovoru do" in AuditRecord.objects.get(action=AuditRecord.Action.CHAT_MUTE).target

    czech, second = role_client("moderator", "second")
    second.language, second.time_zone = "cs", "Europe/Prague"
    second.save()
    prague = timezone.localtime(until, zoneinfo.ZoneInfo("Europe/Prague"))
    for page in ("/admin/games/auditrecord/", f"/admin/accounts/user/{bob.pk}/change/"):
        body = czech.get(page).content.decode()
        assert "uživatel bob, v chatu do" in body and f"{prague.hour}:{prague:%M} (Praha)" in body, page
        assert f"zpráva #{rude.pk} od bob ve hře #{game.pk}" in body, page
        assert "korisnik" not in body and "New York" not in body, page
    body = czech.get("/admin/games/auditrecord/").content.decode()
    assert f"hra č. {game.pk} (Klasická)" in body and "igra #" not in body


def test_a_deactivations_seat_records_keep_the_moderators_reason_and_word_the_rest_for_the_reader(talk, role_client):
    game, ann, bob, cid, polite, rude = talk
    _client, moderator = role_client("moderator")
    with translation.override("hr"):
        services.user_deactivate(user_id=bob.pk, moderator=moderator, reason=REASON)
    seat = AuditRecord.objects.get(action=AuditRecord.Action.SEAT_TO_BOT)
    assert seat.reason == REASON  # not wrapped in the Croatian moderator's words
    with translation.override("cs"):
        assert seat.target_in_words() == f"místo 1 ve hře č. {game.pk} (bob), jehož účet byl deaktivován"


def test_a_record_written_before_its_target_was_kept_in_parts_reads_as_it_was_written(talk, role_client):
    game, ann, bob, cid, polite, rude = talk
    _client, moderator = role_client("moderator")
    old = AuditRecord.objects.create(
        actor=moderator, action=AuditRecord.Action.CHAT_UNMUTE, reason=REASON, target_user=bob, target="user bob"
    )
    with translation.override("cs"):
        assert old.target_in_words() == "user bob"
        assert "user bob" in str(old)


class _LayerDown:
    """A channel layer whose every send fails, as Redis does while it is down."""

    async def group_send(self, group: str, message: dict) -> None:
        raise ConnectionError("the channel layer is down")


def test_a_mute_stands_when_the_channel_layer_is_down_and_the_page_shows_it_on_its_next_fetch(
    talk, role_client, monkeypatch, django_capture_on_commit_callbacks, caplog
):
    """The mute's message to the person's open pages is sent after the commit and may fail: the mute,
    its audit record and the moderator's answer stand; the person's page says it at its next fetch."""
    game, ann, bob, cid, polite, rude = talk
    client, moderator = role_client("moderator")
    monkeypatch.setattr("games.live.groups.get_channel_layer", lambda: _LayerDown())
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        done = run_action(client, "/admin/games/chatmessage/", "mute_authors", [rude.pk], reason=REASON, hours=1)
    assert done.status_code == 302 and callbacks  # the message to bob's pages was tried ...
    assert "the channel layer is down" in caplog.text  # ... failed, and was logged
    assert ChatSuspension.objects.get().user == bob
    assert AuditRecord.objects.get().action == AuditRecord.Action.CHAT_MUTE
    assert "muted" in " ".join(str(m) for m in client.get(done.url).context["messages"])
    page = logged_in(bob).get(f"/games/{game.pk}/").content.decode()
    assert "A moderator muted you from chat until" in page and 'data-chat-state="muted"' in page


def test_a_move_while_the_channel_layer_is_down_logs_one_line_not_a_traceback(
    talk, monkeypatch, django_capture_on_commit_callbacks, caplog
):
    """Redis down: each announcement after a commit failed as an error with its traceback (40 in 40 s from the
    clock alone, a fault tester); the move stands, and the pages catch up on their next fetch."""
    game, ann, bob, *_ = talk
    game.refresh_from_db()
    mover = ann if game.seats.get(position=game.current_seat).user == ann else bob
    monkeypatch.setattr("games.live.groups.get_channel_layer", lambda: _LayerDown())
    with caplog.at_level(logging.WARNING), django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.game_play(
            game_id=game.pk, user=mover, action={"type": "draw", "source": "stock"}, expected_version=game.version
        )
    assert callbacks and game.moves.count() == 1
    failed = [r for r in caplog.records if "the channel layer is down" in r.getMessage()]
    assert failed and all(r.levelno == logging.WARNING and not r.exc_info for r in failed)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
