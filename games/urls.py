"""Site pages of the game: lobby, tables, history, leaderboards, rules.

Each feature owns a module in games/views/; a placeholder stands until its page exists.
"""

from django.urls import path

from .views import placeholders

urlpatterns = [
    path("gioca/", placeholders.lobby, name="lobby"),
    path("storico/", placeholders.history, name="history"),
    path("classifiche/", placeholders.leaderboards, name="leaderboards"),
    path("regole/", placeholders.rules, name="rules"),
]
