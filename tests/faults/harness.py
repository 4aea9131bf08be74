"""What the fault tests are made of: a PostgreSQL of their own, the production stack, real
WebSocket clients that resynchronise like the table page, and the integrity checks.

Nothing here is mocked. `Postgres` is a real server made with `initdb` under /tmp (so a test may
stop and restart it); `games.benchmarks.stack.Stack` starts Redis, Daphne, Celery and the
scheduler on free ports; `Client` is one player's socket (session cookie, allowed Origin) that
pings every `PING_SECONDS`, asks `hello` with its `last_version` when a `pong` or an event shows
it missed something, and reconnects (to the next Daphne when its own is gone) with a short
back-off; `Table` drives a table with legal moves; `check_integrity` compares every frame each
client got, and the stored game, with a replay of the move log through the engine.
"""

from __future__ import annotations

import asyncio
import glob
import json
import os
import pwd
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from burraco_site.datareach import CLOSE_MOVE_ON  # the Daphne cannot reach its data: go to another
from games.benchmarks.live import next_action
from games.benchmarks.stack import ROOT, Stack, free_port

OUTPUT = ROOT / "test-output"
PING_SECONDS = 2.0
BACKOFF_CAP = 1.5  # the page waits up to 10 s between reconnects; the test client less
# As the page's socket (static/js/lib/socket.js): a ping, hello or action with no answer at all
# within this many seconds means the path to the server is dead; the socket is dropped.
ANSWER_WITHIN = 8.0
ANSWERED = {"ping", "hello", "action"}
# "A few seconds": the longest a table may stand still once the fault is over (the machine these
# run on is small and shared: override with FAULTS_RECOVERY_LIMIT).
RECOVERY_LIMIT = float(os.environ.get("FAULTS_RECOVERY_LIMIT", "8"))
# Waits that are not recovery: the stack starting, tables getting under way before a fault, the
# eight moves each table must make after it (its stand-stills are what RECOVERY_LIMIT bounds).
# Generous, for a small machine that is busy with other work.
SETUP_SECONDS = 60
PLAY_ON_SECONDS = 60


def prerequisite(ok: bool, message: str) -> None:
    """A missing program or service: a failure in CI (CI=true), an explicit skip elsewhere."""
    if ok:
        return
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(f"fault tests: {message}", pytrace=False)
    pytest.skip(f"fault tests need it: {message}")


# ----------------------------------------------------------------------------- PostgreSQL


def pg_bindir() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True):
        return Path(candidate).parent
    return None


