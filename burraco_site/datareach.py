"""A Daphne cut from its data steps aside: its sockets are closed with `CLOSE_MOVE_ON` (4503) and
its WebSocket handshakes refused (HTTP 403, which nginx takes as a reason to try the next Daphne,
deploy/nginx/burraco-proxy.conf), until it reaches its data again.

Without this, a process whose host lost its path to PostgreSQL and Redis kept its players'
sockets and answered every action `unavailable`, while the scheduler of a host that still
reached the data ran their clocks out.

What is watched is the path, not the services: once a second a TCP handshake with PostgreSQL's
and the channel layer's Redis's address (as the settings name them). An answer of any kind, a
refusal included, says the data host is there: a service that restarts is down for every app
host alike, and moving the sockets would help nobody (the fault suite's restarts keep their
sockets). No answer for `DATA_CUT_SECONDS` (settings; 4 s) is a cut:

- long enough that a lost handshake packet is no cut: TCP resends a lost SYN after 1 s, and four
  probes in a row must go unanswered (at 5 % loss, about one window in 160,000);
- short next to a turn's clock (10 s at the least, 30 s by default) and below the page's 8 s watchdog, so
  the page hears the close before it would give up by itself, and its player is on another host
  with most of the turn left.

Handshakes are accepted again at the first probe that every address answers. The probe costs a
connection accepted and closed at once (PostgreSQL forks for it and logs nothing) per process
per second. Without PostgreSQL or a Redis channel layer (SQLite, the in-memory layer) there is
nothing to lose and nothing is watched.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import time
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

CLOSE_MOVE_ON = 4503  # this server cannot reach its data: reconnect at once (to another, through the proxy)
PROBE_EVERY = 1.0  # seconds between two probes
PROBE_TIMEOUT = 1.0  # seconds a TCP handshake may take before it counts as no answer
# The kernel's own "nobody there": the link is down or no route leads to the address.
NO_ROUTE = {errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ENETDOWN, errno.EHOSTDOWN}


def targets(databases: dict, channel_layers: dict) -> list[tuple[str, int]]:
    """PostgreSQL's and the channel layer's Redis's addresses (from the settings DATABASES and
    CHANNEL_LAYERS); none for SQLite or the in-memory layer."""
    found = []
    database = databases.get("default", {})
    if database.get("ENGINE") == "django.db.backends.postgresql" and database.get("HOST", "").strip("/"):
        if not database["HOST"].startswith("/"):  # a Unix socket is on this host
            found.append((database["HOST"], int(database.get("PORT") or 5432)))
    layer = channel_layers.get("default", {})
    for entry in layer.get("CONFIG", {}).get("hosts", []):
        address = entry.get("address") if isinstance(entry, dict) else entry
        if isinstance(address, str) and address.startswith(("redis://", "rediss://")):
            parts = urlsplit(address)
            if parts.hostname:
                found.append((parts.hostname, parts.port or 6379))
    return found


async def answers(address: tuple[str, int], timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether the host at `address` answers a TCP handshake (a refusal is an answer)."""
    try:
        _reader, writer = await asyncio.wait_for(asyncio.open_connection(*address), timeout)
    except (ConnectionRefusedError, ConnectionResetError):
        return True
    except (TimeoutError, socket.gaierror):
        return False  # no answer, or the name cannot be resolved from here
    except OSError as error:
        return error.errno not in NO_ROUTE
    writer.close()
    return True


class Reach:
    """This process's view of its path to the data, and its open sockets (to close on a cut)."""

    def __init__(self, targets: list[tuple[str, int]], cut_after: float, clock=time.monotonic) -> None:
        self.targets = targets
        self.cut_after = cut_after
        self.clock = clock
        self.answered = {t: clock() for t in targets}
        self.cut = False
        self.cuts = 0
        self.sockets: dict[object, object] = {}  # a socket's key -> what closes it
        self.task: asyncio.Task | None = None

    @property
    def watching(self) -> bool:
        return bool(self.targets) and self.cut_after > 0

    def ensure_running(self) -> None:
        loop = asyncio.get_running_loop()
        if self.task is None or self.task.done() or self.task.get_loop() is not loop:
            self.task = loop.create_task(self._run())

    async def _run(self) -> None:
        while True:
            started = self.clock()
            await self.probe()
            await asyncio.sleep(max(0.0, PROBE_EVERY - (self.clock() - started)))

    async def probe(self, probe=answers) -> None:
        results = await asyncio.gather(*(probe(t) for t in self.targets))
        now = self.clock()
        for target, ok in zip(self.targets, results, strict=True):
            if ok:
                self.answered[target] = now
        unanswered = [t for t in self.targets if now - self.answered[t] > self.cut_after]
        if unanswered and not self.cut:
            self.cut = True
            self.cuts += 1
            log.warning("no answer from %s for %.0f s: closing %d sockets (%d) and refusing new ones",
                        ", ".join(f"{h}:{p}" for h, p in unanswered), self.cut_after, len(self.sockets),
                        CLOSE_MOVE_ON)
            await self.close_all()
        elif self.cut and all(ok for ok in results):
            self.cut = False
            log.warning("the data answers again: accepting sockets")

    async def close_all(self) -> None:
        sockets, self.sockets = self.sockets, {}
        for close in sockets.values():
            try:
                await close()
            except Exception:  # noqa: BLE001 - a socket that went meanwhile
                pass


class StepAsideWhenCut:
    """ASGI middleware (outermost, for WebSockets): refuses a handshake while the process is cut
    from its data, and keeps every accepted socket's `send` so a cut can close it."""

    def __init__(self, app, reach: Reach | None = None) -> None:
        self.app = app
        self._reach = reach

    @property
    def reach(self) -> Reach:
        if self._reach is None:
            from django.conf import settings

            self._reach = Reach(targets(settings.DATABASES, settings.CHANNEL_LAYERS), settings.DATA_CUT_SECONDS)
        return self._reach

    async def __call__(self, scope, receive, send):
        reach = self.reach
        if scope["type"] != "websocket" or not reach.watching:
            return await self.app(scope, receive, send)
        reach.ensure_running()
        if reach.cut:
            await receive()  # websocket.connect
            await send({"type": "websocket.close"})  # before accepting: Daphne answers 403
            return None
        key = object()
        closed = False

        async def close_it() -> None:
            nonlocal closed
            closed = True
            await send({"type": "websocket.close", "code": CLOSE_MOVE_ON})

        async def tracked(message):
            if closed:
                return  # the cut closed it: what the application still sends goes nowhere
            kind = message["type"]
            if kind == "websocket.accept" and reach.cut:  # cut while the application looked the session up
                await close_it()
                return
            if kind == "websocket.accept":
                reach.sockets[key] = close_it
            elif kind == "websocket.close":
                reach.sockets.pop(key, None)
            await send(message)

        try:
            return await self.app(scope, receive, tracked)
        finally:
            reach.sockets.pop(key, None)
