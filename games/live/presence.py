"""Who is at the table right now, across browser tabs and server processes.

Nothing lives in one process's memory, and nothing is lost for good when Redis is flushed or
restarted. Each open socket of a seated player is one member of the table's sorted set in Redis
(`burraco:presence:<table>`, member `<position>|<socket>`, score = when it expires). The socket's
consumer adds itself when it connects and again on every heartbeat (`HEARTBEAT_SECONDS`), so a
flushed set is rebuilt by the sockets themselves within one heartbeat, and a socket of a process
that died without saying goodbye stops counting after `TTL_SECONDS`. A seat is online while it has
a member that has not expired.

When a seat's last socket goes, the time is kept (`burraco:away:<table>` hash, game clock) so the
scheduler can tell how long the player has been away; if that mark is lost too, the scheduler
starts counting from when it first sees the seat empty, which can only give the player more time.

Without Redis (the embedded single-process mode) the same structure lives in this process.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime
from functools import lru_cache
from typing import NamedTuple

from django.conf import settings

from games.live import clock

# Settings (PRESENCE_HEARTBEAT_SECONDS, PRESENCE_TTL_SECONDS; 15 and 40 by default): the fault
# tests shorten them so that "back online within one heartbeat" is seconds, not a quarter minute.
HEARTBEAT_SECONDS = float(getattr(settings, "PRESENCE_HEARTBEAT_SECONDS", 15))
TTL_SECONDS = float(getattr(settings, "PRESENCE_TTL_SECONDS", 40))


def _set_key(table_id: int) -> str:
    return f"burraco:presence:{table_id}"


def _away_key(table_id: int) -> str:
    return f"burraco:away:{table_id}"


class _MemoryStore:
    """The embedded mode's stand-in for the two Redis structures (one process only)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.members: dict[int, dict[str, float]] = {}
        self.away: dict[int, dict[int, str]] = {}

    def add(self, table_id: int, member: str, expires: float) -> bool:
        with self.lock:
            table = self.members.setdefault(table_id, {})
            new = member not in table
            table[member] = expires
            return new

    def remove(self, table_id: int, member: str) -> None:
        with self.lock:
            self.members.get(table_id, {}).pop(member, None)

    def live(self, table_id: int, now: float) -> list[str]:
        with self.lock:
            table = self.members.get(table_id, {})
            for member in [m for m, exp in table.items() if exp <= now]:
                del table[member]
            return list(table)

    def set_away(self, table_id: int, position: int, since: str | None) -> None:
        with self.lock:
            marks = self.away.setdefault(table_id, {})
            if since is None:
                marks.pop(position, None)
            else:
                marks.setdefault(position, since)

    def get_away(self, table_id: int, position: int) -> str | None:
        with self.lock:
            return self.away.get(table_id, {}).get(position)


_memory = _MemoryStore()


def redis_client():
    """A client on the Redis of the site's cache, or None in the embedded mode (locmem cache)."""
    return _redis()


def _redis():
    """A client on the Redis of the site's cache, or None in the embedded mode (locmem cache)."""
    cache = settings.CACHES["default"]
    if not cache["BACKEND"].endswith("RedisCache"):
        return None
    return _client(cache["LOCATION"])


@lru_cache(maxsize=4)
def _client(location: str):
    import redis

    return redis.Redis.from_url(location, socket_timeout=2, socket_connect_timeout=2, health_check_interval=30)


def _prefix() -> str:
    return settings.CACHES["default"].get("KEY_PREFIX", "") or ""


SPECTATOR = "-"


def _member(position: int | None, user_id: int, socket_id: str) -> str:
    return f"{SPECTATOR if position is None else position}|{user_id}|{socket_id}"


def _add(table_id: int, position: int | None, user_id: int, socket_id: str) -> bool:
    expires = time.time() + TTL_SECONDS
    member = _member(position, user_id, socket_id)
    client = _redis()
    if client is None:
        added = _memory.add(table_id, member, expires)
        if position is not None:
            _memory.set_away(table_id, position, None)
        return added
    key = _prefix() + _set_key(table_id)
    pipe = client.pipeline(transaction=False)
    pipe.zadd(key, {member: expires})
    pipe.expire(key, int(2 * TTL_SECONDS))
    if position is not None:
        pipe.hdel(_prefix() + _away_key(table_id), str(position))
    return bool(pipe.execute()[0])


def _live_members(table_id: int) -> list[tuple[str, str]]:
    """(position or "-", user id) of every live socket at the table."""
    now = time.time()
    client = _redis()
    if client is None:
        members = _memory.live(table_id, now)
    else:
        members = [m.decode() for m in client.zrangebyscore(_prefix() + _set_key(table_id), now, "+inf")]
    return [tuple(m.split("|", 2)[:2]) for m in members]