class Postgres:
    """A PostgreSQL server of the test's own: data directory under /tmp, a free port, its
    socket in /tmp, trust authentication for user postgres. As root, the server runs as the
    postgres user (initdb and postgres refuse root)."""

    def __init__(self) -> None:
        bindir = pg_bindir()
        prerequisite(bindir is not None, "PostgreSQL's initdb was not found (Debian: apt-get install postgresql)")
        self.bindir = bindir
        self.as_user: str | None = None
        if os.geteuid() == 0:
            try:
                pwd.getpwnam("postgres")
            except KeyError:
                prerequisite(False, "running as root, but there is no postgres user to run initdb as")
            self.as_user = "postgres"
        self.root = Path(tempfile.mkdtemp(prefix="burraco-faults-pg-", dir="/tmp"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = free_port()
        if self.as_user:
            shutil.chown(self.root, self.as_user, self.as_user)

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self.as_user:
            command = ["runuser", "-u", self.as_user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd="/tmp")
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}\n"
                               f"{self.log.read_text() if self.log.exists() else ''}")
        return done

    def init(self) -> Postgres:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--locale=C", "--no-sync", "--no-instructions")
        return self

    def start(self) -> None:
        options = (f"-p {self.port} -k /tmp -c listen_addresses=127.0.0.1 -c max_connections=300 "
                   "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def execute(self, sql: str, database: str = "postgres") -> None:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql)

    def close(self) -> None:
        try:
            if self.running():
                self.stop("immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


def migrate(database_url: str) -> None:
    env = dict(os.environ, DATABASE_URL=database_url, DJANGO_SETTINGS_MODULE="burraco_site.settings")
    env.pop("REDIS_URL", None)
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"migrate failed:\n{done.stdout}\n{done.stderr}")


class Db:
    """Short-lived psycopg connections to the stack's database (a test may restart the server
    between two calls), for what the test reads and, before a fault, adjusts."""

    def __init__(self, url: str) -> None:
        self.url = url

    _conn = None  # the connection of a `snapshot` being read

    def rows(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        import psycopg

        if self._conn is not None:
            cursor = self._conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []
        with psycopg.connect(self.url, autocommit=True, connect_timeout=5) as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []

    def snapshot(self, game_id: int) -> tuple[dict[str, Any], list[dict[str, Any]], dict[int, dict[str, Any]]]:
        """The game, its moves and its hands as of one moment (one REPEATABLE READ transaction),
        so a move made while they are read cannot make them disagree."""
        import psycopg

        with psycopg.connect(self.url, connect_timeout=5) as conn:
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            with conn.transaction():
                saved, self._conn = getattr(self, "_conn", None), conn
                try:
                    return self.game(game_id), self.moves(game_id), self.hands(game_id)
                finally:
                    self._conn = saved

    def game(self, game_id: int) -> dict[str, Any]:
        cols = ["id", "version", "state", "hand_number", "finished", "to_move", "turn_deadline", "due_at"]
        row = self.rows(f"SELECT {', '.join(cols)} FROM games_game WHERE id = %s", [game_id])[0]
        return dict(zip(cols, row, strict=True))

    def moves(self, game_id: int) -> list[dict[str, Any]]:
        cols = ["seq", "hand_number", "seat", "action", "actor", "created_at"]
        return [dict(zip(cols, r, strict=True)) for r in self.rows(
            f"SELECT {', '.join(cols)} FROM games_move WHERE game_id = %s ORDER BY seq, id", [game_id])]

    def hands(self, game_id: int) -> dict[int, dict[str, Any]]:
        return {n: {"deal": deal, "score": score} for n, deal, score in self.rows(
            "SELECT number, deal, score FROM games_hand WHERE game_id = %s", [game_id])}

    def seats(self, table_id: int) -> list[dict[str, Any]]:
        cols = ["position", "user_id", "bot_level", "covered_by_computer", "consecutive_timeouts"]
        return [dict(zip(cols, r, strict=True)) for r in self.rows(
            f"SELECT {', '.join(cols)} FROM games_seat WHERE table_id = %s ORDER BY position", [table_id])]

    def computer_to_move(self, tables: list[Table]) -> list[int]:
        """The tables among `tables` where a computer seat is to move (its task is queued, and
        held unacknowledged by the worker through the move's pause)."""
        return [r[0] for r in self.rows(
            "SELECT g.table_id FROM games_game g JOIN games_seat s ON s.table_id = g.table_id "
            "AND s.position = g.to_move WHERE g.table_id = ANY(%s) AND s.bot_level <> ''", [[t.id for t in tables]])]

    def versions(self, game_ids: list[int]) -> dict[int, int]:
        return dict(self.rows("SELECT id, version FROM games_game WHERE id = ANY(%s)", [game_ids]))


# ----------------------------------------------------------------------------- the stack


def make_tables(stack: Stack, *specs: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Tables made in a Django process with the stack's settings (tests/faults/setup_tables.py):
    one list per spec ({"count", "prefix", "computer", "draw_seconds", "play_seconds", ...})."""
    done = subprocess.run([sys.executable, "-m", "tests.faults.setup_tables", json.dumps(list(specs))], cwd=ROOT,
                          env=stack.env(), capture_output=True, text=True, timeout=120)
    line = next((x for x in done.stdout.splitlines() if x.startswith("TABLES ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"setting up the tables failed:\n{done.stdout}\n{done.stderr}")
    return json.loads(line[len("TABLES "):])


def alive(process) -> bool:
    return process is not None and process.poll() is None


class Supervisor:
    """What systemd (`Restart=always`, `RestartSec=1`, deploy/systemd/) or a Procfile platform
    does for the Celery worker: it polls the worker process, and when it has died starts a new
    one `restart_seconds` later (again if that one dies before it is ready: Redis may still be
    down). Each restart is a new process name (worker-1, worker-2, ...), so the dead one's log
    is kept. `deaths` and `ready` are the wall-clock times of each death and each restarted
    worker's "ready"."""

    def __init__(self, stack: Stack, name: str = "worker-0", restart_seconds: float = 1.0) -> None:
        self.stack = stack
        self.name = name
        self.index = int(name.rsplit("-", 1)[1])
        self.restart_seconds = restart_seconds
        self.deaths: list[float] = []
        self.ready: list[float] = []
        self.task: asyncio.Task | None = None

    def start(self) -> Supervisor:
        self.task = asyncio.create_task(self._run())
        return self

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    @property
    def restarting(self) -> bool:
        """A worker died and its replacement is not ready yet."""
        return len(self.deaths) > len(self.ready)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(0.2)
            if alive(self.stack.processes.get(self.name)):
                continue
            self.deaths.append(time.time())
            while True:
                await asyncio.sleep(self.restart_seconds)
                self.index += 1
                self.name = f"worker-{self.index}"
                await in_thread(self.stack.start_worker, self.index, wait=False)
                try:
                    await in_thread(self.stack.wait_worker, self.name, 120)
                except RuntimeError:
                    continue  # it died before it was ready: start another
                self.ready.append(time.time())
                break


# ----------------------------------------------------------------------------- clients


class Client:
    """One seated player's socket, behaving like the table page (static/js/table.js) with a
    shorter ping: `hello` with `last_version` on every (re)connect and whenever an event skips a
    version or a `pong` names a newer version; missed events (`resync: true`) or a snapshot
    bring it back. Every frame is kept with the time it came, for the checks."""

    def __init__(self, table_id: int, seat: int, session: str, ports: list[int], first: int,
                 host: str = "127.0.0.1", ping_seconds: float = PING_SECONDS) -> None:
        self.table_id = table_id
        self.host = host  # the Daphnes' address, or nginx's on the hosts test bed
        self.ping_seconds = ping_seconds
        self.quiet_until = 0.0  # no ping before then
        self.answer_due: float | None = None  # the watchdog: monotonic time by which a frame must come
        self.silent_drops = 0
        self.seat = seat
        self.session = session
        self.ports = ports
        self.port_index = first
        self.version: int | None = None
        self.view: dict[str, Any] | None = None
        self.hand_number: int | None = None
        self.deadline: str | None = None
        self.finished = False
        self.frames: list[tuple[float, dict[str, Any]]] = []
        self.applied: list[tuple[float, int]] = []  # (when, version) each time this client moved on
        self.attempts: list[dict[str, Any]] = []
        self.ws = None
        self.changed = asyncio.Event()
        self.stopping = False
        self.task: asyncio.Task | None = None
        self.hellos = 0
        self.hello_times: list[float] = []
        self.sent_at: dict[int, float] = {}  # ref -> when the action went
        self.answered_in: dict[int, tuple[str, float]] = {}  # ref -> (error code, seconds to the answer)
        self.gaps = 0
        self.stale_frames = 0
        self.last_hello = 0.0
        self.refs = 0
        self.replies: dict[int, dict[str, Any]] = {}
        self.presence: list[dict[str, Any]] | None = None

    # -- connection

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        self.stopping = True
        if self.ws is not None:
            await self.ws.close()
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)

    async def drop(self) -> None:
        """Close this socket as a page does when it is reloaded; the client reconnects."""
        if self.ws is not None:
            await self.ws.close()

    @property
    def connected(self) -> bool:
        return self.ws is not None

    async def _run(self) -> None:
        import websockets
        from websockets.exceptions import InvalidStatus

        retry = 0
        while not self.stopping:
            port = self.ports[self.port_index % len(self.ports)]
            attempt: dict[str, Any] = {"t": time.time(), "port": port, "open": False, "answered": False}
            self.attempts.append(attempt)
            try:
                ws = await websockets.connect(
                    f"ws://{self.host}:{port}/ws/table/{self.table_id}/",
                    origin=f"http://{self.host}" + ("" if port == 80 else f":{port}"),  # as a browser writes it
                    additional_headers={"Cookie": f"sessionid={self.session}"}, open_timeout=5,
                    ping_interval=None, close_timeout=1, max_size=2 ** 22, compression=None)
            except InvalidStatus as exc:
                attempt["status"] = exc.response.status_code
                ws = None
            except Exception as exc:  # noqa: BLE001 - refused, reset, timed out: all a failed attempt
                attempt["error"] = type(exc).__name__
                ws = None
            if ws is not None:
                attempt["open"] = True
                self.ws = ws
                self.answer_due = None
                pinger = asyncio.create_task(self._ping(ws))
                watchdog = asyncio.create_task(self._watch(ws))
                try:
                    self._hello(force=True)
                    async for text in ws:
                        self.answer_due = None
                        self._on_frame(json.loads(text), attempt)
                except Exception:  # noqa: BLE001 - the close code is recorded below
                    pass
                finally:
                    pinger.cancel()
                    watchdog.cancel()
                    self.ws = None
                attempt["closed"] = time.time()
                attempt["close_code"] = ws.close_code
                self.changed.set()
                if attempt["answered"] or ws.close_code == CLOSE_MOVE_ON:
                    retry = 0  # as the page: a server cut from its data sends it on at once
            if self.stopping:
                return
            if not attempt["answered"]:
                self.port_index += 1  # that server is gone or not answering: try the next one
            await asyncio.sleep(min(BACKOFF_CAP, 0.2 * 2 ** retry) * random.uniform(0.8, 1.2))
            retry += 1

    async def _ping(self, ws) -> None:
        while True:
            await asyncio.sleep(self.ping_seconds)
            if time.time() < self.quiet_until:
                continue  # the test measures what the server does by itself meanwhile
            self._expect_answer("ping")
            try:
                await ws.send(json.dumps({"type": "ping"}))
            except Exception:  # noqa: BLE001 - the reader sees the close
                return

    def _expect_answer(self, kind: str | None) -> None:
        if kind in ANSWERED and self.answer_due is None:
            self.answer_due = time.monotonic() + ANSWER_WITHIN

    async def _watch(self, ws) -> None:
        """Drop the socket when what the server always answers got no answer in time."""
        while True:
            await asyncio.sleep(0.25)
            if self.answer_due is not None and time.monotonic() > self.answer_due:
                self.silent_drops += 1
                ws.transport.abort()  # no close handshake over a dead path
                return

    def _send_now(self, frame: dict[str, Any]) -> bool:
        ws = self.ws
        if ws is None:
            return False
        self._expect_answer(frame.get("type"))
        asyncio.create_task(self._send(ws, frame))
        return True

    @staticmethod
    async def _send(ws, frame: dict[str, Any]) -> None:
        try:
            await ws.send(json.dumps(frame))
        except Exception:  # noqa: BLE001 - the reader sees the close
            pass

    def _hello(self, force: bool = False) -> None:
        # The page sends one per gap; a short pause between two keeps the token bucket happy.
        if not force and time.monotonic() - self.last_hello < 0.5:
            return
        self.last_hello = time.monotonic()
        self.hellos += 1
        self.hello_times.append(time.time())
        self._send_now({"type": "hello", "last_version": self.version})

    # -- frames

    def _moved_on(self, now: float) -> None:
        self.applied.append((now, self.version))

    def _on_frame(self, frame: dict[str, Any], attempt: dict[str, Any]) -> None:
        now = time.time()
        self.frames.append((now, frame))
        kind = frame.get("type")
        version = frame.get("version")
        if kind in ("snapshot", "event"):
            attempt.setdefault("answered_at", now)
            attempt["answered"] = True
        if kind == "event":  # every event this socket got, in order (each once: none repeated)
            attempt.setdefault("events", []).append(version)
        if kind == "snapshot":
            if version is not None:
                self.version = version
                self.view = frame.get("view")
                self.hand_number = frame.get("hand_number")
                self.deadline = frame.get("deadline")
                self.finished = bool(frame.get("finished"))
                self._moved_on(now)
            self.presence = frame.get("presence")
        elif kind == "event":
            if self.version is None or version == self.version + 1:
                self.version = version
                self.view = frame.get("view")
                self.hand_number = frame.get("hand_number")
                self.deadline = frame.get("deadline")
                self._moved_on(now)
            elif version > self.version + 1:
                self.gaps += 1
                self._hello()
            else:
                self.stale_frames += 1  # already applied (a resync and the live frame crossed)
        elif kind == "hand_over":
            if isinstance(version, int) and (self.version is None or version > self.version):
                self.version = version
                self._moved_on(now)
        elif kind == "match_over":
            self.finished = True
        elif kind == "clock":
            self.deadline = frame.get("deadline")
        elif kind == "presence":
            self.presence = frame.get("seats")
        elif kind == "pong":
            if isinstance(version, int) and (self.version is None or version > self.version):
                self._hello()
            elif self.view and self.view.get("hand_over") and not self.finished:
                self._hello()  # the next hand's snapshot went missing
        if kind == "error" and isinstance(frame.get("ref"), int):
            self.replies[frame["ref"]] = frame
            if frame["ref"] in self.sent_at:
                self.answered_in[frame["ref"]] = (frame.get("code"), now - self.sent_at[frame["ref"]])
        self.changed.set()

    # -- playing

    async def act(self, action: dict[str, Any], timeout: float = 3.0) -> str:
        """Send `action` for the version this client has; "ok" once it has moved past it, else
        "error:<code>", "closed" or "timeout"."""
        before = self.version
        self.refs += 1
        ref = self.refs
        self.sent_at[ref] = time.time()
        if not self._send_now({"type": "action", "version": before, "ref": ref, "action": action}):
            return "closed"
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            if ref in self.replies:
                return f"error:{self.replies.pop(ref)['code']}"
            if self.version is not None and before is not None and self.version > before:
                return "ok"
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), max(0.01, until - time.monotonic()))
            except TimeoutError:
                break
        return "timeout"

    def events(self) -> list[tuple[float, dict[str, Any]]]:
        return [(t, f) for t, f in self.frames if f.get("type") == "event"]

    def errors(self, since: float = 0.0) -> Counter:
        return Counter(f.get("code") for t, f in self.frames if f.get("type") == "error" and t >= since)


