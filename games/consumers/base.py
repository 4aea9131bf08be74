"""The shared socket base of the WebSocket consumers: the frame parser, the rate limit
(`TokenBucket`), the abuse score, the per-process heartbeats, the close codes and the server's own
error messages. The consumers themselves: `table.py` (`/ws/table/<id>/`) and `lobby.py`
(`/ws/lobby/`); thin edges that authenticate, parse, rate-limit and hand to the services."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncWebsocketConsumer
from django.db import DatabaseError
from redis.exceptions import RedisError

from burraco_site.dbthreads import Busy
from games.engine import IllegalMove
from games.live import presence
from games.services.errors import ServiceError, message

log = logging.getLogger(__name__)

MAX_FRAME_BYTES = 4096
BUCKET_CAPACITY = 5  # frames in a burst
BUCKET_RATE = 5.0  # frames per second, sustained
ABUSE_LIMIT = 50.0  # unusable frames, less what has decayed, before the socket is closed
ABUSE_DECAY = 1.0  # unusable frames forgiven per second
MAX_SOCKETS_PER_TABLE = 5  # one person's sockets at one table

CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4409
CLOSE_ABUSE = 4429


def clock() -> float:
    """The rate limits' clock (a function, so a test can hold it still)."""
    return time.monotonic()


class TokenBucket:
    """At most `capacity` frames at once, refilled at `rate` per second."""

    def __init__(self, capacity: float = BUCKET_CAPACITY, rate: float = BUCKET_RATE) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = capacity
        self.stamp = clock()

    def take(self) -> bool:
        now = clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class AbuseScore:
    """Unusable frames, forgiven at `decay` per second: only sustained abuse reaches the limit."""

    def __init__(self, limit: float = ABUSE_LIMIT, decay: float = ABUSE_DECAY) -> None:
        self.limit = limit
        self.decay = decay
        self.score = 0.0
        self.stamp = clock()

    def add(self) -> bool:
        """Count one unusable frame; True when the limit is reached."""
        now = clock()
        self.score = max(0.0, self.score - (now - self.stamp) * self.decay) + 1
        self.stamp = now
        return self.score >= self.limit


class SocketConsumer(AsyncWebsocketConsumer):
    """Channels' consumer without its per-message database clean-up.

    Channels runs `close_old_connections` on its one shared thread before *every* message a
    consumer handles (each frame from the client, each frame from the channel layer): a thread
    hop per frame. These consumers touch the database only through `run_db`, which takes and
    gives back its own connection, so there is nothing to clean up.
    """

    async def dispatch(self, message):
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def _parse(self, text_data: str | None) -> dict[str, Any] | None:
        """The client's frame as a dict with a string `type`, or None after answering `_bad`
        (no text, over MAX_FRAME_BYTES, not JSON, not an object with a type)."""
        if text_data is None:
            await self._bad("bad_frame")
            return None
        if len(text_data) > MAX_FRAME_BYTES or len(text_data.encode()) > MAX_FRAME_BYTES:
            await self._bad("too_large")
            return None
        try:
            frame = json.loads(text_data)
        except ValueError:
            await self._bad("bad_json")
            return None
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self._bad("bad_frame")
            return None
        return frame

    async def _bad(self, code: str, ref=None) -> None:
        raise NotImplementedError

    async def _error(self, code: str, message: str, ref=None) -> None:
        raise NotImplementedError

    where = "socket"  # for the log

    async def _handle(self, handler, frame: dict[str, Any], ref) -> None:
        """Run one frame's handler: the one place where a refusal (the services' `ServiceError`,
        the engine's `IllegalMove`) or an outage becomes an error frame; nothing was written."""
        try:
            await handler(frame, ref)
        except (ServiceError, IllegalMove) as exc:
            await self._refused(exc, ref)
        except (DatabaseError, RedisError):
            # PostgreSQL or Redis (presence, cache) is down: nothing was written; the socket stays.
            log.warning("%s: the database or Redis is unavailable", self.where, exc_info=True)
            await self._error("unavailable", message("unavailable"), ref)
        except Busy:
            await self._error("busy", message("busy"), ref)

    async def _refused(self, exc: ServiceError | IllegalMove, ref) -> None:
        await self._error(exc.code, exc.message, ref)


class SocketHeartbeat:
    """One heartbeat for all the sockets of one kind in this process: every `interval()` seconds
    a single `beat` over all of them (one Redis or database round trip), instead of a task and a
    round trip per socket. Each kind keeps its own set of sockets and its own task.

    With `slices` above 1 each socket is still beaten once an interval, but a slice of them at a
    time, `slices` times an interval: one beat of a thousand table sockets held its process
    (and Redis) for tens of milliseconds at once, every interval, in the actions' latency tail."""

    sockets: set
    task: asyncio.Task | None
    slices: int = 1

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls.sockets, cls.task = set(), None

    @classmethod
    def add(cls, consumer) -> None:
        cls.sockets.add(consumer)
        loop = asyncio.get_running_loop()
        if cls.task is None or cls.task.done() or cls.task.get_loop() is not loop:
            cls.task = loop.create_task(cls._run())

    @classmethod
    def discard(cls, consumer) -> None:
        cls.sockets.discard(consumer)

    @classmethod
    async def _run(cls) -> None:
        turn = 0
        while cls.sockets:
            await asyncio.sleep(cls.interval() / cls.slices)
            members = [c for c in cls.sockets if cls.slices == 1 or hash(c) % cls.slices == turn]
            turn = (turn + 1) % cls.slices
            if members:
                await cls.beat(members)

    @classmethod
    def interval(cls) -> float:
        return presence.HEARTBEAT_SECONDS

    @classmethod
    async def beat(cls, sockets: list) -> None:
        raise NotImplementedError


class NotFoundConsumer(SocketConsumer):
    """Any WebSocket path that is not routed: accepted and closed with 4404, no traceback."""

    async def connect(self) -> None:
        await self.accept()
        await self.close(code=CLOSE_NOT_FOUND)

