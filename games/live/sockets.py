"""A table socket's own reads, and its counting in (docs/protocol.md, Presence).

What a socket asks on every open and ping, in statements written here: building an ORM query
cost more of a server's CPU than running it (docs/performance.md). `open_socket` is the one
write: it counts the socket in the presence store.
"""

from __future__ import annotations

from typing import Any

from django.db import connection

from burraco_site import dbasync
from burraco_site.dbthreads import run_db
from games.models import Game, Seat, Table, TournamentPairing

from . import frames, presence

INVITES_SESSION_KEY = "burraco_invites"

_SEAT_ROWS_SQL = (f'SELECT position, user_id, bot_level, covered_by_computer FROM "{Seat._meta.db_table}"'
                  " WHERE table_id = %s")
_OPEN_SQL = (f'SELECT t.players, t.private, t.creator_id, g.id, t.status FROM "{Table._meta.db_table}" t'
             f' LEFT OUTER JOIN "{Game._meta.db_table}" g ON g.table_id = t.id WHERE t.id = %s')
_GAME_SQL = f'SELECT id, version FROM "{Game._meta.db_table}" WHERE table_id = %s'


def _rows(sql: str, table_id: int) -> list[tuple]:
    """A few plain columns by a statement written here: what sockets ask for on every open and
    ping, where building an ORM query cost more than running it."""
    with connection.cursor() as cursor:
        cursor.execute(sql, [table_id])
        return cursor.fetchall()


def seat_rows(table_id: int) -> list[tuple[int, int | None, bool, bool]]:
    """(position, user id, computer, covered) of every seat: two columns' worth, no models."""
    return [(p, u, bool(b), bool(c)) for p, u, b, c in _rows(_SEAT_ROWS_SQL, table_id)]


def invited_table_ids(session) -> set[int]:
    return set(session.get(INVITES_SESSION_KEY, []) if session is not None else [])


def game_id_of(table_id: int) -> int | None:
    rows = _rows(_GAME_SQL, table_id)
    return rows[0][0] if rows else None


def current_version(table_id: int) -> int | None:
    """The version of the table's game (the `pong` carries it)."""
    rows = _rows(_GAME_SQL, table_id)
    return rows[0][1] if rows else None


async def current_version_async(table_id: int) -> int | None:
    """`current_version` on the event loop's own connection where it may (PostgreSQL): a ping
    never waits for a thread or the pool, so during a database outage it fails at once instead
    of holding the socket's next frame (an action) behind the pool's timeout."""
    if not dbasync.available():
        return await run_db(current_version)(table_id)
    async with dbasync.cursor() as cursor:
        await cursor.execute(_GAME_SQL, [table_id])
        row = await cursor.fetchone()
    return row[1] if row else None


def current_versions(table_ids: set[int]) -> dict[int, int]:
    """The version of each table's game, by table id (tables without a game are left out)."""
    return dict(Game.objects.filter(table_id__in=table_ids).values_list("table_id", "version"))


def open_socket(table_id: int, user, session, socket_id: str, max_sockets: int) -> dict[str, Any]:
    """Everything a table socket does when it opens, in one call: may this person be here, in
    which seat, at which game; count the socket in; the presence frame to send to the table
    (`refused`: "not_found", "forbidden" or "too_many"); and how many sockets the seat has now,
    this one included (`seat_sockets`)."""
    out: dict[str, Any] = {"refused": None, "players": None, "game_id": None, "position": None, "presence": None,
                           "status": None, "seat_sockets": 0}
    rows = _rows(_OPEN_SQL, table_id)
    if not rows:
        return out | {"refused": "not_found"}
    players, private, creator_id, game_id, status = rows[0]
    seats = seat_rows(table_id)
    position = next((p for p, u, _b, _c in sorted(seats) if u == user.pk), None)
    if private and not (creator_id == user.pk or position is not None or table_id in invited_table_ids(session)):
        return out | {"refused": "forbidden"}
    if position is None and status != Table.Status.WAITING and TournamentPairing.held_tables([table_id]):
        return out | {"refused": "forbidden"}  # a duplicate round's table: no spectators until the round ends
    if presence.sockets_of(table_id, user.pk) >= max_sockets:
        return out | {"refused": "too_many"}
    sockets = presence.connected(table_id, position, user.pk, socket_id)
    return out | {"players": players, "game_id": game_id, "position": position, "status": status,
                  "presence": frames.presence(seats, sockets),
                  "seat_sockets": sockets.seats.get(position, 0) if position is not None else 0}