@dataclass
class Table:
    """A table in play and the clients of its seated people."""

    id: int
    game_id: int
    clients: list[Client]
    pace: float = 0.3
    paused: bool = False
    lazy: bool = False  # each seat lets every other turn of its own run out (timer tests)
    outcomes: Counter = field(default_factory=Counter)
    task: asyncio.Task | None = None
    busy: bool = False  # an action of the driver is in flight

    def mover(self) -> Client | None:
        for client in self.clients:
            if client.connected and client.view and client.view.get("my_turn") and not client.finished:
                return client
        return None

    def newest(self) -> int:
        return max((c.version or 0) for c in self.clients)

    def moved_at(self) -> list[tuple[float, int]]:
        """(when, version) the first time any client of the table reached each version."""
        first: dict[int, float] = {}
        for client in self.clients:
            for t, v in client.applied:
                if v not in first or t < first[v]:
                    first[v] = t
        return sorted((t, v) for v, t in first.items())

    def _idles_now(self, client: Client) -> bool:
        """Lazy mode: the seat lets this turn run out if it played its own previous turn."""
        if client.view and client.view.get("phase") != "draw":
            return False  # mid-turn (after a draw): finish it
        ends = [f for _t, f in client.events() if f.get("seat") == client.seat
                and (f.get("action") or {}).get("type") == "discard"]
        return not ends or ends[-1].get("actor") != "timeout"

    async def drive(self, stop: asyncio.Event, rng: random.Random) -> None:
        while not stop.is_set():
            await asyncio.sleep(self.pace * rng.uniform(0.6, 1.4))
            if self.paused or stop.is_set():
                continue
            mover = self.mover()
            if mover is None:
                continue
            if self.lazy and self._idles_now(mover):
                continue
            action = next_action(mover.view)
            if action is None:
                continue
            self.busy = True
            try:
                outcome = await mover.act(action)
            finally:
                self.busy = False
            self.outcomes[outcome.split(":")[0] if outcome.startswith("error") else outcome] += 1
            if outcome.startswith("error"):
                self.outcomes[outcome] += 1


