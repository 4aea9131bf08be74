"""Site pages of the game: lobby, tables, history, leaderboards, rules."""

from django.urls import path

from . import views

urlpatterns = [
    path("gioca/", views.lobby, name="lobby"),
    path("storico/", views.history, name="history"),
    path("classifiche/", views.leaderboards, name="leaderboards"),
    path("regole/", views.rules, name="rules"),
]
