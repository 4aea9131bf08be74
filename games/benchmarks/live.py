"""The live-play load benchmark: many tables of two signed-in people playing over real sockets.

    python manage.py bench_live --tables 1000 --pace 5 --seconds 60 --daphnes 2 --json

`prepare_tables` makes the players and their tables through the project's own services (the
same `create_table` and `sit` the lobby calls) and a session for each player; `run_load` opens
two sockets per table with the session cookie and an allowed Origin, spread over the Daphne
processes, and plays legal moves (draw from the stock, discard a card) at one action per `pace`
seconds per table, with ±50 % jitter. The echo baseline sends the same number of frames, at the
same rate and of the same size, through the echo consumer on the same Daphne processes and
channel layer (one group_send per message): the baseline every figure is divided by.
`run_interleaved` alternates game and echo windows with both sets of sockets open, so that the
host's drifting speed weighs on both alike.

What is counted per socket: every frame's version, so gaps, duplicates and reordering show;
error frames by code; turns the server had to finish (actor "timeout"); handshakes that failed.
The round trip of an action is from its send to the moment the same socket receives the event
of that version.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import resource
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from burraco_site.gcwatch import Pauses
from games.benchmarks.machine import machine as machine_facts
from games.engine import Ruleset
from games.live import clock
from games.models import Game, Table
from games.services.table import seating as table_services
from games.services.table.seating import create_table, fill_with_computer, sit

WILDS = {"JK"}


def percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def slowest_seconds(sent_at: Sequence[float], rtt_ms: Sequence[float], top: int = 5) -> list[dict[str, Any]]:
    """The `top` seconds of the window whose actions waited longest (second counted from the first
    send): whether the tail is a few stalls or a queue that never drains."""
    if not sent_at:
        return []
    start = min(sent_at)
    worst: dict[int, list[float]] = {}
    for at, rtt in zip(sent_at, rtt_ms, strict=True):
        worst.setdefault(int(at - start), []).append(rtt)
    ranked = sorted(worst.items(), key=lambda item: -max(item[1]))[:top]
    return [{"second": sec, "actions": len(v), "max_ms": round(max(v), 1), "median_ms": round(statistics.median(v), 1)}
            for sec, v in ranked]


def latency_summary(values_ms: Sequence[float]) -> dict[str, float | None]:
    def r(x: float | None) -> float | None:
        return None if x is None else round(x, 2)

    return {
        "count": len(values_ms),
        "p50_ms": r(percentile(values_ms, 50)),
        "p95_ms": r(percentile(values_ms, 95)),
        "p99_ms": r(percentile(values_ms, 99)),
        "max_ms": r(max(values_ms) if values_ms else None),
        "mean_ms": r(statistics.fmean(values_ms) if values_ms else None),
    }


# ----------------------------------------------------------------------------- set-up


def prepare_tables(count: int, *, prefix: str = "bench", ruleset=None, computer: str | None = None,
                   disconnect_grace_seconds: int | None = None) -> list[dict[str, Any]]:
    """`count` started 2-player tables, each with two people and a session cookie for each.

    Goes through the services people use (create_table, sit), so every table is exactly what
    the lobby would have made. `ruleset`: the tables' rules (classico for two by default, say
    with short timers); `computer`: a computer player of that level takes seat 1 instead of a
    person (its session is then None).
    """
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore


    User = get_user_model()
    backend = "django.contrib.auth.backends.ModelBackend"
    users = [User(username=f"{prefix}{i}", email=f"{prefix}{i}@bench.invalid") for i in range(2 * count)]
    for user in users:
        user.set_unusable_password()
    User.objects.bulk_create(users, batch_size=1000)
    users = list(User.objects.filter(username__startswith=prefix).order_by("id"))
    sessions: dict[int, str] = {}
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = backend
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        sessions[user.pk] = store.session_key
    tables = []
    ruleset = ruleset or Ruleset.preset("classico", players=2)
    # Nobody listens to this process's lobby yet: skip building the lobby list after each seat.

    announce, table_services._announce_now = table_services._announce_now, lambda *table_ids, **kwargs: None
    try:
        for i in range(count):
            a, b = users[2 * i], users[2 * i + 1]
            table = create_table(creator=a, ruleset=ruleset, disconnect_grace_seconds=disconnect_grace_seconds)
            if computer:
                fill_with_computer(table_id=table.pk, user=a, position=1, level=computer)
            else:
                sit(table_id=table.pk, user=b, position=1)
            tables.append({"id": table.pk, "game_id": Game.objects.get(table_id=table.pk).pk,
                           "sessions": [sessions[a.pk], None if computer else sessions[b.pk]]})
    finally:
        table_services._announce_now = announce
    return tables


def cache_sessions(redis_url: str, session_keys: Sequence[str]) -> int:
    """Put the sessions in the stack's cache, where signing in on the site leaves them (the
    cached_db engine writes the cache at login), so a handshake reads a session as a signed-in
    person's would: from Redis, not from the database. Returns how many were cached."""
    from django.conf import settings
    from django.contrib.sessions.backends import cached_db
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils.module_loading import import_string

    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.cached_db":
        return 0
    params = dict(settings.CACHES["default"])
    backend = import_string(params.pop("BACKEND"))
    params.pop("LOCATION", None)
    cache = backend(redis_url, params)
    data = {cached_db.KEY_PREFIX + key: SessionStore(session_key=key).load() for key in session_keys if key}
    cache.set_many(data, settings.SESSION_COOKIE_AGE)
    return len(data)