async def pause_with_deadline(db: Db, table: Table, seconds: float) -> None:
    """Stop playing `table` and let its turn run out `seconds` from now (the stored deadline and
    due time are moved; the table's timers are left as they are for the other turns)."""
    table.paused = True
    await wait_for(lambda: not table.busy, 10, f"table {table.id}'s last action answered")
    await in_thread(db.rows, "UPDATE games_game SET turn_deadline = now() + %s * interval '1 second', "
                             "due_at = now() + %s * interval '1 second' WHERE id = %s",
                    [seconds, seconds, table.game_id])


async def clock_told(table: Table, game: dict[str, Any], timeout: float = 10) -> None:
    """Every client of `table` got the `clock` frame of the outage with the stored deadline (the
    scheduler sends it again CLOCK_RETELL_SECONDS later, for sockets that missed the first)."""
    deadline = game["turn_deadline"]

    def told(client: Client) -> bool:
        from datetime import datetime

        return any(f.get("type") == "clock" and f.get("reason") == "outage"
                   and datetime.fromisoformat(f["deadline"]) == deadline for _t, f in client.frames)

    await wait_for(lambda: all(told(c) for c in table.clients), timeout,
                   f"the clock frame with the new deadline {deadline} at table {table.id}")


def clients_for(tables: list[dict[str, Any]], ports: list[int], host: str = "127.0.0.1") -> list[Table]:
    """Each table's seat 0 on the first Daphne, seat 1 on the next (so both processes serve
    every table); computer seats have no client."""
    out = []
    for spec in tables:
        clients = [Client(spec["id"], seat, session, ports, seat % len(ports), host)
                   for seat, session in enumerate(spec["sessions"]) if session]
        out.append(Table(spec["id"], spec["game_id"], clients))
    return out


