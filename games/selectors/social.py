"""Reads for friends and blocking: whom a person follows, with who of them is online and at which
table (and whether one may join or watch it), and the relation between two people (the profile's
buttons, the refusals)."""

from __future__ import annotations

from typing import Any

from django.db.models.functions import Lower
from django.urls import reverse

from games.live import frames, presence

from ..models import Block, Follow, Seat, Table


def follower_ids(user_id: int) -> list[int]:
    return list(Follow.objects.filter(followed_id=user_id).values_list("follower_id", flat=True))


def blocked_pairs(user_ids: list[int]) -> set[frozenset[int]]:
    """The pairs among these people where one blocks the other (one query; the queue's matcher
    keeps such pairs apart)."""
    if len(user_ids) < 2:
        return set()
    rows = Block.objects.filter(blocker_id__in=user_ids, blocked_id__in=user_ids).values_list("blocker_id",
                                                                                            "blocked_id")
    return {frozenset(row) for row in rows}


def relation(viewer, player) -> dict[str, bool]:
    """What the profile's buttons need: is this the viewer's own profile, and does the viewer
    follow or block the player (two small queries for another signed-in person, none else)."""
    signed_in = bool(viewer is not None and viewer.is_authenticated)
    if not signed_in or viewer.pk == player.pk:
        return {"self": signed_in, "signed_in": signed_in, "following": False, "blocking": False}
    return {"self": False, "signed_in": True,
            "following": Follow.objects.filter(follower=viewer, followed=player).exists(),
            "blocking": Block.objects.filter(blocker=viewer, blocked=player).exists()}


def followed_names(user) -> set[str]:
    """The names this person follows (the search results' Segui / Segui già)."""
    return set(Follow.objects.filter(follower=user).values_list("followed__username", flat=True))


def blocked_players(user) -> list[str]:
    """The names this person blocks, in alphabetical order."""
    return list(Block.objects.filter(blocker=user).order_by(Lower("blocked__username"))
                .values_list("blocked__username", flat=True))


def friends(user) -> list[dict[str, Any]]:
    """Whom this person follows, online ones first, each with the tables they sit at (waiting or
    in play): a public table in play can be watched, a public table with an open seat joined; a
    private table is named as such, with no way in (only its own guests may). Three queries and
    one Redis round trip, whatever the number of friends."""

    follows = list(Follow.objects.filter(follower=user).select_related("followed")
                   .order_by(Lower("followed__username")))
    ids = [f.followed_id for f in follows]
    online = presence.online_users(ids)
    seats = list(Seat.objects.filter(user_id__in=ids, table__status__in=[Table.Status.WAITING, Table.Status.PLAYING])
                 .select_related("table").order_by("-table__created_at"))
    table_ids = {s.table_id for s in seats}
    free: dict[int, int] = {}
    for table_id, seat_user, bot in Seat.objects.filter(table_id__in=table_ids).values_list(
            "table_id", "user_id", "bot_level"):
        free[table_id] = free.get(table_id, 0) + (seat_user is None and not bot)
    mine = set(Seat.objects.filter(user=user, table_id__in=table_ids).values_list("table_id", flat=True))
    by_friend: dict[int, list[dict[str, Any]]] = {}
    for seat in seats:
        table = seat.table
        if table.private:
            action = None
        elif table.pk in mine:
            action = "back"
        elif table.status == Table.Status.WAITING and free.get(table.pk, 0):
            action = "join"
        elif table.status == Table.Status.PLAYING:
            action = "watch"
        else:
            action = None
        by_friend.setdefault(seat.user_id, []).append({
            "id": None if table.private else table.pk,  # a private table is not even numbered
            "status": table.status,
            "private": table.private,
            "players": table.players,
            "free_seats": free.get(table.pk, 0),
            "action": action,
            "url": reverse("table", args=[table.pk]) if action else None,
        })
    rows = [{"username": f.followed.username, "url": reverse("profile", args=[f.followed.username]),
             "online": f.followed_id in online, "tables": by_friend.get(f.followed_id, [])} for f in follows]
    return sorted(rows, key=lambda r: not r["online"])  # stable: alphabetical within each group


def friends_frame(user) -> dict[str, Any]:
    """The lobby socket's `friends` frame (docs/protocol.md)."""
    return frames.friends(friends(user))