def progress(text: str) -> None:
    """A line on stderr with the UTC time (with --json too): when to attach a profiler."""
    print(time.strftime("%H:%M:%S", time.gmtime()), text, file=sys.stderr, flush=True)


def restart_clocks(table_ids: list[int], seconds: float | None = None) -> None:
    """The turn in play at every table starts now (with `seconds` on the clock, the table's
    draw timer by default): setting up and connecting many tables takes longer than a draw
    timer, and the benchmark measures play, not the timeouts of tables nobody sat at yet."""
    from datetime import timedelta


    timers = Table.objects.filter(pk__in=table_ids).values_list("draw_seconds", flat=True).distinct()
    for draw_seconds in list(timers):  # one statement per timer, not one per table
        deadline = clock.now() + timedelta(seconds=seconds or draw_seconds)
        Game.objects.filter(table_id__in=table_ids, table__draw_seconds=draw_seconds).update(
            turn_deadline=deadline, due_at=deadline)


# ----------------------------------------------------------------------------- sockets


@dataclass
class SocketStats:
    frames: int = 0
    gaps: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    errors: Counter = field(default_factory=Counter)


@dataclass
class Totals:
    sent: int = 0
    confirmed: int = 0
    rtt_ms: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # perf_counter at each rtt_ms's send
    errors: Counter = field(default_factory=Counter)
    gaps: int = 0
    duplicates: int = 0
    out_of_order: int = 0
    timeouts: int = 0
    computer: int = 0
    dropped_handshakes: int = 0
    accepted: int = 0
    closed_by_server: Counter = field(default_factory=Counter)
    frame_bytes: list[int] = field(default_factory=list)
    unanswered: int = 0


