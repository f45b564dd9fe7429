"""The engine's rule refusals (``RulesError``) in the reader's language, by their stable codes.

The engine says what is wrong with a code and its params (``games.engine.RULES_ERROR_CODES``);
its English sentence is for logs.  Nothing here translates that sentence: each code (and, for a
bad option value, each option) has its own message, filled with the error's params.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.engine import RulesError
from games.engine.rules import MAX_HAND_SIZE, MIN_HAND_SIZE


def _option_messages() -> dict[str, str]:
    """What each option may be (a bad value of it is refused with this)."""
    sizes = {"min": MIN_HAND_SIZE, "max": MAX_HAND_SIZE}
    return {
        "decks": _("The number of decks is “auto” (one deck for every two players) or a whole number from 1 to 4."),
        "jokers_per_deck": _("Jokers per deck: 0, 1 or 2."),
        "rounds": _("The rounds are a list of hand sizes, each from %(min)s to %(max)s cards.") % sizes,
        "aces": _("Aces are either always low, or high or low."),
        "ace_points": _("An ace left in the hand scores 1 or 15 points."),
        "face_points": _("Face cards left in the hand score 10 each, or 11, 12 and 13."),
        "wild_points": _("A wild card left in the hand scores its own value, or 15 points."),
        "max_wilds_per_meld": _("The most wild cards in one meld is empty (no limit) or a whole number of at least 1."),
        "all_wild_melds": _("“Melds of wild cards only” is on or off."),
        "double_royal_rounds": _("“Double royal rounds” is on or off."),
        "redemption": _("“Redemption” is on or off."),
        "jokers_free": _("“Unmelded jokers free” is on or off."),
        "bad_go_out_penalty": _("The penalty for a wrong go-out is empty (none) or 20 points."),
        "max_stock_rebuilds": _("The stock may be rebuilt from the discard pile 0 to 100 times."),
    }


def describe_rules_error(error: RulesError) -> str:
    """The refusal in the active language, said from ``error.code`` and ``error.params``."""
    params = error.params
    if error.code == "bad_option":
        option = str(params.get("option", error.option or ""))
        known = _option_messages().get(option)
        if known is not None:
            return known
        return _("The rule option “%(option)s” cannot be %(value)s.") % {
            "option": option,
            "value": params.get("value", "?"),
        }
    if error.code == "too_few_decks":
        return _(
            "%(decks)s deck(s) cannot deal %(hand_size)s cards to each of %(seats)s players and still leave "
            "an up-card and a stock: use more decks or smaller rounds."
        ) % {key: params.get(key, "?") for key in ("decks", "hand_size", "seats")}
    if error.code == "bad_seat_count":
        return _("A game has %(min)s to %(max)s players, not %(seats)s.") % {
            key: params.get(key, "?") for key in ("min", "max", "seats")
        }
    if error.code == "bad_hand_size":
        return _("A round deals %(min)s to %(max)s cards, not %(hand_size)s.") % {
            key: params.get(key, "?") for key in ("min", "max", "hand_size")
        }
    if error.code == "unknown_options":
        return _("Unknown rule options: %(options)s.") % {"options": params.get("options", "?")}
    if error.code == "not_an_object":
        return _("The rule options must be a JSON object (names and values).")
    return _("These rules cannot be played.")
