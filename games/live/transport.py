"""Channel-layer groups and the one function that sends frames to them.

Hidden information by construction: a frame carrying a view goes only to the group of the seat
whose view it is (`table.<id>.seat.<n>`, joined by every tab of that seat's player) or, for the
spectators' public view, to `table.<id>.public`. Frames with nothing hidden in them (chat,
presence, the table's seating) go to `table.<id>.all`, which every socket of the table joins.
The lobby's list goes to `lobby`; what concerns one person's place in the "Gioca con persone"
queue (waiting, matched) to `lobby.user.<id>`, which every lobby socket of that person joins.
The frames themselves, and `per_recipient` which addresses them, are games/live/frames.py.

Everything is sent through `deliver`, so tests can capture exactly what left the server.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import orjson
from asgiref.sync import SyncToAsync, async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

LOBBY_GROUP = "lobby"
# The consumer method that forwards a frame to its socket (`frame_send`).
MESSAGE_TYPE = "frame.send"


def seat_group(table_id: int, position: int) -> str:
    return f"table.{table_id}.seat.{position}"


def public_group(table_id: int) -> str:
    return f"table.{table_id}.public"


def all_group(table_id: int) -> str:
    return f"table.{table_id}.all"


def user_group(user_id: int) -> str:
    return f"lobby.user.{user_id}"


Messages = list[tuple[str, dict[str, Any]]]

# After a Redis restart channels_redis publishes the first time on its old, dead connection and
# fails ("Connection closed by server"), reconnecting only then: without a second try, the first
# frames of every process after the restart (a move's events, the scheduler's `clock` frames)
# were lost. A retried batch may reach a socket twice; clients ignore a version they have.
ATTEMPTS = 2


def frame_text(frame: dict[str, Any]) -> str:
    """A frame as the compact JSON text a socket sends (orjson: the same text, a few times faster
    than the standard library, on the play path's every frame)."""
    return orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS).decode()


def layer_message(frame: dict[str, Any]) -> dict[str, Any]:
    """What travels on the channel layer for one frame: its JSON text, encoded once here, and the
    few fields the receiving consumer checks (the kind, and the seat of a view it carries), so
    the receiver forwards the text as it is instead of decoding and encoding it again."""
    view = frame.get("view")
    return {
        "type": MESSAGE_TYPE,
        "text": frame_text(frame),
        "kind": frame.get("type"),
        "view_seat": view.get("seat") if isinstance(view, dict) else None,
        "has_view": isinstance(view, dict),
        "version": frame.get("version"),
        "table": frame.get("table") if frame.get("type") == "table" else None,
        "seen": seen_of(frame) if frame.get("type") == "presence" else None,
    }


def seen_of(frame: dict[str, Any]) -> dict[str, Any]:
    """What a table socket keeps of a presence frame (the fields of `presence.Seen`)."""
    return {"online": [row["position"] for row in frame["seats"] if row["online"]],
            "watched": frame.get("watchers", 0) > 0}


