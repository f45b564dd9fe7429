"""Times are shown in each reader's own zone; the database keeps UTC."""

from __future__ import annotations

import datetime
import re
from zoneinfo import ZoneInfo

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils import formats, timezone, translation

from accounts.middleware import UserTimeZoneMiddleware
from accounts.models import User
from accounts.zones import zone_choices, zone_city
from games import services
from games.models import Game
from tests.web.conftest import NOTICE_DUE, logged_in

pytestmark = pytest.mark.django_db

DAY = 24 * 3600
PASSWORD = "a-Long-and-unusual-pass-31"
PRAGUE, AUCKLAND = "Europe/Prague", "Pacific/Auckland"
CITY = {PRAGUE: "Prague", AUCKLAND: "Auckland"}  # how a time's zone is named beside it, in English


def _zone_seen(request) -> str:
    seen = UserTimeZoneMiddleware(lambda r: HttpResponse(timezone.get_current_timezone_name()))(request)
    return seen.content.decode()


def _request(user=None, cookie: str | None = None):
    from django.contrib.auth.models import AnonymousUser

    request = RequestFactory().get("/")
    if cookie is not None:
        request.COOKIES["tz"] = cookie
    request.user = user or AnonymousUser()
    return request


def test_a_visitor_sees_the_browsers_zone_and_a_bad_cookie_is_ignored():
    assert _zone_seen(_request(cookie=AUCKLAND)) == AUCKLAND
    assert _zone_seen(_request()) == "UTC"
    for bad in ("Mars/Olympus", "../../etc/passwd", "x" * 500, ""):
        assert _zone_seen(_request(cookie=bad)) == "UTC"
    assert timezone.get_current_timezone_name() == "UTC"  # nothing stays active after the request


def test_the_profiles_zone_wins_and_an_empty_profile_takes_the_browsers_once(make_user):
    ann = make_user("ann")
    ann.time_zone = PRAGUE
    ann.save()
    assert _zone_seen(_request(ann, cookie=AUCKLAND)) == PRAGUE
    bob = make_user("bob")
    assert _zone_seen(_request(bob, cookie=AUCKLAND)) == AUCKLAND
    assert User.objects.get(pk=bob.pk).time_zone == AUCKLAND  # follows bob to e-mails and other devices
    assert _zone_seen(_request(User.objects.get(pk=bob.pk), cookie=PRAGUE)) == AUCKLAND


def test_a_zone_is_validated_on_the_model_and_the_profile(make_user):
    ann = make_user("ann")
    ann.time_zone = "Mars/Olympus"
    with pytest.raises(ValidationError) as refused:
        ann.full_clean()
    assert "time_zone" in refused.value.message_dict
    client = logged_in(make_user("cyd"))
    data = {"display_name": "", "email": "cyd@example.com", "language": "", "notify_by_email": ""}
    assert client.post("/accounts/profile/", {**data, "time_zone": "Mars/Olympus"}).status_code == 400
    assert client.post("/accounts/profile/", {**data, "time_zone": AUCKLAND}).status_code == 302
    assert User.objects.get(username="cyd").time_zone == AUCKLAND
    page = client.get("/accounts/profile/").content.decode()
    assert f'<option value="{AUCKLAND}" selected>' in page
    # Names that are no place: the host's own zone, and the zone of no zone
    for pseudo in ("localtime", "Factory"):
        assert client.post("/accounts/profile/", {**data, "time_zone": pseudo}).status_code == 400
        assert f'value="{pseudo}"' not in page


@pytest.mark.parametrize(
    ("language", "prague", "group"), [("en", "Prague", "Europe"), ("cs", "Praha", "Evropa"), ("hr", "Prag", "Europa")]
)
def test_the_zones_are_named_by_city_in_the_readers_language_and_grouped(make_user, language, prague, group):
    assert zone_city(PRAGUE, language) == prague
    # No city: its own name (Babel's "GMT+5" would read as five hours ahead; Etc/GMT+5 is five behind).
    assert zone_city("Etc/GMT+5", language) == "Etc/GMT+5" and zone_city("US/Eastern", language) == "US/Eastern"
    ann = make_user("ann")
    ann.language, ann.time_zone = language, "Europe/Kiev"  # an old name, saved before: still offered, and chosen
    ann.save()
    page = logged_in(ann).get("/accounts/profile/").content.decode()
    europe = re.search(rf'<optgroup label="{group}">(.*?)</optgroup>', page, re.S)
    assert europe and f'<option value="{PRAGUE}">{prague}</option>' in europe.group(1)
    assert "Europe/Kiev" not in europe.group(1)  # the old name is not a second Kyiv among the cities
    assert '<option value="Europe/Kiev" selected>Europe/Kiev</option>' in page
    assert 'value="US/Eastern"' not in page and 'value="Etc/GMT+5"' not in page  # old names nobody saved
    # Sorted as the reader's language sorts: Croatian Č after every C, Czech Ch after H
    cities = re.findall(r'<option value="[A-Z][a-z]+/[^"]+">([^<]+)</option>', page)
    if language == "hr":
        assert cities.index("Colombo") < cities.index("Čita") < cities.index("Damask")
    if language == "cs":
        assert cities.index("Hongkong") < cities.index("Chandyga") < cities.index("Irkutsk")


