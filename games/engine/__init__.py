"""The rules of Three Thirteen in pure Python (no Django): cards, rule options,
the hand solver and the game state machine.

    >>> from games.engine import Rules, new_game, legal_actions, apply, view
"""

from .cards import ACE, JACK, JOKER, KING, QUEEN, RANK_CHARS, STANDARD_DECK, SUIT_CHARS, Card, format_cards, parse_cards
from .game import (
    PHASE_DISCARD,
    PHASE_DRAW,
    PHASE_GAME_OVER,
    Action,
    Discard,
    Draw,
    Event,
    GameState,
    GoOut,
    IllegalAction,
    RoundResult,
    SeatResult,
    TableMeld,
    action_from_dict,
    apply,
    game_deck,
    legal_actions,
    new_game,
    replay,
    view,
)
from .melds import (
    Arrangement,
    Meld,
    best_arrangement,
    can_meld_all,
    discard_penalties,
    go_out_discards,
    meld_kind,
    redemption_score,
)
from .rules import PRESETS, Rules, RulesError, wild_rank_label, wild_ranks

__all__ = [
    # cards
    "ACE",
    "JACK",
    "QUEEN",
    "KING",
    "JOKER",
    "RANK_CHARS",
    "SUIT_CHARS",
    "STANDARD_DECK",
    "Card",
    "parse_cards",
    "format_cards",
    # rules
    "Rules",
    "RulesError",
    "PRESETS",
    "wild_ranks",
    "wild_rank_label",
    # melds
    "Meld",
    "Arrangement",
    "best_arrangement",
    "can_meld_all",
    "go_out_discards",
    "discard_penalties",
    "redemption_score",
    "meld_kind",
    # game
    "PHASE_DRAW",
    "PHASE_DISCARD",
    "PHASE_GAME_OVER",
    "IllegalAction",
    "Action",
    "Draw",
    "Discard",
    "GoOut",
    "action_from_dict",
    "Event",
    "TableMeld",
    "SeatResult",
    "RoundResult",
    "GameState",
    "new_game",
    "legal_actions",
    "apply",
    "view",
    "replay",
    "game_deck",
]
