"""The PostgreSQL connection pool's health check and reconnection (settings: DATABASES OPTIONS
"pool": "check", "reconnect_failed").

After PostgreSQL restarts, every idle connection in every process's pool is dead, and nothing
notices until it is used: without a check each one failed a request in turn (an action answered
`unavailable`, a page or a socket handshake answered 500) after the server was already back.
psycopg_pool's own `check_connection` costs a round trip on every checkout, which the sockets
make for every frame. This one costs a `select()`: an idle connection has nothing to read, and
one the server closed has its goodbye and the end of the stream waiting. Only then is it checked
for real, and so is the rest of the pool, which heard the same goodbye.

While PostgreSQL is down the pool retries a connection after 1, 2, 4, 8 ... s, so after an
outage of a few seconds the next try came up to 8 s after the server was back, and whoever
waited for a connection (a socket's action, a computer move, the scheduler) waited for it or
timed out. With a short `reconnect_timeout` an attempt gives up after a second try, and
`keep_trying` starts the next one at once: the pool tries about once a second until it connects.
"""

from __future__ import annotations

import select

from psycopg_pool import ConnectionPool


def has_input(fd: int) -> bool:
    """Whether the socket `fd` has something to read (or was closed), without waiting. poll(),
    not select(): a Daphne process with a thousand sockets open gives a connection made later
    a descriptor above select()'s limit of 1024 ("filedescriptor out of range in select()")."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def check_pooled(conn) -> None:
    """Return quietly if `conn` may be handed out; raise (the pool drops it) if it is dead."""
    if not has_input(conn.fileno()):
        return
    pool = getattr(conn, "_pool", None)  # set by the pool before it calls the check
    if pool is not None:
        pool.check()  # the other idle connections: a round trip each, now rather than one failure each
    ConnectionPool.check_connection(conn)


def keep_trying(pool) -> None:
    """The pool's `reconnect_failed`: start a new connection attempt (a pool with no connection
    grows when checked), so that requests already waiting are served as soon as the server is
    back rather than when the next request comes."""
    try:
        pool.check()
    except Exception:  # noqa: BLE001 - a pool closing at shutdown: nothing to keep
        pass