def _live_positions(table_id: int) -> set[int]:
    return {int(position) for position, _user in _live_members(table_id) if position != SPECTATOR}


def sockets_of(table_id: int, user_id: int) -> int:
    """How many live sockets this person has open at this table (seated or watching)."""
    return sum(1 for _position, user in _live_members(table_id) if user == str(user_id))


class Sockets(NamedTuple):
    """The live sockets at a table: how many each online seat has (a person's tabs), and how
    many watch without a seat."""

    seats: dict[int, int]
    watchers: int

    @property
    def online(self) -> set[int]:
        return set(self.seats)


class Seen(NamedTuple):
    """Who is at the table as a socket last heard it from the presence frames: the seats online
    and whether anyone watches. The play path may take it instead of a Redis look-up on a
    person's action (docs/protocol.md, Presence): a moment out of date, it costs at most a
    spectator's resync or a player a few seconds more on the clock, never a wrong move."""

    online: frozenset[int]
    watched: bool


def connected(table_id: int, position: int | None, user_id: int, socket_id: str) -> Sockets:
    """A socket of this person opened at the table (`position` None: watching); returns the
    table's live sockets now."""
    _add(table_id, position, user_id, socket_id)
    return sockets_at(table_id)


def sockets_at(table_id: int) -> Sockets:
    seats: dict[int, int] = {}
    watchers = 0
    for position, _user in _live_members(table_id):
        if position == SPECTATOR:
            watchers += 1
        else:
            seats[int(position)] = seats.get(int(position), 0) + 1
    return Sockets(seats, watchers)


def online_positions(table_id: int) -> set[int]:
    """The seats with at least one live socket."""
    return _live_positions(table_id)


def heartbeat(table_id: int, position: int | None, user_id: int, socket_id: str) -> bool:
    """A socket is still there. True when it had been forgotten (Redis lost it) and is back."""
    return _add(table_id, position, user_id, socket_id)


def heartbeat_many(sockets: list[tuple[int, int | None, int, str]]) -> set[int]:
    """The heartbeat of every socket of a process in one round trip: (table, position, user,
    socket) each. Returns the tables where a seated socket had been forgotten (Redis was
    flushed or restarted) and so is back online now.

    A seated socket's heartbeat also clears its seat's away mark, as connecting does: while
    Redis had forgotten the socket the scheduler may have seen the seat empty and noted it away,
    and that stale mark, kept (the first time away is what counts), would later make a moment's
    disconnection look like minutes of absence and hand the seat to the computer at once."""
    expires = time.time() + TTL_SECONDS
    client = _redis()
    if client is None:
        back = set()
        for t, position, user, sock in sockets:
            if _memory.add(t, _member(position, user, sock), expires) and position is not None:
                back.add(t)
            if position is not None:
                _memory.set_away(t, position, None)
        return back
    prefix = _prefix()
    pipe = client.pipeline(transaction=False)
    for table_id, position, user_id, socket_id in sockets:
        pipe.zadd(prefix + _set_key(table_id), {_member(position, user_id, socket_id): expires})
    for table_id in {s[0] for s in sockets}:
        pipe.expire(prefix + _set_key(table_id), int(2 * TTL_SECONDS))
    for table_id, position in {(s[0], s[1]) for s in sockets if s[1] is not None}:
        pipe.hdel(prefix + _away_key(table_id), str(position))
    added = pipe.execute()[: len(sockets)]
    return {s[0] for s, new in zip(sockets, added, strict=True) if new and s[1] is not None}


def at_table(table_id: int) -> Seen:
    """The seats online and whether anyone watches without a seat, in one look-up (the play
    path asks both when the turn passes and the socket's own `Seen` is not at hand: who is away,
    and is the public group worth a frame)."""
    sockets = sockets_at(table_id)
    return Seen(frozenset(sockets.seats), sockets.watchers > 0)


def disconnected(table_id: int, position: int | None, user_id: int, socket_id: str) -> bool:
    """A socket closed. True when it was its seat's last one (the player is now away: the
    service `games.services.table.attendance.socket_closed` notes when, for the scheduler)."""
    member = _member(position, user_id, socket_id)
    client = _redis()
    if client is None:
        _memory.remove(table_id, member)
    else:
        client.zrem(_prefix() + _set_key(table_id), member)
    return position is not None and position not in _live_positions(table_id)


def mark_away(table_id: int, position: int, since: datetime | None = None) -> datetime:
    """Note when the seat was first seen without a socket (kept if already noted); returns it."""
    stamp = (since or clock.now()).isoformat()
    client = _redis()
    if client is None:
        _memory.set_away(table_id, position, stamp)
        return datetime.fromisoformat(_memory.get_away(table_id, position))
    key = _prefix() + _away_key(table_id)
    pipe = client.pipeline(transaction=True)  # one round trip; no socket's heartbeat clears it in between
    pipe.hsetnx(key, str(position), stamp)
    pipe.expire(key, 24 * 3600)
    pipe.hget(key, str(position))
    return datetime.fromisoformat(pipe.execute()[2].decode())


