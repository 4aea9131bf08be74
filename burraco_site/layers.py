"""The channel layer of the single-process mode (no REDIS_URL): channels' in-memory layer, which
may be sent to from any thread.

The sockets wait for their messages on the server's event loop, while the embedded Celery worker
(the computer's moves) and the turn scheduler (timeouts, the queue's matches, a tournament's
rounds) send from threads of their own, through the delivery loop of games/live/transport.py.
channels' layer keeps an `asyncio.Queue` per channel, which belongs to the loop that waits on it
and is not thread-safe: a put from another thread woke the waiting socket only when the server's
loop next woke for something else (Daphne's own checks come once a second), so those frames
reached the pages up to a second late. Here a send made on another loop is handed to the loop the
sockets receive on (`call_soon_threadsafe`, which wakes it), and runs there, in the order sent.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels import layers
from channels.exceptions import ChannelFull

log = logging.getLogger(__name__)


class InMemoryChannelLayer(layers.InMemoryChannelLayer):
    """channels' in-memory layer; `send` and `group_send` from another event loop run on the loop
    of the latest `receive` (in a server process, the one loop every socket runs on)."""

    _receiving: asyncio.AbstractEventLoop | None = None

    async def receive(self, channel: str) -> dict[str, Any]:
        self._receiving = asyncio.get_running_loop()
        return await super().receive(channel)

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        loop = self._elsewhere()
        if loop is None or not _hand_over(loop, super().send(channel, message)):
            await super().send(channel, message)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        loop = self._elsewhere()
        if loop is None or not _hand_over(loop, super().group_send(group, message)):
            await super().group_send(group, message)

    def _elsewhere(self) -> asyncio.AbstractEventLoop | None:
        """The receiving loop, when it runs and is not the caller's."""
        loop = self._receiving
        if loop is None or not loop.is_running() or loop is asyncio.get_running_loop():
            return None
        return loop


def _hand_over(loop: asyncio.AbstractEventLoop, coroutine) -> bool:
    """Run `coroutine` on `loop`; False when that loop has just closed (the caller sends here)."""
    try:
        loop.call_soon_threadsafe(_start, coroutine)
    except RuntimeError:
        coroutine.close()
        return False
    return True


def _start(coroutine) -> None:
    """On the receiving loop: run a send handed over from another loop (it does not wait there:
    nothing to await before its put), and say so if it failed."""
    asyncio.ensure_future(coroutine).add_done_callback(_report)


def _report(task: asyncio.Future) -> None:
    if task.cancelled():
        return
    error = task.exception()
    if error is not None and not isinstance(error, ChannelFull):  # a full channel drops, as group_send does
        log.warning("in-memory layer: a send from another thread failed", exc_info=error)
