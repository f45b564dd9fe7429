"""The one refusal every service raises: :class:`GameError`."""

from __future__ import annotations


class GameError(Exception):
    """A request the game refuses: ``code`` for programs, ``message`` for people.

    What a refusal means on the web (its HTTP status) is the views' business:
    ``games.views.HTTP_STATUS``.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message
