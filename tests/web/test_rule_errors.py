"""The engine's rule refusals reach people through their stable codes, never as its English sentence."""

from __future__ import annotations

import pickle
from dataclasses import fields
from typing import Any

import pytest

from games.engine import RULES_ERROR_CODES, Rules, RulesError, wild_ranks
from games.services.rule_errors import _option_messages, describe_rules_error


def _refusal(call: Any) -> RulesError:
    with pytest.raises(RulesError) as refused:
        call()
    return refused.value


REFUSALS = {
    "bad_hand_size": lambda: wild_ranks(16),
    "bad_option": lambda: Rules.from_dict({"jokers_per_deck": 3}),
    "too_few_decks": lambda: Rules.from_dict({"decks": 1}).check_seats(4),
    "bad_seat_count": lambda: Rules().check_seats(9),
    "not_an_object": lambda: Rules.from_dict([1, 2]),  # type: ignore[arg-type]
    "unknown_options": lambda: Rules.from_dict({"wild_jacks": True}),
}


def test_every_code_is_raised_with_the_params_it_declares():
    assert set(REFUSALS) == set(RULES_ERROR_CODES)
    for code, call in REFUSALS.items():
        error = _refusal(call)
        assert error.code == code
        assert set(error.params) == set(RULES_ERROR_CODES[code]), code


def test_a_refusal_is_said_by_its_code_not_by_the_engines_sentence():
    said = {code: describe_rules_error(_refusal(call)) for code, call in REFUSALS.items()}
    assert len(set(said.values())) == len(said)  # one message per code
    for code, call in REFUSALS.items():
        assert str(_refusal(call)) not in said[code]
    assert "9" in said["bad_seat_count"] and "2" in said["bad_seat_count"] and "8" in said["bad_seat_count"]
    assert "wild_jacks" in said["unknown_options"]


def test_a_message_does_not_depend_on_the_english_sentence():
    error = RulesError("bad_seat_count", "anything at all", params={"seats": "1", "min": 2, "max": 8})
    assert describe_rules_error(error) == describe_rules_error(
        RulesError("bad_seat_count", "other words", params={"seats": "1", "min": 2, "max": 8})
    )
    assert "anything" not in describe_rules_error(error)


def test_every_option_has_its_own_message_for_a_bad_value():
    assert set(_option_messages()) == {f.name for f in fields(Rules)}
    error = _refusal(lambda: Rules.from_dict({"max_stock_rebuilds": 101}))
    assert (
        error.option == "max_stock_rebuilds" and describe_rules_error(error) == _option_messages()["max_stock_rebuilds"]
    )


def test_the_error_survives_pickling_with_its_code_and_params():
    error = _refusal(REFUSALS["too_few_decks"])
    again = pickle.loads(pickle.dumps(error))
    assert (again.code, again.params, again.option, str(again)) == (error.code, error.params, error.option, str(error))


@pytest.mark.django_db
def test_creating_a_game_with_rules_the_engine_refuses_says_why_by_code():
    from django.contrib.auth import get_user_model

    from games import services
    from games.models import Variant
    from games.services.errors import GameError

    user = get_user_model().objects.create_user("rita", password="pw-rita-123")
    variant = Variant.objects.get(slug="classic")
    with pytest.raises(GameError) as refused:
        services.game_create(creator=user, variant=variant, seat_count=9)
    assert refused.value.code == "bad_rules"
    assert refused.value.message == describe_rules_error(_refusal(lambda: Rules().check_seats(9)))
