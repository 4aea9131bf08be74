"""Where the sockets' database and Redis work runs: a pool of threads, never the event loop.

Channels' `database_sync_to_async` runs every call on one shared thread per process (thread
sensitive), so under load each Daphne process did all its database work one call at a time
while its event loop sat idle (docs/performance.md). `run_db` runs on a pool instead; each call
takes a pooled database connection and gives it back when it ends (close_old_connections), so
the pool, not the thread, decides how many run at once.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from asgiref.sync import SyncToAsync
from django.conf import settings
from django.db import close_old_connections
from django.utils import translation

_executor = ThreadPoolExecutor(max_workers=int(os.environ.get("DB_THREADS", "8")), thread_name_prefix="db")
_pending = 0  # calls submitted and not finished (touched on the event loop only)


class Busy(Exception):
    """More calls are waiting for the pool than `DB_QUEUE_MAX`: refuse instead of queueing."""


def run_db(func):
    """`await run_db(f)(*args)`: call the synchronous `f` on the pool.

    The hop is the executor's own (the caller's context variables travel with the call, as the
    translation in force does), not Channels' `DatabaseSyncToAsync`: building one of those for
    every call and asgiref's context bookkeeping around it were a tenth of the play path's
    Python work in a Daphne process (docs/performance.md)."""

    async def bounded(*args, **kwargs):
        with admitted():
            loop = asyncio.get_running_loop()
            context = contextvars.copy_context()
            return await loop.run_in_executor(_executor, context.run, _in_thread, loop, translation.get_language(),
                                              func, args, kwargs)

    return bounded


@contextmanager
def admitted() -> Iterator[None]:
    """Count one database call of this process while it runs, or raise `Busy` when
    `DB_QUEUE_MAX` are already waiting or running (the thread pool's and the loop's alike)."""
    global _pending
    if _pending >= settings.DB_QUEUE_MAX:
        raise Busy
    _pending += 1
    try:
        yield
    finally:
        _pending -= 1


def _in_thread(loop: asyncio.AbstractEventLoop, language: str | None, func, args: tuple, kwargs: dict):
    """On a pool thread: a pooled connection for the call, given back when it ends, and the
    caller's language (Django keeps it in thread-tagged storage that a copied context does not
    carry to another thread; the services' refusals are worded in it). The thread also knows
    the server's loop, as asgiref's threads do, so that `async_to_sync` (the in-memory channel
    layer of the single-process mode) sends on it."""
    SyncToAsync.threadlocal.main_event_loop = loop
    SyncToAsync.threadlocal.main_event_loop_pid = os.getpid()
    close_old_connections()
    try:
        with translation.override(language):
            return func(*args, **kwargs)
    finally:
        close_old_connections()


def pending() -> int:
    return _pending