class PlayerSocket:
    """One player's socket at one table: reads every frame, keeps the last view and version."""

    def __init__(self, url: str, session: str, origin: str, totals: Totals) -> None:
        self.url = url
        self.session = session
        self.origin = origin
        self.totals = totals
        self.stats = SocketStats()
        self.ws = None
        self.version: int | None = None
        self.view: dict[str, Any] | None = None
        self.waiting: dict[int, tuple[float, asyncio.Future]] = {}
        self.ready = asyncio.Event()
        self.reader: asyncio.Task | None = None
        self.changed = asyncio.Event()

    async def connect(self, timeout: float) -> bool:
        import websockets

        try:
            self.ws = await asyncio.wait_for(websockets.connect(
                self.url, origin=self.origin, additional_headers={"Cookie": f"sessionid={self.session}"},
                open_timeout=timeout, ping_interval=None, max_size=2 ** 22, compression=None,
            ), timeout)
        except Exception:  # noqa: BLE001 - every failure to connect is one dropped handshake
            self.totals.dropped_handshakes += 1
            return False
        self.totals.accepted += 1
        self.reader = asyncio.create_task(self._read())
        await self.ws.send(json.dumps({"type": "hello", "last_version": None}))
        return True

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                self._on_frame(text)
        except Exception:  # noqa: BLE001 - the close code is recorded below
            pass
        code = getattr(self.ws, "close_code", None)
        if code not in (None, 1000, 1001):
            self.totals.closed_by_server[str(code)] += 1

    def _on_frame(self, text: str) -> None:
        frame = json.loads(text)
        self.stats.frames += 1
        kind = frame.get("type")
        version = frame.get("version")
        if kind == "snapshot":
            self.version = version
            self.view = frame.get("view")
            self.ready.set()
        elif kind == "event":
            self.totals.frame_bytes.append(len(text))
            if self.version is not None:
                if version == self.version + 1:
                    pass
                elif version <= self.version:
                    self.totals.duplicates += 1
                else:
                    self.totals.gaps += 1
            if self.version is None or version > self.version:
                self.version = version
                self.view = frame.get("view")
            if frame.get("actor") == "timeout":
                self.totals.timeouts += 1
            elif frame.get("actor") == "computer":
                self.totals.computer += 1
            pending = self.waiting.pop(version, None)
            if pending is not None:
                sent_at, future = pending
                self.totals.rtt_ms.append((time.perf_counter() - sent_at) * 1000)
                self.totals.sent_at.append(sent_at)
                self.totals.confirmed += 1
                if not future.done():
                    future.set_result(True)
        elif kind == "hand_over":
            pass
        elif kind == "error":
            self.totals.errors[frame.get("code", "?")] += 1
            for _version, (_sent, future) in list(self.waiting.items()):
                if not future.done():
                    future.set_result(False)
            self.waiting.clear()
        self.changed.set()

    async def act(self, action: dict[str, Any], timeout: float) -> bool:
        expected = self.version
        future = asyncio.get_running_loop().create_future()
        self.waiting[expected + 1] = (time.perf_counter(), future)
        self.totals.sent += 1
        await self.ws.send(json.dumps({"type": "action", "version": expected, "action": action}))
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            self.waiting.pop(expected + 1, None)
            self.totals.unanswered += 1
            return False

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)


def next_action(view: dict[str, Any]) -> dict[str, Any] | None:
    """A legal move for the seat to move, from its own view: draw from the stock, then discard
    a natural card (keeping the hand at eleven cards, so the hand ends by the stock running out)."""
    allowed = view.get("allowed") or []
    if "draw" in allowed:
        return {"type": "draw"}
    if "take_discards" in allowed:
        return {"type": "take_discards"}
    if "discard" in allowed:
        hand = view.get("hand") or []
        picked = view.get("picked_single_card")
        naturals = [c for c in hand if c not in WILDS and not c.startswith("2") and c != picked]
        return {"type": "discard", "card": (naturals or hand)[0]}
    return None


async def _play_table(sockets: list[PlayerSocket], pace: float, until: float, rng: random.Random) -> None:
    while time.monotonic() < until:
        await asyncio.sleep(pace * rng.uniform(0.5, 1.5))
        if time.monotonic() >= until:
            return
        mover = next((s for s in sockets if s.view and s.view.get("my_turn")), None)
        if mover is None:
            continue
        action = next_action(mover.view)
        if action is None:
            continue
        await mover.act(action, timeout=max(10.0, pace * 2))


