"""Reads for the lobby: the public list of tables and the tables a player sits at."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet

from ..models import Seat, Table

LOBBY_LIMIT = 60


def _with_seats(qs: QuerySet[Table]) -> QuerySet[Table]:
    return qs.select_related("creator").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("position"))
    )


def open_tables(limit: int = LOBBY_LIMIT) -> list[Table]:
    """Public tables waiting for players first, then public tables in play between people
    (a person alone against the computer is no table to look for); newest first."""
    waiting = _with_seats(
        Table.objects.filter(status=Table.Status.WAITING, private=False).order_by("-created_at")
    )[:limit]
    playing = _with_seats(
        Table.objects.filter(status=Table.Status.PLAYING, private=False)
        # A duplicate round's tables cannot be watched until the round ends: not listed.
        .exclude(tournament_pairing__round__tournament__duplicate_deals__gt=0)
        .annotate(people=Count("seats", filter=Q(seats__user__isnull=False))).filter(people__gt=1)
        .order_by("-started_at")
    )[:limit]
    return [*waiting, *playing]


def user_tables(user) -> list[Table]:
    """Tables (private ones included) where this player sits, waiting or in play."""
    if not user.is_authenticated:
        return []
    qs = Table.objects.filter(
        seats__user=user, status__in=[Table.Status.WAITING, Table.Status.PLAYING]
    ).distinct().order_by("-created_at")
    return list(_with_seats(qs))


def seat_public(seat: Seat) -> dict[str, Any]:
    return {
        "position": seat.position,
        "side": seat.side,
        "username": seat.user.username if seat.user_id else None,
        "bot_level": seat.bot_level or None,
        "empty": seat.is_empty,
        "covered_by_computer": seat.covered_by_computer,
    }


def table_summary(table: Table) -> dict[str, Any]:
    """What anyone may know about a table: the lobby row and the table page header."""
    options = table.options or {}
    seats = list(table.seats.all())
    return {
        "id": table.pk,
        "url": f"/tavolo/{table.pk}/",
        "players": table.players,
        "preset": table.preset,
        "target": options.get("target"),
        "options": options,
        "draw_seconds": table.draw_seconds,
        "play_seconds": table.play_seconds,
        "disconnect_grace_seconds": table.disconnect_grace_seconds,
        "rated": table.rated,
        "private": table.private,
        "status": table.status,
        "creator": table.creator.username,
        "seats": [seat_public(s) for s in seats],
        "free_seats": sum(1 for s in seats if s.is_empty),
    }


def lobby_list() -> list[dict[str, Any]]:
    """The public list the lobby socket pushes (no private tables)."""
    return [table_summary(t) for t in open_tables()]
