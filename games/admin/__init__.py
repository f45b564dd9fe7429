"""The admin: rule variants (superusers, :mod:`.variants`) and game moderation
(the "Moderators" group, :mod:`.moderation`).

* Variants: one form field per rule option of RULES.md; the engine's
  ``Rules`` decides what is valid (its message is shown next to the field);
  the change form shows the round table and the decks per player count.
* Games, seats, moves, round results: read-only for everyone.  Games change
  only through the moderation services (abort, hand a seat to a bot), each
  asking for a reason on a confirmation page and writing an audit record.
* Audit records: read-only for everyone, no add, change or delete.
* Chat (:mod:`.chat`): messages, reports and mutes from chat, read-only; hiding a
  message, dismissing reports and muting someone from chat need
  ``games.moderate_chat`` and go through ``games.services.chat`` with a reason.
* Changelist filters: only the list's own (:mod:`.lookups`): a URL filtering
  on the seed, the state or the invite token gets a 400.
"""

from .chat import (
    ChatMessageAdmin,
    ChatReportAdmin,
    ChatSuspensionAdmin,
    may_moderate_chat,
    mute_users_step,
    unmute_users_step,
)
from .lookups import StrictLookupsMixin, restrict_lookups
from .moderation import (
    AbortForm,
    AuditRecordAdmin,
    AuditTargetMixin,
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
    "AuditTargetMixin",
    "ChatMessageAdmin",
    "ChatReportAdmin",
    "ChatSuspensionAdmin",
    "may_moderate_chat",
    "mute_users_step",
    "unmute_users_step",
    "StrictLookupsMixin",
    "restrict_lookups",
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