def test_sign_up_keeps_the_browsers_zone_and_drops_a_bad_one(client):
    form = {"username": "dorothea9", "email": "dora@example.com", "password1": PASSWORD, "password2": PASSWORD}
    assert "data-browser-time-zone" in client.get("/accounts/signup/").content.decode()
    assert client.post("/accounts/signup/", {**form, "time_zone": PRAGUE}).status_code == 302
    assert User.objects.get(username="dorothea9").time_zone == PRAGUE
    client.logout()
    other = {**form, "username": "ednamae7", "email": "edna@example.com", "time_zone": "Nowhere/Land"}
    assert client.post("/accounts/signup/", other).status_code == 302
    assert User.objects.get(username="ednamae7").time_zone == ""


def _async_game(make_user, classic) -> tuple[Game, User]:
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(
        creator=ann, variant=classic, seat_count=2, time_limit_seconds=DAY, seed=3, options={"rounds": [3, 4]}
    )
    services.game_join(game_id=game.pk, user=bob)
    game.refresh_from_db()
    assert game.current_seat is not None
    mover = game.seats.get(position=game.current_seat).user
    assert isinstance(mover, User)
    return game, mover


@pytest.mark.parametrize("zone", [PRAGUE, AUCKLAND])
def test_the_deadline_on_the_table_and_my_games_is_in_the_readers_zone(make_user, classic, zone):
    game, mover = _async_game(make_user, classic)
    mover.time_zone = zone
    mover.save()
    client = logged_in(mover)
    local = timezone.localtime(game.turn_deadline, ZoneInfo(zone))
    assert local.utcoffset() != datetime.timedelta(0)
    shown = formats.date_format(local, "DATETIME_FORMAT")
    for url in (game.get_absolute_url(), "/games/mine/"):
        page = client.get(url).content.decode()
        assert shown in page and f"({CITY[zone]})" in page, url
    stored = Game.objects.filter(pk=game.pk).values_list("turn_deadline", flat=True).get()
    assert stored.utcoffset() == datetime.timedelta(0)  # the database keeps UTC


def test_the_turn_email_says_the_deadline_in_the_recipients_zone_and_language(make_user, classic):
    game, mover = _async_game(make_user, classic)
    mover.time_zone, mover.language, mover.notify_by_email = AUCKLAND, "cs", True
    mover.save()
    assert services.clock_tick(now=game.turn_started_at + NOTICE_DUE)["emails"] == 1
    (message,) = mail.outbox
    with translation.override("cs"):
        shown = formats.date_format(timezone.localtime(game.turn_deadline, ZoneInfo(AUCKLAND)), "DATETIME_FORMAT")
    assert shown in message.body and "(Auckland)" in message.body
    assert timezone.get_current_timezone_name() == "UTC"


def test_afrikaans_dates_put_the_day_first_on_the_24_hour_clock():
    from django.utils import formats, translation

    moment = datetime.datetime(2026, 12, 2, 7, 58, tzinfo=datetime.UTC)
    with translation.override("af"):
        text = formats.date_format(moment, "DATETIME_FORMAT")
        assert text == f"2 {translation.gettext('December')} 2026 07:58"
        assert formats.number_format(1234.5, 1, force_grouping=True) == "1\xa0234,5"


@pytest.mark.parametrize("language", ["en", "hr", "cs"])
def test_the_profiles_labels_start_with_a_capital_like_every_other_field(make_user, language):
    page = logged_in(make_user("ann")).get("/accounts/profile/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    labels = re.findall(r'<label for="id_[a-z_]+"[^>]*>([^<]+)</label>', page)
    with translation.override(language):
        zone = str(User._meta.get_field("time_zone").verbose_name)
    assert zone[0].islower() and zone[0].upper() + zone[1:] in labels
    assert all(label.strip()[0].isupper() for label in labels), labels


@pytest.mark.parametrize(("language", "day"), [("cs", "6. prosince"), ("hr", "6. prosinca"), ("af", "6 Desember")])
def test_a_day_and_its_month_are_written_as_the_language_does(language, day):
    """The admin's date drill-down names a day so: a tester read "6. prosinec" (cs) and "6. Prosinac" (hr),
    the month in the nominative, beside rows that said "6. prosince 2026"."""
    with translation.override(language):
        assert formats.date_format(datetime.date(2026, 12, 6), "MONTH_DAY_FORMAT") == day


@pytest.mark.parametrize(
    ("zone", "language", "city"),
    [
        ("Pacific/Easter", "hr", "Uskršnji otok"),
        ("Africa/Khartoum", "hr", "Kartum"),
        ("Indian/Christmas", "af", "Kerseiland"),
    ],
)
def test_a_city_cldr_leaves_in_english_is_named_in_the_language(zone, language, city):
    """Found by a tester: "Easter", "Christmas" and "Khartoum" on the Croatian profile's list of zones."""
    assert zone_city(zone, language) == city
    assert city in [name for _group, zones in zone_choices(language)[2:] for _zone, name in zones]
