"""Names cannot impersonate: unique as a reader sees them, never a bot's or staff's (accounts/names.py)."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from accounts.models import User
from accounts.names import name_key, reserved_reason
from games.bots import BOT_NAMES

from .conftest import logged_in

PASSWORD = "a-long-pass-phrase-42"

ZWSP, ZWJ, SOFT_HYPHEN, RLM = "\u200b", "\u200d", "\u00ad", "\u200f"
CYRILLIC_A, CYRILLIC_O, GREEK_O = "\u0410", "\u043e", "\u03bf"


# -- the rules themselves --------------------------------------------------------


@pytest.mark.parametrize(
    "look_alike",
    [
        "ANN",
        "Ann",
        "ＡＮＮ",  # full-width
        f"A{ZWSP}nn",
        f"An{SOFT_HYPHEN}n{RLM}",
        f"{CYRILLIC_A}nn",  # Cyrillic capital A
        "Ánn",
        "  ann ",
        "𝐚𝐧𝐧",  # mathematical bold
    ],
)
def test_look_alikes_share_a_key(look_alike):
    assert name_key(look_alike) == name_key("ann") == "ann"


@pytest.mark.parametrize("different", ["anne", "an", "bob", "a nn", "ann2"])
def test_different_names_have_different_keys(different):
    assert name_key(different) != name_key("ann")


@pytest.mark.parametrize(
    "name",
    [
        *BOT_NAMES,
        *(name.upper() for name in BOT_NAMES),
        *(f"{name} bot" for name in BOT_NAMES),
        "A.d.a",
        "4da",
        "HugoBot",
        "Ada_bot",
        "b0t",
        "b.o.t",
        "hugobot",
        "robot",
        "siteadmin",
        "admin",
        "SiteAdmin",
        "4dm1n",
        "ａｄｍｉｎ",
        f"ad{ZWSP}min",
        f"ad{ZWJ}m{SOFT_HYPHEN}in",
        "𝐚𝐝𝐦𝐢𝐧",
        "Moderator",
        f"M{CYRILLIC_O}derator",
        f"M{GREEK_O}derator",
        "st4ff",
        "Staff-Anna",
        "SYSTEM",
        "The System",
        "Ádmin",
    ],
)
def test_names_posing_as_a_bot_or_staff_are_reserved(name):
    assert reserved_reason(name), name


@pytest.mark.parametrize(
    "name",
    [
        "ann",
        "Marija",
        "Adam",
        "Hugh",
        "Grace Hopper",
        "Dorothea",
        "Čeněk",
        "Ivan_1",
        "Abbott",
        "Talbot",
        "Botha",
        "Staffan",
        "badminton",
        "Adamo",
    ],
)
def test_ordinary_names_are_not_reserved(name):
    assert reserved_reason(name) is None


# -- sign-up ---------------------------------------------------------------------


def sign_up(username: str, email: str | None = None):
    data = {"username": username, "email": email or "new@example.com", "password1": PASSWORD, "password2": PASSWORD}
    return Client().post("/accounts/signup/", data)


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["Ada", "hugo_bot", "admin", "Moderator7", "st4ff", "system"])
def test_sign_up_refuses_a_name_posing_as_a_bot_or_staff(username):
    response = sign_up(username)
    assert response.status_code == 400
    errors = response.context["form"].errors["username"]
    assert any("bots" in e or "staff" in e for e in errors), errors
    assert not User.objects.filter(username=username).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["ANN", "Ann", "Queen", "QUEEN", "qUeEn"])
def test_sign_up_refuses_a_name_that_is_taken_whatever_its_case(make_user, username):
    ann = make_user("ann")
    ann.display_name = "Queen"
    ann.save()
    response = sign_up(username)
    assert response.status_code == 400
    assert response.context["form"].errors["username"]
    assert User.objects.count() == 1


@pytest.mark.django_db
def test_sign_up_refuses_a_look_alike_of_a_taken_name(make_user):
    make_user("ann")
    response = sign_up(f"{CYRILLIC_A}nn")  # Django's validator takes Cyrillic letters: we do not
    assert response.status_code == 400
    assert "looks too much like a name in use" in response.content.decode()
    assert User.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["..", ".", "-_-", "\u3164", "\u3164\u3164\u3164", "\uffa0"])
def test_sign_up_refuses_a_name_nobody_can_see_or_link_to(username):
    """Blank letters showed as an empty seat; ".." made a stats link that led to the lobby."""
    response = sign_up(username)
    assert response.status_code == 400
    assert response.context["form"].errors["username"] == ["A name needs at least one visible letter."]
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["\u2800", "\u115f\u1160", "..."])
def test_a_display_name_nobody_can_see_is_refused(make_user, name):
    client = logged_in(make_user("ann"))
    response = set_display_name(client, name)
    assert response.status_code == 400
    assert "A name needs at least one visible letter." in response.content.decode()
    assert User.objects.get(username="ann").display_name == ""


@pytest.mark.django_db
def test_a_name_is_found_whatever_the_case_it_is_typed_in(make_user):
    """Names are unique regardless of case: signing up "bertha" was refused, yet logging in as "bertha"
    failed (and counted towards the lock-out) and /players/bertha/ was a 404."""
    make_user("Bertha")
    client = Client()
    response = client.post("/accounts/login/", {"username": "bertha", "password": PASSWORD})
    assert response.status_code == 302 and client.session["_auth_user_id"]
    for path, canonical in (
        ("/players/bertha/", "/players/Bertha/"),
        ("/players/BERTHA/games/", "/players/Bertha/games/"),
    ):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"] == canonical
    assert client.get("/players/Bertha/").status_code == 200
    assert client.get("/players/berth/").status_code == 404


@pytest.mark.django_db
def test_sign_up_with_a_free_name_works(make_user):
    make_user("ann")
    assert sign_up("anna").status_code == 302
    assert User.objects.filter(username="anna").exists()


# -- the profile's display name --------------------------------------------------


def set_display_name(client: Client, name: str):
    return client.post("/accounts/profile/", {"display_name": name, "email": "me@example.com", "language": ""})


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["BOB", "bob", f"b{CYRILLIC_O}b", "King", "KING", f"Ki{ZWSP}ng"])
def test_a_display_name_may_not_look_like_another_users_name(make_user, name):
    ann, bob = make_user("ann"), make_user("bob")
    bob.display_name = "King"
    bob.save()
    response = set_display_name(logged_in(ann), name)
    assert response.status_code == 400
    assert "looks too much like a name in use" in response.context["form"].errors["display_name"][0]
    ann.refresh_from_db()
    assert ann.display_name == ""
    # The page's header names her as she is, not by the name refused (the form's copy held that).
    assert response.context["user"].display_name == ""
    assert 'title="ann">ann</a>' in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["Hugo", "Felix the bot", "Admin Ann", "ann (moderator)", f"St{ZWSP}aff"])
def test_a_display_name_may_not_pose_as_a_bot_or_staff(make_user, name):
    ann = make_user("ann")
    response = set_display_name(logged_in(ann), name)
    assert response.status_code == 400
    assert response.context["form"].errors["display_name"]
    ann.refresh_from_db()
    assert ann.display_name == ""


@pytest.mark.django_db
def test_a_display_name_may_be_ones_own_user_name_in_another_case(make_user):
    ann = make_user("ann")
    assert set_display_name(logged_in(ann), "Ann").status_code == 302
    ann.refresh_from_db()
    assert ann.display_name == "Ann" and ann.shown_name == "Ann"


@pytest.mark.django_db
def test_invisible_characters_are_removed_and_an_invisible_name_refused(make_user):
    ann = make_user("ann")
    client = logged_in(ann)
    assert set_display_name(client, f"Ann{ZWSP} the{ZWJ}  Bold").status_code == 302
    ann.refresh_from_db()
    assert ann.display_name == "Ann the Bold"
    response = set_display_name(client, ZWSP * 3)
    assert response.status_code == 400 and "visible letter" in response.content.decode()
    ann.refresh_from_db()
    assert ann.display_name == "Ann the Bold"


@pytest.mark.django_db
def test_a_display_name_given_by_staff_stays_when_the_profile_is_saved(make_user):
    ann = make_user("ann")
    ann.display_name = "Ann (moderator)"  # set in the admin, where the reserved words are allowed
    ann.save()
    response = logged_in(ann).post(
        "/accounts/profile/",
        {"display_name": "Ann (moderator)", "email": "ann@example.com", "language": "hr", "notify_by_email": "on"},
    )
    assert response.status_code == 302
    ann.refresh_from_db()
    assert (ann.display_name, ann.language) == ("Ann (moderator)", "hr")


# -- the database ----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("other", ["ANN", f"{CYRILLIC_A}nn", "ＡＮＮ"])
def test_the_database_refuses_user_names_that_look_alike(make_user, other):
    make_user("ann")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(other, "other@example.com", PASSWORD)


@pytest.mark.django_db
def test_the_database_refuses_display_names_that_look_alike(make_user):
    ann, bob = make_user("ann"), make_user("bob")
    ann.display_name = "Queen"
    ann.save()
    bob.display_name = "QUEEN"
    with pytest.raises(IntegrityError), transaction.atomic():
        bob.save()
    bob.display_name = "Queen"
    with pytest.raises(IntegrityError), transaction.atomic():
        bob.save(update_fields=["display_name"])  # the key is written with the name


@pytest.mark.django_db
def test_the_database_refuses_a_case_variant_written_past_save(make_user):
    make_user("ann")
    bob = make_user("bob")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.filter(pk=bob.pk).update(username="ANN")  # the Lower("username") constraint


# -- the admin: staff may choose any name, but never a taken one -------------------


@pytest.mark.django_db
def test_the_admin_refuses_a_taken_name_with_a_form_error(make_user, admin_client):
    make_user("ann")
    response = admin_client.post(
        "/admin/accounts/user/add/",
        {"username": "ANN", "password1": PASSWORD, "password2": PASSWORD, "usable_password": "true"},
    )
    assert response.status_code == 200 and response.context["adminform"].form.errors
    assert not User.objects.filter(username="ANN").exists()
    response = admin_client.post(
        "/admin/accounts/user/add/",
        {"username": f"{CYRILLIC_A}nn", "password1": PASSWORD, "password2": PASSWORD, "usable_password": "true"},
    )
    assert response.status_code == 200 and "looks too much like" in response.content.decode()
    response = admin_client.post(
        "/admin/accounts/user/add/",
        {"username": "moderator-ann", "password1": PASSWORD, "password2": PASSWORD, "usable_password": "true"},
    )
    assert response.status_code == 302 and User.objects.filter(username="moderator-ann").exists()


# -- the migration ---------------------------------------------------------------

BEFORE, AFTER = [("accounts", "0001_initial")], [("accounts", "0002_names_unique_as_read")]


def _migrate(target):
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def _migrate_to_latest() -> None:
    """Where the test leaves the database: every app at its last migration (the models as they are now)."""
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_keys_and_stops_on_names_that_look_alike():
    try:
        old = _migrate(BEFORE).get_model("accounts", "User")
        old.objects.create(username="ann", display_name="Queen", password="!")
        old.objects.create(username="Bob", display_name="", password="!")
        new = _migrate(AFTER).get_model("accounts", "User")
        keys = {u.username: (u.username_key, u.display_name_key) for u in new.objects.all()}
        assert keys == {"ann": ("ann", "queen"), "Bob": ("bob", "")}

        old = _migrate(BEFORE).get_model("accounts", "User")
        old.objects.create(username="ANN", password="!")
        with pytest.raises(RuntimeError, match="look alike"):
            _migrate(AFTER)
        old.objects.filter(username="ANN").delete()
    finally:
        _migrate_to_latest()
    assert User.objects.get(username="ann").display_name_key == "queen"


# -- two requests racing for one name ---------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_name_taken_by_a_racing_request_is_a_form_error_not_a_500(make_user, monkeypatch):
    ann, bob = make_user("ann"), make_user("bob")
    bob.display_name = "Queen"
    bob.save()
    # Both forms checked before the other request saved: the database decides.
    monkeypatch.setattr(User, "name_clashes", lambda self, name: False)
    response = set_display_name(logged_in(ann), "QUEEN")
    assert response.status_code == 400
    assert "looks too much like a name in use" in response.context["form"].errors["display_name"][0]
    ann.refresh_from_db()
    assert ann.display_name == ""
    monkeypatch.setattr(User.objects, "filter", lambda *a, **k: User.objects.none())  # Django's iexact check
    response = sign_up(f"{CYRILLIC_A}NN")
    assert response.status_code == 400 and response.context["form"].errors["username"]
    assert User.objects.count() == 2
