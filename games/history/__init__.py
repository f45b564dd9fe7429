"""Looking back at finished games, one module a part:

- :mod:`.records`: history lists, a finished game's record and its replay;
- :mod:`.stats`: a person's numbers and the leaderboard;
- :mod:`.ratings`: openskill ratings, updated once when a game finishes;
- :mod:`.charts`: the geometry of the server-rendered SVG charts;
- :mod:`.views`: the thin views of these pages.
"""

from .records import (
    BOT_OPPONENT_PREFIX,
    ReplayRefused,
    game_record,
    game_replay,
    history_filters,
    history_of,
    history_rows,
    with_places,
)
from .stats import LEADERBOARD_MIN_GAMES, leaderboard, leaderboard_rows, player_stats

__all__ = [
    "BOT_OPPONENT_PREFIX",
    "LEADERBOARD_MIN_GAMES",
    "ReplayRefused",
    "game_record",
    "game_replay",
    "history_filters",
    "history_of",
    "history_rows",
    "leaderboard",
    "leaderboard_rows",
    "player_stats",
    "with_places",
]