class Play:
    """Every table's clients connected and its driver playing until `stop()`."""

    def __init__(self, tables: list[Table], seed: int = 11) -> None:
        self.tables = tables
        self.halt = asyncio.Event()
        self.rng = random.Random(seed)

    @property
    def clients(self) -> list[Client]:
        return [c for t in self.tables for c in t.clients]

    async def start(self, timeout: float = SETUP_SECONDS) -> None:
        for client in self.clients:
            client.start()
        await wait_for(lambda: all(c.version is not None for c in self.clients), timeout,
                       "every client connected and got its snapshot")
        for table in self.tables:
            table.task = asyncio.create_task(table.drive(self.halt, random.Random(self.rng.random())))

    async def stop_driving(self) -> None:
        self.halt.set()
        await asyncio.gather(*(t.task for t in self.tables if t.task), return_exceptions=True)

    async def close(self) -> None:
        await self.stop_driving()
        await asyncio.gather(*(c.stop() for c in self.clients), return_exceptions=True)


async def wait_for(predicate, timeout: float, what: str, every: float = 0.1):
    """Poll `predicate` (sync) until it is truthy; fail with `what` after `timeout` seconds."""
    until = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > until:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for: {what}")
        await asyncio.sleep(every)


async def in_thread(func, *args, **kwargs):
    """A blocking call (a process start, a SQL query) off the clients' event loop."""
    return await asyncio.to_thread(func, *args, **kwargs)


