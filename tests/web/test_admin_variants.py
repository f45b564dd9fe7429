"""Variants in the admin: every rule option a form field, the engine's validation, the round table."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.utils import translation

from games import services
from games.admin import parse_rounds, rounds_text
from games.engine import PRESETS, Rules, RulesError, wild_rank_label
from games.models import Game, Variant
from games.services.rule_errors import describe_rules_error

from .conftest import logged_in, post_action


def form_data(variant: Variant, **changes: Any) -> dict[str, Any]:
    """What the change form posts for ``variant`` as stored, with ``changes`` typed in."""
    rules = Rules.from_dict(variant.options).to_dict()
    data = {
        "name": variant.name,
        "slug": variant.slug,
        "description": variant.description,
        "position": variant.position,
        "rounds": rounds_text(rules["rounds"]),
        "decks": str(rules["decks"]),
        "jokers_per_deck": rules["jokers_per_deck"],
        "max_stock_rebuilds": rules["max_stock_rebuilds"],
        "aces": rules["aces"],
        "max_wilds_per_meld": rules["max_wilds_per_meld"] or "",
        "bad_go_out_penalty": rules["bad_go_out_penalty"] or "",
        "ace_points": rules["ace_points"],
        "face_points": rules["face_points"],
        "wild_points": str(rules["wild_points"]),
    }
    for flag in ("all_wild_melds", "redemption", "double_royal_rounds", "jokers_free"):
        if rules[flag]:
            data[flag] = "on"
    if variant.is_active:
        data["is_active"] = "on"
    data.update(changes)
    return {key: value for key, value in data.items() if value is not False}


def change_url(variant: Variant) -> str:
    return f"/admin/games/variant/{variant.pk}/change/"


@pytest.fixture
def superuser_client(role_client):
    return role_client("superuser")[0]


def test_every_rule_option_is_a_form_field_with_the_rules_wording(classic, superuser_client):
    response = superuser_client.get(change_url(classic))
    assert response.status_code == 200
    form = response.context["adminform"].form
    page = html.unescape(response.content.decode())
    for option in Rules().to_dict():
        assert option in form.fields, option
        assert f'name="{option}"' in page, option
        assert form.fields[option].help_text, option
    # Help text quotes RULES.md's "meaning" column.
    assert "lay off cards onto any melds on the table (including stand-ins)" in page
    assert "Aces and 2s are wild" in page
    assert dict(form.fields["aces"].choices).keys() == {"low", "high_or_low"}


def test_the_form_stores_the_options_in_the_engines_json_form(classic, superuser_client):
    response = superuser_client.post(
        change_url(classic),
        form_data(
            classic,
            rounds="3-13, 13-3",
            decks="2",
            jokers_per_deck=1,
            aces="high_or_low",
            ace_points=15,
            face_points="11-12-13",
            wild_points="15",
            max_wilds_per_meld=1,
            bad_go_out_penalty="20",
            redemption="on",
            jokers_free="on",
            double_royal_rounds="on",
            max_stock_rebuilds=5,
        ),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    classic.refresh_from_db()
    assert (
        classic.options
        == Rules(
            rounds=tuple(range(3, 14)) + tuple(range(13, 2, -1)),
            decks=2,
            jokers_per_deck=1,
            aces="high_or_low",
            ace_points=15,
            face_points="11-12-13",
            wild_points=15,
            max_wilds_per_meld=1,
            bad_go_out_penalty=20,
            redemption=True,
            jokers_free=True,
            double_royal_rounds=True,
            max_stock_rebuilds=5,
        ).to_dict()
    )


@pytest.mark.parametrize(
    "field, typed, option_value",
    [
        ("rounds", "3-16", list(range(3, 17))),
        ("rounds", "2, 3, 4", [2, 3, 4]),
        ("max_stock_rebuilds", "101", 101),
        ("max_stock_rebuilds", "-1", -1),
        ("max_wilds_per_meld", "0", 0),
    ],
)
def test_values_the_engine_refuses_are_refused_with_the_engines_message(
    classic, superuser_client, field, typed, option_value
):
    before = dict(classic.options)
    with pytest.raises(RulesError) as refused:
        Rules.from_dict({**before, field: option_value})
    response = superuser_client.post(change_url(classic), form_data(classic, **{field: typed}))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == [field]
    said = describe_rules_error(refused.value)  # the engine's refusal, said by its code
    assert errors[field][0] == said
    assert html.escape(said) in response.content.decode()
    classic.refresh_from_db()
    assert classic.options == before


@pytest.mark.parametrize("typed", ["", "three", "3-x", "3, 4.5"])
def test_a_rounds_list_that_cannot_be_read_is_refused(classic, superuser_client, typed):
    before = dict(classic.options)
    response = superuser_client.post(change_url(classic), form_data(classic, rounds=typed))
    assert response.status_code == 200
    assert "rounds" in response.context["adminform"].form.errors
    classic.refresh_from_db()
    assert classic.options == before


@pytest.mark.parametrize(
    "field, forged",
    [("decks", "9"), ("jokers_per_deck", "3"), ("aces", "sideways"), ("wild_points", "14"), ("ace_points", "abc")],
)
def test_forged_choices_are_refused(classic, superuser_client, field, forged):
    before = dict(classic.options)
    response = superuser_client.post(change_url(classic), form_data(classic, **{field: forged}))
    assert response.status_code == 200 and field in response.context["adminform"].form.errors
    classic.refresh_from_db()
    assert classic.options == before


def test_rounds_text_round_trips():
    for _slug, (_name, rules) in PRESETS.items():
        assert parse_rounds(rounds_text(rules.rounds)) == list(rules.rounds)
    assert rounds_text(range(3, 14)) == "3-13"
    assert rounds_text([3, 4, 5, 7, 9]) == "3-5, 7, 9"
    assert parse_rounds("13-3") == parse_rounds("13 - 3") == parse_rounds("13..3") == list(range(13, 2, -1))
    assert parse_rounds(" 3-5 ; 7, 9 ") == parse_rounds("3 4 5 7 9") == [3, 4, 5, 7, 9]


def test_the_change_form_shows_the_round_table_and_decks_per_player_count(superuser_client):
    variant = Variant.objects.get(slug="up-and-down")
    response = superuser_client.get(change_url(variant))
    rules = Rules.from_dict(variant.options)
    rows = response.context["round_rows"]
    assert [(r["round"], r["hand_size"], r["wild"]) for r in rows] == [
        (number, size, wild_rank_label(size)) for number, size in enumerate(rules.rounds, start=1)
    ]
    assert len(rows) == 22
    page = response.content.decode()
    assert "22 rounds" in page and "<strong>K</strong>" in page and "<strong>J</strong>" in page
    decks = {row["players"]: row["decks"] for row in response.context["deck_rows"]}
    assert decks == {n: rules.deck_count(n) for n in range(2, 9)} == {2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4, 8: 4}


def test_fourteens_show_aces_and_twos_wild(superuser_client):
    response = superuser_client.get(change_url(Variant.objects.get(slug="fourteens-fifteens")))
    rows = response.context["round_rows"]
    assert [r["wild"] for r in rows[-2:]] == ["A, 2", "A, 2"]


def test_a_fixed_deck_count_shows_which_player_counts_it_cannot_deal(classic, superuser_client):
    response = superuser_client.post(change_url(classic), form_data(classic, decks="1", _continue="1"))
    assert response.status_code == 302
    response = superuser_client.get(change_url(classic))
    rows = {row["players"]: row for row in response.context["deck_rows"]}
    rules = Rules.from_dict(Variant.objects.get(pk=classic.pk).options)
    for players, row in rows.items():
        try:
            rules.check_seats(players)
            assert row["problem"] == ""
        except RulesError as error:
            assert row["problem"] == describe_rules_error(error)
    assert rows[3]["problem"] == "" and rows[4]["problem"]  # 13 x 4 + 2 = 54 > 52
    assert html.escape(rows[4]["problem"]) in response.content.decode()


def test_the_preview_follows_the_options_typed_when_the_form_is_refused_for_another_reason(classic, superuser_client):
    response = superuser_client.post(change_url(classic), form_data(classic, rounds="3-5", slug="jokers"))
    assert response.status_code == 200 and "slug" in response.context["adminform"].form.errors
    assert [r["hand_size"] for r in response.context["round_rows"]] == [3, 4, 5]
    assert "not saved yet" in response.content.decode()


def test_add_a_variant(superuser_client):
    response = superuser_client.get("/admin/games/variant/add/")
    assert response.status_code == 200 and len(response.context["round_rows"]) == 11
    response = superuser_client.post(
        "/admin/games/variant/add/",
        {
            "name": "Short",
            "slug": "short",
            "position": 20,
            "is_active": "on",
            "rounds": "3-5",
            "decks": "auto",
            "jokers_per_deck": 0,
            "max_stock_rebuilds": 3,
            "aces": "low",
            "ace_points": 1,
            "face_points": "10",
            "wild_points": "face",
        },
    )
    assert response.status_code == 302
    assert Variant.objects.get(slug="short").options == Rules(rounds=(3, 4, 5)).to_dict()


def test_a_hidden_variant_is_not_offered_in_the_create_game_form(classic, superuser_client, make_user):
    response = superuser_client.post(change_url(classic), form_data(classic, is_active=False))
    assert response.status_code == 302
    assert Variant.objects.get(pk=classic.pk).is_active is False
    ann = logged_in(make_user("ann"))
    offered = [choice[1] for choice in ann.get("/").context["form"].fields["variant"].choices]
    assert "Classic" not in offered and "Jokers" in offered
    response = ann.post(
        "/games/new/",
        {"variant": classic.pk, "medium_bots": 1, "time_limit_seconds": 120},
    )
    assert response.status_code == 400 and not Game.objects.exists()


def test_editing_a_variant_never_changes_a_game_already_created(classic, superuser_client, make_user):
    ann, bob = make_user("ann"), make_user("bob")
    game = services.game_create(creator=ann, variant=classic, seat_count=2, seed=7)
    services.game_join(game_id=game.pk, user=bob)
    waiting = services.game_create(creator=ann, variant=classic, seat_count=3, seed=8)  # still open
    game.refresh_from_db()
    before = (game.rules, game.state, game.version, game.variant_name)
    response = superuser_client.post(
        change_url(classic),
        form_data(
            classic, name="Classic, shorter", rounds="3-5", face_points="11-12-13", jokers_per_deck=2, wild_points="15"
        ),
    )
    assert response.status_code == 302
    game.refresh_from_db()
    waiting.refresh_from_db()
    assert (game.rules, game.state, game.version, game.variant_name) == before
    assert waiting.rules == Rules().to_dict() and waiting.variant_name == "Classic"
    # The game plays on with its own rules: 11 rounds, no jokers.
    player = ann if game.current_seat == 0 else bob
    response = post_action(logged_in(player), game, {"type": "draw", "source": "stock"})
    assert response.status_code == 302
    page = logged_in(ann).get(f"/games/{game.pk}/").content.decode()
    assert "Round 1 of 11" in page and "jokers" not in page.lower().split("<main", 1)[1].split("</main>")[0]
    # A game created now takes the new options.
    fresh = services.game_create(creator=ann, variant=Variant.objects.get(pk=classic.pk), seat_count=2)
    assert fresh.rules["rounds"] == [3, 4, 5] and fresh.rules["jokers_per_deck"] == 2


def test_a_variant_with_games_cannot_be_deleted_one_without_can(classic, superuser_client, make_user):
    services.game_create(creator=make_user("ann"), variant=classic, seat_count=2)
    assert superuser_client.get(f"/admin/games/variant/{classic.pk}/delete/").status_code == 403
    assert superuser_client.post(f"/admin/games/variant/{classic.pk}/delete/", {"post": "yes"}).status_code == 403
    unused = Variant.objects.get(slug="jokers")
    assert superuser_client.post(f"/admin/games/variant/{unused.pk}/delete/", {"post": "yes"}).status_code == 302
    assert not Variant.objects.filter(pk=unused.pk).exists() and Variant.objects.filter(pk=classic.pk).exists()


@pytest.mark.parametrize(
    "role, get_status, post_status",
    [
        ("superuser", 200, 302),
        ("moderator", 200, 403),  # may look, may not change
        ("staff", 403, 403),
        ("user", 302, 302),  # to the admin log-in page
        ("anonymous", 302, 302),
    ],
)
def test_only_superusers_change_variants(classic, role_client, role, get_status, post_status):
    client, _user = role_client(role)
    before = dict(classic.options)
    response = client.get(change_url(classic))
    assert response.status_code == get_status
    if get_status == 302:
        assert response["Location"].startswith("/admin/login/")
    if role == "moderator":
        assert 'name="_save"' not in response.content.decode()  # view-only page
        client.cookies["django_language"] = "cs"  # the name in the reader's language, as the list shows it
        page = client.get(change_url(classic)).content.decode()
        assert "Klasická" in page and ">Classic<" not in page
        client.cookies["django_language"] = "en"
    response = client.post(change_url(classic), form_data(classic, rounds="3-4"))
    assert response.status_code == post_status
    classic.refresh_from_db()
    assert (classic.options == before) is (role != "superuser")
    add = client.post("/admin/games/variant/add/", form_data(classic, slug="new-one", rounds="3-4"))
    assert Variant.objects.filter(slug="new-one").exists() is (role == "superuser")
    assert add.status_code == post_status


def test_staff_given_the_change_variant_permission_still_cannot_change_variants(classic, role_client):
    from django.contrib.auth.models import Permission

    client, user = role_client("moderator")
    user.user_permissions.add(
        Permission.objects.get(codename="change_variant"), Permission.objects.get(codename="add_variant")
    )
    before = dict(classic.options)
    assert client.post(change_url(classic), form_data(classic, rounds="3-4")).status_code == 403
    classic.refresh_from_db()
    assert classic.options == before


# -- numbers typed by hand: digits 0-9 only, and not thousands of them ------------------------------

NOT_PLAIN_NUMBERS = [
    "²",  # a superscript two: str.isdigit() says yes, int() raises
    "١",  # an Arabic-Indic one: int() reads it as 1
    "٣",
    "1e5",
    "1.5",
    "0x10",
    "+-1",
    "9" * 4300,  # the most digits int() reads
    "9" * 4301,  # int() raises
]


@pytest.mark.parametrize("field", ["max_stock_rebuilds", "max_wilds_per_meld", "position", "rounds"])
@pytest.mark.parametrize(
    "typed", NOT_PLAIN_NUMBERS, ids=lambda typed: typed if len(typed) < 8 else f"{len(typed)} digits"
)
def test_number_fields_refuse_anything_but_a_short_number_in_the_digits_0_to_9(classic, superuser_client, field, typed):
    before = (dict(classic.options), classic.position)
    response = superuser_client.post(change_url(classic), form_data(classic, **{field: typed}))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == [field], errors
    assert len(errors[field][0]) < 200  # the refusal never quotes thousands of digits back
    classic.refresh_from_db()
    assert (classic.options, classic.position) == before


@pytest.mark.parametrize("typed", ["3-²", "٣-١٣", "3-" + "9" * 4300, "3, " + "4" * 50, "1000"])
def test_rounds_refuse_other_digits_and_huge_sizes(classic, superuser_client, typed):
    before = dict(classic.options)
    response = superuser_client.post(change_url(classic), form_data(classic, rounds=typed))
    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["rounds"]
    classic.refresh_from_db()
    assert classic.options == before


def test_the_add_form_refuses_the_same_numbers(superuser_client, classic):
    for typed in ("²", "١", "9" * 4301):
        response = superuser_client.post(
            "/admin/games/variant/add/", form_data(classic, slug="new-one", max_stock_rebuilds=typed)
        )
        assert response.status_code == 200
        assert "max_stock_rebuilds" in response.context["adminform"].form.errors
    assert not Variant.objects.filter(slug="new-one").exists()


def test_plain_numbers_still_pass(classic, superuser_client):
    response = superuser_client.post(
        change_url(classic),
        form_data(classic, rounds=" 3 - 5, 7 ", max_stock_rebuilds=" 12 ", max_wilds_per_meld="2", position="007"),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    classic.refresh_from_db()
    assert classic.options["rounds"] == [3, 4, 5, 7]
    assert classic.options["max_stock_rebuilds"] == 12 and classic.options["max_wilds_per_meld"] == 2
    assert classic.position == 7


def test_a_long_game_typed_in_few_characters_is_judged_by_its_text_not_its_round_count(classic, superuser_client):
    typed = ", ".join(["3-15, 15-3"] * 8)  # 79 characters, 208 rounds
    response = superuser_client.post(change_url(classic), form_data(classic, rounds=typed))
    assert response.status_code == 302, response.context["adminform"].form.errors
    classic.refresh_from_db()
    assert len(classic.options["rounds"]) == 208
    # The limit on the text still holds, in its own words.
    response = superuser_client.post(change_url(classic), form_data(classic, rounds=", ".join(["3-15"] * 41)))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["rounds"] == ["Write the rounds in at most 200 characters."]


@pytest.mark.parametrize("limit", ["1", "2"])
def test_melds_of_wild_cards_only_with_too_few_wilds_per_meld_is_refused(classic, superuser_client, limit):
    """Found by a tester: "Melds of wild cards only" with at most 1 or 2 wild cards per meld was saved, and
    the variant's rules page then said "Melds of wild cards only: yes" above "A meld needs at least one card
    that is not wild": a meld has at least three cards, so the limit (which wins, RULES.md) rules every such
    meld out.  The form now says so next to the option and stores nothing."""
    before = dict(classic.options)
    data = form_data(classic, all_wild_melds="on", max_wilds_per_meld=limit)
    response = superuser_client.post(change_url(classic), data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["all_wild_melds"]
    assert f"at most {limit} wild card" in errors["all_wild_melds"][0]
    classic.refresh_from_db()
    assert classic.options == before
    # Three wild cards per meld leave room for one made of wild cards only.
    roomy = form_data(classic, all_wild_melds="on", max_wilds_per_meld="3")
    response = superuser_client.post(change_url(classic), roomy)
    assert response.status_code == 302
    classic.refresh_from_db()
    assert classic.options["all_wild_melds"] is True and classic.options["max_wilds_per_meld"] == 3


@pytest.mark.parametrize("language", ["hr", "af", "cs"])
def test_the_variant_list_and_a_games_page_say_the_changed_options_in_words(superuser_client, make_user, language):
    """As the rules page says them, in the reader's language: not the engine's keys ("wild_points=15",
    "redemption=True"), which read as English code in every language."""
    variant = Variant.objects.get(slug="one-wild-per-meld")
    game = services.game_create(
        creator=make_user("ann"), variant=variant, seat_count=2, seed=3, options={"redemption": True}
    )
    superuser_client.cookies["django_language"] = language
    listing = html.unescape(superuser_client.get("/admin/games/variant/").content.decode())
    game_page = html.unescape(superuser_client.get(f"/admin/games/game/{game.pk}/change/").content.decode())
    with translation.override(language):
        wild = f"{translation.gettext('Unmelded wild card')}: {translation.gettext('15 points')}"
        per_meld = f"{translation.gettext('Wild cards per meld')}: 1"
        redemption = f"{translation.gettext('Redemption (lay off in the last turn)')}: {translation.gettext('yes')}"
    assert wild in listing and per_meld in listing
    assert wild in game_page and per_meld in game_page and redemption in game_page
    for page in (listing, game_page):
        assert "wild_points=" not in page and "max_wilds_per_meld=" not in page and "redemption=" not in page