class LoopLag:
    """How late the generator's own event loop wakes up: if it is late, the generator is the bottleneck."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self.lags_ms: list[float] = []
        self.task: asyncio.Task | None = None

    async def _run(self) -> None:
        while True:
            start = time.perf_counter()
            await asyncio.sleep(self.interval)
            self.lags_ms.append((time.perf_counter() - start - self.interval) * 1000)

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> dict[str, float | None]:
        if self.task:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)
        return {"p50_ms": percentile(self.lags_ms, 50), "p99_ms": percentile(self.lags_ms, 99),
                "max_ms": max(self.lags_ms) if self.lags_ms else None}


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _connect_all(sockets: list[PlayerSocket], spread: float, timeout: float) -> float:
    start = time.monotonic()

    async def one(i: int, s: PlayerSocket) -> None:
        await asyncio.sleep(spread * i / max(1, len(sockets)))
        await s.connect(timeout)

    await asyncio.gather(*(one(i, s) for i, s in enumerate(sockets)))
    return time.monotonic() - start


@contextmanager
def collector_paused() -> Iterator[Pauses]:
    """The generator's collector off for a measured window: it holds thousands of sockets, and
    its own collections would stop its loop and count as the server's latency. What exists is
    collected and frozen first (memory is plenty for a minute); the `Pauses` yielded show any
    collection that still ran."""
    gc.collect()
    gc.freeze()
    gc.disable()
    pauses = Pauses().start()
    try:
        yield pauses
    finally:
        pauses.stop()
        gc.enable()
        gc.unfreeze()


def _connect_figures(accepted: int, handshakes_seconds: float, ready_seconds: float,
                     cpu_before: dict[str, float], cpu_after: dict[str, float]) -> dict[str, Any]:
    """The connect phase: how long until every handshake was answered and until every socket
    had its first frame, and the server's CPU for it by role, per accepted socket."""
    cpu = {role: round(cpu_after[role] - cpu_before.get(role, 0.0), 3) for role in cpu_after}
    return {"handshakes_seconds": round(handshakes_seconds, 2), "ready_seconds": round(ready_seconds, 2),
            "cpu_seconds": cpu,
            "cpu_ms_per_socket": {role: round(1000 * v / accepted, 3) if accepted else None
                                  for role, v in cpu.items()}}


async def _settle(measure: Callable[[], dict[str, float]], most: float = 30.0) -> None:
    """Wait until the Daphne processes are idle again (thousands of closing sockets each update
    their presence), so the next phase does not start against their backlog."""
    until = time.monotonic() + most
    before = measure().get("daphne", 0.0)
    while time.monotonic() < until:
        await asyncio.sleep(0.5)
        now = measure().get("daphne", 0.0)
        if now - before < 0.05:  # under 10 % of a core over the last half second
            return
        before = now