async def settle(play: Play, db: Db, timeout: float = 20, quiet: float = 2.5) -> dict[int, int]:
    """After the drivers stopped: wait until the games stand still (no version changed for
    `quiet` seconds: the computer's last move is in) and every client has the stored version
    of its game (through its pings and hellos, as a page would). Returns the versions."""
    versions: dict[int, int] = {}
    stable_since, last = time.monotonic(), None

    def synced() -> bool:
        return all(c.version == versions.get(t.game_id) for t in play.tables for c in t.clients)

    until = time.monotonic() + timeout
    while True:
        versions = await in_thread(db.versions, [t.game_id for t in play.tables])
        if versions != last:
            stable_since, last = time.monotonic(), versions
        if synced() and time.monotonic() - stable_since >= quiet:
            return versions
        if time.monotonic() > until:
            behind = {f"table {t.id} seat {c.seat}": (c.version, versions.get(t.game_id))
                      for t in play.tables for c in t.clients if c.version != versions.get(t.game_id)}
            raise AssertionError(f"clients still behind the stored game after {timeout:.0f} s: {behind}")
        await asyncio.sleep(0.3)


# ----------------------------------------------------------------------------- measures


def recovery(tables: list[Table], since: float, until: float | None = None) -> dict[str, Any]:
    """How long after `since` (the end of the fault, wall clock) each table moved again, and
    the longest stand-still of any table from then on (between `since` and the first move, or
    between two moves; up to `until` if given)."""
    first: dict[int, float] = {}
    stall, worst = 0.0, ""
    worst_at = None
    for table in tables:
        moved = [(t, v) for t, v in table.moved_at() if t >= since and (until is None or t < until)]
        if not moved:
            first[table.id] = float("inf")
            stall, worst = float("inf"), f"table {table.id} never moved"
            continue
        first[table.id] = moved[0][0] - since
        for (a, _va), (b, vb) in zip([(since, None), *moved], moved, strict=False):
            if b - a > stall:
                stall, worst = b - a, f"table {table.id}: v{vb} came {b - a:.2f} s after {a - since:.2f} s"
                worst_at = (table, vb)
    return {"recovery_seconds": round(max(first.values()), 2) if first else None,
            "per_table": {k: round(v, 2) for k, v in first.items()}, "max_stall_seconds": round(stall, 2),
            "worst_stall": worst, "worst_at": worst_at}


def moves_around(db: Db, table: Table, version: int, since: float) -> list[str]:
    """The log around a stall, for the failure message: seq, actor, seat, action, time."""
    return [f"v{m['seq']} {m['actor']} seat {m['seat']} {m['action'].get('type')} at "
            f"{m['created_at'].timestamp() - since:.2f} s" for m in db.moves(table.game_id)
            if version - 3 <= m["seq"] <= version + 1]


