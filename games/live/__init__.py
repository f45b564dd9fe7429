"""Live updates: the channel-layer groups (:mod:`.groups`), the WebSocket
consumers (:mod:`.consumers`) and their routes (:mod:`.routing`).

No message sent here ever carries a card: a game's group hears only its new
version number, and each page fetches its own view of the table over HTTP,
built by ``games.selectors`` from the engine's ``view(state, seat)``, the one
rule about hidden cards.
"""

from .groups import (
    announce_change_on_commit,
    announce_chat_on_commit,
    announce_chat_to_user_on_commit,
    announce_game_version_on_commit,
    announce_lobby_on_commit,
    announce_lobby_to_users_on_commit,
    close_sockets_of_account_on_commit,
    send_game_version,
    send_to_user,
    send_turns_changed,
)

__all__ = [
    "announce_change_on_commit",
    "announce_chat_on_commit",
    "announce_chat_to_user_on_commit",
    "announce_game_version_on_commit",
    "announce_lobby_on_commit",
    "announce_lobby_to_users_on_commit",
    "close_sockets_of_account_on_commit",
    "send_game_version",
    "send_to_user",
    "send_turns_changed",
]
