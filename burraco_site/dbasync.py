"""PostgreSQL on the event loop, for the one statement or two of a person's action.

A socket's action used to hop to a pool thread (`run_db`), check out a pooled Django
connection there, run its statements through Django's cursor and hop back. Measured in one
process on this project's machine (docs/performance.md), that costs about 380 µs of CPU for a
one-row statement, against about 75-100 µs for the same statement on a psycopg
`AsyncConnection` on the server's own loop: the hop, the checkout and the wrappers were most of
it. The play path's hot statements are plain SQL already, so they run here; everything else
(the ORM, the locked path, presence) stays on the thread pool.

Each event loop has its own few connections (a connection belongs to the loop it was opened
on). A connection is checked before use without a round trip: an idle connection has nothing
to read, one the server closed (PostgreSQL restarted) has its goodbye waiting, and is replaced.
A connection that fails during a statement is dropped. Failures surface as Django's
`DatabaseError`, which the consumers already answer with `unavailable` (nothing was changed).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from django.conf import settings
from django.db import DatabaseError, connection

from burraco_site.dbpool import has_input

try:
    import psycopg
    from django.db.backends.postgresql.psycopg_any import register_tzloader
except ImportError:  # SQLite-only installs: the play path stays on the thread pool
    psycopg = None


def available() -> bool:
    """Whether the play path may run on the loop: PostgreSQL, and not switched off."""
    return psycopg is not None and connection.vendor == "postgresql" and settings.DB_ASYNC_PLAY


class _LoopConnections:
    """At most `size` connections of one event loop, reused; a caller waits for a free one."""

    def __init__(self, loop: asyncio.AbstractEventLoop, size: int) -> None:
        self.loop = loop
        self.free = asyncio.Semaphore(size)
        self.idle: list = []

    async def take(self):
        await self.free.acquire()
        try:
            while self.idle:
                conn = self.idle.pop()
                if _healthy(conn):
                    return conn
                _finish(conn)
            return await _connect()
        except BaseException:
            self.free.release()
            raise

    def give_back(self, conn, broken: bool) -> None:
        # Not idle (a statement still in flight, an unknown state): never hand it on. psycopg
        # itself cancels and drains a statement whose caller was cancelled mid-await.
        if broken or conn.closed or conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            _finish(conn)
        else:
            self.idle.append(conn)
        self.free.release()

    def close(self) -> None:
        while self.idle:
            _finish(self.idle.pop())


_pools: dict[int, _LoopConnections] = {}  # by id() of the loop; closed loops are cleared on the next call


def _healthy(conn) -> bool:
    return not conn.closed and not has_input(conn.fileno())


def _finish(conn) -> None:
    """Close without awaiting (also for a connection whose loop is gone)."""
    try:
        conn.pgconn.finish()
    except Exception:  # noqa: BLE001 - closing is best effort
        pass


async def _connect():
    params = connection.get_connection_params()
    kwargs = {key: params[key] for key in ("dbname", "user", "password", "host", "port") if params.get(key)}
    for key in ("sslmode", "connect_timeout", "application_name"):
        if params.get(key) is not None:
            kwargs[key] = params[key]
    kwargs.setdefault("connect_timeout", 5)
    try:
        # libpq waits at least 2 s (its `connect_timeout`): a person's action is answered
        # `unavailable` sooner than that when the server does not answer (docs/protocol.md).
        conn = await asyncio.wait_for(psycopg.AsyncConnection.connect(
            **kwargs, autocommit=True, prepare_threshold=params.get("prepare_threshold", 2),
            options="-c TimeZone=UTC",
        ), settings.DB_CONNECT_SECONDS)
    except TimeoutError as exc:
        raise psycopg.OperationalError(f"no connection within {settings.DB_CONNECT_SECONDS} s") from exc
    register_tzloader(connection.timezone, conn)  # datetimes read back exactly as Django's own
    return conn


def _pool() -> _LoopConnections:
    loop = asyncio.get_running_loop()
    pool = _pools.get(id(loop))
    if pool is None or pool.loop is not loop:
        for key, old in list(_pools.items()):  # loops that are gone (tests make one each)
            if old.loop.is_closed() or key == id(loop):
                old.close()
                del _pools[key]
        pool = _pools[id(loop)] = _LoopConnections(loop, settings.DB_ASYNC_CONNECTIONS)
    return pool


@asynccontextmanager
async def cursor() -> AsyncIterator:
    """An autocommit cursor on one of this loop's connections, given back afterwards. psycopg's
    errors come out as Django's `DatabaseError` (the caller's "unavailable")."""
    pool = _pool()
    try:
        conn = await pool.take()
    except psycopg.Error as exc:
        raise DatabaseError(str(exc)) from exc
    broken = False
    try:
        async with conn.cursor() as cur:
            yield cur
    except psycopg.OperationalError as exc:
        broken = True
        raise DatabaseError(str(exc)) from exc
    except psycopg.Error as exc:
        raise DatabaseError(str(exc)) from exc
    finally:
        pool.give_back(conn, broken)


def close_all() -> None:
    """Close every loop's idle connections (a test run, before its database is dropped)."""
    for pool in _pools.values():
        pool.close()
    _pools.clear()