def close_codes(clients: list[Client]) -> dict[str, int]:
    """How the clients' sockets ended, by close code (1006: the connection just dropped)."""
    return dict(Counter(str(a.get("close_code")) for c in clients for a in c.attempts if "closed" in a))


def repeated_events(clients: list[Client]) -> list[str]:
    """Every event a socket got that was not newer than one it had got before (the same event
    twice, or one out of order): each socket's events must have strictly increasing versions."""
    out = []
    for client in clients:
        for number, attempt in enumerate(client.attempts):
            events = attempt.get("events", [])
            out += [f"table {client.table_id} seat {client.seat} socket {number}: v{b} after v{a}"
                    for a, b in zip(events, events[1:], strict=False) if b <= a]
    return out


def caught_up(tables: list[Table], versions: dict[int, int], since: float) -> dict[str, Any]:
    """How long after `since` each client had the game's version of `since` (`versions`, by game),
    and whether it got there by itself asking (`hello`) or because the server sent it."""
    seconds, asked = [], []
    for table in tables:
        target = versions[table.game_id]
        for client in table.clients:
            at = next((t for t, v in client.applied if v is not None and v >= target and t >= since - 60), None)
            if at is None or at <= since:
                continue  # it had it already when the fault ended
            seconds.append(at - since)
            if any(since <= h <= at for h in client.hello_times):
                asked.append(f"table {table.id} seat {client.seat}")
    return {"behind": len(seconds), "seconds": round(max(seconds), 2) if seconds else 0.0, "asked": asked}


def unavailable_answers(clients: list[Client], since: float) -> list[float]:
    """Seconds from each action sent after `since` to its `unavailable` answer."""
    return [seconds for c in clients for ref, (code, seconds) in c.answered_in.items()
            if code == "unavailable" and c.sent_at[ref] >= since]


def error_codes(clients: list[Client], since: float = 0.0) -> dict[str, int]:
    return dict(sum((c.errors(since) for c in clients), start=Counter()))


