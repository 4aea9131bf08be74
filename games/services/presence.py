"""Who is at the table right now, across browser tabs and server processes.

Nothing lives in a process's memory: each seat has a connection counter and a heartbeat key in
the Django cache (Redis in production). A socket increments the counter when it connects and
decrements it when it leaves; while connected, its consumer refreshes the heartbeat every
`HEARTBEAT_SECONDS`. A seat is online when its counter is positive *and* its heartbeat is fresh,
so a server process that dies without saying goodbye stops counting after `HEARTBEAT_TTL`.
"""

from __future__ import annotations

from django.core.cache import cache

HEARTBEAT_SECONDS = 15
HEARTBEAT_TTL = 40
COUNT_TTL = 24 * 3600


def _count_key(table_id: int, position: int) -> str:
    return f"burraco:presence:{table_id}:{position}:count"


def _seen_key(table_id: int, position: int) -> str:
    return f"burraco:presence:{table_id}:{position}:seen"


def connected(table_id: int, position: int) -> None:
    """A socket of this seat's player opened."""
    key = _count_key(table_id, position)
    cache.add(key, 0, timeout=COUNT_TTL)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=COUNT_TTL)
        count = 1
    if count < 1:  # a counter left negative by a lost process: start again from this socket
        cache.set(key, 1, timeout=COUNT_TTL)
    heartbeat(table_id, position)


def heartbeat(table_id: int, position: int) -> None:
    """A socket of this seat is still there."""
    cache.set(_seen_key(table_id, position), 1, timeout=HEARTBEAT_TTL)
    cache.touch(_count_key(table_id, position), timeout=COUNT_TTL)


def disconnected(table_id: int, position: int) -> None:
    """A socket of this seat closed; the seat goes offline with its last socket."""
    key = _count_key(table_id, position)
    try:
        count = cache.decr(key)
    except ValueError:
        count = 0
    if count <= 0:
        cache.delete_many([key, _seen_key(table_id, position)])


def is_online(table_id: int, position: int) -> bool:
    """Does the player of this seat have at least one live socket on the table?"""
    values = cache.get_many([_count_key(table_id, position), _seen_key(table_id, position)])
    return int(values.get(_count_key(table_id, position), 0) or 0) > 0 and _seen_key(table_id, position) in values


def seats_online(table_id: int, positions: range | list[int] | None = None) -> dict[int, bool]:
    """Online state of every seat (positions 0-3 unless given)."""
    positions = list(positions if positions is not None else range(4))
    keys = [k for p in positions for k in (_count_key(table_id, p), _seen_key(table_id, p))]
    values = cache.get_many(keys)
    return {
        p: int(values.get(_count_key(table_id, p), 0) or 0) > 0 and _seen_key(table_id, p) in values
        for p in positions
    }


def announce(table_id: int) -> None:
    """Send the table's `presence` frame to every socket at it (after commit: who is online, and
    which seats the computer covers). The timers call this when the computer takes a seat over."""
    from ..selectors.tables import presence_frame
    from . import broadcast

    broadcast.deliver([(broadcast.all_group(table_id), presence_frame(table_id))])