async def deliver_async(messages: Iterable[tuple[str, dict[str, Any]]]) -> None:
    """`deliver` for code already on the event loop (the consumers); failures are logged."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        await _send_batch(layer, list(messages))
    except Exception:  # noqa: BLE001 - see deliver
        log.warning("could not deliver frames: the channel layer is unreachable", exc_info=True)


async def _send_batch(layer, batch: list[tuple[str, dict[str, Any]]]) -> None:
    """Publish a batch (pipelined where the layer allows, else one group_send each), trying
    ATTEMPTS times; the last failure is raised to the caller, which logs it."""
    for attempt in range(ATTEMPTS):
        try:
            if not await _publish_pipelined(layer, batch):
                for group, frame in batch:
                    await layer.group_send(group, layer_message(frame))
            return
        except Exception:  # noqa: BLE001 - see ATTEMPTS
            if attempt + 1 == ATTEMPTS:
                raise


async def _publish_pipelined(layer, batch: list[tuple[str, dict[str, Any]]]) -> bool:
    """The frames of one change in one round trip to Redis: channels_redis's pub/sub layer sends
    each group_send as its own PUBLISH, and those writes were a third of Daphne's CPU per action
    (docs/performance.md). Only for that layer with one Redis host (where every group lives on
    the one shard); False means "send them one by one"."""
    loop_layer = getattr(layer, "_get_layer", None)
    if len(batch) < 2 or loop_layer is None:
        return False
    inner = loop_layer()
    shards = getattr(inner, "_shards", None)
    if not shards or len(shards) != 1 or not hasattr(shards[0], "_ensure_redis"):
        return False
    shard = shards[0]
    async with shard._lock:
        shard._ensure_redis()
        pipe = shard._redis.pipeline(transaction=False)
        for group, frame in batch:
            pipe.publish(inner._get_group_channel_name(group), layer.serialize(layer_message(frame)))
        await pipe.execute()
    return True


_loop: asyncio.AbstractEventLoop | None = None
_loop_pid: int | None = None
_loop_lock = threading.Lock()
SEND_TIMEOUT_SECONDS = 10.0


def _delivery_loop() -> asyncio.AbstractEventLoop:
    """This process's event loop for frames sent from synchronous code, in a daemon thread of its
    own (started on first use, again after a fork). The channel layer keeps its Redis connection
    per loop: `async_to_sync` made a loop, and so a connection, for every delivery of a Celery
    task or a scheduler tick (about 10 ms each on a busy machine); this loop keeps one."""
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid() or _loop.is_closed():
            loop = asyncio.new_event_loop()
            ready = threading.Event()

            def run() -> None:
                asyncio.set_event_loop(loop)
                loop.call_soon(ready.set)
                loop.run_forever()

            threading.Thread(target=run, name="deliver-loop", daemon=True).start()
            ready.wait()
            _loop, _loop_pid = loop, os.getpid()
        return _loop


def _run_sync(coroutine_function) -> None:
    """Run the coroutine and wait for it, from any thread. In a thread a server's event loop
    handed work to (a socket's database thread, a view), on that loop, as async_to_sync does
    (the in-memory channel layer of the single-process mode only works there); anywhere else
    (a Celery task, the scheduler, a thread whose own loop runs, as in a test driving a browser
    through Playwright's sync API, where async_to_sync refuses) on the delivery loop."""
    outer = getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    if outer is not None and outer.is_running():
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            async_to_sync(coroutine_function)()
            return
    future = asyncio.run_coroutine_threadsafe(coroutine_function(), _delivery_loop())
    try:
        future.result(timeout=SEND_TIMEOUT_SECONDS)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise


_collecting: ContextVar[list[tuple[str, dict[str, Any]]] | None] = ContextVar("deliveries", default=None)


@contextmanager
def delivered_together() -> Iterator[None]:
    """Inside this block `deliver` only collects; the block's end sends everything it collected
    in one `deliver` (one trip to the channel layer instead of one per change: the matchmaker
    starts many tables in one pass, each with its snapshots, and each trip from synchronous code
    costs an event loop and a connection). Wrap whole transactions in it: what their commit
    hooks deliver leaves when the block ends, also when it ends with an error."""
    if _collecting.get() is not None:  # already inside one: the outer block sends
        yield
        return
    collected: list[tuple[str, dict[str, Any]]] = []
    token = _collecting.set(collected)
    try:
        yield
    finally:
        _collecting.reset(token)
        deliver(collected)


def deliver(messages: Iterable[tuple[str, dict[str, Any]]]) -> None:
    """Send each (group, frame) pair. Called after commit, from synchronous code.

    A lost frame is not fatal (a client that sees a gap asks for a snapshot), so a channel-layer
    failure is logged, not raised into the request that committed the change.
    """
    collected = _collecting.get()
    if collected is not None:
        collected.extend(messages)
        return
    layer = get_channel_layer()
    if layer is None:
        return
    batch = list(messages)
    if not batch:
        return

    async def send_all() -> None:
        await _send_batch(layer, batch)

    try:
        _run_sync(send_all)
    except Exception:  # noqa: BLE001 - see docstring
        log.warning("could not deliver %d frames: the channel layer is unreachable", len(batch), exc_info=True)


# ----------------------------------------------------------------------------- reconnects

WATCH_SECONDS = 1.0  # how often the watch looks for a subscriber connection it has not hooked yet


class ReconnectWatch:
    """Notices this process's channel-layer subscriber reconnecting and runs a listener then.

    channels_redis's receive loop reconnects to Redis by itself after a restart and subscribes
    again to every group, but whatever was published in between is gone, and nothing tells the
    sockets (the issue's page stood at version 125 while the game was at 126 until its next
    ping). redis-py calls a connection's connect callbacks each time it connects again, after
    the pub/sub's own callback has subscribed again: the watch adds its own to each shard's
    subscriber connection (a second after it exists; a first connection is not a reconnect), so
    the listener runs once the subscriptions are back, when every frame published from then on
    arrives and everything before is in the database. One watch per process and event loop; the
    in-memory layer never loses its subscribers and has nothing to watch."""

    def __init__(self, listener) -> None:
        self.listener = listener
        self.hooked: dict[int, Any] = {}  # id(shard) -> the connection it was added to
        self.task: asyncio.Task | None = None
        self.running: set[asyncio.Task] = set()
        self.reconnects = 0

    def ensure(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.hooked = {}
            self.task = loop.create_task(self._run())

    async def _run(self) -> None:
        while True:
            try:
                self.hook()
            except Exception:  # noqa: BLE001 - a layer without shards, or its internals changed: nothing to watch
                log.debug("channel layer: no subscriber connection to watch", exc_info=True)
            await asyncio.sleep(WATCH_SECONDS)

    def hook(self) -> None:
        """Add the callback to each shard's subscriber connection not hooked yet."""
        layer = get_channel_layer()
        inner = layer._get_layer() if hasattr(layer, "_get_layer") else None
        for shard in getattr(inner, "_shards", None) or []:
            connection = getattr(getattr(shard, "_pubsub", None), "connection", None)
            if connection is not None and self.hooked.get(id(shard)) is not connection:
                connection.register_connect_callback(self.reconnected)  # kept as a weak method
                self.hooked[id(shard)] = connection

    def reconnected(self, connection) -> None:
        self.reconnects += 1
        task = asyncio.get_running_loop().create_task(self._notify())
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def _notify(self) -> None:
        try:
            await self.listener()
        except Exception:  # noqa: BLE001 - the pages still learn at their next ping
            log.warning("channel layer reconnected: the sockets could not be caught up", exc_info=True)


_watches: dict[Any, ReconnectWatch] = {}


def watch_reconnects(listener) -> ReconnectWatch:
    """Run `listener()` (a coroutine function) on this event loop each time the channel layer's
    subscriber connects to Redis again; started on first call, once per listener."""
    watch = _watches.get(listener)
    if watch is None:
        watch = _watches[listener] = ReconnectWatch(listener)
    watch.ensure()
    return watch
