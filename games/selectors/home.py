"""Reads for the home page: the signed-in person's games in progress."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.urls import reverse

from ..models import Seat, Table
from .rules import preset_label


def games_in_progress(user) -> list[dict[str, Any]]:
    """The tables this person sits at that wait for players or are in play, newest first, each
    with its opponents (the other seats), whose turn it is and the way back. Three queries
    however many tables: the tables with their games (the hand's state left unread), then
    their seats with their people."""
    if user is None or not user.is_authenticated:
        return []
    tables = (Table.objects.filter(seats__user=user, status__in=[Table.Status.WAITING, Table.Status.PLAYING])
              .select_related("game").defer("options", "game__state", "game__totals", "game__result")
              .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("position")))
              .distinct().order_by("-created_at"))
    rows = []
    for table in tables:
        seats = list(table.seats.all())
        mine = next(s.position for s in seats if s.user_id == user.pk)
        game = getattr(table, "game", None) if table.status == Table.Status.PLAYING else None
        to_move = game.to_move if game is not None and not game.finished else None
        mover = next((s for s in seats if s.position == to_move), None)
        rows.append({
            "id": table.pk,
            "url": reverse("table", args=[table.pk]),
            "status": table.status,
            "status_label": table.get_status_display(),
            "players": table.players,
            "preset_label": preset_label(table.preset),
            "rated": table.rated,
            "private": table.private,
            "partner": _name(seats[(mine + 2) % 4]) if table.players == 4 else None,
            "opponents": [_name(s) for s in seats if s.position % 2 != mine % 2],
            "my_turn": to_move is not None and to_move == mine,
            "turn_of": _name(mover) if mover is not None else None,
        })
    return rows


def _name(seat: Seat) -> str | None:
    """A seat as the page says it: the person's name, "computer", or None when empty."""
    from django.utils.translation import gettext as _

    if seat.user_id:
        return seat.user.username
    if seat.bot_level:
        return _("computer")
    return None