def _cpu_delta(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {role: round(after[role] - before.get(role, 0.0), 3) for role in after}


def _cpu_sum(windows: Sequence[dict[str, float]]) -> dict[str, float]:
    total: dict[str, float] = {}
    for cpu in windows:
        for role, value in cpu.items():
            total[role] = round(total.get(role, 0.0) + value, 3)
    return total


@dataclass
class Window:
    """What one measured window cost: the server's CPU by role, its length, the generator's own
    CPU and loop lag, and how many actions or messages it carried."""

    cpu: dict[str, float]
    wall: float
    own: float
    loop_lag: dict[str, float | None]
    count: int
    gc: dict[str, Any] | None = None


async def _measured(measure: Callable[[], dict[str, float]], name: str, seconds: float,
                    drive: Callable[[float], Any], counted: Callable[[], int]) -> Window:
    """Run `drive(until)` for `seconds` with the collector paused, then a second for the last
    frames to arrive; the CPU `measure` saw in between."""
    lag = LoopLag()
    lag.start()
    with collector_paused() as gc_pauses:
        progress(f"{name} window: {seconds} s")
        cpu_before, wall_before, own_before, count_before = measure(), time.monotonic(), _own_cpu(), counted()
        await drive(time.monotonic() + seconds)
        await asyncio.sleep(1.0)  # let the last events arrive before the window closes
        cpu_after, wall, own = measure(), time.monotonic() - wall_before, _own_cpu() - own_before
        loop_lag = await lag.stop()
        gc_report = gc_pauses.stop()
    return Window(_cpu_delta(cpu_after, cpu_before), wall, own, loop_lag, counted() - count_before, gc_report)


class GamePlayers:
    """The game's sockets: two per table, spread over `ports`, open across one or more windows."""

    def __init__(self, tables: list[dict[str, Any]], ports: Sequence[int], address: str = "127.0.0.1") -> None:
        self.tables = tables
        self.totals = Totals()
        self.per_table: list[list[PlayerSocket]] = []
        self.flat: list[PlayerSocket] = []
        self.windows: list[Window] = []
        self.connect: dict[str, Any] = {}
        self.connect_time = 0.0
        for n, table in enumerate(tables):
            socks = []
            for seat, session in enumerate(table["sessions"]):
                port = ports[(2 * n + seat) % len(ports)]
                origin = f"http://{address}" + ("" if port == 80 else f":{port}")  # as a browser writes it
                socks.append(PlayerSocket(f"ws://{address}:{port}/ws/table/{table['id']}/", session, origin,
                                          self.totals))
            self.per_table.append(socks)
            self.flat.extend(socks)

    async def open(self, connect_seconds: float, measure: Callable[[], dict[str, float]]) -> None:
        start = time.monotonic()
        cpu_before, own_before, connect_lag = measure(), _own_cpu(), LoopLag()
        connect_lag.start()
        connect_time = await _connect_all(self.flat, connect_seconds, timeout=20)
        await asyncio.gather(*(asyncio.wait_for(s.ready.wait(), 30) for s in self.flat if s.ws is not None),
                             return_exceptions=True)
        self.connect_time = connect_time
        self.connect = _connect_figures(self.totals.accepted, connect_time, time.monotonic() - start, cpu_before,
                                        measure())
        self.connect["generator"] = {"cpu_seconds": round(_own_cpu() - own_before, 2),
                                     "loop_lag": await connect_lag.stop()}

    async def play(self, pace: float, seconds: float, measure: Callable[[], dict[str, float]],
                   rng: random.Random) -> Window:
        async def drive(until: float) -> None:
            await asyncio.gather(*(_play_table(socks, pace, until, random.Random(rng.random()))
                                   for socks in self.per_table if all(s.ws is not None for s in socks)))

        window = await _measured(measure, "load", seconds, drive, lambda: self.totals.confirmed)
        self.windows.append(window)
        return window

    async def close(self) -> None:
        await asyncio.gather(*(s.close() for s in self.flat))

    def report(self) -> dict[str, Any]:
        totals, cpu = self.totals, _cpu_sum([w.cpu for w in self.windows])
        wall = sum(w.wall for w in self.windows)
        own = sum(w.own for w in self.windows)
        last = self.windows[-1] if self.windows else None
        return {
            "tables": len(self.tables),
            "sockets": len(self.flat),
            "accepted": totals.accepted,
            "dropped_handshakes": totals.dropped_handshakes,
            "connect_seconds": round(self.connect_time, 2),
            "connect": self.connect,
            "window_seconds": round(wall, 2),
            "windows": len(self.windows),
            "actions_sent": totals.sent,
            "actions_confirmed": totals.confirmed,
            "actions_per_second": round(totals.confirmed / wall, 2) if wall else None,
            "unanswered": totals.unanswered,
            "round_trip": latency_summary(totals.rtt_ms),
            "slowest_seconds": slowest_seconds(totals.sent_at, totals.rtt_ms),
            "error_frames": dict(totals.errors),
            "version_gaps": totals.gaps,
            "duplicates": totals.duplicates,
            "closed_by_server": dict(totals.closed_by_server),
            "turn_timeouts": totals.timeouts,
            "computer_moves": totals.computer,
            "event_frame_bytes_mean": self.frame_bytes(),
            "cpu_seconds": cpu,
            "cpu_ms_per_action": {role: round(1000 * v / totals.confirmed, 3) if totals.confirmed else None
                                  for role, v in cpu.items()},
            "generator": {"cpu_seconds": round(own, 2), "cpu_share_of_one_core": round(own / wall, 3) if wall else None,
                          "loop_lag": last.loop_lag if last else None, "gc": last.gc if last else None},
        }

    def frame_bytes(self) -> int:
        sizes = self.totals.frame_bytes
        return round(statistics.fmean(sizes)) if sizes else 0


async def run_load(tables: list[dict[str, Any]], ports: Sequence[int], *, pace: float, seconds: float,
                   connect_seconds: float, measure: Callable[[], dict[str, float]],
                   seed: int = 1, before_play: Callable[[], None] | None = None,
                   address: str = "127.0.0.1") -> dict[str, Any]:
    """Play every table for `seconds` over sockets to `address` (this machine, or nginx on the
    hosts test bed); returns the figures (and the CPU `measure` saw in the window)."""
    players = GamePlayers(tables, ports, address)
    await players.open(connect_seconds, measure)
    if before_play is not None:
        await asyncio.to_thread(before_play)
    await players.play(pace, seconds, measure, random.Random(seed))
    await players.close()
    await _settle(measure)
    return players.report()


# ----------------------------------------------------------------------------- echo baseline


class EchoSockets:
    """The echo baseline's sockets: two per "table", as many as the game's, on the same ports;
    one message per `pace` seconds per table (±50 %), alternating between its sockets, each
    going out through one group_send and coming back padded to the game's mean frame size."""

    def __init__(self, tables: int, ports: Sequence[int], sessions: Sequence[str]) -> None:
        self.tables, self.ports, self.sessions = tables, ports, sessions
        self.conns: list = []
        self.dropped = 0
        self.rtts: list[float] = []
        self.counts = {"sent": 0, "received": 0, "closed_by_server": 0}
        self.windows: list[Window] = []
        self.connect: dict[str, Any] = {}
        self.frame_bytes = 2000
        self.rng = random.Random(7)

    async def open(self, connect_seconds: float, measure: Callable[[], dict[str, float]]) -> None:
        import websockets

        async def open_one(i: int):
            await asyncio.sleep(connect_seconds * i / max(1, 2 * self.tables))
            port = self.ports[i % len(self.ports)]
            try:
                return await websockets.connect(
                    f"ws://127.0.0.1:{port}/ws/echo/", origin=f"http://127.0.0.1:{port}",
                    additional_headers={"Cookie": f"sessionid={self.sessions[i % len(self.sessions)]}"},
                    open_timeout=20, ping_interval=None, compression=None)
            except Exception:  # noqa: BLE001
                self.dropped += 1
                return None

        cpu_before, start = measure(), time.monotonic()
        self.conns = await asyncio.gather(*(open_one(i) for i in range(2 * self.tables)))
        opened = time.monotonic() - start
        self.connect = _connect_figures(sum(1 for c in self.conns if c), opened, opened, cpu_before, measure())
        self.pairs = [(self.conns[2 * i], self.conns[2 * i + 1]) for i in range(self.tables)
                      if self.conns[2 * i] and self.conns[2 * i + 1]]

    async def window(self, pace: float, seconds: float, measure: Callable[[], dict[str, float]]) -> Window:
        pad = max(0, self.frame_bytes - 20)
        counts, rtts = self.counts, self.rtts

        async def one_pair(pair, rng: random.Random, until: float) -> None:
            turn = 0
            while time.monotonic() < until:
                await asyncio.sleep(pace * rng.uniform(0.5, 1.5))
                if time.monotonic() >= until:
                    return
                ws = pair[turn % 2]
                turn += 1
                start = time.perf_counter()
                counts["sent"] += 1
                try:
                    await ws.send(json.dumps({"type": "echo", "pad": pad}))
                    await asyncio.wait_for(ws.recv(), 10)
                except Exception:  # noqa: BLE001 - counted as sent and not received
                    if ws.close_code is not None:
                        counts["closed_by_server"] += 1
                        return
                    continue
                counts["received"] += 1
                rtts.append((time.perf_counter() - start) * 1000)

        async def drive(until: float) -> None:
            await asyncio.gather(*(one_pair(pair, random.Random(self.rng.random()), until) for pair in self.pairs))

        window = await _measured(measure, "echo", seconds, drive, lambda: counts["received"])
        self.windows.append(window)
        return window

    async def close(self) -> None:
        await asyncio.gather(*(ws.close() for ws in self.conns if ws), return_exceptions=True)

    def report(self) -> dict[str, Any]:
        cpu = _cpu_sum([_echo_path(w.cpu) for w in self.windows])
        wall = sum(w.wall for w in self.windows)
        own = sum(w.own for w in self.windows)
        received = self.counts["received"]
        return {
            "sockets": 2 * self.tables,
            "accepted": sum(1 for c in self.conns if c),
            "dropped_handshakes": self.dropped,
            "connect": self.connect,
            "windows": len(self.windows),
            "messages_sent": self.counts["sent"],
            "messages_received": received,
            "closed_by_server": self.counts["closed_by_server"],
            "messages_per_second": round(received / wall, 2) if wall else None,
            "frame_bytes": self.frame_bytes,
            "round_trip": latency_summary(self.rtts),
            "cpu_seconds": cpu,
            "cpu_ms_per_message": {role: _per(v, received) for role, v in cpu.items()},
            "generator": {"cpu_seconds": round(own, 2), "cpu_share_of_one_core": round(own / wall, 3) if wall else None,
                          "loop_lag": self.windows[-1].loop_lag if self.windows else None},
        }


def _echo_path(cpu: dict[str, float]) -> dict[str, float]:
    """An echo touches Daphne, Redis (and nginx when it is in front) only; what the other roles
    spent meanwhile is idle work."""
    return cpu | {"echo_path": round(cpu.get("daphne", 0) + cpu.get("redis", 0) + cpu.get("nginx", 0), 3)}


async def run_interleaved(tables: list[dict[str, Any]], ports: Sequence[int], *, pace: float, seconds: float,
                          rounds: int, connect_seconds: float, measure: Callable[[], dict[str, float]],
                          before_play: Callable[[], None], before_echo: Callable[[], None],
                          echo_paused: Callable[[], Any], seed: int = 1) -> dict[str, Any]:
    """The game and the echo in alternating windows, `rounds` of each, `seconds` in all for each:
    both sets of sockets stay open, and the host's speed, which drifts by a third over minutes on
    these shared machines, weighs on both alike. The echo's frame size is the game's mean so far.
    `before_play` / `before_echo` run before each window (the turn clocks), `echo_paused()` is
    the context the echo runs in (the worker and scheduler stopped)."""
    players = GamePlayers(tables, ports)
    await players.open(connect_seconds, measure)
    sessions = [s for t in tables for s in t["sessions"] if s]
    echo = EchoSockets(len(tables), ports, sessions)
    await echo.open(connect_seconds, measure)
    rng = random.Random(seed)
    per_round = []
    for _ in range(rounds):
        await asyncio.to_thread(before_play)
        played = await players.play(pace, seconds / rounds, measure, rng)
        await asyncio.to_thread(before_echo)
        echo.frame_bytes = players.frame_bytes() or echo.frame_bytes
        with echo_paused():
            echoed = await echo.window(pace, seconds / rounds, measure)
        action = _per(played.cpu.get("server_total"), played.count)
        message = _per(_echo_path(echoed.cpu)["echo_path"], echoed.count)
        per_round.append({"actions": played.count, "cpu_ms_per_action": action, "echo_messages": echoed.count,
                          "echo_cpu_ms_per_message": message,
                          "ratio": round(action / message, 2) if action and message else None,
                          "host_steal": [played.cpu.get("host_steal"), echoed.cpu.get("host_steal")]})
    await players.close()
    await echo.close()
    await _settle(measure)
    return {"load": players.report(), "echo": echo.report(), "rounds": per_round}


def _per(seconds: float | None, count: int) -> float | None:
    return round(1000 * seconds / count, 3) if seconds is not None and count else None


def machine() -> dict[str, Any]:
    """The machine as bench_site records it, with the load average when the run starts."""
    return machine_facts() | {"loadavg_at_start": [round(x, 2) for x in os.getloadavg()]}
