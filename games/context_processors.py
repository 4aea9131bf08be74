"""What every page needs to know about the signed-in player's tables."""

from __future__ import annotations

from games.selectors.notifications import bell as read_bell

from .models import Seat, Table


def waiting_tables(request) -> dict[str, list[int]]:
    """The public tables this player sits at that are still waiting for players: any page can
    then tell them when one starts (static/js/waiting.js, through the lobby socket). Private
    tables never appear on the lobby socket, so they are left out."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"waiting_tables": []}
    ids = Seat.objects.filter(user=user, table__status=Table.Status.WAITING, table__private=False).values_list(
        "table_id", flat=True)
    return {"waiting_tables": sorted(ids)}


def bell(request) -> dict:
    """The header's bell for a signed-in player: unread count and latest lines (two queries)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    return {"bell": read_bell(user)}
