"""Where the sockets' database and Redis work runs: a pool of threads, never the event loop.

Channels' `database_sync_to_async` runs every call on one shared thread per process (thread
sensitive), so under load each Daphne process did all its database work one call at a time
while its event loop sat idle (docs/performance.md). `run_db` runs on a pool instead; each call
takes a pooled database connection and gives it back when it ends (close_old_connections), so
the pool, not the thread, decides how many run at once.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from channels.db import DatabaseSyncToAsync
from django.conf import settings

_executor = ThreadPoolExecutor(max_workers=int(os.environ.get("DB_THREADS", "8")), thread_name_prefix="db")
_pending = 0  # calls submitted and not finished (touched on the event loop only)


class Busy(Exception):
    """More calls are waiting for the pool than `DB_QUEUE_MAX`: refuse instead of queueing."""


def run_db(func):
    """`await run_db(f)(*args)`: call the synchronous `f` on the pool."""
    call = DatabaseSyncToAsync(func, thread_sensitive=False, executor=_executor)

    async def bounded(*args, **kwargs):
        global _pending
        if _pending >= settings.DB_QUEUE_MAX:
            raise Busy
        _pending += 1
        try:
            return await call(*args, **kwargs)
        finally:
            _pending -= 1

    return bounded


def pending() -> int:
    return _pending
