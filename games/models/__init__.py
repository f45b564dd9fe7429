"""The models of the games app, one module a seam: :mod:`.play` (variants, games, seats, the move
log, round results, turn notices), :mod:`.moderation` (the audit log), :mod:`.history` (ratings and
game results), :mod:`.chat` (table talk and its moderation), :mod:`.away` (time away),
:mod:`.analysis` (a finished game's move-by-move analysis).  ``from games.models import X`` works
for every one of them."""

from .analysis import AnalysedDecision, GameAnalysis
from .away import Absence
from .chat import MESSAGE_MAX_LENGTH, QUICK_PHRASES, ChatMessage, ChatMute, ChatReport, ChatSuspension
from .history import GameResult, Rating
from .moderation import TARGETS, AuditRecord
from .play import (
    BotLevel,
    Game,
    InvalidGameStatus,
    InvitationNotice,
    Move,
    RoundResult,
    Seat,
    TurnNotice,
    Variant,
    variant_label,
)

__all__ = [
    "Variant",
    "BotLevel",
    "Game",
    "InvalidGameStatus",
    "Seat",
    "Move",
    "RoundResult",
    "TurnNotice",
    "InvitationNotice",
    "variant_label",
    "AuditRecord",
    "TARGETS",
    "Rating",
    "GameResult",
    "ChatMessage",
    "ChatReport",
    "ChatMute",
    "ChatSuspension",
    "QUICK_PHRASES",
    "MESSAGE_MAX_LENGTH",
    "Absence",
    "GameAnalysis",
    "AnalysedDecision",
]