# ----------------------------------------------------------------------------- integrity


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def check_integrity(db: Db, tables: list[Table], *, allow_timeouts: bool = False) -> dict[str, int]:
    """The move log of each game is contiguous (Move.seq = 1..version, one row each), replays
    through the engine from each hand's deal (every move legal, every finished hand's score as
    recorded), and ends in exactly the stored state; every frame every client got (events, the
    missed events of a resync, snapshots) is the log's move and the view of the replayed
    position for that client's seat. Returns counts; raises AssertionError with what differs."""
    from games.engine import Game as EngineGame
    from games.engine import replay
    from games.live.frames import engine_view, public_action

    problems: list[str] = []
    moves_checked = frames_checked = 0
    timeouts = 0
    timed_out: list[str] = []
    for table in tables:
        game, moves, hands = db.snapshot(table.game_id)
        seqs = [m["seq"] for m in moves]
        if seqs != list(range(1, game["version"] + 1)):
            dupes = [s for s, n in Counter(seqs).items() if n > 1]
            missing = sorted(set(range(1, game["version"] + 1)) - set(seqs))
            extra = sorted(set(seqs) - set(range(1, game["version"] + 1)))
            problems.append(f"table {table.id}: move log is not 1..{game['version']} "
                            f"(duplicated {dupes[:10]}, missing {missing[:10]}, beyond {extra[:10]})")
            continue
        timeouts += sum(1 for m in moves if m["actor"] == "timeout")
        timed_out.extend(f"table {table.id} v{m['seq']} at {m['created_at'].timestamp():.2f}"
                         for m in moves if m["actor"] == "timeout")
        by_seq = {m["seq"]: m for m in moves}
        # Which positions (hand, version) the clients' frames were built from, per seat.
        wanted: dict[tuple[int, int], set[int]] = {}
        frames: list[tuple[Client, dict[str, Any]]] = []
        for client in table.clients:
            for _t, frame in client.frames:
                if frame.get("type") in ("event", "snapshot") and frame.get("version") is not None:
                    frames.append((client, frame))
                    wanted.setdefault((frame["hand_number"], frame["version"]), set()).add(client.seat)
        views: dict[tuple[int, int, int], Any] = {}
        last_engine = None
        for number in sorted(hands):
            engine = replay(hands[number]["deal"], [])
            start = max([m["seq"] for m in moves if m["hand_number"] < number], default=0)
            for seat in wanted.get((number, start), ()):
                views[(number, start, seat)] = _json(engine_view(engine, seat, start))
            for move in (m for m in moves if m["hand_number"] == number):
                try:
                    if engine.to_move != move["seat"]:
                        raise ValueError(f"seat {move['seat']} moved but seat {engine.to_move} was to move")
                    engine.apply(move["seat"], move["action"])
                except Exception as exc:  # noqa: BLE001 - IllegalMove or the seat check
                    problems.append(f"table {table.id}: move {move['seq']} does not replay: {exc}")
                    break
                moves_checked += 1
                for seat in wanted.get((number, move["seq"]), ()):
                    views[(number, move["seq"], seat)] = _json(engine_view(engine, seat, move["seq"]))
            if number < game["hand_number"]:
                if not engine.hand_over:
                    problems.append(f"table {table.id}: hand {number} is not over after its moves")
                elif hands[number]["score"] is not None and _json(engine.score()) != hands[number]["score"]:
                    problems.append(f"table {table.id}: hand {number} scores differently on replay")
            last_engine = engine
        if last_engine is not None and not game["finished"]:
            stored = _json(EngineGame.from_dict(game["state"]).to_dict())
            if stored != _json(last_engine.to_dict()):
                problems.append(f"table {table.id}: stored state differs from the replay of hand "
                                f"{game['hand_number']}'s deal and moves")
        for client, frame in frames:
            version, number = frame["version"], frame["hand_number"]
            if frame["type"] == "event":
                move = by_seq.get(version)
                if move is None:
                    problems.append(f"table {table.id} seat {client.seat}: event v{version} is not in the log")
                    continue
                expected = {"seat": move["seat"], "actor": move["actor"], "hand_number": move["hand_number"],
                            "action": _json(public_action(move["action"]))}
                got = {k: frame.get(k) for k in expected}
                if got != expected:
                    problems.append(f"table {table.id} seat {client.seat}: event v{version} says {got}, "
                                    f"the log {expected}")
            view = views.get((number, version, client.seat))
            if view is None or frame.get("view") != view:
                problems.append(f"table {table.id} seat {client.seat}: {frame['type']} v{version} "
                                f"(hand {number}) shows another position than the replayed log")
            frames_checked += 1
    if timeouts and not allow_timeouts:
        problems.append(f"{timeouts} moves were played by the turn timer (actor timeout): {timed_out[:10]}")
    assert not problems, "integrity:\n" + "\n".join(problems[:30])
    return {"moves_checked": moves_checked, "frames_checked": frames_checked, "timeouts": timeouts}


def no_cover(db: Db, tables: list[Table]) -> None:
    covered = [(t.id, s["position"]) for t in tables for s in db.seats(t.id)
               if s["user_id"] is not None and s["covered_by_computer"]]
    assert not covered, f"seats of connected players handed to the computer: {covered}"


async def checked(db: Db, tables: list[Table], *, allow_timeouts: bool = False) -> dict[str, int]:
    """After a fault, every test's two checks on its tables: the logs, states and frames agree
    (`check_integrity`, whose counts it returns) and no connected player's seat went to the computer."""
    integrity = await in_thread(check_integrity, db, tables, allow_timeouts=allow_timeouts)
    await in_thread(no_cover, db, tables)
    return integrity


# ----------------------------------------------------------------------------- report


REPORTS: list[dict[str, Any]] = []  # this session's, for the summary at the end (conftest.py)


def report(name: str, **figures: Any) -> dict[str, Any]:
    """A fault's figures: one JSON line on stdout (seen with pytest -s), a file
    test-output/faults/<name>.json, and a line in the summary pytest prints at the end of the
    run (recovery, longest stand-still, moves checked). Written before the test's assertions,
    so a failing run reports what it measured too."""
    line = {"fault": name, "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **figures}
    print("FAULT " + json.dumps(line, default=str), flush=True)
    folder = OUTPUT / "faults"
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in name).strip("-")
    (folder / f"{safe}.json").write_text(json.dumps(line, indent=2, default=str) + "\n")
    REPORTS.append(line)
    return line


def summary_line(line: dict[str, Any]) -> str:
    stall = line.get("max_stall_seconds")
    return (f"{line['fault']}: recovery {line.get('recovery_seconds')} s, longest stand-still "
            f"{'-' if stall is None else stall} s, moves checked {line.get('moves_checked')}"
            + (f" ({line['note']})" if line.get("note") else ""))
