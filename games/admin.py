"""The admin shows the game side read-only.

Every write to a table, a game, its moves or a rating goes through the services, under the game's
row lock and version number (the one writer per game; see games/models.py). An admin form saving
a Game row would bypass both, and could rewind a live hand under the players or desynchronise the
stored state from the move log that replays rebuild it from. So these models can be looked at
(list, search, the change page as a read-only view) but not added, changed or deleted here; a fix
to a game belongs in a service or a management command that takes the lock.
"""

from django.contrib import admin

from .models import (
    Game,
    Hand,
    Move,
    PlayerRating,
    RatingChange,
    Seat,
    Table,
    Tournament,
    TournamentEntry,
    TournamentPairing,
)


class ReadOnlyMixin:
    """View permission only: the change page renders every field read-only and refuses a POST."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class SeatInline(ReadOnlyMixin, admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Table)
class TableAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "creator", "players", "preset", "status", "rated", "private", "created_at")
    list_filter = ("status", "players", "preset", "rated", "private")
    list_select_related = ("creator",)
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("table", "position", "user", "bot_level", "covered_by_computer")
    list_select_related = ("user", "table")


class HandInline(ReadOnlyMixin, admin.TabularInline):
    model = Hand
    extra = 0
    fields = ("number", "score", "started_at", "finished_at")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "table", "hand_number", "version", "to_move", "finished", "winner_side", "updated_at")
    list_filter = ("finished",)
    list_select_related = ("table",)
    inlines = [HandInline]


@admin.register(Hand)
class HandAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("game", "number", "started_at", "finished_at")
    list_select_related = ("game",)


@admin.register(Move)
class MoveAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("game", "seq", "hand_number", "seat", "actor", "action", "created_at")
    list_filter = ("actor",)
    list_select_related = ("game",)


@admin.register(PlayerRating)
class PlayerRatingAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("user", "mode", "rating", "games", "wins", "draws", "losses")
    list_filter = ("mode",)
    list_select_related = ("user",)
    search_fields = ("user__username",)


@admin.register(RatingChange)
class RatingChangeAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("user", "mode", "game", "before", "after", "score", "created_at")
    list_filter = ("mode",)
    list_select_related = ("user", "game")


class TournamentEntryInline(ReadOnlyMixin, admin.TabularInline):
    model = TournamentEntry
    fk_name = "tournament"
    extra = 0


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Read-only too: events are opened with `manage.py create_tournament` (the service checks
    the options) and run by the scheduler under the event's row lock."""

    list_display = ("id", "name", "kind", "status", "players", "capacity", "rounds", "current_round", "starts_at")
    list_filter = ("status", "kind", "players")
    search_fields = ("name",)
    inlines = [TournamentEntryInline]


@admin.register(TournamentPairing)
class TournamentPairingAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "round", "entry_a", "entry_b", "table", "score_a", "score_b", "points_a", "points_b",
                    "finished_at")
    list_select_related = ("round", "entry_a", "entry_b", "table")
