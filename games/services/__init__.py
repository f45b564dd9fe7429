"""Every change of a game goes through here, one module a seam.

- :mod:`.playing`: create (and "Play now"), join, leave, start, play, resign, rematch, move on from a round's summary;
- :mod:`.clock`: timed-out turns, bot turns a stopped server left waiting, and the turn e-mails (:mod:`.notices`);
- :mod:`.away`: time away (clocks of games over days stop while a player is away);
- :mod:`.moderation`: what staff do from the admin;
- :mod:`.chat`: table talk (post, mute, report) and its moderation (hide, mute from chat);
- :mod:`.analysis`: a finished game's analysis, asked for by a player and worked through in the background;
- :mod:`.turns`: what they all share (the move log, bot turns, the snapshot, the announcement).

Each raises :class:`GameError` and changes nothing when it refuses.
"""

from .analysis import analyse_game, analysis_called_off, analysis_request, analysis_step, analysis_tick
from .away import away_come_back, away_declare
from .chat import (
    MUTE_HOURS,
    RATE_LIMITS,
    chat_dismiss_reports,
    chat_hide,
    chat_mute,
    chat_mute_user,
    chat_post,
    chat_report,
    chat_unmute_user,
)
from .clock import BOTS_WAITING_AFTER, clock_tick, game_timeout, pass_summary
from .errors import GameError
from .moderation import REASON_MAX_LENGTH, game_abort, moderation_reason, seat_hand_to_bot, user_deactivate
from .playing import (
    MAX_INVITATIONS_WAITING,
    MAX_OPEN_TABLES,
    PLAY_NOW_BOTS,
    TIME_LIMITS,
    game_create,
    game_decline,
    game_join,
    game_leave,
    game_play,
    game_play_now,
    game_rematch,
    game_resign,
    game_start,
    round_summary_dismiss,
)
from .turns import TAKEOVER_BOT_LEVEL, BotSlice, play_waiting_bots

__all__ = [
    "GameError",
    "game_create",
    "game_play_now",
    "MAX_INVITATIONS_WAITING",
    "MAX_OPEN_TABLES",
    "PLAY_NOW_BOTS",
    "game_join",
    "game_decline",
    "game_leave",
    "game_start",
    "game_play",
    "game_resign",
    "game_rematch",
    "round_summary_dismiss",
    "game_timeout",
    "clock_tick",
    "pass_summary",
    "play_waiting_bots",
    "BotSlice",
    "BOTS_WAITING_AFTER",
    "TIME_LIMITS",
    "TAKEOVER_BOT_LEVEL",
    "game_abort",
    "seat_hand_to_bot",
    "user_deactivate",
    "moderation_reason",
    "REASON_MAX_LENGTH",
    "chat_post",
    "chat_mute",
    "chat_report",
    "chat_hide",
    "chat_dismiss_reports",
    "chat_mute_user",
    "chat_unmute_user",
    "MUTE_HOURS",
    "RATE_LIMITS",
    "away_declare",
    "away_come_back",
    "analysis_called_off",
    "analysis_request",
    "analysis_step",
    "analysis_tick",
    "analyse_game",
]
