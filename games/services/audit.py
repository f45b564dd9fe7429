"""Writing the audit log: what a moderator's action was done to, kept in parts.

A record keeps its target as parts (its kind, a key of ``TARGETS``, and the
names, numbers and time they name), and ``AuditRecord.target_in_words()`` reads
them in each reader's language and time zone.  ``AuditRecord.target`` keeps
the words as the moderator who acted read them: the log's search looks there.
"""

from __future__ import annotations

import datetime
from typing import Any

from games.models import TARGETS, AuditRecord, ChatMessage, Game, Seat


def record(
    *,
    actor: Any,
    action: str,
    reason: str,
    kind: str,
    parts: dict[str, Any],
    game: Game | None = None,
    seat_position: int | None = None,
    target_user: Any = None,
) -> AuditRecord:
    """Write one audit record whose target reads as ``TARGETS[kind]`` with ``parts``."""
    entry = AuditRecord(
        actor=actor,
        action=action,
        reason=reason,
        game=game,
        seat_position=seat_position,
        target_user=target_user,
        target_params={"kind": kind, **parts},
    )
    entry.target = entry.target_in_words()
    entry.save()
    return entry


def message_label(message: ChatMessage) -> str:
    """A chat message in the audit log's words: its number, author, game and (shortened) text."""
    return str(TARGETS["message"]) % message_parts(message)


def game_parts(game: Game) -> dict[str, Any]:
    return {"id": game.pk, "variant": game.variant_name}


def seat_parts(game: Game, seat: Seat) -> dict[str, Any]:
    name = seat.user.username if seat.user is not None else seat.name
    return {"position": seat.position, "id": game.pk, "name": name}


def user_parts(user: Any) -> dict[str, Any]:
    return {"name": user.username}


def mute_parts(user: Any, until: datetime.datetime) -> dict[str, Any]:
    return {"name": user.username, "until": until.isoformat()}


def message_parts(message: ChatMessage) -> dict[str, Any]:
    text = message.text if len(message.text) <= 60 else message.text[:59] + "…"
    return {"id": message.pk, "name": message.author.username, "game": message.game_id, "text": text}
