from django.contrib import admin

from .models import Game, Hand, Move, PlayerRating, RatingChange, Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "creator", "players", "preset", "status", "rated", "private", "created_at")
    list_filter = ("status", "players", "preset", "rated", "private")
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("table", "position", "user", "bot_level", "covered_by_computer")
    list_select_related = ("user",)


class HandInline(admin.TabularInline):
    model = Hand
    extra = 0
    fields = ("number", "score", "started_at", "finished_at")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "table", "hand_number", "version", "to_move", "finished", "winner_side", "updated_at")
    list_filter = ("finished",)
    inlines = [HandInline]


@admin.register(Hand)
class HandAdmin(admin.ModelAdmin):
    list_display = ("game", "number", "started_at", "finished_at")


@admin.register(Move)
class MoveAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "hand_number", "seat", "actor", "action", "created_at")
    list_filter = ("actor",)


@admin.register(PlayerRating)
class PlayerRatingAdmin(admin.ModelAdmin):
    list_display = ("user", "mode", "rating", "games", "wins", "draws", "losses")
    list_filter = ("mode",)
    search_fields = ("user__username",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("user", "mode", "game", "before", "after", "score", "created_at")
    list_filter = ("mode",)