def clear_away(table_id: int) -> None:
    """Forget every seat's away mark at the table: a game starting there counts absence afresh
    (a mark left from before, however it came, must not cover a seat the moment play begins)."""
    client = _redis()
    if client is None:
        with _memory.lock:
            _memory.away.pop(table_id, None)
        return
    client.delete(_prefix() + _away_key(table_id))


def away_since(table_id: int, position: int) -> datetime | None:
    client = _redis()
    if client is None:
        value = _memory.get_away(table_id, position)
    else:
        raw = client.hget(_prefix() + _away_key(table_id), str(position))
        value = raw.decode() if raw else None
    return datetime.fromisoformat(value) if value else None


def is_online(table_id: int, position: int) -> bool:
    """Does the player of this seat have at least one live socket on the table?"""
    return position in _live_positions(table_id)


def seats_online(table_id: int, positions: range | list[int] | None = None) -> dict[int, bool]:
    """Online state of every seat (positions 0-3 unless given)."""
    live = _live_positions(table_id)
    return {p: p in live for p in (positions if positions is not None else range(4))}


# ----------------------------------------------------------------------------- who is online
#
# A person is online while at least one of their lobby sockets lives: every page of a signed-in
# person opens one (the header's bell, static/js/bell.js; the lobby page its own), so this is
# "has the site open somewhere". One sorted set per person (`burraco:online:<user>`, member the
# socket, score when it expires), refreshed by the lobby sockets' heartbeat like the tables' sets.


def _online_key(user_id: int) -> str:
    return f"burraco:online:{user_id}"


_online_memory: dict[int, dict[str, float]] = {}


def user_connected(user_id: int, socket_id: str) -> bool:
    """A lobby socket of this person opened (or beat). True when it is their only live one: they
    were offline until now."""
    return user_heartbeat_many([(user_id, socket_id)]) == {user_id}


def user_heartbeat_many(sockets: list[tuple[int, str]]) -> set[int]:
    """Every lobby socket of a process says it is there, in one round trip: (user, socket) each.
    Returns the people whose only live socket is one of these and was not known before (they
    came online, or Redis had forgotten them)."""
    if not sockets:
        return set()
    now = time.time()
    expires = now + TTL_SECONDS
    client = _redis()
    if client is None:
        came = set()
        with _memory.lock:
            for user_id, socket_id in sockets:
                mine = _online_memory.setdefault(user_id, {})
                for member in [m for m, exp in mine.items() if exp <= now]:
                    del mine[member]
                if not mine:
                    came.add(user_id)
                mine[socket_id] = expires
        return came
    prefix = _prefix()
    pipe = client.pipeline(transaction=False)
    users = sorted({u for u, _s in sockets})
    for user_id in users:
        pipe.zcount(prefix + _online_key(user_id), now, "+inf")
    for user_id, socket_id in sockets:
        pipe.zadd(prefix + _online_key(user_id), {socket_id: expires})
    for user_id in users:
        pipe.expire(prefix + _online_key(user_id), int(2 * TTL_SECONDS))
    before = pipe.execute()[: len(users)]
    return {u for u, count in zip(users, before, strict=True) if not count}


LINGER_SECONDS = 3.0  # a closed page keeps its person online this long: going to the next page is no news


def user_disconnected(user_id: int, socket_id: str) -> None:
    """A lobby socket of this person closed. It counts for LINGER_SECONDS more, so the page the
    person is going to opens before they read as offline (see `social.socket_closed`)."""
    expires = time.time() + LINGER_SECONDS
    client = _redis()
    if client is None:
        with _memory.lock:
            mine = _online_memory.setdefault(user_id, {})
            if socket_id in mine:
                mine[socket_id] = min(mine[socket_id], expires)
        return
    client.zadd(_prefix() + _online_key(user_id), {socket_id: expires}, xx=True, lt=True)


def online_users(user_ids: list[int]) -> set[int]:
    """Which of these people have a live lobby socket (one round trip)."""
    if not user_ids:
        return set()
    now = time.time()
    client = _redis()
    if client is None:
        with _memory.lock:
            return {u for u in user_ids if any(exp > now for exp in _online_memory.get(u, {}).values())}
    prefix = _prefix()
    pipe = client.pipeline(transaction=False)
    for user_id in user_ids:
        pipe.zcount(prefix + _online_key(user_id), now, "+inf")
    return {u for u, count in zip(user_ids, pipe.execute(), strict=True) if count}
