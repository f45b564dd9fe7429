from django.urls import path

from . import away_views, chat_views, views
from .history import views as history_views

app_name = "games"

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("lobby/lists/", views.lobby_lists, name="lobby_lists"),
    path("rules/", views.rules, name="rules"),
    path("games/new/", views.game_create, name="create"),
    path("games/play-now/", views.play_now, name="play_now"),
    path("games/mine/", views.my_games, name="my_games"),
    path("away/", away_views.away, name="away"),
    path("away/back/", away_views.away_back, name="away_back"),
    path("games/<int:game_id>/", views.table, name="table"),
    path("games/<int:game_id>/table/", views.table_partial, name="table_partial"),
    path("games/<int:game_id>/play/", views.play, name="play"),
    path("games/<int:game_id>/join/", views.join, name="join"),
    path("games/<int:game_id>/leave/", views.leave, name="leave"),
    path("games/<int:game_id>/decline/", views.decline, name="decline"),
    path("games/<int:game_id>/start/", views.start, name="start"),
    path("games/<int:game_id>/resign/", views.resign, name="resign"),
    path("games/<int:game_id>/rematch/", views.rematch, name="rematch"),
    path("games/<int:game_id>/invite/<str:token>/", views.invite, name="invite"),
    path("games/<int:game_id>/rounds/<int:round_number>/", views.round_summary, name="round"),
    path("games/<int:game_id>/rounds/<int:round_number>/seen/", views.round_seen, name="round_seen"),
    path("games/<int:game_id>/rules/", views.rules, name="game_rules"),
    # table talk
    path("games/<int:game_id>/chat/", chat_views.chat_partial, name="chat"),
    path("games/<int:game_id>/chat/post/", chat_views.chat_post, name="chat_post"),
    path("games/<int:game_id>/chat/mute/", chat_views.chat_mute, name="chat_mute"),
    path("games/<int:game_id>/chat/report/", chat_views.chat_report, name="chat_report"),
    # looking back: history, records, replays, stats
    path("games/<int:game_id>/record/", history_views.game_record, name="record"),
    path("games/<int:game_id>/replay/", history_views.game_replay, name="replay"),
    path("games/<int:game_id>/record.json", history_views.game_record_export, name="record_export"),
    path("games/<int:game_id>/fairness/", history_views.game_fairness, name="fairness"),
    path("games/<int:game_id>/analysis/", history_views.game_analysis, name="analysis"),
    path("games/<int:game_id>/analysis/request/", history_views.game_analysis_request, name="analysis_request"),
    path("history/", history_views.my_history, name="my_history"),
    path("players/<str:username>/", history_views.player_stats, name="stats"),
    path("players/<str:username>/games/", history_views.player_history, name="history"),
    path("leaderboard/", history_views.leaderboard, name="leaderboard"),
]
