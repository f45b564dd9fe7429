"""The admin: rule variants (superusers, :mod:`.variants`) and game moderation
(the "Moderators" group, :mod:`.moderation`).

* Variants: one form field per rule option of RULES.md; the engine's
  ``Rules`` decides what is valid (its message is shown next to the field);
  the change form shows the round table and the decks per player count.
* Games, seats, moves, round results: read-only for everyone.  Games change
  only through the moderation services (abort, hand a seat to a bot), each
  asking for a reason on a confirmation page and writing an audit record.
* Audit records: read-only for everyone, no add, change or delete.
"""

from .moderation import (
    AbortForm,
    AuditRecordAdmin,
    GameAdmin,
    MoveAdmin,
    ReadOnlyAdmin,
    ReadOnlyInline,
    ReasonForm,
    RoundResultAdmin,
    SeatAdmin,
    SeatToBotForm,
    game_link,
    moderation_step,
    user_link,
)
from .variants import VariantAdmin, VariantForm, deck_table, parse_rounds, round_table, rounds_text

__all__ = [
    "VariantAdmin",
    "VariantForm",
    "deck_table",
    "parse_rounds",
    "round_table",
    "rounds_text",
    "AbortForm",
    "AuditRecordAdmin",
    "GameAdmin",
    "MoveAdmin",
    "ReadOnlyAdmin",
    "ReadOnlyInline",
    "ReasonForm",
    "RoundResultAdmin",
    "SeatAdmin",
    "SeatToBotForm",
    "game_link",
    "moderation_step",
    "user_link",
]
