"""The one refusal every service raises: :class:`GameError`."""

from __future__ import annotations

#: HTTP status for each refusal code (anything else: 400).
_STATUS = {
    "not_logged_in": 403,
    "not_seated": 403,
    "not_creator": 403,
    "not_found": 404,
    "stale_version": 409,
    "game_not_open": 409,
    "game_not_active": 409,
    "game_full": 409,
    "already_seated": 409,
    "not_your_turn": 409,
    "wrong_phase": 409,
    "game_over": 409,
    "seats_open": 409,
    "not_due": 409,
    "seat_left": 409,
    "private_game": 403,
    "game_not_finished": 409,
    "game_aborted": 409,
    "seat_played_by_bot": 409,
}


class GameError(Exception):
    """A request the game refuses: ``code`` for programs, ``message`` for people."""

    def __init__(self, code: str, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status if status is not None else _STATUS.get(code, 400)

    def __str__(self) -> str:
        return self.message
