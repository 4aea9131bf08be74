"""Site pages of the game: lobby, tables, history, leaderboards, rules.

Each feature owns a module in games/views/; a placeholder stands until its page exists.
"""

from django.urls import path

from .views import challenges as challenge_views
from .views import history as history_views
from .views import leaderboards as leaderboards_views
from .views import lobby as lobby_views
from .views import replay as replay_views
from .views import rules as rules_views
from .views import social as social_views
from .views import table as table_views
from .views import tournaments as tournament_views
from .views import verify as verify_views

urlpatterns = [
    path("gioca/", lobby_views.lobby, name="lobby"),
    path("gioca/nuovo/", lobby_views.table_create, name="table_create"),
    path("gioca/computer/", lobby_views.play_computer, name="play_computer"),
    path("tavolo/<int:table_id>/", table_views.table, name="table"),
    path("tavolo/<int:table_id>/siedi/", table_views.table_sit, name="table_sit"),
    path("tavolo/<int:table_id>/lascia/", table_views.table_leave, name="table_leave"),
    path("tavolo/<int:table_id>/computer/", table_views.table_fill, name="table_fill"),
    path("tavolo/<int:table_id>/avvia/", table_views.table_start, name="table_start"),
    path("tavolo/<int:table_id>/abbandona/", table_views.table_abandon, name="table_abandon"),
    path("tavolo/<int:table_id>/mosse/", table_views.table_moves, name="table_log"),
    path("tavolo/<int:table_id>/rivincita/", table_views.table_rematch, name="table_rematch"),
    path("tavolo/<int:table_id>/rivincita/no/", table_views.table_rematch_decline, name="table_rematch_decline"),
    path("tavolo/invito/<str:token>/", table_views.table_invite, name="table_invite"),
    path("sfida/", challenge_views.challenge_send, name="challenge_send"),
    path("sfida/<int:challenge_id>/accetta/", challenge_views.challenge_accept, name="challenge_accept"),
    path("sfida/<int:challenge_id>/rifiuta/", challenge_views.challenge_decline, name="challenge_decline"),
    path("sfida/<int:challenge_id>/annulla/", challenge_views.challenge_cancel, name="challenge_cancel"),
    path("amici/", social_views.friends, name="friends"),
    path("amici/cerca/", social_views.player_search, name="player_search"),
    path("amici/segui/", social_views.follow, name="follow"),
    path("amici/smetti/", social_views.unfollow, name="unfollow"),
    path("amici/blocca/", social_views.block, name="block"),
    path("amici/sblocca/", social_views.unblock, name="unblock"),
    path("notifiche/lette/", social_views.bell_read, name="bell_read"),
    path("storico/", history_views.history, name="history"),
    path("storico/partita/<int:game_id>/", history_views.game_detail, name="game_detail"),
    path("storico/partita/<int:game_id>/mosse.json", history_views.game_moves_json, name="game_moves_json"),
    path("storico/partita/<int:game_id>/replay/", replay_views.replay, name="game_replay"),
    path("storico/partita/<int:game_id>/analisi/", replay_views.request_analysis, name="game_analysis"),
    path("storico/partita/<int:game_id>/verifica/", verify_views.game_verify, name="game_verify"),
    path("verifica/", verify_views.verify, name="verify"),
    path("classifiche/", leaderboards_views.leaderboards, name="leaderboards"),
    path("tornei/", tournament_views.tournament_list, name="tournaments"),
    path("tornei/nuovo/", tournament_views.tournament_new, name="tournament_new"),
    path("tornei/<int:tournament_id>/", tournament_views.tournament_detail, name="tournament_detail"),
    path("tornei/<int:tournament_id>/iscriviti/", tournament_views.tournament_register, name="tournament_register"),
    path("tornei/<int:tournament_id>/ritirati/", tournament_views.tournament_withdraw, name="tournament_withdraw"),
    path("regole/", rules_views.rules, name="rules"),
    path("comandi/", rules_views.controls, name="controls"),
]
